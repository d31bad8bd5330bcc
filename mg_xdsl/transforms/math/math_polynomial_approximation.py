"""``math-polynomial-approximation``: ``math.exp``, ``log``, ``tanh``, ``sin``, ``cos``,
``asin``, ``acos``, ``atan2`` and ``powf`` on ``f32`` and ``f64`` scalars -> ``arith`` code
(polynomials, exact range reductions, bit manipulation and ``select``s), as upstream MLIR's
``-test-math-polynomial-approximation`` does for ``f32``.

Without it each of these is a call of the C library's function per element (``expf``):
LLVM's loop vectoriser widens the loop, then calls the scalar function once per lane. The
expansion is plain arithmetic, which LLVM vectorises as it vectorises ``relu``: ``exp`` of
4M ``f32`` takes 1.9 ms instead of 11 (one thread; the other functions gain 2 to 8 times,
``docs/math-accuracy.md``). The price is compile time: 54 to 297 ops per function, which
every later pass and LLVM handle (10 to 80 ms per call of a math function).

Both CPU pipelines run the pass at the end of their ``affine`` stage, so the reference and
optimised pipelines, ``--backend mlir`` (which receives the expanded IR) and every thread
count give the same bits; the GPU path does not run it (libdevice's functions stay).
``math.sqrt`` (an instruction), ``math.rsqrt`` (1 / sqrt), ``math.absf``, ``math.floor``,
and ops on vectors or other float types are left as they are.

How each function is computed: ``approximations.py``; the measured errors, in ULPs against
the correctly rounded result: ``docs/math-accuracy.md`` (``scripts/math_accuracy.py``
measures them).

    %y = math.exp %x : f32      ->      %c = arith.constant 1.44269502 : f32
                                        %t = math.fma %x', %c, %magic : f32   (x clamped)
                                        ... (n = round(x / ln2), r = x - n ln2)
                                        %p = math.fma ... (a polynomial in r)
                                        %y = arith.mulf %q, %two_to_n2 : f32
"""

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math
from xdsl.dialects.builtin import Float32Type, Float64Type, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from mg_xdsl.transforms.math import approximations as approx
from mg_xdsl.transforms.math.emitter import Emitter

Expansion = Callable[[Emitter, list[SSAValue], bool], SSAValue]


def _in_f64(compute: Expansion) -> Callable[[Emitter, list[SSAValue]], SSAValue]:
    """An f32 op computed in f64 (rounded once), an f64 op in f64."""
    return lambda e, operands: approx.in_f64(e, operands, compute)


def _native(compute: Callable[[Emitter, list[SSAValue]], SSAValue]) -> Callable[[Emitter, list[SSAValue]], SSAValue]:
    """An op computed in its own type."""
    return compute


EXPANSIONS: dict[type[Operation], Callable[[Emitter, list[SSAValue]], SSAValue]] = {
    math.ExpOp: _native(lambda e, v: approx.exp(e, v[0])),
    math.LogOp: _native(lambda e, v: approx.log(e, v[0])),
    math.TanhOp: _native(lambda e, v: approx.tanh(e, v[0])),
    math.SinOp: _in_f64(lambda e, v, for_f32: approx.sin_cos(e, v[0], False, for_f32)),
    math.CosOp: _in_f64(lambda e, v, for_f32: approx.sin_cos(e, v[0], True, for_f32)),
    math.AsinOp: _in_f64(lambda e, v, for_f32: approx.asin(e, v[0], for_f32)),
    math.AcosOp: _in_f64(lambda e, v, for_f32: approx.acos(e, v[0], for_f32)),
    math.Atan2Op: _in_f64(lambda e, v, for_f32: approx.atan2(e, v[0], v[1], for_f32)),
    math.PowFOp: _in_f64(lambda e, v, for_f32: approx.pow(e, v[0], v[1], for_f32)),
}
"""Each op the pass expands, and how: ``f32`` ``exp``, ``log`` and ``tanh`` in ``f32``, the
other ``f32`` functions in ``f64``."""


def expand(op: Operation, fma: bool = False) -> list[Operation] | None:
    """The ops that compute ``op``'s result (the last one's), or None where the pass leaves
    ``op`` alone; with ``fma``, ``exp``'s polynomial in fused multiply-adds."""
    how = EXPANSIONS.get(type(op))
    t = op.results[0].type if op.results else None
    if how is None or not isinstance(t, Float32Type | Float64Type) or any(v.type != t for v in op.operands):
        return None
    e = Emitter(t, with_fma=fma)
    result = how(e, list(op.operands))
    assert e.ops and e.ops[-1].results[0] is result
    return e.ops


@dataclass(frozen=True)
class MathPolynomialApproximationPass(ModulePass):
    name = "math-polynomial-approximation"

    # The target has fused multiply-add instructions (the pipeline passes the host's or
    # ``--cpu``'s): ``exp``'s polynomial is then ``math.fma`` steps, else separate ones.
    fma: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for target in [o for o in op.walk() if type(o) in EXPANSIONS]:
            ops = expand(target, self.fma)
            if ops is not None:
                Rewriter.replace_op(target, ops, [ops[-1].results[0]])
