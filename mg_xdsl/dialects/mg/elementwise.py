"""The elementwise ops: binary operators, comparisons, ``select``, unary functions (``neg``,
``relu``, the math functions, ``abs``), a tensor with a number (``scalar``) and element
conversion (``convert``). Each says what it computes on one element (``scalar``).
"""

from collections.abc import Callable, Sequence
from math import log as ln
from typing import TYPE_CHECKING, ClassVar

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
    Differentiable,
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

if TYPE_CHECKING:
    from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder

Adjoints = Sequence[SSAValue | None]


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
class AddOp(ElementwiseBinaryOp, Differentiable):
    name = "mg.add"
    OPERATOR: ClassVar[str] = "add"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [g, g]


@irdl_op_definition
class SubOp(ElementwiseBinaryOp, Differentiable):
    name = "mg.sub"
    OPERATOR: ClassVar[str] = "sub"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [g, d.neg(g) if d.active(self.rhs) else None]


@irdl_op_definition
class MulOp(ElementwiseBinaryOp, Differentiable):
    """The elementwise (Hadamard) product, the language's ``*``."""

    name = "mg.mul"
    OPERATOR: ClassVar[str] = "mul"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        a, b = self.lhs, self.rhs
        return [d.mul(g, b) if d.active(a) else None, d.mul(g, a) if d.active(b) else None]


@irdl_op_definition
class DivOp(ElementwiseBinaryOp, Differentiable):
    name = "mg.div"
    OPERATOR: ClassVar[str] = "div"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        # d(a/b)/db = -(a/b)/b
        a, b = self.lhs, self.rhs
        return [d.div(g, b) if d.active(a) else None, d.neg(d.div(d.mul(g, self.result), b)) if d.active(b) else None]


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
class MaxOp(ElementwiseBinaryOp, Differentiable):
    """``maximum(a, b)``: the larger; NaN if either is NaN."""

    name = "mg.max"
    OPERATOR: ClassVar[str] = "max"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return chooser_adjoints(self, d, g)


@irdl_op_definition
class MinOp(ElementwiseBinaryOp, Differentiable):
    """``minimum(a, b)``: the smaller; NaN if either is NaN."""

    name = "mg.min"
    OPERATOR: ClassVar[str] = "min"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return chooser_adjoints(self, d, g)


@irdl_op_definition
class PowOp(ElementwiseBinaryOp, Differentiable):
    """``pow(a, b)``: ``a`` to the power ``b`` (floats)."""

    name = "mg.pow"
    OPERATOR: ClassVar[str] = "pow"
    traits = traits_def(LoweredElementTypes(FLOATS))

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        # JAX's rules: d/da = b * a^(b-1), 0 where b is 0; d/db = log(a) * a^b, a = 0 read as 1
        a, b = self.lhs, self.rhs
        ga = gb = None
        if d.active(a):
            slope = d.mul(b, d.pow(a, d.plus(b, -1.0)))
            ga = d.mul(g, d.where(d.compare_number(b, "eq", 0.0), d.full_like(b, 0.0), slope))
        if d.active(b):
            a_or_one = d.where(d.compare_number(a, "eq", 0.0), d.full_like(a, 1.0), a)
            gb = d.mul(g, d.mul(d.log(a_or_one), self.result))
        return [ga, gb]


@irdl_op_definition
class Atan2Op(ElementwiseBinaryOp, Differentiable):
    """``atan2(y, x)``: the angle of the point (x, y), in (-pi, pi] (floats)."""

    name = "mg.atan2"
    OPERATOR: ClassVar[str] = "atan2"
    traits = traits_def(LoweredElementTypes(FLOATS))

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        # atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
        y, x = self.lhs, self.rhs
        per = d.div(g, d.add(d.square(x), d.square(y)))
        return [d.mul(per, x) if d.active(y) else None, d.neg(d.mul(per, y)) if d.active(x) else None]


def chooser_adjoints(op: ElementwiseBinaryOp, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
    """``maximum``'s and ``minimum``'s rule (JAX's): ``g`` goes to the operand the result
    chose, half to each where both are equal."""
    out = op.results[0]
    adjoints: list[SSAValue | None] = []
    for x, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        if not d.active(x):
            adjoints.append(None)
            continue
        tie = d.compare(other, out, "eq")
        share = d.where(tie, d.full_like(g, 0.5), d.full_like(g, 1.0))
        adjoints.append(d.only_where(d.compare(x, out, "eq"), d.mul(g, share)))
    return adjoints


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
class SelectOp(MgOp, ScalarComputation, Differentiable):
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

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        zero = d.full_like(g, 0.0)
        return [
            None,
            d.where(self.mask, g, zero) if d.active(self.lhs) else None,
            d.where(self.mask, zero, g) if d.active(self.rhs) else None,
        ]


class ElementwiseUnaryOp(UnaryOp, ScalarComputation):
    traits = traits_def(LoweredElementTypes())

    def verify_(self) -> None:
        self.check_elementwise(self.input, self.result)


@irdl_op_definition
class NegOp(ElementwiseUnaryOp, Differentiable):
    name = "mg.neg"

    def scalar_constants(self) -> tuple[float, ...]:
        return (0.0,) if element_types.is_integer(self.input.type) else ()

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        if constants:  # an integer: 0 - x, wrapping at the minimum as NumPy does
            return arith.SubiOp(constants[0], operands[0]).result
        return arith.NegfOp(operands[0]).result

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [d.neg(g)]


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp, Differentiable):
    """``max(x, 0)``, NaN-propagating: ``relu(nan)`` is ``nan``."""

    name = "mg.relu"

    def scalar_constants(self) -> tuple[float, ...]:
        return (0.0,)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return binary_arith("max", operands[0], constants[0])  # (maximumf: NaN stays NaN)

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [d.only_where(d.compare_number(self.input, "gt", 0.0), g)]  # (0 at 0, as jax.nn.relu)


