"""The two ops between a rank-0 tensor and the scalar it holds, where control flow needs a
scalar (``scf.for``'s bounds, ``scf.if``'s condition) or makes one (a loop's counter):

- ``mg.item %t : tensor<i64> -> i64``: the one element of a rank-0 tensor (NumPy's
  ``x.item()``, upstream's ``tensor.extract`` with no indices);
- ``mg.from_item %s : i64 -> tensor<i64>``: a rank-0 tensor holding ``%s`` (upstream's
  ``tensor.from_elements``);
- ``mg.size %x {axes = array<i64: 0, 1>} : tensor<?x3xf64> -> tensor<i64>``: the number of
  elements along ``axes`` (the product of their sizes) when the program runs, a rank-0
  ``i64`` tensor: ``dim(x, 0)`` and ``numel(x)`` of ``?`` sizes, a ``mean``'s count.

Every other mg op works on tensors of elements only; these are the border.
"""

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from mg_xdsl.dialects.mg.base import MOVES, MgOp, shape_of, tensor_type, tensor_type_of


@irdl_op_definition
class ItemOp(MgOp):
    """The element of a rank-0 tensor, as a scalar of its element type."""

    name = "mg.item"
    input = operand_def(TensorType)
    result = result_def(AnyAttr())
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[tensor_type_of(input).element_type])

    def verify_(self) -> None:
        if shape_of(self.input.type) != ():
            raise self.fail("the input must be a rank-0 tensor (one element)")
        if self.result.type != tensor_type_of(self.input).element_type:
            raise self.fail("the result must be of the input's element type")


@irdl_op_definition
class FromItemOp(MgOp):
    """A rank-0 tensor holding a scalar (of the tensor's element type)."""

    name = "mg.from_item"
    input = operand_def(AnyAttr())
    result = result_def(TensorType)
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, element: Attribute | None = None):
        super().__init__(operands=[input], result_types=[tensor_type((), element or input.type)])

    def verify_(self) -> None:
        if shape_of(self.result.type) != ():
            raise self.fail("the result must be a rank-0 tensor (one element)")
        if self.input.type != tensor_type_of(self.result).element_type:
            raise self.fail("the input must be of the result's element type")


@irdl_op_definition
class SizeOp(MgOp):
    """The number of elements of ``input`` along ``axes``, a rank-0 ``i64`` tensor."""

    name = "mg.size"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axes = prop_def(DenseArrayBase.constr(i64))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axes: Sequence[int]):
        super().__init__(
            operands=[input],
            result_types=[tensor_type((), i64)],
            properties={"axes": DenseArrayBase.from_list(i64, list(axes))},
        )

    def verify_(self) -> None:
        if self.result.type != tensor_type((), i64):
            raise self.fail("the result must be a rank-0 tensor of i64")
        rank = len(shape_of(self.input.type))
        axes = self.axes.get_values()
        if any(not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes):
            raise self.fail(f"axes must be distinct axes of the input (0 to {rank - 1}), got {list(axes)}")
