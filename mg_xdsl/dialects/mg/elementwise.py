"""The elementwise ops: binary operators, comparisons, ``select``, unary functions (``neg``,
``relu``, the math functions, ``abs``), a tensor with a number (``scalar``) and element
conversion (``convert``). Each says what it computes on one element (``scalar``).
"""

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import BoolAttr, FloatAttr, IntegerAttr, StringAttr, TensorType, i1
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from mg_xdsl.core import element_types, shapes
from mg_xdsl.dialects.mg.base import (
    MOVES,
    LoweredElementTypes,
    MgOp,
    UnaryOp,
    inferred_type,
    shape_of,
    tensor_type,
    tensor_type_of,
)
from mg_xdsl.dialects.mg.scalar import (
    ARITHMETIC,
    BINARY_ARITH,
    COMPARISONS,
    FLOATS,
    ScalarComputation,
    binary_arith,
    compare,
    convert_element,
)


class BinaryOp(MgOp, ScalarComputation):
    """Two tensors of agreeing shapes in, one out, element by element. (Traits add up along
    the class hierarchy in xDSL, so the element types are the subclasses' to say.)"""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"


class ElementwiseBinaryOp(BinaryOp):
    """``lhs op rhs`` on tensors of agreeing shapes, element by element."""

    OPERATOR: ClassVar[str]  # its key in BINARY_ARITH

    traits = traits_def(LoweredElementTypes())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        """The result type, unless given, is the operands' shapes merged (a static size
        where either has one; the front end has already inserted any broadcast)."""
        if result_type is None:
            result_type = inferred_type(self.name, lhs, shapes.broadcast_shapes, shape_of(lhs.type), shape_of(rhs.type))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        self.check_elementwise(self.lhs, self.rhs, self.result)
        self.check_in_place()

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return binary_arith(self.OPERATOR, *operands)


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    name = "mg.add"
    OPERATOR: ClassVar[str] = "add"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    name = "mg.sub"
    OPERATOR: ClassVar[str] = "sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """The elementwise (Hadamard) product, the language's ``*``."""

    name = "mg.mul"
    OPERATOR: ClassVar[str] = "mul"


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    name = "mg.div"
    OPERATOR: ClassVar[str] = "div"


@irdl_op_definition
class RemOp(ElementwiseBinaryOp):
    """``a % b``, NumPy's ``remainder``: the result has the sign of ``b`` (``scalar.remainder``)."""

    name = "mg.rem"
    OPERATOR: ClassVar[str] = "rem"


@irdl_op_definition
class FloorDivOp(ElementwiseBinaryOp):
    """``a // b``, NumPy's ``floor_divide``: the quotient rounded toward minus infinity."""

    name = "mg.floordiv"
    OPERATOR: ClassVar[str] = "floordiv"


@irdl_op_definition
class MaxOp(ElementwiseBinaryOp):
    """``maximum(a, b)``: the larger; NaN if either is NaN."""

    name = "mg.max"
    OPERATOR: ClassVar[str] = "max"


@irdl_op_definition
class MinOp(ElementwiseBinaryOp):
    """``minimum(a, b)``: the smaller; NaN if either is NaN."""

    name = "mg.min"
    OPERATOR: ClassVar[str] = "min"


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """``pow(a, b)``: ``a`` to the power ``b`` (floats)."""

    name = "mg.pow"
    OPERATOR: ClassVar[str] = "pow"
    traits = traits_def(LoweredElementTypes(FLOATS))


@irdl_op_definition
class Atan2Op(ElementwiseBinaryOp):
    """``atan2(y, x)``: the angle of the point (x, y), in (-pi, pi] (floats)."""

    name = "mg.atan2"
    OPERATOR: ClassVar[str] = "atan2"
    traits = traits_def(LoweredElementTypes(FLOATS))


