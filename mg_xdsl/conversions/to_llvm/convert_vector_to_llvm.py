"""``convert-vector-to-llvm``: the ``vector`` ops the optimised pipeline emits -> LLVM dialect.

A ``vector<8xf64>`` is already an LLVM type (``<8 x double>``), so the conversions are short:

- ``vector.load %m[%i, %j]`` / ``vector.store %v, %m[%i, %j]`` -> the address of element
  ``[%i, %j]`` (as ``memref.load`` computes it, see ``finalize-memref-to-llvm``) and an
  ``llvm.load``/``llvm.store`` of the whole vector. The alignment stated is the op's
  ``alignment`` where it has one, else the element's: the vector may start at any element,
  and LLVM would otherwise assume 64 bytes. A ``nontemporal`` store stays one (LLVM makes
  it a streaming store only where it is aligned to its size);
- ``vector.broadcast %x`` (a scalar) -> ``llvm.insertelement`` into lane 0 of an undefined
  vector, then ``llvm.shufflevector`` with an all-zero mask (every lane reads lane 0);
- ``vector.insert %x, %v[k]`` (a scalar at a constant lane) -> ``llvm.insertelement``;
- ``vector.shuffle %a, %b [mask]`` (1-D vectors) -> ``llvm.shufflevector`` with the same
  mask (lane ``i`` of the result is lane ``mask[i]`` of ``a`` followed by ``b``);
- ``vector.fma %a, %b, %c`` -> ``llvm.intr.fma`` (``a * b + c``, rounded once);
- ``vector.reduction <add>, %v, %acc`` -> ``llvm.intr.vector.reduce.fadd``, in lane order
  starting from ``%acc`` (in any order with ``fastmath<reassoc>``, which the call keeps); ``<maximumf>`` -> ``llvm.vector.reduce.fmaximum`` (NaN-propagating,
  like ``arith.maximumf``), then ``llvm.maximum`` with ``%acc``.

Elementwise ``arith`` ops on vectors are converted by ``convert-arith-to-llvm``.
"""

from xdsl.context import Context
from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FixedBitwidthType,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mg_xdsl.conversions.to_llvm.convert_arith_to_llvm import intrinsic_call
from mg_xdsl.conversions.to_llvm.finalize_memref_to_llvm import element_ptr
from mg_xdsl.conversions.to_llvm.type_conversion import (
    Conversion,
    MemRefDescriptor,
    apply_conversions,
    replace_with_llvm,
    to_llvm,
)


def _element_bits(t: Attribute) -> int:
    """The width of one element of the vector type ``t``."""
    assert isinstance(t, VectorType)
    element = t.get_element_type()
    assert isinstance(element, FixedBitwidthType)
    return element.bitwidth


def _element_bytes(t: Attribute) -> int:
    return _element_bits(t) // 8


def _address(rewriter: PatternRewriter, base, indices):
    t = base.type
    assert isinstance(t, MemRefType)
    desc = MemRefDescriptor(to_llvm(rewriter, base), t.get_num_dims())
    return element_ptr(rewriter, t, desc, indices)


class LoadLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.LoadOp, rewriter: PatternRewriter):
        ptr = _address(rewriter, op.base, op.indices)
        t = op.result.type
        load = rewriter.insert(llvm.LoadOp(ptr, t, alignment=_element_bytes(t)))
        replace_with_llvm(rewriter, op, [load.dereferenced_value])


class StoreLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.StoreOp, rewriter: PatternRewriter):
        ptr = _address(rewriter, op.base, op.indices)
        stated = op.attributes.get("alignment")
        alignment = stated.value.data if isinstance(stated, IntegerAttr) else _element_bytes(op.vector.type)
        nontemporal = op.nontemporal is not None and op.nontemporal.value.data
        rewriter.insert(llvm.StoreOp(op.vector, ptr, alignment=alignment, nontemporal=bool(nontemporal)))
        rewriter.erase(op)


class BroadcastLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.BroadcastOp, rewriter: PatternRewriter):
        t = op.vector.type
        assert isinstance(t, VectorType) and t.get_num_dims() == 1, "1-D vectors only"
        if isinstance(op.source.type, VectorType):
            return  # vector to vector broadcasts are not emitted by this project
        undef = rewriter.insert(llvm.UndefOp(t)).res
        lane0 = rewriter.insert(llvm.ConstantOp(IntegerAttr(0, i32), i32)).result
        inserted = rewriter.insert(llvm.InsertElementOp(undef, op.source, lane0)).res
        mask = DenseArrayBase.from_list(i32, [0] * t.get_shape()[0])
        splat = rewriter.insert(llvm.ShuffleVectorOp(inserted, undef, mask, t)).res
        replace_with_llvm(rewriter, op, [splat])


class InsertLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.InsertOp, rewriter: PatternRewriter):
        (lane,) = op.get_mixed_position()
        if not isinstance(lane, int) or isinstance(op.source.type, VectorType):
            return  # only scalars at constant lanes are emitted by this project
        position = rewriter.insert(llvm.ConstantOp(IntegerAttr(lane, i32), i32)).result
        inserted = rewriter.insert(llvm.InsertElementOp(op.dest, op.source, position)).res
        replace_with_llvm(rewriter, op, [inserted])


class ShuffleLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.ShuffleOp, rewriter: PatternRewriter):
        t = op.v1.type
        assert isinstance(t, VectorType) and t.get_num_dims() == 1 and op.v2.type == t, "1-D vectors of one type"
        mask = DenseArrayBase.from_list(i32, list(op.mask.get_values()))
        shuffled = rewriter.insert(llvm.ShuffleVectorOp(op.v1, op.v2, mask, op.result.type)).res
        replace_with_llvm(rewriter, op, [shuffled])


class FMALowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.FMAOp, rewriter: PatternRewriter):
        fma = rewriter.insert(llvm.FMAOp(op.lhs, op.rhs, op.acc))
        replace_with_llvm(rewriter, op, [fma.results[0]])


class ReductionLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.ReductionOp, rewriter: PatternRewriter):
        kind = op.kind.data.value  # a CombiningKindFlag
        t = op.vector.type
        assert isinstance(t, VectorType)
        element = t.get_element_type()
        suffix = f"v{t.get_shape()[0]}f{_element_bits(t)}"
        if kind == "add":
            acc = (
                op.acc
                if op.acc is not None
                else rewriter.insert(llvm.ConstantOp(FloatAttr(-0.0, element), element)).result
            )  # x + -0 = x
            result = rewriter.insert(
                intrinsic_call(f"llvm.vector.reduce.fadd.{suffix}", [acc, op.vector], element, op)
            ).results[0]
        elif kind == "maximumf":
            result = rewriter.insert(
                llvm.CallIntrinsicOp(f"llvm.vector.reduce.fmaximum.{suffix}", [op.vector], [element])
            ).results[0]
            if op.acc is not None:
                result = rewriter.insert(
                    llvm.CallIntrinsicOp(f"llvm.maximum.f{element.bitwidth}", [result, op.acc], [element])
                ).results[0]
        else:
            raise NotImplementedError(f"vector.reduction <{kind}> is not emitted by this project")
        replace_with_llvm(rewriter, op, [result])


class VectorConversion(Conversion):
    name = "convert-vector-to-llvm"

    def converts(self, op: Operation) -> bool:
        return op.name.startswith("vector.")

    def patterns(self) -> list[RewritePattern]:
        return [
            LoadLowering(),
            StoreLowering(),
            BroadcastLowering(),
            InsertLowering(),
            ShuffleLowering(),
            FMALowering(),
            ReductionLowering(),
        ]


class ConvertVectorToLLVMPass(ModulePass):
    name = "convert-vector-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(op, [VectorConversion()])
