"""The ``mg`` dialect: Mountain Goat's tensor operations, one op per language construct.

Values are ranked tensors (``tensor<2x3xf64>``, ``tensor<?x3xf64>``). Ops are value-based
(``Pure``) except ``mg.print``; every op after the front end has operands whose shapes
already agree, because the front end inserts an explicit ``mg.broadcast`` wherever a size-1
dimension grows. Each verifier states its rule in its message. The rules themselves live in
``mg_xdsl.core.shapes`` (shared with the front end) and ``mg_xdsl.core.element_types`` (the trait
``LoweredElementTypes`` of every op), so no op carries its own copy.

What each op computes on one element is said here too, once: an elementwise op's
``scalar`` builds its arith ops (the interface ``ScalarComputation``), and ``REDUCTIONS``
names each reduction's combining op and identity. ``lower-mg-to-affine``,
``convert-mg-to-linalg`` and the reduction kernels ask them; none keeps a table of its own.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from xdsl.dialects import arith, cf, math
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import ConstantLike, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from mg_xdsl.core import element_types, shapes
from mg_xdsl.dialects import philox
from mg_xdsl.core.shapes import Shape, ShapeError, fmt_dim, fmt_shape

# ---------------------------------------------------------------------------------------
# Shapes of IR types, in the shared rules' vocabulary
# ---------------------------------------------------------------------------------------


def shape_of(t: Attribute) -> Shape:
    """The shape of a tensor (or memref) type, with ``None`` for a ``?`` dimension."""
    return tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())  # type: ignore[attr-defined]


def tensor_type(shape: Shape, element_type: Attribute = Float64Type()) -> TensorType:
    return _tensor_type(tuple(shape), element_type)


@lru_cache(maxsize=4096)
def _tensor_type(shape: Shape, element_type: Attribute) -> TensorType:
    # Types are immutable, and making one costs ~80 us (verified parameters): a long
    # program's ops have a few types between them.
    return TensorType(element_type, [DYNAMIC_INDEX if d is None else d for d in shape])


def _inferred(op_name: str, like: SSAValue, rule, *shapes_and_args) -> TensorType:
    """The result type that a rule of ``shapes`` gives, of ``like``'s element type; a broken
    rule is the VerifyException that the op's verifier would raise."""
    try:
        return tensor_type(rule(*shapes_and_args), _tensor(like).element_type)
    except ShapeError as e:
        raise VerifyException(f"{op_name}: {e}") from None


def _tensor(value: SSAValue) -> TensorType:
    t = value.type
    if not isinstance(t, TensorType):
        raise VerifyException(f"expected a ranked tensor, got {t}")
    return t


@dataclass(frozen=True)
class LoweredElementTypes(OpTrait):
    """Every tensor the op takes or gives has an element type that its lowering handles:
    one of ``element_types.ARITHMETIC`` unless the op says otherwise."""

    types: tuple[Attribute, ...] = element_types.ARITHMETIC

    def verify(self, op: Operation) -> None:
        for value in (*op.operands, *op.results):
            if isinstance(value.type, TensorType):
                problem = element_types.unsupported(value.type.element_type, self.types)
                if problem:
                    raise VerifyException(f"{op.name}: {problem}")


# A unit attribute of an elementwise op (``mg.add``, ``mg.scalar``...): its result is written
# into its first operand's buffer, which nothing reads afterwards (``w += g`` on a ``var``;
# the front end gives a var a buffer of its own).
IN_PLACE = "mg.in_place"

# An array of strings on an ``mg.cast``, one per dimension of its result: the message of the
# run-time check that the dimension has the size the cast claims ("" where it claims none).
# The front end words them in the program's terms (which call's argument, which operator's
# operand), since the program never wrote the ``mg.cast``; a cast without them gets
# ``mg.cast: dimension D differs at runtime from the static size N``.
CHECK_MESSAGES = "mg.check_messages"


# What a failed run-time check says where sizes that must agree differ, in ``lower-mg-to-affine``'s
# checks of an op's operands and in the front end's messages for an ``mg.cast`` that claims an
# operand's size for an op (one mistake, one message, whichever check finds it).
def operands_differ(op: str, dim: int) -> str:
    return f"{op}: operand shapes differ at runtime in dimension {dim}"


def batch_differs(dim: int) -> str:
    return f"mg.matmul: batch dimension {dim} differs at runtime"


