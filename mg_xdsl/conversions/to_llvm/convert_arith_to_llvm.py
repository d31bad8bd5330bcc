"""``convert-arith-to-llvm``: arith ops on scalars become LLVM-dialect ops, as upstream MLIR's pass.

- ``arith.constant`` (float, integer, ``i1``, ``index``) -> ``llvm.mlir.constant``;
- ``addf/subf/mulf/divf`` -> ``llvm.fadd/fsub/fmul/fdiv``, ``negf`` -> ``llvm.fneg`` (fast-math
  flags kept);
- ``maximumf/minimumf/maxnumf/minnumf`` -> ``llvm.call_intrinsic "llvm.maximum.f64"`` and
  friends (xDSL's llvm dialect has no ``llvm.intr.maximum``; the intrinsic call is what
  upstream's ``llvm.intr.maximum`` translates to);
- ``addi/subi/muli/divsi/divui/remsi/remui/andi/ori/xori/shli/shrsi/shrui`` -> the LLVM op of
  the same meaning (overflow flags kept; also on 1-D vectors of integers);
- ``floordivsi/ceildivsi/ceildivui`` -> ``sdiv``/``udiv`` with the sign fix-up of upstream's
  ``arith-expand`` (``lower-affine`` emits them for ``floordiv``/``ceildiv`` in maps);
- ``maxsi/minsi/maxui/minui`` -> ``llvm.icmp`` + ``llvm.select`` (on vectors
  ``llvm.smax.v8i32`` and friends);
- ``cmpi`` -> ``llvm.icmp``, ``cmpf`` -> ``llvm.fcmp`` (its always-false/true predicates fold
  to an ``i1`` constant: xDSL's LLVM backend cannot translate them), ``select`` -> ``llvm.select``;
- ``index_cast`` -> ``llvm.sext``/``llvm.trunc`` or nothing (``index`` is ``i64``),
  ``extsi/extui/trunci/extf/truncf/sitofp/bitcast`` -> the LLVM cast of the same name,
  ``uitofp`` -> ``llvm.zext`` to one bit wider + ``llvm.sitofp``, and ``fptosi/fptoui`` ->
  ``llvm.fptosi.sat``/``llvm.fptoui.sat`` intrinsics (xDSL's llvm dialect lacks these casts;
  they agree wherever the plain casts are defined).

``index`` operands and results become ``i64``, with ``builtin.unrealized_conversion_cast`` for
users not converted yet. The float ops above also take 1-D vectors (``vector<8xf64>`` is
LLVM's ``<8 x double>`` already; the intrinsics get a vector suffix, ``llvm.maximum.v8f64``),
as the optimised pipeline's vector code needs. Other vector and tensor operands are left
alone.

An arith op on a float type LLVM has no type for (``tf32``, ``f4E2M1FN``, the 6- and 8-bit
formats, also inside a vector) is declined before anything changes, with a
``PassFailedException``: ``convert-arith-to-llvm: arith.cmpf on f4E2M1FN is not supported: LLVM
has no f4E2M1FN type``.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType, ModuleOp, VectorType, i1, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mg_xdsl.conversions.to_llvm.type_conversion import (
    Conversion,
    apply_conversions,
    constant,
    convert_type,
    float_suffix,
    replace_with_llvm,
    to_llvm,
)
from mg_xdsl.support.op_builders import integer_attr, llvm_binary, llvm_float_binary, llvm_icmp


def _scalar(op: Operation) -> bool:
    """Whether every operand and result is a scalar LLVM type once converted (no vectors)."""
    return all(isinstance(convert_type(v.type), IntegerType | AnyFloat) for v in (*op.operands, *op.results))


def _operands(rewriter: PatternRewriter, op: Operation) -> list[SSAValue]:
    return [to_llvm(rewriter, v) for v in op.operands]


def _float_ops(op: Operation) -> bool:
    """Whether every operand and result is a float, or a 1-D vector of floats."""
    return all(
        isinstance(t, AnyFloat)
        or (isinstance(t, VectorType) and t.get_num_dims() == 1 and isinstance(t.get_element_type(), AnyFloat))
        for t in (v.type for v in (*op.operands, *op.results))
    )


def _int_vector_ops(op: Operation) -> bool:
    """Whether every operand and result is a 1-D vector of integers (``vector<8xi32>`` is
    LLVM's ``<8 x i32>``)."""
    return all(
        isinstance(t, VectorType) and t.get_num_dims() == 1 and isinstance(t.get_element_type(), IntegerType)
        for t in (v.type for v in (*op.operands, *op.results))
    )


def _width(t: Attribute) -> int:
    assert isinstance(t, IntegerType)
    return t.width.data


def _fastmath(op: Operation) -> llvm.FastMathAttr:
    flags = op.properties.get("fastmath")
    if not isinstance(flags, arith.FastMathFlagsAttr):
        return llvm.FastMathAttr(None)
    return llvm.FastMathAttr(flags.data)


def intrinsic_call(name: str, operands: list[SSAValue], result: Attribute, op: Operation) -> llvm.CallIntrinsicOp:
    """``llvm.call_intrinsic @name(operands)``, with ``op``'s fast-math flags if it has any."""
    call = llvm.CallIntrinsicOp(name, operands, [result])
    if (flags := _fastmath(op)).data:
        call.properties["fastmathFlags"] = flags
    return call


def _overflow(op: Operation) -> IntegerAttr:
    """The overflow flags of ``op`` as the bits ``llvm`` integer ops keep them in."""
    flags = op.properties.get("overflowFlags")
    if not isinstance(flags, arith.IntegerOverflowAttr) or not flags.data:
        return integer_attr(0, i32)
    return integer_attr(llvm.OverflowAttr([llvm.OverflowFlag(f.value) for f in flags.data]).to_int(), i32)


def _icmp(rewriter: PatternRewriter, pred: str, lhs: SSAValue, rhs: SSAValue):
    return rewriter.insert(llvm_icmp(pred, lhs, rhs)).res


class ConstantLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter):
        value = op.value
        if isinstance(value, IntegerAttr):
            type = convert_type(op.result.type)
            assert isinstance(type, IntegerType)  # (an index is an i64 now)
            attr = IntegerAttr(value.value.data, type, truncate_bits=True)
        elif isinstance(value, FloatAttr):
            type, attr = op.result.type, value
        else:
            return  # dense vector/tensor constants are not scalar code
        result = rewriter.insert(llvm.ConstantOp(attr, type)).result
        replace_with_llvm(rewriter, op, [result])


