"""The approximations of ``math-polynomial-approximation``, each a function from an
``Emitter`` and the op's operands to the result, built of ``arith`` ops.

Each function reduces its argument to a short interval exactly (or with its error kept in
a second double), evaluates a polynomial there (``coefficients.py``, fitted by
``scripts/math_coefficients.py``), and puts the result back together; special values (0,
subnormals, infinities, NaN, overflow) are either right by construction or chosen by a
``select`` at the end. There are no branches, table lookups or calls: a loop of them is
vectorised by LLVM as any other arithmetic. ``docs/math-accuracy.md`` states the measured
error of each.

``f32`` ``exp``, ``log`` and ``tanh`` are computed in ``f32``. The other ``f32`` functions
are computed in ``f64`` with polynomials of ``f32`` accuracy, and rounded once at the end:
``sin`` and ``cos`` need their argument reduced with more bits of pi than ``f32`` holds,
and ``pow`` a logarithm more precise than the result.
"""

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import f32, f64
from xdsl.ir import SSAValue

from mg_xdsl.transforms.math.coefficients import COEFFICIENTS
from mg_xdsl.transforms.math.emitter import Emitter

h = float.fromhex

INF = float("inf")
NAN = float("nan")
LOG2E = h("0x1.71547652b82fep+0")
# ln 2 = hi + lo, hi with few enough bits that n * hi is exact for every n the functions
# reach (|n| <= 1075 for f64, 150 for f32).
LN2 = {
    f32: (h("0x1.62ep-1"), h("0x1.0bfbe8p-15")),
    f64: (h("0x1.62e42ffp-1"), h("-0x1.718432a1b0e26p-35")),
}
# exp's argument is clamped to these: beyond them the result is 0 or infinity already
# (exp(-104) < 2^-150, half the least f32 subnormal; exp(88.8) > the greatest f32).
EXP_RANGE = {f32: (-104.0, 88.8), f64: (-745.2, 709.9)}
SQRT_HALF_BITS = {f32: 0x3F3504F3, f64: 0x3FE6A09E667F3BCD}
ONE_BITS = {f32: 0x3F800000, f64: 0x3FF0000000000000}
SMALLEST_NORMAL = {f32: 2.0**-126, f64: 2.0**-1022}

TWO_OVER_PI = h("0x1.45f306dc9c883p-1")
# pi/2 in four parts (29, 29, 29 and 53 bits): n * P1, n * P2 and n * P3 are exact for
# |n| < 2^24; with P4, pi/2 to 146 bits.
PIO2 = (h("0x1.921fb54p+0"), h("0x1.10b4612p-30"), h("-0x1.676733bp-60"), h("0x1.701b839a25205p-92"))
PIO2_HI, PIO2_LO = h("0x1.921fb54442d18p+0"), h("0x1.1a62633145c07p-54")
PI_HI, PI_LO = h("0x1.921fb54442d18p+1"), h("0x1.1a62633145c07p-53")
PIO4 = h("0x1.921fb54442d18p-1")
# sin and cos reduce exactly while |x| * 2/pi < 2^24; beyond, the reduced argument is clamped
# to the polynomials' interval (the result stays in [-1, 1]).
SIN_BOUND = 2.0**24 * PIO2_HI
R_LIMIT = 0.7854
# atan's intervals (as fdlibm's): atan(x) = atan(c) + atan((x - c) / (1 + c x)).
ATAN_BREAKS = (7 / 16, 11 / 16, 19 / 16, 39 / 16)
ATAN_C = (0.0, 0.5, 1.0, 1.5)
ATAN_HI = (0.0, h("0x1.dac670561bb4fp-2"), PIO4, h("0x1.f730bd281f69bp-1"), PIO2_HI)
ATAN_LO = (0.0, h("0x1.a2b7f222f65e2p-56"), h("0x1.1a62633145c07p-55"), h("0x1.007887af0cbbdp-56"), PIO2_LO)
TWO_THIRDS = (h("0x1.5555555555555p-1"), h("0x1.5555555555555p-55"))