class MgOp(IRDLOperation):
    """Base of the mg ops: verifier failures are reported as ``mg.<op>: <rule>``."""

    def check_in_place(self) -> None:
        """An op computed in place (``IN_PLACE``) keeps its first operand's type."""
        if IN_PLACE in self.attributes and self.results[0].type != self.operands[0].type:
            raise self.fail(f"an op computed in place ({IN_PLACE}) must keep its first operand's type "
                            f"{self.operands[0].type}, got {self.results[0].type}")

    def fail(self, rule: str) -> VerifyException:
        return VerifyException(f"{self.name}: {rule}")

    def check_same_element_type(self, *values: SSAValue) -> None:
        types = {_tensor(v).element_type for v in values}
        if len(types) != 1:
            raise self.fail(
                "operands and result must have one element type, got "
                + ", ".join(str(t) for t in types)
            )

    def check_number_type(self, number: Attribute, tensor: SSAValue, rule: str) -> None:
        """``number`` (a property) is of ``tensor``'s element type, as ``rule`` says."""
        if number.type != _tensor(tensor).element_type:  # type: ignore[attr-defined]
            raise self.fail(f"{rule} element type {_tensor(tensor).element_type}, got {number.type}")  # type: ignore[attr-defined]

    def check_elementwise(self, *values: SSAValue) -> None:
        """Elementwise rule: one element type; same rank, each dimension equal or ``?``
        (checked at run time)."""
        self.check_same_element_type(*values)
        self.check_same_shapes(*values)

    def check_same_shapes(self, *values: SSAValue) -> None:
        found = [shape_of(_tensor(v)) for v in values]
        first = found[0]
        if any(not shapes.shapes_compatible(first, s) for s in found[1:]):
            raise self.fail(
                "operand and result shapes must agree (a '?' dimension matches any size), got "
                + ", ".join(fmt_shape(s) for s in found)
            )


# ---------------------------------------------------------------------------------------
# What an op computes on one element
# ---------------------------------------------------------------------------------------

# The arith ops of each binary operator, as ``mg.add`` and ``mg.scalar {op = "add"}`` name
# it: for floats, and for (signed) integers.
# (maximumf/minimumf propagate NaN, as NumPy's maximum and minimum; pow and atan2 have no
# integer form, and their ops take floats only.)
BINARY_ARITH: dict[str, tuple[type[IRDLOperation], type[IRDLOperation] | None]] = {
    "add": (arith.AddfOp, arith.AddiOp), "sub": (arith.SubfOp, arith.SubiOp),
    "mul": (arith.MulfOp, arith.MuliOp), "div": (arith.DivfOp, arith.DivSIOp),
    "max": (arith.MaximumfOp, arith.MaxSIOp), "min": (arith.MinimumfOp, arith.MinSIOp),
    "pow": (math.PowFOp, None), "atan2": (math.Atan2Op, None)}
FLOATS = element_types.FLOATS
ARITHMETIC = element_types.ARITHMETIC
DIVISION_BY_ZERO = "mg.div: integer division by zero"


def _constant(value: float, t: Attribute) -> SSAValue:
    """The number ``value`` of type ``t`` (``element_types.attr``)."""
    return arith.ConstantOp(element_types.attr(value, t), t).result


