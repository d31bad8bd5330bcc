"""``convert-gpu-to-nvvm``: the kernels in every ``gpu.module`` -> LLVM dialect for NVPTX.

Inside each ``gpu.module`` (the host code is left alone):

- ``gpu.thread_id``/``gpu.block_id``/``gpu.block_dim``/``gpu.grid_dim`` ``x|y|z`` ->
  ``llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.{tid,ctaid,ntid,nctaid}.{x,y,z}"() : () -> i32``
  then ``llvm.sext`` to i64 (the converted ``index``);
- ``gpu.func`` -> ``llvm.func`` with upstream's calling convention (each memref argument passed
  as the scalar fields of its descriptor and repacked at entry, as ``convert-func-to-llvm``
  does); a kernel keeps the ``gpu.kernel`` attribute and gets ``nvvm.kernel``, which the PTX
  back end turns into the ``ptx_kernel`` calling convention;
- ``gpu.return`` -> ``llvm.return``;
- then the kernel bodies go through the project's lowerings, run on the ``gpu.module``'s
  contents: ``convert-scf-to-cf``, ``convert-arith-to-llvm``, ``convert-math-to-llvm``,
  ``convert-cf-to-llvm``,
  ``finalize-memref-to-llvm``, ``reconcile-unrealized-casts``;
- a run-time check inside a kernel (``cf.assert``: an integer division's divisor is not
  zero) -> a branch to ``llvm.trap``: the kernel stops, and so does the launch, which the
  host reports as a failed launch (``gpu: launching kernel ... failed``). (Upstream calls
  CUDA's ``__assertfail``, which prints the message first but needs CUDA's device library.)

- the math functions NVPTX has no instruction for (``exp``, ``log``, ``sin``, ``cos``,
  ``tanh``, ``acos``, ``asin``, ``atan2``, ``powf``) -> ``llvm.call`` of CUDA's libdevice
  function of that name (``__nv_exp`` on ``f64``, ``__nv_expf`` on ``f32``), declared in the
  ``gpu.module``, as upstream's pass does; ``mg_xdsl.backend.ptx`` links libdevice into the
  kernels before emitting PTX. ``sqrt``, ``rsqrt`` and ``abs`` become NVPTX instructions
  through ``convert-math-to-llvm``.
"""

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import builtin, cf, gpu, llvm, math
from xdsl.dialects.builtin import FunctionType, IndexType, UnitAttr, f32, f64, i32, i64
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions.convert_scf_to_cf import ConvertScfToCfPass
from mg_xdsl.conversions.to_llvm.convert_arith_to_llvm import ConvertArithToLLVMPass
from mg_xdsl.conversions.to_llvm.convert_cf_to_llvm import ConvertCfToLLVMPass
from mg_xdsl.conversions.to_llvm.convert_func_to_llvm import convert_entry_block, llvm_function_type
from mg_xdsl.conversions.to_llvm.convert_math_to_llvm import ConvertMathToLLVMPass
from mg_xdsl.conversions.to_llvm.finalize_memref_to_llvm import FinalizeMemRefToLLVMPass
from mg_xdsl.conversions.to_llvm.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass
from mg_xdsl.conversions.to_llvm.type_conversion import ensure_declared, from_llvm

_SREG = {gpu.ThreadIdOp: "tid", gpu.BlockIdOp: "ctaid", gpu.BlockDimOp: "ntid", gpu.GridDimOp: "nctaid"}

KERNEL_PASSES = (
    ConvertScfToCfPass,
    ConvertArithToLLVMPass,
    ConvertMathToLLVMPass,
    ConvertCfToLLVMPass,
    FinalizeMemRefToLLVMPass,
    ReconcileUnrealizedCastsPass,
)


