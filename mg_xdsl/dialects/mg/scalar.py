"""What the ops compute on one element, said once: the arith ops of each binary operator
and comparison, integer division's zero check, the bf16 rule (computed in f32, rounded
once), element conversion, each reduction's combining op and identity, and the interface
``ScalarComputation`` that the elementwise ops implement.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, cf, llvm, math  # (llvm: frem, as arith has no remf in xDSL)
from xdsl.dialects.builtin import AnyFloat, IntegerType, i16, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation

from mg_xdsl.core import element_types

# The arith ops of each binary operator, as ``mg.add`` and ``mg.scalar {op = "add"}`` name
# it: for floats, and for (signed) integers.
# (maximumf/minimumf propagate NaN, as NumPy's maximum and minimum; pow and atan2 have no
# integer form, and their ops take floats only.)
FloatBinaryOp = type[arith.FloatingPointLikeBinaryOperation] | type[math.FloatingPointLikeBinaryMathOperation]
IntegerBinaryOp = type[arith.SignlessIntegerBinaryOperation]
BINARY_ARITH: dict[str, tuple[FloatBinaryOp, IntegerBinaryOp | None]] = {
    "add": (arith.AddfOp, arith.AddiOp),
    "sub": (arith.SubfOp, arith.SubiOp),
    "mul": (arith.MulfOp, arith.MuliOp),
    "div": (arith.DivfOp, arith.DivSIOp),
    "max": (arith.MaximumfOp, arith.MaxSIOp),
    "min": (arith.MinimumfOp, arith.MinSIOp),
    # (% and //, NumPy's remainder and floor_divide: the ops named are their starting
    # points, which ``remainder`` and ``floor_division`` correct toward NumPy's rules)
    "rem": (arith.DivfOp, arith.RemSIOp),
    "floordiv": (arith.DivfOp, arith.DivSIOp),
    "pow": (math.PowFOp, None),
    "atan2": (math.Atan2Op, None),
}


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
    "lt": ("olt", "slt", "ult"),
    "le": ("ole", "sle", "ule"),
    "gt": ("ogt", "sgt", "ugt"),
    "ge": ("oge", "sge", "uge"),
    "eq": ("oeq", "eq", "eq"),
    "ne": ("une", "ne", "ne"),
}


def compare(predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs predicate rhs`` on two elements, an ``i1`` (``predicate`` a key of
    ``COMPARISONS``)."""
    floats, signed, unsigned = COMPARISONS[predicate]
    if element_types.is_float(lhs.type):
        return arith.CmpfOp(lhs, rhs, floats).result
    return arith.CmpiOp(lhs, rhs, unsigned if element_types.is_bool(lhs.type) else signed).result


def checked_divisor(rhs: SSAValue, message: str) -> SSAValue:
    """``rhs``, an integer divisor, after the run-time check that it is not zero: the
    divisor 1 where it is -1 too (``MIN / -1`` overflows; the callers make that case
    themselves), so the division that follows is always defined."""
    zero, one, minus_one = (_constant(c, rhs.type) for c in (0, 1, -1))
    cf.AssertOp(arith.CmpiOp(rhs, zero, "ne").result, message)
    unsafe = arith.OrIOp(arith.CmpiOp(rhs, minus_one, "eq").result, arith.CmpiOp(rhs, zero, "eq").result).result
    return arith.SelectOp(unsafe, one, rhs).result


def zero_signed_as(x: SSAValue) -> SSAValue:
    """A float zero with ``x``'s sign bit (``copysign(0, x)``, which our math lowering lacks),
    read from ``x``'s bits: NaN and -0.0 keep their sign."""
    width = 64 if x.type == element_types.F64 else 32
    bits = arith.BitcastOp(x, IntegerType(width)).result
    negative = arith.CmpiOp(bits, _constant(0, IntegerType(width)), "slt").result
    return arith.SelectOp(negative, _constant(-0.0, x.type), _constant(0.0, x.type)).result