def integer_division(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs / rhs`` truncated toward zero, never undefined: a zero ``rhs`` fails a run-time
    check (the program stops as on a failed shape check), and ``MIN / -1`` wraps to ``MIN``
    as every other overflow does (``arith.divsi`` leaves both undefined; x86 traps)."""
    zero, one, minus_one = (_constant(c, rhs.type) for c in (0, 1, -1))
    cf.AssertOp(arith.CmpiOp(rhs, zero, "ne").result, DIVISION_BY_ZERO)
    negate = arith.CmpiOp(rhs, minus_one, "eq").result
    # (the divisor 1 where the quotient is not sdiv's, so the sdiv itself is always defined)
    unsafe = arith.OrIOp(negate, arith.CmpiOp(rhs, zero, "eq").result).result
    quotient = arith.DivSIOp(lhs, arith.SelectOp(unsafe, one, rhs).result).result
    return arith.SelectOp(negate, arith.SubiOp(zero, lhs).result, quotient).result


# The arith predicate of each comparison, for floats, signed integers and i1 (false < true).
# A comparison with NaN is false, but NaN != x is true: NumPy's (and IEEE's) ordered and
# unordered predicates.
COMPARISONS: dict[str, tuple[str, str, str]] = {
    "lt": ("olt", "slt", "ult"), "le": ("ole", "sle", "ule"), "gt": ("ogt", "sgt", "ugt"),
    "ge": ("oge", "sge", "uge"), "eq": ("oeq", "eq", "eq"), "ne": ("une", "ne", "ne")}


def compare(predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs predicate rhs`` on two elements, an ``i1`` (``predicate`` a key of
    ``COMPARISONS``)."""
    floats, signed, unsigned = COMPARISONS[predicate]
    if element_types.is_float(lhs.type):
        return arith.CmpfOp(lhs, rhs, floats).result
    return arith.CmpiOp(lhs, rhs, unsigned if element_types.is_bool(lhs.type) else signed).result


def binary_arith(op: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs op rhs`` on two elements (``op`` a key of ``BINARY_ARITH``)."""
    if not element_types.is_integer(lhs.type):
        return BINARY_ARITH[op][0](lhs, rhs).result
    if op == "div":
        return integer_division(lhs, rhs)
    integer_op = BINARY_ARITH[op][1]
    assert integer_op is not None, f"{op} has no integer form (its op's verifier says so)"
    return integer_op(lhs, rhs).result


def widen_bf16(x: SSAValue) -> SSAValue:
    """A ``bf16`` as the ``f32`` of the same value (its 16 bits, then 16 zero bits)."""
    bits = arith.ExtUIOp(arith.BitcastOp(x, i16).result, i32).result
    return arith.BitcastOp(arith.ShLIOp(bits, _constant(16, i32)).result, element_types.F32).result


def narrow_to_bf16(x: SSAValue) -> SSAValue:
    """An ``f32`` rounded to ``bf16``, to nearest even (a NaN: the quiet NaN), in integer
    operations: LLVM would call compiler-rt's ``__truncsfbf2``, which neither the JIT's
    process nor a GPU has."""
    bits = arith.BitcastOp(x, i32).result
    lowest_kept = arith.AndIOp(arith.ShRUIOp(bits, _constant(16, i32)).result, _constant(1, i32)).result
    rounded = arith.AddiOp(arith.AddiOp(bits, _constant(0x7FFF, i32)).result, lowest_kept).result
    top = arith.TruncIOp(arith.ShRUIOp(rounded, _constant(16, i32)).result, i16).result
    nan = arith.CmpfOp(x, x, "uno").result
    return arith.BitcastOp(arith.SelectOp(nan, _constant(0x7FC0, i16), top).result, element_types.BF16).result


# An element is computed in the type its record says (``element_types.computed_in``), and
# the result rounded once to the type it is stored in. ``bf16`` is the only element type
# computed in another, so these two convert between it and ``f32``; a new such type needs
# its own pair of conversions here.
def widened(x: SSAValue) -> SSAValue:
    """``x`` as the type it is computed in: a ``bf16`` widened to ``f32``; any other value
    as it is."""
    return x if element_types.computed_in(x.type) == x.type else widen_bf16(x)


def narrowed(x: SSAValue, element: Attribute) -> SSAValue:
    """``x``, computed in the type that ``element`` is computed in, rounded once to
    ``element``: an ``f32`` to ``bf16``; any other value as it is."""
    if x.type == element or element_types.computed_in(element) == element:
        return x
    return narrow_to_bf16(x)


class ScalarComputation:
    """The interface of the elementwise ops: one element of the result from one element of
    each operand. ``scalar`` makes arith ops in the current (implicit) builder; the numbers it
    needs are made by the caller, once, from ``scalar_constants`` (a loop nest makes them
    before its loops, a linalg.generic's body at its start). The lowerings call ``compute``,
    which gives ``scalar`` the values in the type they are computed in and rounds the result
    once to the type it is stored in (``widened``, ``narrowed``): ``bf16`` is stored, never
    computed with."""

    def scalar_constants(self) -> tuple[float, ...]:
        return ()

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        raise NotImplementedError

    def compute(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        result = self.scalar([widened(v) for v in operands], [widened(v) for v in constants])
        return narrowed(result, self.results[0].type.element_type)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Reduction:
    combine: type[IRDLOperation]  # the arith op that folds an element into the running value
    identity: float  # where the fold starts: the value that leaves any element as it is


# Each reduction: its operator in BINARY_ARITH, and its identity (-inf and inf are an integer
# type's minimum and maximum: ``element_types.attr``). ``REDUCTIONS`` are the float forms
# (maximumf propagates NaN, as NumPy's max), ``INTEGER_REDUCTIONS`` the integer ones.
_REDUCTION_KINDS = {"sum": ("add", 0.0), "max": ("max", float("-inf")), "prod": ("mul", 1.0),
                    "min": ("min", float("inf"))}
REDUCTIONS: dict[str, Reduction] = {
    kind: Reduction(BINARY_ARITH[op][0], identity) for kind, (op, identity) in _REDUCTION_KINDS.items()}
INTEGER_REDUCTIONS: dict[str, Reduction] = {
    kind: Reduction(BINARY_ARITH[op][1], identity)  # type: ignore[arg-type]
    for kind, (op, identity) in _REDUCTION_KINDS.items()}


# ---------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------


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


class BinaryOp(MgOp, ScalarComputation):
    """Two tensors of agreeing shapes in, one out, element by element. (Traits add up along
    the class hierarchy in xDSL, so the element types are the subclasses' to say.)"""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    )


class ElementwiseBinaryOp(BinaryOp):
    """``lhs op rhs`` on tensors of agreeing shapes, element by element."""

    OPERATOR: ClassVar[str]  # its key in BINARY_ARITH

    traits = traits_def(LoweredElementTypes())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        """The result type, unless given, is the operands' shapes merged (a static size
        where either has one; the front end has already inserted any broadcast)."""
        if result_type is None:
            result_type = _inferred(self.name, lhs, shapes.broadcast_shapes, shape_of(lhs.type),
                                    shape_of(rhs.type))
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
        IRDLOperation.__init__(self, operands=[lhs, rhs], result_types=[tensor_type(shape, i1)],
                               properties={"predicate": StringAttr(predicate)})

    def verify_(self) -> None:
        if self.predicate.data not in COMPARISONS:
            raise self.fail(f"predicate must be one of {', '.join(COMPARISONS)}, got '{self.predicate.data}'")
        self.check_same_element_type(self.lhs, self.rhs)
        if _tensor(self.result).element_type != i1:
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
    assembly_format = ("$mask `,` $lhs `,` $rhs attr-dict `:` type($mask) `,` type($lhs) `,` type($rhs) "
                       "`->` type($result)")

    def __init__(self, mask: SSAValue, lhs: SSAValue, rhs: SSAValue):
        """The result's shape is the operands' merged (a static size where any has one)."""
        shape = shape_of(mask.type)
        for value in (lhs, rhs):
            shape = shapes.broadcast_shapes(shape, shape_of(value.type))
        super().__init__(operands=[mask, lhs, rhs], result_types=[tensor_type(shape, _tensor(lhs).element_type)])

    def verify_(self) -> None:
        if _tensor(self.mask).element_type != i1:
            raise self.fail(f"the mask must be a tensor of i1, got {self.mask.type}")
        self.check_same_element_type(self.lhs, self.rhs, self.result)
        self.check_same_shapes(self.mask, self.lhs, self.rhs, self.result)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return arith.SelectOp(*operands).result


@irdl_op_definition
class FullLikeOp(MgOp):
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
        super().__init__(operands=[like], result_types=[tensor_type(shape_of(like.type), element_type)],
                         properties={"value": element_types.attr(value, element_type)})

    def verify_(self) -> None:
        self.check_same_shapes(self.like, self.result)
        self.check_number_type(self.value, self.result, "the value must be of the result's")


class UnaryOp(MgOp):
    """One tensor in, one tensor out: ``mg.op %x : tensor<..> -> tensor<..>``. (The ops that
    only move or convert elements take every stored type, ``i1`` too: ``MOVES``.)"""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[input], result_types=[result_type or input.type])


MOVES = traits_def(LoweredElementTypes(element_types.STORED))


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
                "value": element_types.attr(value, _tensor(input).element_type),
                "reversed": BoolAttr.from_bool(reversed),
            },
        )

    def verify_(self) -> None:
        if self.op.data not in SCALAR_OPS:
            raise self.fail(f"op must be one of {', '.join(SCALAR_OPS)}, got '{self.op.data}'")
        self.check_in_place()
        if self.op.data in COMPARISONS:
            self.check_same_shapes(self.input, self.result)
            if _tensor(self.result).element_type != i1:
                raise self.fail(f"a comparison's result must be a tensor of i1, got {self.result.type}")
        else:
            self.check_elementwise(self.input, self.result)
            lowered = ARITHMETIC if BINARY_ARITH[self.op.data][1] else FLOATS
            if problem := element_types.unsupported(_tensor(self.input).element_type, lowered):
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
class MatmulOp(MgOp):
    """The matrix product ``(M x K) @ (K x N) -> (M x N)``, or one per index of the leading
    (batch) axes, which both operands have alike: ``(B x M x K) @ (B x K x N)``."""

    name = "mg.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.ACCUMULATING))
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _inferred(self.name, lhs, shapes.matmul_shape, shape_of(lhs.type),
                                    shape_of(rhs.type))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        self.check_same_element_type(self.lhs, self.rhs, self.result)
        try:
            want = shapes.matmul_shape(shape_of(self.lhs.type), shape_of(self.rhs.type))
        except ShapeError as e:
            raise self.fail(str(e)) from None
        got = shape_of(self.result.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(got)}")


@irdl_op_definition
class TransposeOp(UnaryOp):
    """The axes permuted: ``mg.transpose %x : tensor<2x3xf64> to tensor<3x2xf64>`` reverses
    them (rows become columns); ``{permutation = array<i64: 0, 2, 1>}`` makes the result's
    axis ``i`` the input's axis ``permutation[i]``."""

    name = "mg.transpose"
    permutation = opt_prop_def(DenseArrayBase.constr(i64))
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute | None = None,
                 permutation: Sequence[int] | None = None):
        if result_type is None:
            result_type = tensor_type(shapes.transpose_shape(shape_of(input.type), permutation),
                                      input.type.element_type)  # type: ignore[attr-defined]
        super().__init__(input, result_type)
        if permutation is not None:
            self.permutation = DenseArrayBase.from_list(i64, list(permutation))

    def axes(self) -> list[int]:
        """The input's axis of each of the result's."""
        rank = len(shape_of(self.input.type))
        return list(self.permutation.get_values()) if self.permutation is not None else list(range(rank))[::-1]

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        rank = len(shape_of(self.input.type))
        if sorted(self.axes()) != list(range(rank)):
            raise self.fail(f"the permutation must order the axes 0 to {rank - 1}, got {self.axes()}")
        want = shapes.transpose_shape(shape_of(self.input.type), self.axes())
        got = shape_of(self.result.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(got)}")