def coefficients(name: str, e: Emitter, for_f32: bool = False) -> tuple[float, ...]:
    precision = "f64-for-f32" if for_f32 else ("f64" if e.double else "f32")
    return COEFFICIENTS[(name, "f64-dd" if name == "log5" else precision)]


# ----------------------------------------------------------------------------- exp


def exp(e: Emitter, x: SSAValue, for_f32: bool = False, tail: SSAValue | None = None) -> SSAValue:
    """e^x: x = n ln2 + r, |r| <= ln2/2 (Cody and Waite: n * ln2_hi exact), e^r = 1 + r +
    r^2 P(r), times 2^n in two factors (so that a subnormal result is rounded once). Every
    step a multiply-add where the CPU has FMA: ``exp`` is the longest dependency chain of a
    softmax's or an attention's loop (docs/math-accuracy.md). ``tail``: a small addend of x
    (the low part of a double-double argument)."""
    lo, hi = EXP_RANGE[e.t]
    clamped = e.select(e.cmp("ogt", x, e.c(hi)), e.c(hi), x)
    clamped = e.select(e.cmp("olt", clamped, e.c(lo)), e.c(lo), clamped)
    n, bits = e.round(clamped, times=e.c(LOG2E))
    shifted_n = e.shl(bits, e.i(e.mantissa))
    ln2_hi, ln2_lo = LN2[e.t]
    r = e.mul_add(n, e.c(-ln2_hi), clamped)
    if tail is None:
        r = e.mul_add(n, e.c(-ln2_lo), r)
    else:
        inside = e.both(e.cmp("oge", x, e.c(lo)), e.cmp("ole", x, e.c(hi)))
        r = e.sub(r, e.sub(e.mul(n, e.c(ln2_lo)), e.select(inside, tail, e.c(0.0))))
    p = e.poly(r, coefficients("exp", e, for_f32), fused=True)
    return e.scale_one_plus(e.mul_add(e.mul(r, r), p, r), shifted_n)


# ----------------------------------------------------------------------------- log


def _reduce_log(e: Emitter, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(k, f) with x = 2^k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), for x > 0 finite
    (subnormals scaled up first); k as a float."""
    tiny = e.cmp("olt", x, e.c(SMALLEST_NORMAL[e.t]))
    up = e.mantissa + 2
    scaled = e.select(tiny, e.mul(x, e.c(2.0**up)), x)
    bits = e.iadd(e.bits(scaled), e.i(ONE_BITS[e.t] - SQRT_HALF_BITS[e.t]))
    k = e.isub(e.shr(bits, e.i(e.mantissa)), e.select(tiny, e.i(e.bias + up), e.i(e.bias)))
    m = e.float(e.iadd(e.iand(bits, e.i((1 << e.mantissa) - 1)), e.i(SQRT_HALF_BITS[e.t])))
    return e.to_float(k), e.sub(m, e.c(1.0))


def _log_specials(e: Emitter, x: SSAValue, result: SSAValue) -> SSAValue:
    """log's value at +inf, 0, below 0 and NaN."""
    result = e.select(e.cmp("oeq", x, e.c(INF)), x, result)
    result = e.select(e.cmp("oeq", x, e.c(0.0)), e.c(-INF), result)
    result = e.select(e.cmp("olt", x, e.c(0.0)), e.c(NAN), result)
    return e.select(e.cmp("uno", x, x), x, result)


