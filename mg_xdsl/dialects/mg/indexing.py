"""The indexing ops: rows by ids (``index``, ``index_add``), elements along an axis
(``gather``, ``scatter_add``), one element (``extract``).
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, TensorType, i64
from xdsl.ir import OpResult, SSAValue
from xdsl.irdl import Operand, ParsePropInAttrDict, irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import Shape, ShapeError, fmt_shape
from mg_xdsl.dialects.mg.base import (
    MOVES,
    Differentiable,
    LoweredElementTypes,
    MgOp,
    shape_of,
    tensor_type,
    tensor_type_of,
)
from mg_xdsl.dialects.mg.scalar import binary_arith, narrowed, widened

if TYPE_CHECKING:
    from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder

Adjoints = Sequence[SSAValue | None]


class IndexingOp(MgOp):
    """Base of the ops that read or write a tensor at positions held in another (``mg.index``,
    ``mg.index_add``, ``mg.gather``, ``mg.scatter_add``): those positions are integers,
    checked to be in range when the program runs."""

    def check_ids(self, ids: SSAValue, what: str) -> None:
        """``ids`` (``what`` the messages call them) are integers an index is made of."""
        element = tensor_type_of(ids).element_type
        if element not in element_types.INDICES:
            raise self.fail(f"{what} must be a tensor of i32 or i64, got {element}")

    def check_shape(self, value: SSAValue, want: Shape, what: str) -> None:
        """``value``'s shape can be ``want`` (a ``?`` matches any size)."""
        got = shape_of(value.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"{what} must be {fmt_shape(want)}, got {fmt_shape(got)}")

    def rule(self, rule, *args) -> Shape:
        """The shape that ``rule`` of ``shapes`` gives, its error this op's."""
        try:
            return rule(*args)
        except ShapeError as e:
            raise self.fail(str(e)) from None


class IndexingAddOp(IndexingOp):
    """Base of ``mg.index_add`` and ``mg.scatter_add``: ``base`` (of numbers) with ``values``
    added where the positions say; the result of ``base``'s type."""

    if TYPE_CHECKING:  # what each subclass defines (operand_def, result_def)
        base: Operand
        values: Operand
        result: OpResult[TensorType]

    def positions(self) -> tuple[SSAValue, str]:
        """The operand holding the positions, and what the messages call them."""
        raise NotImplementedError

    def values_shape(self) -> tuple[Shape, str]:
        """The shape ``values`` must have, and how the messages say it."""
        raise NotImplementedError

    def verify_(self) -> None:
        self.check_same_element_type(self.base, self.values, self.result)
        problem = element_types.unsupported(tensor_type_of(self.base).element_type)
        if problem:
            raise self.fail(f"base and values: {problem}")
        self.check_ids(*self.positions())
        self.check_shape(self.result, shape_of(self.base.type), "the result (base's shape)")
        self.check_shape(self.values, *self.values_shape())

    def add(self, acc: SSAValue, x: SSAValue) -> SSAValue:
        """``acc + x`` on elements, as the adds accumulate: a ``bf16`` sum computed in ``f32``
        and rounded to ``bf16`` at each add (as NumPy's ``np.add.at`` on ``bfloat16`` does)."""
        return narrowed(binary_arith("add", widened(acc), widened(x)), acc.type)


@irdl_op_definition
class IndexOp(IndexingOp, Differentiable):
    """The rows of ``table`` that ``ids`` name (NumPy's ``table[ids]``, an embedding lookup):
    ``mg.index %table, %ids : tensor<5x3xf64>, tensor<2x4xi64> -> tensor<2x4x3xf64>``. An id
    outside ``0`` to ``n - 1`` stops the program (a negative one too)."""

    name = "mg.index"
    table = operand_def(TensorType)
    ids = operand_def(TensorType)
    result = result_def(TensorType)
    traits = MOVES
    assembly_format = "$table `,` $ids attr-dict `:` type($table) `,` type($ids) `->` type($result)"

    def __init__(self, table: SSAValue, ids: SSAValue):
        shape = shapes.index_shape(shape_of(table.type), shape_of(ids.type))
        super().__init__(operands=[table, ids], result_types=[tensor_type(shape, tensor_type_of(table).element_type)])

    def verify_(self) -> None:
        self.check_same_element_type(self.table, self.result)
        self.check_ids(self.ids, "the ids")
        want = self.rule(shapes.index_shape, shape_of(self.table.type), shape_of(self.ids.type))
        self.check_shape(self.result, want, "the result (the ids' shape, then a row's)")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """Each row of ``g`` added to the row of zeros its id names (repeated ids add up)."""
        return [d.index_add(d.full_like(self.table, 0.0), self.ids, g), None]