@irdl_op_definition
class ConcatOp(MgOp):
    """Tensors of one rank and element type one after another along ``axis``, their other
    sizes equal (a ``?`` checked when the program runs): ``mg.concat %a, %b {axis = 0 :
    i64} : tensor<2x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>``."""

    name = "mg.concat"
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` type($inputs) `->` type($result)"

    def __init__(self, inputs: Sequence[SSAValue], axis: int, result_type: Attribute):
        super().__init__(operands=[list(inputs)], result_types=[result_type], properties={"axis": IntegerAttr(axis, i64)})

    def verify_(self) -> None:
        if not self.inputs:
            raise self.fail("there must be at least one input")
        self.check_same_element_type(*self.inputs, self.result)
        found = [shape_of(v.type) for v in self.inputs]
        result, axis = shape_of(self.result.type), self.axis.value.data
        try:
            shapes.check_axis(len(result), axis)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        off = [s[:axis] + s[axis + 1:] for s in [*found, result]]
        if any(len(s) != len(result) for s in found) or any(not shapes.shapes_compatible(off[0], o) for o in off):
            raise self.fail("the inputs and the result must have one rank and equal sizes off the axis, got "
                            + ", ".join(fmt_shape(s) for s in [*found, result]))
        sizes = [s[axis] for s in found]
        want = None if None in sizes else sum(sizes)  # type: ignore[arg-type]
        if not shapes.dims_compatible(want, result[axis]):
            raise self.fail(f"the result's size along the axis must be the inputs' sum {fmt_dim(want)}, "
                            f"got {fmt_dim(result[axis])}")


@irdl_op_definition
class SliceOp(UnaryOp):
    """``start`` to ``stop`` (not included) along ``axis``, the other axes whole:
    ``mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<2x4xf64> to
    tensor<2x2xf64>``. A stop beyond a ``?`` size is found when the program runs."""

    name = "mg.slice"
    axis = prop_def(IntegerAttr[IntegerType])
    start = prop_def(IntegerAttr[IntegerType])
    stop = prop_def(IntegerAttr[IntegerType])
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, axis: int, start: int, stop: int):
        shape = shapes.slice_shape(shape_of(input.type), axis, start, stop)
        super().__init__(input, tensor_type(shape, input.type.element_type))  # type: ignore[attr-defined]
        self.axis, self.start, self.stop = (IntegerAttr(v, i64) for v in (axis, start, stop))

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        shape = shape_of(self.input.type)
        try:
            shapes.check_axis(len(shape), self.axis.value.data)
            want = shapes.slice_shape(shape, self.axis.value.data, self.start.value.data, self.stop.value.data)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        if shape_of(self.result.type) != want:
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(shape_of(self.result.type))}")


REDUCE_KINDS = tuple(REDUCTIONS)


@irdl_op_definition
class ReduceOp(MgOp):
    """Reduce along one axis with ``sum``, ``max``, ``prod`` or ``min``; the axis collapses
    to size 1.

    ``axis = 1`` combines the elements of each row (an M x 1 result), ``axis = 0`` those of
    each column (1 x N).
    """

    name = "mg.reduce"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    kind = prop_def(StringAttr)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.ACCUMULATING))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axis: int, kind: str, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _inferred(self.name, input, shapes.reduce_shape, shape_of(input.type), axis)
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64), "kind": StringAttr(kind)},
        )

    @property
    def reduction(self) -> Reduction:
        integer = element_types.is_integer(self.input.type)
        return (INTEGER_REDUCTIONS if integer else REDUCTIONS)[self.kind.data]

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        in_shape, out_shape = shape_of(self.input.type), shape_of(self.result.type)
        axis = self.axis.value.data
        try:
            shapes.check_axis(len(in_shape), axis)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        if self.kind.data not in REDUCE_KINDS:
            raise self.fail(f"kind must be one of {', '.join(REDUCE_KINDS)}, got '{self.kind.data}'")
        want = shapes.reduce_shape(in_shape, axis)
        if out_shape[axis:axis + 1] != (1,) or not shapes.shapes_compatible(want, out_shape):
            raise self.fail(
                f"reducing axis {axis} of {self.input.type} must give a result with that "
                f"axis of size 1, got {self.result.type}"
            )


@irdl_op_definition
class BroadcastOp(MgOp):
    """Repeat a tensor to fill a larger shape: leading dimensions are added, each static 1
    grows to a static size, and every other dimension (``?`` included) stays as it is
    (``tensor<?x1xf64> -> tensor<?x10xf64>``, ``tensor<3xf64> -> tensor<2x3xf64>``). An added
    dimension may be a ``?`` (a rank-0 or lower-rank tensor against one with ``?`` sizes, as
    NumPy broadcasts): its size is read from the first ``like`` operand (right-aligned like
    the input) that has a ``?`` there:
    ``mg.broadcast %b like %x : tensor<3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>``."""

    name = "mg.broadcast"
    input = operand_def(TensorType)
    like = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = MOVES
    assembly_format = "$input (`like` $like^)? attr-dict `:` type($input) (`,` type($like)^)? `->` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute, like: Sequence[SSAValue] = ()):
        super().__init__(operands=[input, list(like)], result_types=[result_type])

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        in_shape, out_shape = shape_of(self.input.type), shape_of(self.result.type)
        d = shapes.broadcast_blocker(in_shape, out_shape)
        if d is not None:
            raise self.fail(
                f"dimension {d} of {self.input.type} can only stay as it is or grow from a "
                f"static 1 to a static size, not to {self.result.type}"
            )
        for d in range(len(out_shape) - len(in_shape)):
            if out_shape[d] is None and size_source(self, d) is None:
                raise self.fail(f"the added dimension {d} of {self.result.type} is '?': a like operand "
                                "must have a '?' there to give its size")


def size_source(op: BroadcastOp, d: int) -> tuple[SSAValue, int] | None:
    """The ``like`` operand of ``op`` whose size gives the result's added dimension ``d``
    (a ``?``), and that dimension of it; ``None`` if none has a ``?`` there."""
    rank = len(shape_of(op.result.type))
    for v in op.like:
        pos = d - (rank - len(shape_of(v.type)))
        if pos >= 0 and shape_of(v.type)[pos] is None:
            return v, pos
    return None


@irdl_op_definition
class CastOp(UnaryOp):
    """Change what is known statically about a shape, not the data.

    ``tensor<2x3xf64> to tensor<?x?xf64>`` forgets the sizes (passing a matrix to a ``?``
    parameter); ``tensor<?x3xf64> to tensor<2x3xf64>`` claims them, which is checked at run
    time.
    """

    name = "mg.cast"
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute, messages: Sequence[str] | None = None):
        super().__init__(input, result_type)
        if messages is not None:
            self.attributes[CHECK_MESSAGES] = ArrayAttr([StringAttr(m) for m in messages])

    def verify_(self) -> None:
        self.check_elementwise(self.input, self.result)
        messages = self.attributes.get(CHECK_MESSAGES)
        if messages is not None and not (
                isinstance(messages, ArrayAttr) and len(messages) == len(shape_of(self.result.type))
                and all(isinstance(m, StringAttr) for m in messages)):
            raise self.fail(f"{CHECK_MESSAGES} must be an array of one string per dimension of the result")

    def check_message(self, dim: int) -> str:
        """The message of the run-time check that dimension ``dim`` has its static size."""
        messages = self.attributes.get(CHECK_MESSAGES)
        if isinstance(messages, ArrayAttr) and messages.data[dim].data:  # type: ignore[attr-defined]
            return messages.data[dim].data  # type: ignore[attr-defined]
        return f"{self.name}: dimension {dim} differs at runtime from the static size {shape_of(self.result.type)[dim]}"


def convert_element(x: SSAValue, to: Attribute) -> SSAValue:
    """``x`` as a number of type ``to``: floats widen or round to nearest, integers widen or
    wrap, integers become the nearest float; a float becomes an integer truncated toward
    zero, saturating at the type's limits, NaN giving 0 (what NumPy gives is undefined
    there, and ``arith.fptosi`` leaves it undefined too, so the limits are chosen first);
    ``i1`` is ``x != 0``, and from ``i1`` false and true are 0 and 1."""
    source = x.type
    if source == to:
        return x
    if element_types.computed_in(source) != source:  # (see ScalarComputation.compute)
        return convert_element(widened(x), to)
    if element_types.computed_in(to) != to:  # (bf16 through f32, as ml_dtypes converts)
        return narrowed(convert_element(x, element_types.computed_in(to)), to)
    if element_types.is_bool(to):  # true where not zero (NaN too, as NumPy's bool(nan))
        if element_types.is_float(source):
            return arith.CmpfOp(x, _constant(0.0, x.type), "une").result
        return arith.CmpiOp(x, _constant(0, x.type), "ne").result
    if element_types.is_bool(source):  # false and true are 0 and 1
        if element_types.is_float(to):
            return arith.UIToFPOp(x, to).result
        return arith.ExtUIOp(x, to).result
    if element_types.is_float(source) and element_types.is_float(to):
        wider = to.bitwidth > source.bitwidth  # type: ignore[attr-defined]
        return (arith.ExtFOp if wider else arith.TruncFOp)(x, to).result
    if element_types.is_integer(source) and element_types.is_integer(to):
        wider = to.width.data > source.width.data  # type: ignore[attr-defined]
        return (arith.ExtSIOp if wider else arith.TruncIOp)(x, to).result
    if element_types.is_integer(source):
        return arith.SIToFPOp(x, to).result
    low, high = element_types.integer_range(to)
    too_low = arith.CmpfOp(x, _constant(float(low), x.type), "olt").result  # (powers of two: exact)
    too_high = arith.CmpfOp(x, _constant(float(high + 1), x.type), "oge").result
    nan = arith.CmpfOp(x, x, "uno").result
    outside = arith.OrIOp(arith.OrIOp(too_low, too_high).result, nan).result
    inside = arith.FPToSIOp(arith.SelectOp(outside, _constant(0.0, x.type), x).result, to).result
    limited = arith.SelectOp(too_low, _constant(low, to), arith.SelectOp(too_high, _constant(high, to), inside).result)
    return limited.result


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
        return convert_element(operands[0], self.result.type.element_type)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------
# Math functions: one op each, computing an element with the math dialect's op of its name
# ---------------------------------------------------------------------------------------


class MathUnaryOp(ElementwiseUnaryOp):
    """``f(x)`` element by element, ``f`` the math dialect's op ``MATH``; floats only."""

    MATH: ClassVar[type[IRDLOperation]]
    traits = traits_def(LoweredElementTypes(FLOATS))

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return self.MATH(operands[0]).result


def _math_unary(function: str, op: type[IRDLOperation], doc: str) -> type[MathUnaryOp]:
    cls = type(f"{function.capitalize()}Op", (MathUnaryOp,),
               {"name": f"mg.{function}", "MATH": op, "__doc__": doc, "__module__": __name__,
                "__annotations__": {"MATH": ClassVar[type[IRDLOperation]]}})
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


# ---------------------------------------------------------------------------------------
# Shapes and new tensors
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class ReshapeOp(UnaryOp):
    """The same elements in the same (row-major) order in another shape: dimensions of size
    1 dropped or added (a reduction's result without its kept dimensions, ``?`` sizes
    allowed): ``mg.reshape %x : tensor<?x1xf64> to tensor<?xf64>``; or any shape of the same
    element count, both static: ``tensor<3x4xf64> to tensor<2x6xf64>``."""

    name = "mg.reshape"
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        if self.unit_dims_only():
            return
        shape, result = shape_of(self.input.type), shape_of(self.result.type)
        if None in shape or None in result or shapes.element_count(shape) != shapes.element_count(result):
            raise self.fail(f"cannot reshape {fmt_shape(shape)} to {fmt_shape(result)}: only dimensions of "
                            "size 1 may be dropped or added, or the shapes must be static with one element count")

    def unit_dims_only(self) -> bool:
        """Whether the shapes differ only in dimensions of size 1 (``shapes.unit_dims_map``)."""
        try:
            shapes.unit_dims_map(shape_of(self.input.type), shape_of(self.result.type))
        except ShapeError:
            return False
        return True


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
        super().__init__(result_types=[result_type],
                         properties={"value": element_types.attr(value, result_type.element_type)})

    def verify_(self) -> None:
        if None in shape_of(self.result.type):
            raise self.fail("the shape must be static")
        self.check_number_type(self.value, self.result, "the value must be of the result's")


@irdl_op_definition
class LinearScanOp(MgOp):
    """The first-order linear recurrence along ``axis``: ``h[t] = a[t] * h[t-1] + b[t]`` from
    ``h = 0`` (so ``h[0] = b[0]``), from the end if ``reverse``; ``a``, ``b`` and the result of
    one shape and type (``cumsum`` is ``a = 1``). ``bf16`` is carried in ``f32`` and rounded
    once per element. ``mg.linear_scan %a, %b {axis = 0 : i64, reverse = false} : tensor<4x3xf64>,
    tensor<4x3xf64> -> tensor<4x3xf64>``."""

    name = "mg.linear_scan"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    reverse = prop_def(BoolAttr)
    traits = traits_def(Pure(), LoweredElementTypes())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)"

    def __init__(self, a: SSAValue, b: SSAValue, axis: int, reverse: bool, result_type: Attribute | None = None):
        super().__init__(operands=[a, b], result_types=[result_type or b.type],
                         properties={"axis": IntegerAttr(axis, i64), "reverse": BoolAttr.from_bool(reverse)})

    def verify_(self) -> None:
        self.check_elementwise(self.a, self.b, self.result)
        try:
            shapes.check_axis(len(shape_of(self.result.type)), self.axis.value.data)
        except ShapeError as e:
            raise self.fail(str(e)) from None

    def step(self, a: SSAValue, b: SSAValue, h: SSAValue) -> SSAValue:
        """``a * h + b`` on elements (of the type the recurrence is carried in)."""
        return binary_arith("add", binary_arith("mul", a, h), b)


class IndexingOp(MgOp):
    """Base of the ops that read or write a tensor at positions held in another (``mg.index``,
    ``mg.index_add``, ``mg.gather``, ``mg.scatter_add``): those positions are integers,
    checked to be in range when the program runs."""

    def check_ids(self, ids: SSAValue, what: str) -> None:
        """``ids`` (``what`` the messages call them) are integers an index is made of."""
        element = _tensor(ids).element_type
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

    def positions(self) -> tuple[SSAValue, str]:
        """The operand holding the positions, and what the messages call them."""
        raise NotImplementedError

    def values_shape(self) -> tuple[Shape, str]:
        """The shape ``values`` must have, and how the messages say it."""
        raise NotImplementedError

    def verify_(self) -> None:
        self.check_same_element_type(self.base, self.values, self.result)
        problem = element_types.unsupported(_tensor(self.base).element_type)
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
class IndexOp(IndexingOp):
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
        super().__init__(operands=[table, ids], result_types=[tensor_type(shape, _tensor(table).element_type)])

    def verify_(self) -> None:
        self.check_same_element_type(self.table, self.result)
        self.check_ids(self.ids, "the ids")
        want = self.rule(shapes.index_shape, shape_of(self.table.type), shape_of(self.ids.type))
        self.check_shape(self.result, want, "the result (the ids' shape, then a row's)")


@irdl_op_definition
class IndexAddOp(IndexingAddOp):
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
    assembly_format = ("$base `,` $ids `,` $values attr-dict `:` type($base) `,` type($ids) `,` type($values) "
                       "`->` type($result)")

    def __init__(self, base: SSAValue, ids: SSAValue, values: SSAValue):
        super().__init__(operands=[base, ids, values], result_types=[base.type])

    def positions(self) -> tuple[SSAValue, str]:
        return self.ids, "the ids"

    def values_shape(self) -> tuple[Shape, str]:
        return (self.rule(shapes.index_shape, shape_of(self.base.type), shape_of(self.ids.type)),
                "values (the ids' shape, then a row's)")


@irdl_op_definition
class GatherOp(IndexingOp):
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
        super().__init__(operands=[x, idx], properties={"axis": IntegerAttr(axis, i64)},
                         result_types=[tensor_type(shape_of(idx.type), _tensor(x).element_type)])

    def verify_(self) -> None:
        self.check_same_element_type(self.x, self.result)
        self.check_ids(self.idx, "the indices")
        want = self.rule(shapes.along_axis_shape, shape_of(self.x.type), shape_of(self.idx.type),
                         self.axis.value.data, "gather")
        self.check_shape(self.result, want, "the result (the indices' shape)")


@irdl_op_definition
class ScatterAddOp(IndexingAddOp):
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
    assembly_format = ("$base `,` $idx `,` $values attr-dict `:` type($base) `,` type($idx) `,` type($values) "
                       "`->` type($result)")

    def __init__(self, base: SSAValue, idx: SSAValue, values: SSAValue, axis: int):
        super().__init__(operands=[base, idx, values], result_types=[base.type],
                         properties={"axis": IntegerAttr(axis, i64)})

    def positions(self) -> tuple[SSAValue, str]:
        return self.idx, "the indices"

    def values_shape(self) -> tuple[Shape, str]:
        return (self.rule(shapes.along_axis_shape, shape_of(self.base.type), shape_of(self.idx.type),
                          self.axis.value.data, "scatter_add"), "values (the indices' shape)")


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
        super().__init__(result_types=[result_type], properties={
            "distribution": StringAttr(distribution), "seed": IntegerAttr(seed, i64),
            "a": FloatAttr(a, Float64Type()), "b": FloatAttr(b, Float64Type())})

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
        element = self.result.type.element_type  # type: ignore[attr-defined]
        t = element_types.computed_in(element)
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


@irdl_op_definition
class ExtractOp(MgOp):
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
        super().__init__(operands=[input], result_types=[tensor_type((), input.type.element_type)],  # type: ignore[attr-defined]
                         properties={"indices": DenseArrayBase.from_list(i64, list(indices))})

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        if shape_of(self.result.type) != ():
            raise self.fail("the result must be a rank-0 tensor (one element)")
        shape, indices = shape_of(self.input.type), self.indices.get_values()
        if len(indices) != len(shape):
            raise self.fail(f"there must be an index per dimension of the input: {len(shape)}, got {len(indices)}")
        for d, (index, size) in enumerate(zip(indices, shape)):
            if size is not None and not -size <= index < size:
                raise self.fail(f"index {index} is out of range for dimension {d} of size {size} "
                                f"(-{size} to {size - 1})")


@irdl_op_definition
class PrintOp(MgOp):
    """Print a tensor in the format of MLIR's ``printMemref*`` for its element type."""

    name = "mg.print"
    input = operand_def(TensorType)
    traits = traits_def(LoweredElementTypes(element_types.PRINTABLE))
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input])


Mg = Dialect(
    "mg",
    [
        ConstantOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        NegOp,
        ReluOp,
        ScalarOp,
        MatmulOp,
        TransposeOp,
        SliceOp,
        ConcatOp,
        ReduceOp,
        BroadcastOp,
        CastOp,
        ConvertOp,
        CompareOp,
        SelectOp,
        FullLikeOp,
        MaxOp,
        MinOp,
        PowOp,
        Atan2Op,
        *MATH_UNARY_OPS,
        AbsOp,
        ReshapeOp,
        FullOp,
        IotaOp,
        RandomOp,
        LinearScanOp,
        IndexOp,
        IndexAddOp,
        GatherOp,
        ScatterAddOp,
        ExtractOp,
        PrintOp,
    ],
)
