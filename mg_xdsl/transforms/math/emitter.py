"""Building ``arith`` code for one float type: the words the approximations of
``math-polynomial-approximation`` are written in.

An ``Emitter`` appends ops to a list (which the pass inserts before the op it replaces) and
returns their results, so that ``e.add(e.mul(a, b), e.c(1.0))`` reads as the formula it
builds. It knows its float type (``f32`` or ``f64``), the integer type of the same width,
and the IEEE format's fields, and adds the exact-arithmetic helpers the approximations use:
rounding to an integer by adding a large power of two, scaling by 2^n through the exponent
bits, ``two_sum``/``two_product`` (the error of a sum or a product, exactly, without FMA),
and Horner's rule.

Every op is a plain IEEE operation without fast-math flags, so LLVM keeps each rounding as
written (no reassociation, no contraction into FMA): the same code gives the same bits in
the vector loop, its scalar remainder, at -O0 and through upstream ``mlir-opt``. An emitter
``with_fma`` writes ``mul_add`` as ``math.fma``, which IEEE defines exactly too (one
rounding): on a CPU with FMA instructions it halves the dependency chain of a polynomial;
on one without, it would be a call of the C library's ``fma`` per element, so the pass is
told which (its ``fma`` option) and writes a multiplication and an addition there instead.
"""

import struct
from collections.abc import Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType, f32, f64, i1, i32, i64
from xdsl.ir import Operation, SSAValue