_FLOAT_BINARY: dict[type[Operation], type[llvm.AbstractFloatArithOp]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}


class FloatBinaryLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (new := _FLOAT_BINARY.get(type(op))) is None or not _float_ops(op):
            return
        lhs, rhs = _operands(rewriter, op)
        result = rewriter.insert(llvm_float_binary(new, lhs, rhs, _fastmath(op))).results[0]
        replace_with_llvm(rewriter, op, [result])


class NegfLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter):
        if not _float_ops(op):
            return
        result = rewriter.insert(llvm.FNegOp(op.operand, _fastmath(op))).res
        replace_with_llvm(rewriter, op, [result])


_FLOAT_INTRINSICS: dict[type[Operation], str] = {
    # NaN-propagating, and -0 < +0: arith.maximumf/minimumf exactly.
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    # The other operand when one is NaN: arith.maxnumf/minnumf.
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
}


class FloatIntrinsicLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (name := _FLOAT_INTRINSICS.get(type(op))) is None or not _float_ops(op):
            return
        t = op.results[0].type
        # xDSL's backend declares the intrinsic under exactly this name: mangle it here.
        call = rewriter.insert(intrinsic_call(f"{name}.{float_suffix(t)}", list(op.operands), t, op))
        replace_with_llvm(rewriter, op, [call.results[0]])


_INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}


class IntBinaryLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (new := _INT_BINARY.get(type(op))) is None or not (_scalar(op) or _int_vector_ops(op)):
            return
        lhs, rhs = _operands(rewriter, op)
        new_op = rewriter.insert(llvm_binary(new, lhs, rhs, _overflow(op)))
        replace_with_llvm(rewriter, op, [new_op.results[0]])