SCALAR_OPS = (*BINARY_ARITH, *COMPARISONS)


@irdl_op_definition
class ScalarOp(MgOp, ScalarComputation, Differentiable):
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

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        op, c, x, out = self.op.data, float(self.value.value.data), self.input, self.result
        number_first = self.reversed.value.data
        if op == "add":
            return [g]
        if op == "sub":
            return [d.neg(g) if number_first else g]
        if op == "mul":
            return [d.scale(g, c)]
        if op == "div":  # x / c, or c / x (whose derivative is -(c / x) / x)
            return [d.neg(d.div(d.mul(g, out), x)) if number_first else ScalarOp(g, "div", c, reversed=False).result]
        if op == "pow" and not number_first:  # x ** c
            return [
                d.mul(g, d.scale(ScalarOp(x, "pow", c - 1.0, reversed=False).result, c)) if c else d.full_like(g, 0.0)
            ]
        if op == "pow":  # c ** x
            return [d.mul(g, d.scale(out, ln(c)))]
        if op in ("max", "min"):  # the number chosen where equal: half each, as maximum's rule
            chosen = d.compare_number(x, "eq", c)
            tie = d.where(d.compare(out, x, "eq"), d.full_like(g, 0.5), d.full_like(g, 1.0))
            return [d.only_where(d.compare(x, out, "eq"), d.mul(g, d.where(chosen, tie, d.full_like(g, 1.0))))]
        raise NotImplementedError(f"{self.name} {op}")


@irdl_op_definition
class ConvertOp(UnaryOp, ScalarComputation, Differentiable):
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

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """Between floats, the adjoint converted back; from an integer, none (a constant)."""
        element = tensor_type_of(self.input).element_type
        return [d.convert(g, element) if element_types.is_float(element) else None]


# A math function's derivative rule: (d, x, f(x), g) -> the adjoint of x.
MathRule = Callable[["AdjointBuilder", SSAValue, SSAValue, SSAValue], SSAValue]


class MathUnaryOp(ElementwiseUnaryOp, Differentiable):
    """``f(x)`` element by element, ``f`` the math dialect's op ``MATH``; floats only.
    ``DERIVATIVE`` is its rule."""

    MATH: ClassVar[type[math.FloatingPointLikeUnaryMathOperation]]
    DERIVATIVE: ClassVar[MathRule]
    traits = traits_def(LoweredElementTypes(FLOATS))

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return self.MATH(operands[0]).result

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [type(self).DERIVATIVE(d, self.input, self.result, g)]


def _math_unary(
    function: str, op: type[math.FloatingPointLikeUnaryMathOperation], doc: str, derivative: MathRule
) -> type[MathUnaryOp]:
    cls = type(
        f"{function.capitalize()}Op",
        (MathUnaryOp,),
        {
            "name": f"mg.{function}",
            "MATH": op,
            "DERIVATIVE": staticmethod(derivative),
            "__doc__": doc,
            "__module__": __name__,
            "__annotations__": {
                "MATH": ClassVar[type[math.FloatingPointLikeUnaryMathOperation]],
                "DERIVATIVE": ClassVar[MathRule],
            },
        },
    )
    return irdl_op_definition(cls)


SqrtOp = _math_unary(
    "sqrt", math.SqrtOp, "The square root (NaN below 0).", lambda d, x, y, g: d.div(d.scale(g, 0.5), y)
)


RsqrtOp = _math_unary("rsqrt", math.RsqrtOp, "1 / sqrt(x).", lambda d, x, y, g: d.mul(g, d.div(d.scale(y, -0.5), x)))


ExpOp = _math_unary("exp", math.ExpOp, "e to the x.", lambda d, x, y, g: d.mul(g, y))


LogOp = _math_unary("log", math.LogOp, "The natural logarithm (-inf at 0, NaN below).", lambda d, x, y, g: d.div(g, x))


SinOp = _math_unary("sin", math.SinOp, "The sine (radians).", lambda d, x, y, g: d.mul(g, d.cos(x)))


CosOp = _math_unary("cos", math.CosOp, "The cosine (radians).", lambda d, x, y, g: d.neg(d.mul(g, d.sin(x))))


TanhOp = _math_unary(
    "tanh", math.TanhOp, "The hyperbolic tangent.", lambda d, x, y, g: d.mul(g, d.plus(d.neg(d.square(y)), 1.0))
)


AcosOp = _math_unary(
    "acos",
    math.AcosOp,
    "The arc cosine (NaN outside [-1, 1]).",
    lambda d, x, y, g: d.neg(d.div(g, d.sqrt(d.plus(d.neg(d.square(x)), 1.0)))),
)


AsinOp = _math_unary(
    "asin",
    math.AsinOp,
    "The arc sine (NaN outside [-1, 1]).",
    lambda d, x, y, g: d.div(g, d.sqrt(d.plus(d.neg(d.square(x)), 1.0))),
)


MATH_UNARY_OPS = (SqrtOp, RsqrtOp, ExpOp, LogOp, SinOp, CosOp, TanhOp, AcosOp, AsinOp)


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp, Differentiable):
    """``|x|`` of every numeric type (an integer's minimum stays the minimum: it wraps)."""

    name = "mg.abs"

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        if element_types.is_integer(operands[0].type):
            return math.AbsIOp(operands[0]).result
        return math.AbsFOp(operands[0]).result

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [d.where(d.compare_number(self.input, "ge", 0.0), g, d.neg(g))]  # (JAX's: g at 0)
