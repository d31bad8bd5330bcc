"""The ops that make tensors: constants, filled tensors (``full``, ``full_like``), ``iota``
and random numbers.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import ConstantLike, Pure

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import ShapeError
from mg_xdsl.dialects import philox
from mg_xdsl.dialects.mg.base import Differentiable, LoweredElementTypes, MgOp, shape_of, tensor_type
from mg_xdsl.dialects.mg.scalar import FLOATS, narrowed

if TYPE_CHECKING:
    from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder


@irdl_op_definition
class ConstantOp(MgOp):
    """A literal tensor: ``%0 = mg.constant dense<[[1.0, 2.0]]> : tensor<1x2xf64>``."""

    name = "mg.constant"
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr())))
    result = result_def(T)
    traits = traits_def(Pure(), ConstantLike(), LoweredElementTypes(element_types.STORED))
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(result_types=[value.type], properties={"value": value})

    def verify_(self) -> None:
        if None in shape_of(self.result.type):
            raise self.fail("a constant needs a static shape")


@irdl_op_definition
class FullLikeOp(MgOp, Differentiable):
    """A tensor of the shape of ``like`` (of any element type), every element ``value``:
    ``mg.full_like %x {value = 0.0 : f64} : tensor<?x3xi1> -> tensor<?x3xf64>``. (A number
    given to ``where``, whose shape is the other operands'.)"""

    name = "mg.full_like"
    like = operand_def(TensorType)
    result = result_def(TensorType)
    value = prop_def(FloatAttr | IntegerAttr)  # of the result's element type
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$like attr-dict `:` type($like) `->` type($result)"

    def __init__(self, like: SSAValue, value: float, element_type: Attribute):
        super().__init__(
            operands=[like],
            result_types=[tensor_type(shape_of(like.type), element_type)],
            properties={"value": element_types.attr(value, element_type)},
        )

    def verify_(self) -> None:
        self.check_same_shapes(self.like, self.result)
        self.check_number_type(self.value, self.result, "the value must be of the result's")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Sequence[SSAValue | None]:
        """A constant: ``like`` gives only the shape (``zeros_like(w)`` does not depend on ``w``)."""
        return [None]


@irdl_op_definition
class FullOp(MgOp):
    """A tensor of a static shape, every element ``value``:
    ``mg.full {value = 0.0 : f32} : tensor<2x3xf32>`` (``zeros``, ``ones``, ``full``)."""

    name = "mg.full"
    result = result_def(TensorType)
    value = prop_def(FloatAttr | IntegerAttr)  # of the result's element type
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: TensorType, value: float):
        super().__init__(
            result_types=[result_type], properties={"value": element_types.attr(value, result_type.element_type)}
        )

    def verify_(self) -> None:
        if None in shape_of(self.result.type):
            raise self.fail("the shape must be static")
        self.check_number_type(self.value, self.result, "the value must be of the result's")


@irdl_op_definition
class RandomOp(MgOp):
    """Random numbers in a tensor of a static shape, from the counter-based generator Philox
    4x32-10 (``mg_xdsl.dialects.philox``): each element a pure function of its row-major
    position and ``seed``. ``distribution = "uniform"``: ``a + (b - a) * u``, ``u`` uniform on
    ``[0, 1)`` (``low``, ``high``); ``"normal"``: ``a + b * z``, ``z`` standard normal (``mean``,
    ``std``). ``mg.random {distribution = "normal", seed = 7 : i64, a = 0.0 : f64, b = 1.0 : f64}
    : tensor<2x3xf32>``. Float types; ``bf16`` computed in ``f32`` and rounded."""

    name = "mg.random"
    result = result_def(TensorType)
    distribution = prop_def(StringAttr)
    seed = prop_def(IntegerAttr[IntegerType])
    a = prop_def(FloatAttr)
    b = prop_def(FloatAttr)
    traits = traits_def(Pure(), LoweredElementTypes(FLOATS))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    DISTRIBUTIONS: ClassVar[tuple[str, ...]] = ("uniform", "normal")

    def __init__(self, result_type: TensorType, distribution: str, seed: int, a: float, b: float):
        super().__init__(
            result_types=[result_type],
            properties={
                "distribution": StringAttr(distribution),
                "seed": IntegerAttr(seed, i64),
                "a": FloatAttr(a, Float64Type()),
                "b": FloatAttr(b, Float64Type()),
            },
        )

    def verify_(self) -> None:
        if None in shape_of(self.result.type):
            raise self.fail("the shape must be static")
        if self.distribution.data not in self.DISTRIBUTIONS:
            raise self.fail(f"distribution must be uniform or normal, got '{self.distribution.data}'")
        if self.seed.value.data < 0:
            raise self.fail(f"the seed must not be negative, got {self.seed.value.data}")

    def value_at(self, index: SSAValue) -> SSAValue:
        """The element at row-major position ``index`` (an ``i64``), built in the current
        (implicit) builder."""
        element = self.result.type.element_type
        t = element_types.computed_in(element)
        assert isinstance(t, AnyFloat), f"random numbers are floats, not {t}"
        words = philox.words(index, self.seed.value.data)
        a, b = (arith.ConstantOp(FloatAttr(x.value.data, t)).result for x in (self.a, self.b))
        if self.distribution.data == "uniform":
            spread = arith.SubfOp(b, a).result
            value = arith.AddfOp(a, arith.MulfOp(spread, philox.uniform(words, t)).result).result
        else:
            value = arith.AddfOp(a, arith.MulfOp(b, philox.normal(words, t)).result).result
        return narrowed(value, element)


@irdl_op_definition
class IotaOp(MgOp):
    """Each element is its index along ``axis``: ``mg.iota {axis = 1 : i64} : tensor<2x3xi32>``
    is ``[[0, 1, 2], [0, 1, 2]]`` (integer types, a static shape)."""

    name = "mg.iota"
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    traits = traits_def(Pure(), LoweredElementTypes((i32, i64)))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: TensorType, axis: int):
        super().__init__(result_types=[result_type], properties={"axis": IntegerAttr(axis, i64)})

    def verify_(self) -> None:
        shape = shape_of(self.result.type)
        if None in shape:
            raise self.fail("the shape must be static")
        try:
            shapes.check_axis(len(shape), self.axis.value.data)
        except ShapeError as e:
            raise self.fail(str(e)) from None