def _rounded_signed_division(rewriter: PatternRewriter, op: Operation, signs: str, step) -> None:
    """``a / b`` rounded away from truncation: ``step`` (quotient - 1 or + 1) where the
    division was inexact and the operands' signs compare ``signs`` (differ: "ne", agree: "eq")."""
    a, b = _operands(rewriter, op)
    t = a.type
    quotient = rewriter.insert(llvm.SDivOp(a, b)).res
    remainder = rewriter.insert(llvm.SRemOp(a, b)).res
    zero, one = constant(rewriter, 0, t), constant(rewriter, 1, t)
    inexact = _icmp(rewriter, "ne", remainder, zero)
    signs_match = _icmp(rewriter, signs, _icmp(rewriter, "slt", a, zero), _icmp(rewriter, "slt", b, zero))
    fix = rewriter.insert(llvm.AndOp(inexact, signs_match)).res
    stepped = rewriter.insert(step(quotient, one)).res
    result = rewriter.insert(llvm.SelectOp(fix, stepped, quotient)).res
    replace_with_llvm(rewriter, op, [result])


class FloorDivSILowering(RewritePattern):
    """``a floordiv b`` = ``a / b``, minus one where the division was inexact and the signs differ."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.FloorDivSIOp, rewriter: PatternRewriter):
        if _scalar(op):
            _rounded_signed_division(rewriter, op, "ne", llvm.SubOp)


class CeilDivSILowering(RewritePattern):
    """``a ceildiv b`` = ``a / b``, plus one where the division was inexact and the signs agree."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CeilDivSIOp, rewriter: PatternRewriter):
        if _scalar(op):
            _rounded_signed_division(rewriter, op, "eq", llvm.AddOp)


class CeilDivUILowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CeilDivUIOp, rewriter: PatternRewriter):
        if not _scalar(op):
            return
        a, b = _operands(rewriter, op)
        t = a.type
        quotient = rewriter.insert(llvm.UDivOp(a, b)).res
        remainder = rewriter.insert(llvm.URemOp(a, b)).res
        zero, one = constant(rewriter, 0, t), constant(rewriter, 1, t)
        inexact = _icmp(rewriter, "ne", remainder, zero)
        upper = rewriter.insert(llvm.AddOp(quotient, one)).res
        result = rewriter.insert(llvm.SelectOp(inexact, upper, quotient)).res
        replace_with_llvm(rewriter, op, [result])


_INT_MIN_MAX: dict[type[Operation], str] = {
    # The predicate under which the first operand is the result.
    arith.MaxSIOp: "sgt",
    arith.MinSIOp: "slt",
    arith.MaxUIOp: "ugt",
    arith.MinUIOp: "ult",
}