@irdl_op_definition
class CompareOp(BinaryOp):
    """``lhs predicate rhs`` element by element, an ``i1`` tensor:
    ``mg.compare %a, %b {predicate = "lt"} : tensor<3xf64>, tensor<3xf64> -> tensor<3xi1>``."""

    name = "mg.compare"
    predicate = prop_def(StringAttr)
    traits = traits_def(LoweredElementTypes(element_types.STORED))
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, lhs: SSAValue, rhs: SSAValue, predicate: str):
        shape = shapes.broadcast_shapes(shape_of(lhs.type), shape_of(rhs.type))
        IRDLOperation.__init__(
            self,
            operands=[lhs, rhs],
            result_types=[tensor_type(shape, i1)],
            properties={"predicate": StringAttr(predicate)},
        )

    def verify_(self) -> None:
        if self.predicate.data not in COMPARISONS:
            raise self.fail(f"predicate must be one of {', '.join(COMPARISONS)}, got '{self.predicate.data}'")
        self.check_same_element_type(self.lhs, self.rhs)
        if tensor_type_of(self.result).element_type != i1:
            raise self.fail(f"the result must be a tensor of i1, got {self.result.type}")
        self.check_same_shapes(self.lhs, self.rhs, self.result)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return compare(self.predicate.data, *operands)


@irdl_op_definition
class SelectOp(MgOp, ScalarComputation):
    """``where(mask, a, b)``: ``a`` where ``mask`` is true, else ``b``, element by element
    (operands of agreeing shapes: the front end broadcasts them)."""

    name = "mg.select"
    mask = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    assembly_format = (
        "$mask `,` $lhs `,` $rhs attr-dict `:` type($mask) `,` type($lhs) `,` type($rhs) `->` type($result)"
    )

    def __init__(self, mask: SSAValue, lhs: SSAValue, rhs: SSAValue):
        """The result's shape is the operands' merged (a static size where any has one)."""
        shape = shape_of(mask.type)
        for value in (lhs, rhs):
            shape = shapes.broadcast_shapes(shape, shape_of(value.type))
        super().__init__(operands=[mask, lhs, rhs], result_types=[tensor_type(shape, tensor_type_of(lhs).element_type)])

    def verify_(self) -> None:
        if tensor_type_of(self.mask).element_type != i1:
            raise self.fail(f"the mask must be a tensor of i1, got {self.mask.type}")
        self.check_same_element_type(self.lhs, self.rhs, self.result)
        self.check_same_shapes(self.mask, self.lhs, self.rhs, self.result)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return arith.SelectOp(*operands).result


class ElementwiseUnaryOp(UnaryOp, ScalarComputation):
    traits = traits_def(LoweredElementTypes())

    def verify_(self) -> None:
        self.check_elementwise(self.input, self.result)


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    name = "mg.neg"

    def scalar_constants(self) -> tuple[float, ...]:
        return (0.0,) if element_types.is_integer(self.input.type) else ()

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        if constants:  # an integer: 0 - x, wrapping at the minimum as NumPy does
            return arith.SubiOp(constants[0], operands[0]).result
        return arith.NegfOp(operands[0]).result


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """``max(x, 0)``, NaN-propagating: ``relu(nan)`` is ``nan``."""

    name = "mg.relu"

    def scalar_constants(self) -> tuple[float, ...]:
        return (0.0,)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return binary_arith("max", operands[0], constants[0])  # (maximumf: NaN stays NaN)


SCALAR_OPS = (*BINARY_ARITH, *COMPARISONS)


