"""Philox 4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2,
3", SC 2011; the generator of JAX and cuRAND), built as ``arith`` ops in the current
(implicit) builder: the random numbers of ``mg.random``.

A counter-based generator: ten rounds scramble a 128-bit counter under a 64-bit key, so the
numbers of element ``n`` of a tensor are a pure function of ``n`` and the seed. Every element
is computed on its own, in any order, on any thread or GPU thread, and a program prints the
same numbers on every run and on every backend. Element ``n`` (row-major) takes the counter
``(n mod 2^32, n div 2^32, 0, 0)`` and the key ``(seed mod 2^32, seed div 2^32)``; its four
32-bit words ``w0..w3`` make its number:

- uniform on ``[0, 1)``: for ``f64`` the 53 bits ``w0 * 2^21 + w1 div 2^11`` times
  ``2^-53``; for ``f32`` (and ``bf16``, computed in ``f32``) the 24 bits ``w0 div 2^8`` times
  ``2^-24``;
- normal: Box-Muller, ``sqrt(-2 log(1 - u1)) * cos(2 pi u2)``, ``u1`` and ``u2`` uniform as
  above from ``(w0, w1)`` and ``(w2, w3)`` (``f64``) or from ``w0`` and ``w1`` (``f32``).
"""

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, Float32Type, FloatAttr, IntegerAttr, IntegerType, i32, i64
from xdsl.ir import SSAValue

ROUNDS = 10
MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
WEYL = (0x9E3779B9, 0xBB67AE85)  # added to the key after each round but the last


def _int(value: int, t: IntegerType) -> SSAValue:
    bits = t.width.data
    value &= (1 << bits) - 1
    signed = value - (1 << bits) if value >> (bits - 1) else value  # (IntegerAttr holds it signed)
    return arith.ConstantOp(IntegerAttr(signed, t)).result


def _float(value: float, t: AnyFloat) -> SSAValue:
    return arith.ConstantOp(FloatAttr(value, t)).result


def _mulhilo(multiplier: int, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """The high and low 32 bits of the 64-bit product ``multiplier * x``."""
    product = arith.MuliOp(arith.ExtUIOp(x, i64).result, _int(multiplier, i64)).result
    high = arith.ShRUIOp(product, _int(32, i64)).result
    return arith.TruncIOp(high, i32).result, arith.TruncIOp(product, i32).result


def philox(counter: list[SSAValue], key: list[SSAValue]) -> list[SSAValue]:
    """The four 32-bit words of Philox 4x32-10 of ``counter`` (four i32) under ``key``
    (two i32)."""
    c, k = list(counter), list(key)
    for r in range(ROUNDS):
        hi0, lo0 = _mulhilo(MULTIPLIERS[0], c[0])
        hi1, lo1 = _mulhilo(MULTIPLIERS[1], c[2])
        c = [
            arith.XOrIOp(arith.XOrIOp(hi1, c[1]).result, k[0]).result,
            lo1,
            arith.XOrIOp(arith.XOrIOp(hi0, c[3]).result, k[1]).result,
            lo0,
        ]
        if r < ROUNDS - 1:
            k = [arith.AddiOp(k[i], _int(WEYL[i], i32)).result for i in range(2)]
    return c


def words(index: SSAValue, seed: int) -> list[SSAValue]:
    """The words of element ``index`` (an i64) of a tensor made with ``seed``."""
    low = arith.TruncIOp(index, i32).result
    high = arith.TruncIOp(arith.ShRUIOp(index, _int(32, i64)).result, i32).result
    zero = _int(0, i32)
    return philox([low, high, zero, zero], [_int(seed, i32), _int(seed >> 32, i32)])


def uniform(w: list[SSAValue], t: AnyFloat) -> SSAValue:
    """A number of float type ``t`` (``f32`` or ``f64``) uniform on ``[0, 1)`` from the
    words ``w`` (two for ``f64``, one for ``f32``). (The bits are converted as signed
    integers, which they are, being below 2^53: LLVM's unoptimised code for an unsigned
    ``i64`` conversion calls compiler-rt's ``__floatundidf``, which the JIT's process lacks.)"""
    if isinstance(t, Float32Type):
        bits = arith.ShRUIOp(w[0], _int(8, i32)).result
        return arith.MulfOp(arith.SIToFPOp(bits, t).result, _float(2.0**-24, t)).result
    high = arith.ShLIOp(arith.ExtUIOp(w[0], i64).result, _int(21, i64)).result
    low = arith.ShRUIOp(arith.ExtUIOp(w[1], i64).result, _int(11, i64)).result
    bits = arith.OrIOp(high, low).result
    return arith.MulfOp(arith.SIToFPOp(bits, t).result, _float(2.0**-53, t)).result


def normal(w: list[SSAValue], t: AnyFloat) -> SSAValue:
    """A standard normal number of float type ``t`` from the words ``w`` (Box-Muller)."""
    half = 1 if isinstance(t, Float32Type) else 2
    u1 = arith.SubfOp(_float(1.0, t), uniform(w[:half], t)).result  # (in (0, 1]: log is finite)
    u2 = uniform(w[half : 2 * half], t)
    radius = math.SqrtOp(arith.MulfOp(_float(-2.0, t), math.LogOp(u1).result).result).result
    angle = arith.MulfOp(_float(6.283185307179586, t), u2).result
    return arith.MulfOp(radius, math.CosOp(angle).result).result