@irdl_op_definition
class IndexAddOp(IndexingAddOp, Differentiable):
    """``base`` with each row of ``values`` added to the row of ``base`` its id names, repeated
    ids accumulating (the adjoint of ``mg.index``; NumPy's ``np.add.at(base, ids, values)`` on a
    copy): ``mg.index_add %base, %ids, %values : tensor<5x3xf64>, tensor<4xi32>,
    tensor<4x3xf64> -> tensor<5x3xf64>``."""

    name = "mg.index_add"
    base = operand_def(TensorType)
    ids = operand_def(TensorType)
    values = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    assembly_format = (
        "$base `,` $ids `,` $values attr-dict `:` type($base) `,` type($ids) `,` type($values) `->` type($result)"
    )

    def __init__(self, base: SSAValue, ids: SSAValue, values: SSAValue):
        super().__init__(operands=[base, ids, values], result_types=[base.type])

    def positions(self) -> tuple[SSAValue, str]:
        return self.ids, "the ids"

    def values_shape(self) -> tuple[Shape, str]:
        return (
            self.rule(shapes.index_shape, shape_of(self.base.type), shape_of(self.ids.type)),
            "values (the ids' shape, then a row's)",
        )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``g`` for ``base``; for ``values``, the rows of ``g`` their ids name. (A base of
        zeros, ``zeros_like(t)``, is a constant: it gets none.)"""
        return [g if d.varies(self.base) else None, None, d.index(g, self.ids) if d.varies(self.values) else None]


@irdl_op_definition
class GatherOp(IndexingOp, Differentiable):
    """Elements of ``x`` taken along ``axis`` at the positions in ``idx`` (NumPy's
    ``take_along_axis``): ``out[i, j] = x[i, idx[i, j]]`` for axis 1. ``idx`` has ``x``'s rank
    and its sizes off the axis; the result has ``idx``'s shape:
    ``mg.gather %x, %idx {axis = 1 : i64} : tensor<2x5xf64>, tensor<2x3xi64> -> tensor<2x3xf64>``."""

    name = "mg.gather"
    x = operand_def(TensorType)
    idx = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$x `,` $idx attr-dict `:` type($x) `,` type($idx) `->` type($result)"

    def __init__(self, x: SSAValue, idx: SSAValue, axis: int):
        super().__init__(
            operands=[x, idx],
            properties={"axis": IntegerAttr(axis, i64)},
            result_types=[tensor_type(shape_of(idx.type), tensor_type_of(x).element_type)],
        )

    def verify_(self) -> None:
        self.check_same_element_type(self.x, self.result)
        self.check_ids(self.idx, "the indices")
        want = self.rule(
            shapes.along_axis_shape, shape_of(self.x.type), shape_of(self.idx.type), self.axis.value.data, "gather"
        )
        self.check_shape(self.result, want, "the result (the indices' shape)")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``g`` added into zeros at the positions it was taken from (repeated ones add up)."""
        return [d.scatter_add(d.full_like(self.x, 0.0), self.idx, g, self.axis.value.data), None]


@irdl_op_definition
class ScatterAddOp(IndexingAddOp, Differentiable):
    """``base`` with each element of ``values`` added along ``axis`` at the position in ``idx``,
    repeated positions accumulating (the adjoint of ``mg.gather``): ``out[i, idx[i, j]] +=
    values[i, j]`` for axis 1. ``idx`` and ``values`` have one shape, ``base``'s rank and its
    sizes off the axis: ``mg.scatter_add %base, %idx, %values {axis = 1 : i64} :
    tensor<2x5xf64>, tensor<2x3xi64>, tensor<2x3xf64> -> tensor<2x5xf64>``."""

    name = "mg.scatter_add"
    base = operand_def(TensorType)
    idx = operand_def(TensorType)
    values = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$base `,` $idx `,` $values attr-dict `:` type($base) `,` type($idx) `,` type($values) `->` type($result)"
    )

    def __init__(self, base: SSAValue, idx: SSAValue, values: SSAValue, axis: int):
        super().__init__(
            operands=[base, idx, values], result_types=[base.type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def positions(self) -> tuple[SSAValue, str]:
        return self.idx, "the indices"

    def values_shape(self) -> tuple[Shape, str]:
        return (
            self.rule(
                shapes.along_axis_shape,
                shape_of(self.base.type),
                shape_of(self.idx.type),
                self.axis.value.data,
                "scatter_add",
            ),
            "values (the indices' shape)",
        )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``g`` for ``base``; for ``values``, the elements of ``g`` at their positions."""
        axis = self.axis.value.data
        return [
            g if d.varies(self.base) else None,
            None,
            d.gather(g, self.idx, axis) if d.varies(self.values) else None,
        ]


@irdl_op_definition
class ExtractOp(MgOp, Differentiable):
    """One element, as a rank-0 tensor (``x[1, -1]``, upstream's ``tensor.extract``):
    ``mg.extract %x {indices = array<i64: 1, -1>} : tensor<2x?xf64> -> tensor<f64>``. An index
    per dimension; a negative one counts from the end; one into a ``?`` dimension is checked
    when the program runs."""

    name = "mg.extract"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    indices = prop_def(DenseArrayBase.constr(i64))
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, indices: Sequence[int]):
        super().__init__(
            operands=[input],
            result_types=[tensor_type((), tensor_type_of(input).element_type)],
            properties={"indices": DenseArrayBase.from_list(i64, list(indices))},
        )

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        if shape_of(self.result.type) != ():
            raise self.fail("the result must be a rank-0 tensor (one element)")
        shape, indices = shape_of(self.input.type), self.indices.get_values()
        if len(indices) != len(shape):
            raise self.fail(f"there must be an index per dimension of the input: {len(shape)}, got {len(indices)}")
        for d, (index, size) in enumerate(zip(indices, shape)):
            if size is not None and not -size <= index < size:
                raise self.fail(
                    f"index {index} is out of range for dimension {d} of size {size} (-{size} to {size - 1})"
                )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """Zeros of the input's shape with ``g`` at the element's place."""
        return [d.at(g, self.input, self.indices.get_values())]