@irdl_op_definition
class ScalarOp(MgOp, ScalarComputation):
    """A tensor combined elementwise with a compile-time number.

    ``op`` is one of add/sub/mul/div, or a comparison (lt/le/gt/ge/eq/ne, whose result is a
    tensor of ``i1``); ``reversed = true`` puts the number on the left, so ``2 - a`` is
    ``{op = "sub", value = 2.0, reversed = true}``.
    """

    name = "mg.scalar"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    op = prop_def(StringAttr)
    value = prop_def(FloatAttr | IntegerAttr)  # of the tensor's element type
    reversed = prop_def(BoolAttr)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, op: str, value: float, reversed: bool):
        result = tensor_type(shape_of(input.type), i1) if op in COMPARISONS else input.type
        super().__init__(
            operands=[input],
            result_types=[result],
            properties={
                "op": StringAttr(op),
                "value": element_types.attr(value, tensor_type_of(input).element_type),
                "reversed": BoolAttr.from_bool(reversed),
            },
        )

    def verify_(self) -> None:
        if self.op.data not in SCALAR_OPS:
            raise self.fail(f"op must be one of {', '.join(SCALAR_OPS)}, got '{self.op.data}'")
        self.check_in_place()
        if self.op.data in COMPARISONS:
            self.check_same_shapes(self.input, self.result)
            if tensor_type_of(self.result).element_type != i1:
                raise self.fail(f"a comparison's result must be a tensor of i1, got {self.result.type}")
        else:
            self.check_elementwise(self.input, self.result)
            lowered = ARITHMETIC if BINARY_ARITH[self.op.data][1] else FLOATS
            if problem := element_types.unsupported(tensor_type_of(self.input).element_type, lowered):
                raise self.fail(problem)
        self.check_number_type(self.value, self.input, "the number must be of the tensor's")

    def scalar_constants(self) -> tuple[float, ...]:
        return (self.value.value.data,)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        x, number = operands[0], constants[0]
        lhs, rhs = (number, x) if self.reversed.value.data else (x, number)
        if self.op.data in COMPARISONS:
            return compare(self.op.data, lhs, rhs)
        return binary_arith(self.op.data, lhs, rhs)


@irdl_op_definition
class ConvertOp(UnaryOp, ScalarComputation):
    """Each element converted to the result's element type (the language's ``cast``):
    ``mg.convert %x : tensor<2x3xf64> to tensor<2x3xi32>``; see ``convert_element``."""

    name = "mg.convert"
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, element_type: Attribute):
        super().__init__(input, tensor_type(shape_of(input.type), element_type))

    def verify_(self) -> None:
        self.check_same_shapes(self.input, self.result)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return convert_element(operands[0], self.result.type.element_type)


class MathUnaryOp(ElementwiseUnaryOp):
    """``f(x)`` element by element, ``f`` the math dialect's op ``MATH``; floats only."""

    MATH: ClassVar[type[math.FloatingPointLikeUnaryMathOperation]]
    traits = traits_def(LoweredElementTypes(FLOATS))

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return self.MATH(operands[0]).result


def _math_unary(function: str, op: type[math.FloatingPointLikeUnaryMathOperation], doc: str) -> type[MathUnaryOp]:
    cls = type(
        f"{function.capitalize()}Op",
        (MathUnaryOp,),
        {
            "name": f"mg.{function}",
            "MATH": op,
            "__doc__": doc,
            "__module__": __name__,
            "__annotations__": {"MATH": ClassVar[type[math.FloatingPointLikeUnaryMathOperation]]},
        },
    )
    return irdl_op_definition(cls)


SqrtOp = _math_unary("sqrt", math.SqrtOp, "The square root (NaN below 0).")


RsqrtOp = _math_unary("rsqrt", math.RsqrtOp, "1 / sqrt(x).")


ExpOp = _math_unary("exp", math.ExpOp, "e to the x.")


LogOp = _math_unary("log", math.LogOp, "The natural logarithm (-inf at 0, NaN below).")


SinOp = _math_unary("sin", math.SinOp, "The sine (radians).")


CosOp = _math_unary("cos", math.CosOp, "The cosine (radians).")


TanhOp = _math_unary("tanh", math.TanhOp, "The hyperbolic tangent.")


AcosOp = _math_unary("acos", math.AcosOp, "The arc cosine (NaN outside [-1, 1]).")


AsinOp = _math_unary("asin", math.AsinOp, "The arc sine (NaN outside [-1, 1]).")


MATH_UNARY_OPS = (SqrtOp, RsqrtOp, ExpOp, LogOp, SinOp, CosOp, TanhOp, AcosOp, AsinOp)


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp):
    """``|x|`` of every numeric type (an integer's minimum stays the minimum: it wraps)."""

    name = "mg.abs"

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        if element_types.is_integer(operands[0].type):
            return math.AbsIOp(operands[0]).result
        return math.AbsFOp(operands[0]).result