def remainder(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs % rhs`` as NumPy's ``remainder`` (Python's ``%``): the sign of the divisor.
    Floats: C's ``fmod`` (LLVM's ``frem``, exact), moved by ``rhs`` where the signs differ,
    a zero result signed as ``rhs``; NaN for a zero ``rhs``. Integers: ``remsi`` moved the
    same way; a zero ``rhs`` stops the program as integer division does (``x % -1`` is 0)."""
    if element_types.is_integer(lhs.type):
        zero = _constant(0, rhs.type)
        r = arith.RemSIOp(lhs, checked_divisor(rhs, DIVISION_BY_ZERO.replace("mg.div", "mg.rem"))).result
        differ = arith.CmpiOp(arith.XOrIOp(r, rhs).result, zero, "slt").result
        move = arith.AndIOp(arith.CmpiOp(r, zero, "ne").result, differ).result
        return arith.SelectOp(move, arith.AddiOp(r, rhs).result, r).result
    zero = _constant(0.0, rhs.type)
    r = llvm.FRemOp(lhs, rhs).res
    differ = arith.XOrIOp(arith.CmpfOp(r, zero, "olt").result, arith.CmpfOp(rhs, zero, "olt").result).result
    move = arith.AndIOp(arith.CmpfOp(r, zero, "one").result, differ).result
    moved = arith.SelectOp(move, arith.AddfOp(r, rhs).result, r).result
    is_zero = arith.CmpfOp(moved, zero, "oeq").result
    return arith.SelectOp(is_zero, zero_signed_as(rhs), moved).result


def floor_division(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs // rhs`` as NumPy's ``floor_divide`` (Python's ``//``). Integers: the quotient
    rounded toward minus infinity (``MIN // -1`` wraps to ``MIN``; a zero ``rhs`` stops the
    program). Floats: NumPy's ``npy_divmod``, ``(lhs - lhs % rhs) / rhs`` rounded to the
    nearest whole number (exact, where ``floor(lhs / rhs)`` can be one off), ``lhs / rhs``
    for a zero ``rhs`` (infinity or NaN)."""
    if element_types.is_integer(lhs.type):
        zero, one, minus_one = (_constant(c, rhs.type) for c in (0, 1, -1))
        negate = arith.CmpiOp(rhs, minus_one, "eq").result
        safe = checked_divisor(rhs, DIVISION_BY_ZERO.replace("mg.div", "mg.floordiv"))
        truncated = arith.DivSIOp(lhs, safe).result  # (toward zero: one less where inexact and negative)
        r = arith.SubiOp(lhs, arith.MuliOp(truncated, safe).result).result
        differ = arith.CmpiOp(arith.XOrIOp(r, safe).result, zero, "slt").result
        down = arith.AndIOp(arith.CmpiOp(r, zero, "ne").result, differ).result
        quotient = arith.SelectOp(down, arith.SubiOp(truncated, one).result, truncated).result
        return arith.SelectOp(negate, arith.SubiOp(zero, lhs).result, quotient).result
    zero, one, half = (_constant(c, rhs.type) for c in (0.0, 1.0, 0.5))
    mod = llvm.FRemOp(lhs, rhs).res
    div = arith.DivfOp(arith.SubfOp(lhs, mod).result, rhs).result
    differ = arith.XOrIOp(arith.CmpfOp(rhs, zero, "olt").result, arith.CmpfOp(mod, zero, "olt").result).result
    adjust = arith.AndIOp(arith.CmpfOp(mod, zero, "one").result, differ).result
    div = arith.SelectOp(adjust, arith.SubfOp(div, one).result, div).result
    floored = math.FloorOp(div).result
    up = arith.CmpfOp(arith.SubfOp(div, floored).result, half, "ogt").result
    floored = arith.SelectOp(up, arith.AddfOp(floored, one).result, floored).result
    quotient = arith.DivfOp(lhs, rhs).result
    floored = arith.SelectOp(arith.CmpfOp(div, zero, "oeq").result, zero_signed_as(quotient), floored).result
    return arith.SelectOp(arith.CmpfOp(rhs, zero, "oeq").result, quotient, floored).result


def binary_arith(op: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs op rhs`` on two elements (``op`` a key of ``BINARY_ARITH``)."""
    if op == "rem":
        return remainder(lhs, rhs)
    if op == "floordiv":
        return floor_division(lhs, rhs)
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


class ScalarComputation(IRDLOperation):
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
        return narrowed(result, element_types.element_of(self.results[0].type))


@dataclass(frozen=True)
class Reduction:
    combine: FloatBinaryOp | IntegerBinaryOp  # the arith op that folds an element into the running value
    identity: float  # where the fold starts: the value that leaves any element as it is


# Each reduction: its operator in BINARY_ARITH, and its identity (-inf and inf are an integer
# type's minimum and maximum: ``element_types.attr``). ``REDUCTIONS`` are the float forms
# (maximumf propagates NaN, as NumPy's max), ``INTEGER_REDUCTIONS`` the integer ones.
_REDUCTION_KINDS = {
    "sum": ("add", 0.0),
    "max": ("max", float("-inf")),
    "prod": ("mul", 1.0),
    "min": ("min", float("inf")),
}


REDUCTIONS: dict[str, Reduction] = {
    kind: Reduction(BINARY_ARITH[op][0], identity) for kind, (op, identity) in _REDUCTION_KINDS.items()
}


def _integer_form(op: str) -> IntegerBinaryOp:
    integer_op = BINARY_ARITH[op][1]
    assert integer_op is not None, f"the reduction {op} has no integer form"
    return integer_op


INTEGER_REDUCTIONS: dict[str, Reduction] = {
    kind: Reduction(_integer_form(op), identity) for kind, (op, identity) in _REDUCTION_KINDS.items()
}


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
        if isinstance(to, AnyFloat):
            return arith.UIToFPOp(x, to).result
        assert isinstance(to, IntegerType)
        return arith.ExtUIOp(x, to).result
    # (From here on, both are scalar types: an element type is never a container.)
    if isinstance(source, AnyFloat) and isinstance(to, AnyFloat):
        wider = to.bitwidth > source.bitwidth
        return (arith.ExtFOp if wider else arith.TruncFOp)(x, to).result
    if isinstance(source, IntegerType) and isinstance(to, IntegerType):
        wider = to.width.data > source.width.data
        return (arith.ExtSIOp if wider else arith.TruncIOp)(x, to).result
    if isinstance(source, IntegerType):
        assert isinstance(to, AnyFloat)
        return arith.SIToFPOp(x, to).result
    assert isinstance(to, IntegerType)
    low, high = element_types.integer_range(to)
    too_low = arith.CmpfOp(x, _constant(float(low), x.type), "olt").result  # (powers of two: exact)
    too_high = arith.CmpfOp(x, _constant(float(high + 1), x.type), "oge").result
    nan = arith.CmpfOp(x, x, "uno").result
    outside = arith.OrIOp(arith.OrIOp(too_low, too_high).result, nan).result
    inside = arith.FPToSIOp(arith.SelectOp(outside, _constant(0.0, x.type), x).result, to).result
    limited = arith.SelectOp(too_low, _constant(low, to), arith.SelectOp(too_high, _constant(high, to), inside).result)
    return limited.result