def log(e: Emitter, x: SSAValue, for_f32: bool = False) -> SSAValue:
    """ln x = k ln2 + ln(1 + f), ln(1 + f) = 2 atanh(s), s = f / (2 + f), |s| < 0.1716: as
    fdlibm, f - (f^2/2 - s (f^2/2 + R)), R = s^2 L(s^2), so that the big terms are exact."""
    k, f = _reduce_log(e, x)
    hfsq = e.mul(e.mul(e.c(0.5), f), f)
    s = e.div(f, e.add(e.c(2.0), f))
    z = e.mul(s, s)
    big_r = e.mul(z, e.poly(z, coefficients("log", e, for_f32)))
    ln2_hi, ln2_lo = LN2[e.t]
    inner = e.add(e.mul(s, e.add(hfsq, big_r)), e.mul(k, e.c(ln2_lo)))
    result = e.sub(e.mul(k, e.c(ln2_hi)), e.sub(e.sub(hfsq, inner), f))
    return _log_specials(e, x, result)


def log_double_double(e: Emitter, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """ln x as hi + lo, to about 2^-68 of it (``pow``'s logarithm): the terms 2s and
    2s^3/3 of 2 atanh(s) in double-double (Dekker's products), the rest in double."""
    k, f = _reduce_log(e, x)
    m = e.add(f, e.c(1.0))
    d_hi, d_lo = e.fast_two_sum(e.c(1.0), m)  # 1 + m = 2 + f, exactly
    s_hi = e.div(f, d_hi)
    p, p_err = e.two_product(s_hi, d_hi)
    s_lo = e.div(e.sub(e.sub(e.sub(f, p), p_err), e.mul(s_hi, d_lo)), d_hi)
    z_hi, z_lo = e.two_product(s_hi, s_hi)
    z_lo = e.add(z_lo, e.mul(e.add(s_hi, s_hi), s_lo))
    c_hi, c_lo = e.two_product(z_hi, s_hi)  # s^3
    c_lo = e.add(c_lo, e.add(e.mul(z_hi, s_lo), e.mul(z_lo, s_hi)))
    u_hi, u_lo = e.two_product(c_hi, e.c(TWO_THIRDS[0]))  # 2s^3/3
    u_lo = e.add(u_lo, e.add(e.mul(c_hi, e.c(TWO_THIRDS[1])), e.mul(c_lo, e.c(TWO_THIRDS[0]))))
    s5 = e.add(e.mul(c_hi, z_hi), e.add(e.mul(c_hi, z_lo), e.mul(c_lo, z_hi)))  # (s_lo's part counts)
    rest = e.mul(s5, e.poly(z_hi, coefficients("log5", e)))  # s^5 L5(s^2)
    ln2_hi, ln2_lo = LN2[e.t]
    a_hi, a_lo = e.two_sum(e.mul(k, e.c(ln2_hi)), e.add(s_hi, s_hi))
    b_hi, b_lo = e.two_sum(a_hi, u_hi)
    low = e.add(e.add(s_lo, s_lo), e.add(u_lo, rest))
    low = e.add(e.add(a_lo, b_lo), e.add(low, e.mul(k, e.c(ln2_lo))))
    hi, lo = e.fast_two_sum(b_hi, low)
    hi = _log_specials(e, x, hi)
    finite = e.both(e.cmp("ogt", x, e.c(0.0)), e.cmp("olt", x, e.c(INF)))
    return hi, e.select(finite, lo, e.c(0.0))


# ----------------------------------------------------------------------------- tanh


def tanh(e: Emitter, x: SSAValue) -> SSAValue:
    """|x| + |x|^3 T(x^2) for |x| < 0.625; beyond, 1 - 2 / (e^2|x| + 1) (1 once e^2|x|
    overflows); with x's sign."""
    ax = e.abs(x)
    z = e.mul(x, x)
    small = e.add(ax, e.mul(e.mul(ax, z), e.poly(z, coefficients("tanh", e))))
    big = e.sub(e.c(1.0), e.div(e.c(2.0), e.add(exp(e, e.add(ax, ax)), e.c(1.0))))
    return e.copysign(e.select(e.cmp("olt", ax, e.c(0.625)), small, big), x)


# ----------------------------------------------------------------------------- sin, cos


def sin_cos(e: Emitter, x: SSAValue, cosine: bool, for_f32: bool = False) -> SSAValue:
    """sin x or cos x (``e`` of f64): |x| = n pi/2 + r, |r| <= pi/4, pi/2 in four parts
    (Cody and Waite, each step's error kept: exact for |x| < 2^24 pi/2); then r + r^3 S(r^2)
    or 1 - r^2/2 + r^4 C(r^2) by the quadrant n mod 4, and the sign (sin(-0) = -0)."""
    ax = e.abs(x)
    n, bits = e.round(e.mul(ax, e.c(TWO_OVER_PI)))
    ni = e.isub(bits, e.magic_bits())
    r1 = e.sub(ax, e.mul(n, e.c(PIO2[0])))
    r2, r2_err = e.two_sum(r1, e.neg(e.mul(n, e.c(PIO2[1]))))
    r3, r3_err = e.two_sum(r2, e.neg(e.mul(n, e.c(PIO2[2]))))
    low = e.sub(e.add(r2_err, r3_err), e.mul(n, e.c(PIO2[3])))
    r, r_lo = (e.add(r3, low), None) if for_f32 else e.fast_two_sum(r3, low)
    # (only beyond the bound, where n * P1 is no longer exact, can r leave [-pi/4, pi/4])
    outside = e.cmp("ogt", e.abs(r), e.c(R_LIMIT))
    r = e.select(outside, e.copysign(e.c(R_LIMIT), r), r)
    r_lo = None if r_lo is None else e.select(outside, e.c(0.0), r_lo)
    z = e.mul(r, r)
    sin_tail = e.mul(e.mul(r, z), e.poly(z, coefficients("sin", e, for_f32)))
    if r_lo is not None:
        sin_tail = e.add(sin_tail, r_lo)
    sin_r = e.add(r, sin_tail)
    half_z = e.mul(e.c(0.5), z)
    w = e.sub(e.c(1.0), half_z)
    cos_tail = e.mul(e.mul(z, z), e.poly(z, coefficients("cos", e, for_f32)))
    if r_lo is not None:
        cos_tail = e.sub(cos_tail, e.mul(r, r_lo))
    cos_r = e.add(w, e.add(e.sub(e.sub(e.c(1.0), w), half_z), cos_tail))
    quadrant = e.iadd(ni, e.i(1)) if cosine else ni
    odd = e.icmp("ne", e.iand(quadrant, e.i(1)), e.i(0))
    value = e.select(odd, cos_r, sin_r)
    sign = e.shl(e.iand(quadrant, e.i(2)), e.i(e.width - 2))
    if not cosine:
        sign = e.ixor(sign, e.sign(x))
    return e.flip_sign(value, sign)


# ----------------------------------------------------------------------------- asin, acos


def _asin_parts(e: Emitter, x: SSAValue, for_f32: bool) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    """What asin and acos share: for |x| <= 1/2, x^3 B(x^2) (asin x = x + that); beyond,
    s = sqrt((1 - |x|)/2) with its rounding error c (to first order), and s^3 B(s^2)
    (asin |x| = pi/2 - 2 (s + c + that))."""
    ax = e.abs(x)
    z = e.mul(x, x)
    b = coefficients("asin", e, for_f32)
    small_tail = e.mul(e.mul(x, z), e.poly(z, b))
    zb = e.mul(e.sub(e.c(1.0), ax), e.c(0.5))
    s = e.sqrt(zb)
    big_tail = e.mul(e.mul(s, zb), e.poly(zb, b))
    if not for_f32:
        p, p_err = e.two_product(s, s)
        c = e.div(e.sub(e.sub(zb, p), p_err), e.add(s, s))
        big_tail = e.add(big_tail, e.select(e.cmp("ogt", zb, e.c(0.0)), c, e.c(0.0)))
    return ax, small_tail, s, big_tail


def asin(e: Emitter, x: SSAValue, for_f32: bool = False) -> SSAValue:
    ax, small_tail, s, big_tail = _asin_parts(e, x, for_f32)
    small = e.add(x, small_tail)
    hi, lo = e.two_sum(e.c(PIO2_HI), e.neg(e.add(s, s)))
    big = e.add(hi, e.sub(e.add(lo, e.c(PIO2_LO)), e.add(big_tail, big_tail)))
    return e.select(e.cmp("ole", ax, e.c(0.5)), small, e.copysign(big, x))


def acos(e: Emitter, x: SSAValue, for_f32: bool = False) -> SSAValue:
    ax, small_tail, s, big_tail = _asin_parts(e, x, for_f32)
    hi, lo = e.two_sum(e.c(PIO2_HI), e.neg(x))  # pi/2 - asin x
    small = e.add(hi, e.sub(e.add(lo, e.c(PIO2_LO)), small_tail))
    positive = e.add(e.add(s, s), e.add(big_tail, big_tail))  # 2 asin s
    hi, lo = e.two_sum(e.c(PI_HI), e.neg(e.add(s, s)))  # pi - 2 asin s
    negative = e.add(hi, e.sub(e.add(lo, e.c(PI_LO)), e.add(big_tail, big_tail)))
    big = e.select(e.cmp("ogt", x, e.c(0.0)), positive, negative)
    return e.select(e.cmp("ole", ax, e.c(0.5)), small, big)


# ----------------------------------------------------------------------------- atan2


def _atan_quotient(e: Emitter, ay: SSAValue, ax: SSAValue, for_f32: bool) -> tuple[SSAValue, SSAValue]:
    """atan(ay / ax) for ay, ax >= 0, as an unevaluated sum hi + lo: q = ay / ax in one of
    five intervals, atan q = atan c + atan t, t = (q - c) / (1 + c q) (-ax/ay above 39/16,
    rounded once), |t| <= 7/16, atan t = t + t^3 A(t^2). For f64 the rounding error of q is
    added back (its first-order effect, q_lo / (1 + q^2))."""
    q = e.div(ay, ax)
    above = [e.cmp("oge", q, e.c(b)) for b in ATAN_BREAKS]

    def pick(values: tuple[float, ...]) -> SSAValue:
        v = e.c(values[0])
        for condition, value in zip(above, values[1:]):
            v = e.select(condition, e.c(value), v)
        return v

    c = pick(ATAN_C)
    numerator = e.select(above[3], e.neg(ax), e.sub(q, c))
    denominator = e.select(above[3], ay, e.add(e.mul(q, c), e.c(1.0)))
    t = e.div(numerator, denominator)
    z = e.mul(t, t)
    low = e.add(pick(ATAN_LO), e.mul(e.mul(t, z), e.poly(z, coefficients("atan", e, for_f32))))
    if not for_f32:
        # (both scaled up where y is so small that the product's error would underflow)
        scale = e.select(e.cmp("olt", ay, e.c(2.0**-500)), e.c(2.0**600), e.c(1.0))
        sy, sx = e.mul(ay, scale), e.mul(ax, scale)
        p, p_err = e.two_product(q, sx)
        q_lo = e.div(e.sub(e.sub(sy, p), p_err), sx)
        correction = e.div(q_lo, e.add(e.c(1.0), e.mul(q, q)))
        # (none where -ax/ay was rounded once, nor where q * ax overflowed or q underflowed)
        usable = e.both(e.cmp("olt", e.abs(correction), e.c(1.0)), e.cmp("olt", q, e.c(ATAN_BREAKS[3])))
        low = e.add(low, e.select(usable, correction, e.c(0.0)))
    return pick(ATAN_HI), e.add(t, low)


def atan2(e: Emitter, y: SSAValue, x: SSAValue, for_f32: bool = False) -> SSAValue:
    """atan2(y, x): atan(|y| / |x|), taken from pi where x's sign is set, with y's sign;
    atan2(±0, ±0) and atan2(±inf, ±inf) as C's."""
    ay, ax = e.abs(y), e.abs(x)
    hi, lo = _atan_quotient(e, ay, ax, for_f32)
    zeros = e.both(e.cmp("oeq", ay, e.c(0.0)), e.cmp("oeq", ax, e.c(0.0)))
    infinities = e.both(e.cmp("oeq", ay, e.c(INF)), e.cmp("oeq", ax, e.c(INF)))
    hi = e.select(zeros, e.c(0.0), e.select(infinities, e.c(PIO4), hi))
    lo = e.select(e.either(zeros, infinities), e.c(0.0), lo)
    from_pi, from_pi_err = e.two_sum(e.c(PI_HI), e.neg(hi))
    from_pi = e.add(from_pi, e.sub(e.add(from_pi_err, e.c(PI_LO)), lo))
    a = e.select(e.signbit(x), from_pi, e.add(hi, lo))
    return e.copysign(a, y)


# ----------------------------------------------------------------------------- pow


def pow(e: Emitter, x: SSAValue, y: SSAValue, for_f32: bool = False) -> SSAValue:
    """x^y = e^(y ln|x|), with the sign and the special values of C's ``pow``. For f64 the
    logarithm is a double-double and y ln|x| a double-double product (an error of 2^-53 in
    y ln|x| would be one of 700 ULPs in a result near the overflow); for f32 (``e`` of f64)
    doubles are precise enough."""
    ax = e.abs(x)
    if for_f32:
        magnitude = exp(e, e.mul(y, log(e, ax, for_f32=True)), for_f32=True)
    else:
        big = 2.0**900  # (beyond, |y ln|x|| overflows exp anyway, unless x = 1)
        yc = e.select(e.cmp("ogt", y, e.c(big)), e.c(big), y)
        yc = e.select(e.cmp("olt", yc, e.c(-big)), e.c(-big), yc)
        l_hi, l_lo = log_double_double(e, ax)
        p, p_err = e.two_product(yc, l_hi)
        magnitude = exp(e, p, tail=e.add(p_err, e.mul(yc, l_lo)))
    floor_y = e.floor(y)
    integer = e.cmp("oeq", floor_y, y)
    half = e.mul(y, e.c(0.5))
    odd = e.both(integer, e.cmp("one", e.floor(half), half))
    negative = e.signbit(x)
    result = e.select(e.both(negative, odd), e.neg(magnitude), magnitude)
    finite_negative = e.both(e.cmp("olt", x, e.c(0.0)), e.cmp("one", x, e.c(-INF)))
    result = e.select(e.both(finite_negative, e.cmp("une", floor_y, y)), e.c(NAN), result)
    # A NaN argument, itself (x's if both are): the NaN the arithmetic would give depends on
    # which operand an FMA instruction takes its NaN from, which differs between the vector
    # loop and its scalar remainder.
    result = e.select(e.cmp("uno", x, x), x, e.select(e.cmp("uno", y, y), y, result))
    one = e.c(1.0)
    result = e.select(e.both(e.cmp("oeq", ax, one), e.cmp("oeq", e.abs(y), e.c(INF))), one, result)
    result = e.select(e.cmp("oeq", x, one), one, result)
    return e.select(e.cmp("oeq", y, e.c(0.0)), one, result)


# ----------------------------------------------------------------------------- by op


def in_f64(
    e: Emitter, operands: list[SSAValue], compute: Callable[[Emitter, list[SSAValue], bool], SSAValue]
) -> SSAValue:
    """``compute`` (an f64 emitter, operands) on f32 operands: in f64, rounded once."""
    if e.double:
        return compute(e, operands, False)
    d = e.other(f64)
    wide = [d.emit(arith.ExtFOp(v, f64)) for v in operands]
    return e.emit(arith.TruncFOp(compute(d, wide, True), f32))