class IntMinMaxLowering(RewritePattern):
    """Scalars: ``llvm.icmp`` + ``llvm.select``; 1-D vectors: ``llvm.smax.v8i32`` and
    friends (the select of xDSL's llvm dialect takes a scalar condition only)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (pred := _INT_MIN_MAX.get(type(op))) is None:
            return
        if _int_vector_ops(op):
            t = op.results[0].type
            assert isinstance(t, VectorType)  # (_int_vector_ops)
            name = f"llvm.{pred[0]}{'max' if pred[1:] == 'gt' else 'min'}"
            suffix = f"v{t.get_shape()[0]}i{_width(t.get_element_type())}"
            call = rewriter.insert(intrinsic_call(f"{name}.{suffix}", list(op.operands), t, op))
            replace_with_llvm(rewriter, op, [call.results[0]])
            return
        if not _scalar(op):
            return
        lhs, rhs = _operands(rewriter, op)
        first = _icmp(rewriter, pred, lhs, rhs)
        result = rewriter.insert(llvm.SelectOp(first, lhs, rhs)).res
        replace_with_llvm(rewriter, op, [result])


class CmpiLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter):
        if not _scalar(op):
            return
        lhs, rhs = _operands(rewriter, op)
        # arith and llvm number the predicates alike (eq, ne, slt, sle, sgt, sge, ult, ...).
        result = rewriter.insert(llvm_icmp(op.predicate.value.data, lhs, rhs)).res
        replace_with_llvm(rewriter, op, [result])


_CMPF_FALSE, _CMPF_TRUE = 0, 15


class CmpfLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter):
        if not _scalar(op):
            return
        pred = op.predicate.value.data
        if pred in (_CMPF_FALSE, _CMPF_TRUE):
            result = constant(rewriter, int(pred == _CMPF_TRUE), i1)
        else:
            # arith and llvm number the predicates alike (false, oeq, ogt, ..., uno, true).
            predicate = IntegerAttr(pred, i64)
            result = rewriter.insert(llvm.FCmpOp(op.lhs, op.rhs, predicate)).res
        replace_with_llvm(rewriter, op, [result])


class SelectLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter):
        if not _scalar(op):
            return
        cond, lhs, rhs = _operands(rewriter, op)
        result = rewriter.insert(llvm.SelectOp(cond, lhs, rhs)).res
        replace_with_llvm(rewriter, op, [result])


def _resize_int(rewriter: PatternRewriter, value: SSAValue, to: Attribute, signed: bool) -> SSAValue:
    source, target = _width(value.type), _width(to)
    if source == target:
        return value
    if source > target:
        return rewriter.insert(llvm.TruncOp(value, to)).res
    extend = llvm.SExtOp if signed else llvm.ZExtOp
    return rewriter.insert(extend(value, to)).res


class IndexCastLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter):
        if not _scalar(op):
            return
        (value,) = _operands(rewriter, op)
        result = _resize_int(rewriter, value, convert_type(op.result.type), signed=True)
        replace_with_llvm(rewriter, op, [result])


_INT_RESIZE: dict[type[Operation], bool] = {
    # op -> whether it extends the sign
    arith.ExtSIOp: True,
    arith.ExtUIOp: False,
    arith.TruncIOp: False,
}


class IntResizeLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (signed := _INT_RESIZE.get(type(op))) is None or not _scalar(op):
            return
        (value,) = _operands(rewriter, op)
        result = _resize_int(rewriter, value, op.results[0].type, signed)
        replace_with_llvm(rewriter, op, [result])


_CASTS: dict[type[Operation], type[llvm.GenericCastOp]] = {
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.BitcastOp: llvm.BitcastOp,
}


class CastLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if (new := _CASTS.get(type(op))) is None or not _scalar(op):
            return
        (value,) = _operands(rewriter, op)
        result = rewriter.insert(new(value, op.results[0].type)).result
        replace_with_llvm(rewriter, op, [result])


class UIToFPLowering(RewritePattern):
    """Zero-extended by one bit, the unsigned value is a non-negative signed one, exactly."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.UIToFPOp, rewriter: PatternRewriter):
        if not _scalar(op):
            return
        wider = IntegerType(_width(op.input.type) + 1)
        extended = rewriter.insert(llvm.ZExtOp(op.input, wider)).res
        result = rewriter.insert(llvm.SIToFPOp(extended, op.result.type)).result
        replace_with_llvm(rewriter, op, [result])


class FPToIntLowering(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, arith.FPToSIOp | arith.FPToUIOp) or not _scalar(op):
            return
        kind = "fptosi" if isinstance(op, arith.FPToSIOp) else "fptoui"
        to, source = op.result.type, op.input.type
        name = f"llvm.{kind}.sat.i{_width(to)}.{float_suffix(source)}"
        call = rewriter.insert(llvm.CallIntrinsicOp(name, [op.input], [to]))
        replace_with_llvm(rewriter, op, [call.results[0]])


class ArithConversion(Conversion):
    name = "convert-arith-to-llvm"

    def converts(self, op: Operation) -> bool:
        return op.name.startswith("arith.")

    def patterns(self) -> list[RewritePattern]:
        return [
            ConstantLowering(),
            FloatBinaryLowering(),
            NegfLowering(),
            FloatIntrinsicLowering(),
            IntBinaryLowering(),
            FloorDivSILowering(),
            CeilDivSILowering(),
            CeilDivUILowering(),
            IntMinMaxLowering(),
            CmpiLowering(),
            CmpfLowering(),
            SelectLowering(),
            IndexCastLowering(),
            IntResizeLowering(),
            CastLowering(),
            UIToFPLowering(),
            FPToIntLowering(),
        ]


@dataclass(frozen=True)
class ConvertArithToLLVMPass(ModulePass):
    name = "convert-arith-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(op, [ArithConversion()])