def _convert_ids(gmod: gpu.ModuleOp) -> None:
    for op in list(gmod.walk()):
        if not isinstance(op, (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)):
            continue
        reg = _SREG[type(op)]
        dim = op.dimension.data.value
        b = Builder(InsertPoint.before(op))
        read = b.insert(llvm.CallIntrinsicOp(f"llvm.nvvm.read.ptx.sreg.{reg}.{dim}", [], [i32]))
        wide = b.insert(llvm.SExtOp(read.results[0], i64))
        index = from_llvm(b, wide.results[0], IndexType())
        op.results[0].replace_all_uses_with(index)
        Rewriter.erase_op(op)


def _convert_func(f: gpu.FuncOp) -> llvm.FuncOp:
    t = f.function_type
    for op in list(f.walk()):
        if isinstance(op, gpu.ReturnOp):
            Rewriter.replace_op(op, llvm.ReturnOp.build(operands=[list(op.args)[:1]]))
    region = Rewriter.move_region_contents_to_new_regions(f.body)
    convert_entry_block(region, FunctionType.from_lists(t.inputs.data, t.outputs.data))
    attrs = {"gpu.kernel": UnitAttr(), "nvvm.kernel": UnitAttr()} if f.kernel else {}
    return llvm.FuncOp(
        f.sym_name.data,
        llvm_function_type(t),
        linkage=llvm.LinkageAttr("external"),
        body=region,
        extra_attrs=attrs,
    )


def _trap_failed_checks(kernels: builtin.ModuleOp) -> None:
    """Each ``cf.assert %ok`` -> ``llvm.cond_br %ok, ^rest, ^failed`` with ``^failed`` calling
    ``llvm.trap``: a GPU thread cannot report on stderr, but it must not go on."""
    for check in [o for o in kernels.walk() if isinstance(o, cf.AssertOp)]:
        block = check.parent_block()
        assert block is not None and block.parent is not None
        rest = block.split_before(check)
        failed = Block([llvm.CallIntrinsicOp("llvm.trap", [], []), llvm.UnreachableOp()])
        block.parent.insert_block_before(failed, rest)
        block.add_op(llvm.CondBrOp(check.arg, rest, [], failed, []))
        Rewriter.erase_op(check)


# The libdevice function of each math op NVPTX has no instruction for ("f" appended on f32).
LIBDEVICE: dict[type[Operation], str] = {
    math.ExpOp: "__nv_exp",
    math.LogOp: "__nv_log",
    math.SinOp: "__nv_sin",
    math.CosOp: "__nv_cos",
    math.TanhOp: "__nv_tanh",
    math.AcosOp: "__nv_acos",
    math.AsinOp: "__nv_asin",
    math.Atan2Op: "__nv_atan2",
    math.PowFOp: "__nv_pow",
}


class MathToLibdevice(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (name := LIBDEVICE.get(type(op))) is None:
            return
        t = op.results[0].type
        assert t in (f32, f64), f"{op.name} on {t} in a kernel (kernels compute on scalars)"
        name += "f" if t == f32 else ""
        ensure_declared(rewriter, op, name, llvm.LLVMFunctionType([t] * len(op.operands), t))
        rewriter.replace(op, llvm.CallOp(name, *op.operands, return_type=t))


class ConvertGpuToNVVMPass(ModulePass):
    name = "convert-gpu-to-nvvm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for gmod in [o for o in op.walk() if isinstance(o, gpu.ModuleOp)]:
            _convert_ids(gmod)
            for f in list(gmod.body.block.ops):
                if isinstance(f, gpu.FuncOp):
                    Rewriter.replace_op(f, _convert_func(f))
            # Run the project's lowerings on the kernels, in a module of their own.
            inner = builtin.ModuleOp(Region(Block()))
            for k in list(gmod.body.block.ops):
                k.detach()
                inner.body.block.add_op(k)
            PatternRewriteWalker(MathToLibdevice(), apply_recursively=False).rewrite_module(inner)
            for kernel_pass in KERNEL_PASSES:
                kernel_pass().apply(ctx, inner)
                if kernel_pass is ConvertScfToCfPass:
                    _trap_failed_checks(inner)
            for k in list(inner.body.block.ops):
                k.detach()
                gmod.body.block.add_op(k)
