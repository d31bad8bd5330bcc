"""``convert-math-to-llvm``: ``math`` ops on floats (and ``math.absi`` on integers) become
calls of LLVM's intrinsics, as upstream MLIR's pass of that name (which lowers
``math.tanh``, ``math.acos``, ``math.asin`` and ``math.atan2`` only through
``convert-math-to-libm``; LLVM 22 has intrinsics for them, which it compiles to the C
library's functions where the CPU has no instruction).

- ``math.sqrt/exp/log/sin/cos/tanh/acos/asin/absf/floor/powf/atan2`` ->
  ``llvm.call_intrinsic "llvm.sqrt.f64"`` and friends (``llvm.fabs`` for ``absf``, ``llvm.pow``
  for ``powf``), on scalars or 1-D vectors (``llvm.exp.v4f64``), fast-math flags kept;
- ``math.rsqrt`` -> ``1.0 / llvm.sqrt``, as upstream;
- ``math.absi`` -> ``llvm.abs.i32(x, false)``: the minimum stays the minimum (it wraps, as
  NumPy's ``abs`` does), never poison.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerType, ModuleOp, i1
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from mg_xdsl.conversions.to_llvm.convert_arith_to_llvm import intrinsic_call
from mg_xdsl.conversions.to_llvm.type_conversion import (
    Conversion,
    apply_conversions,
    constant,
    float_suffix,
    replace_with_llvm,
    to_llvm,
)

INTRINSICS: dict[type[Operation], str] = {
    math.SqrtOp: "llvm.sqrt",
    math.ExpOp: "llvm.exp",
    math.LogOp: "llvm.log",
    math.SinOp: "llvm.sin",
    math.CosOp: "llvm.cos",
    math.TanhOp: "llvm.tanh",
    math.AcosOp: "llvm.acos",
    math.AsinOp: "llvm.asin",
    math.AbsFOp: "llvm.fabs",
    math.FloorOp: "llvm.floor",
    math.PowFOp: "llvm.pow",
    math.Atan2Op: "llvm.atan2",
    math.FmaOp: "llvm.fma",  # (made by math-polynomial-approximation{fma=true})
}


class FloatMathLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (name := INTRINSICS.get(type(op))) is None:
            return
        t = op.results[0].type
        operands = [to_llvm(rewriter, v) for v in op.operands]
        call = rewriter.insert(intrinsic_call(f"{name}.{float_suffix(t)}", operands, t, op))
        replace_with_llvm(rewriter, op, [call.results[0]])


class RsqrtLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, math.RsqrtOp):
            return
        t = op.result.type
        root = rewriter.insert(intrinsic_call(f"llvm.sqrt.{float_suffix(t)}", [to_llvm(rewriter, op.operand)], t, op))
        assert isinstance(t, AnyFloat), f"math.rsqrt of {t}"
        one = rewriter.insert(llvm.ConstantOp(FloatAttr(1.0, t), t)).result
        quotient = rewriter.insert(llvm.FDivOp(one, root.results[0]))
        replace_with_llvm(rewriter, op, [quotient.results[0]])


class AbsILowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, math.AbsIOp) or not isinstance(t := op.result.type, IntegerType):
            return
        poison_at_minimum = constant(rewriter, 0, i1)
        call = rewriter.insert(
            llvm.CallIntrinsicOp(f"llvm.abs.i{t.width.data}", [to_llvm(rewriter, op.operand), poison_at_minimum], [t])
        )
        replace_with_llvm(rewriter, op, [call.results[0]])


class MathConversion(Conversion):
    name = "convert-math-to-llvm"

    def converts(self, op: Operation) -> bool:
        return op.name.startswith("math.")

    def patterns(self) -> list[RewritePattern]:
        return [FloatMathLowering(), RsqrtLowering(), AbsILowering()]


@dataclass(frozen=True)
class ConvertMathToLLVMPass(ModulePass):
    name = "convert-math-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(op, [MathConversion()])