class Emitter:
    """Ops on ``t`` (``f32`` or ``f64``) appended to ``ops``."""

    def __init__(self, t: AnyFloat, ops: list[Operation] | None = None, with_fma: bool = False):
        assert t in (f32, f64), f"no approximations for {t}"
        self.t = t
        self.with_fma = with_fma
        self.ops: list[Operation] = [] if ops is None else ops
        self.double = t == f64
        self.width = 64 if self.double else 32
        self.int: IntegerType = i64 if self.double else i32
        self.mantissa = 52 if self.double else 23  # stored fraction bits
        self.bias = 1023 if self.double else 127
        self._constants: dict[str, SSAValue] = {}
        self._splits: dict[SSAValue, tuple[SSAValue, SSAValue]] = {}
        self._constant_values: dict[SSAValue, float] = {}

    def other(self, t: AnyFloat) -> "Emitter":
        """An emitter of ``t`` that appends to the same list."""
        return Emitter(t, self.ops, self.with_fma)

    def emit(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    # ------------------------------------------------------------------ constants

    def c(self, value: float) -> SSAValue:
        """The float ``value`` (rounded to ``t``), one op per value."""
        if not self.double:
            value = struct.unpack("<f", struct.pack("<f", value))[0]
        key = value.hex()  # (-0.0 is not 0.0; every NaN is one NaN)
        if key not in self._constants:
            self._constants[key] = self.emit(arith.ConstantOp(FloatAttr(value, self.t)))
            self._constant_values[self._constants[key]] = value
        return self._constants[key]

    def i(self, value: int) -> SSAValue:
        """The integer ``value`` of the float's width (two's complement)."""
        if value >= 1 << (self.width - 1):
            value -= 1 << self.width
        key = str(value)
        if key not in self._constants:
            self._constants[key] = self.emit(arith.ConstantOp(IntegerAttr(value, self.int)))
        return self._constants[key]

    # ---------------------------------------------------------------- arithmetic

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SubfOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MulfOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.DivfOp(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        return self.emit(arith.NegfOp(a))

    def abs(self, a: SSAValue) -> SSAValue:
        return self.emit(math.AbsFOp(a))

    def sqrt(self, a: SSAValue) -> SSAValue:
        return self.emit(math.SqrtOp(a))

    def floor(self, a: SSAValue) -> SSAValue:
        return self.emit(math.FloorOp(a))

    def cmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """``arith.cmpf``: the ordered predicates (``olt``...) are false on a NaN."""
        return self.emit(arith.CmpfOp(a, b, predicate))

    def select(self, condition: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SelectOp(condition, a, b))

    def both(self, a: SSAValue, b: SSAValue) -> SSAValue:
        assert a.type == i1 and b.type == i1
        return self.emit(arith.AndIOp(a, b))

    def either(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.OrIOp(a, b))

    def mul_add(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """c + a * b: rounded once (``math.fma``) by an emitter ``with_fma``, else twice."""
        if self.with_fma:
            return self.emit(math.FmaOp(a, b, c))
        return self.add(c, self.mul(a, b))

    def poly(self, x: SSAValue, coefficients: Sequence[float], fused: bool = False) -> SSAValue:
        """sum_k coefficients[k] x^k, by Horner's rule; each step one rounding (``mul_add``)
        if ``fused`` and the emitter is ``with_fma``."""
        p = self.c(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            p = self.mul_add(p, x, self.c(c)) if fused and self.with_fma else self.add(self.mul(p, x), self.c(c))
        return p

    # ---------------------------------------------------------------- bits

    def bits(self, x: SSAValue) -> SSAValue:
        return self.emit(arith.BitcastOp(x, self.int))

    def float(self, n: SSAValue) -> SSAValue:
        return self.emit(arith.BitcastOp(n, self.t))

    def iadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddiOp(a, b))

    def isub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SubiOp(a, b))

    def iand(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AndIOp(a, b))

    def ior(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.OrIOp(a, b))

    def ixor(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.XOrIOp(a, b))

    def shl(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.ShLIOp(a, b))

    def shr(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Arithmetic (sign-extending) shift right."""
        return self.emit(arith.ShRSIOp(a, b))

    def icmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.CmpiOp(a, b, predicate))

    def to_float(self, n: SSAValue) -> SSAValue:
        """The integer n (|n| < 2^(mantissa - 1)) as a float: the bits of 1.5 * 2^mantissa + n,
        less 1.5 * 2^mantissa (``sitofp`` of 64-bit vectors has no AVX2 instruction)."""
        magic = 1.5 * 2.0**self.mantissa
        return self.sub(self.float(self.iadd(n, self.magic_bits())), self.c(magic))

    def sign(self, x: SSAValue) -> SSAValue:
        """The sign bit of ``x``, in place (as an integer)."""
        return self.iand(self.bits(x), self.i(1 << (self.width - 1)))

    def flip_sign(self, x: SSAValue, sign: SSAValue) -> SSAValue:
        """``x`` with its sign bit xor-ed with ``sign`` (an integer with at most that bit)."""
        return self.float(self.ixor(self.bits(x), sign))

    def copysign(self, magnitude: SSAValue, sign_of: SSAValue) -> SSAValue:
        """``magnitude`` (whose sign bit is clear) with the sign of ``sign_of``."""
        return self.float(self.ior(self.bits(magnitude), self.sign(sign_of)))

    def signbit(self, x: SSAValue) -> SSAValue:
        """Whether ``x``'s sign bit is set (-0 and NaNs with it included)."""
        return self.icmp("slt", self.bits(x), self.i(0))

    # ---------------------------------------------------------------- exact steps

    def round(self, x: SSAValue, times: SSAValue | None = None) -> tuple[SSAValue, SSAValue]:
        """``x`` (times ``times``, in one multiply-add where the emitter has FMA) rounded to the
        nearest integer n (ties to even), for |n| < 2^(mantissa - 1): n as a float, and the
        bits of n + 1.5 * 2^mantissa, whose low bits hold n (less ``magic_bits()``, it is n as an
        integer; shifted left by ``mantissa``, n in the exponent field: the rest of the
        constant's bits go). No conversion instructions: they vectorise worse, and ``fptosi``
        is undefined out of range."""
        magic = 1.5 * 2.0**self.mantissa
        shifted = self.add(x, self.c(magic)) if times is None else self.mul_add(x, times, self.c(magic))
        return self.sub(shifted, self.c(magic)), self.bits(shifted)

    def magic_bits(self) -> SSAValue:
        """The bits of 1.5 * 2^mantissa."""
        return self.i((self.bias + self.mantissa) << self.mantissa | 1 << (self.mantissa - 1))

    def scale_one_plus(self, q: SSAValue, shifted_n: SSAValue) -> SSAValue:
        """(1 + q) * 2^n, for q small, n (given as n << mantissa) from twice the lowest
        normal exponent to twice the highest: by two normal powers of two, 2^(n >> 1) and
        2^(n - (n >> 1)), each made by adding the bias to its exponent field. Only the
        first step, q * 2^(n >> 1) + 2^(n >> 1), rounds as 1 + q would (its product is exact),
        and the last (into the subnormals, or to infinity): a NaN q stays a NaN."""
        half = self.shl(self.shr(shifted_n, self.i(self.mantissa + 1)), self.i(self.mantissa))
        bias = self.i(self.bias << self.mantissa)
        first = self.float(self.iadd(half, bias))
        second = self.float(self.iadd(self.isub(shifted_n, half), bias))
        return self.mul(self.mul_add(q, first, first), second)

    def two_sum(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(s, e): s = a + b rounded, e its error exactly (Knuth's TwoSum)."""
        s = self.add(a, b)
        bb = self.sub(s, a)
        aa = self.sub(s, bb)
        return s, self.add(self.sub(a, aa), self.sub(b, bb))

    def fast_two_sum(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(s, e) as ``two_sum``, for |a| >= |b| (or a = 0)."""
        s = self.add(a, b)
        return s, self.sub(b, self.sub(s, a))

    def split(self, a: SSAValue) -> tuple[SSAValue, SSAValue]:
        """a = hi + lo, hi the high half of a's significand (its low bits cleared), so that
        products of two hi parts, or of a hi and a lo part, are exact."""
        if a not in self._splits:
            low = (1 << ((self.mantissa + 3) // 2)) - 1
            mask = ~low & ((1 << self.width) - 1)
            if a in self._constant_values:  # (a constant's parts are constants)
                value = self._constant_values[a]
                hi_value = struct.unpack(
                    "<d", struct.pack("<Q", struct.unpack("<Q", struct.pack("<d", value))[0] & mask)
                )[0]
                assert self.double, "constant splits are f64's"
                self._splits[a] = (self.c(hi_value), self.c(value - hi_value))
            else:
                hi = self.float(self.iand(self.bits(a), self.i(mask)))
                self._splits[a] = (hi, self.sub(a, hi))
        return self._splits[a]

    def two_product(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(p, e): p = a * b rounded, e its error (Dekker's product, without FMA; exact
        but for the rounding of lo * lo, 2^-106 of the product)."""
        p = self.mul(a, b)
        ah, al = self.split(a)
        bh, bl = self.split(b)
        e = self.add(
            self.add(self.add(self.sub(self.mul(ah, bh), p), self.mul(ah, bl)), self.mul(al, bh)), self.mul(al, bl)
        )
        return p, e
