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

Of the math functions, the kernels compute ``sqrt``, ``rsqrt`` and ``abs`` (NVPTX has them);
another (``exp``, ``log``, ...) is refused with ``NotOnGpu`` (a ``PassFailedException``)
naming it.
"""

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import builtin, cf, gpu, llvm
from xdsl.dialects.builtin import FunctionType, IndexType, UnitAttr, i32, i64
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.transforms import get_pass
from mg_xdsl.transforms.convert_func_to_llvm import convert_entry_block, llvm_function_type
from mg_xdsl.transforms.llvm_type_conversion import from_llvm

_SREG = {gpu.ThreadIdOp: "tid", gpu.BlockIdOp: "ctaid", gpu.BlockDimOp: "ntid", gpu.GridDimOp: "nctaid"}

KERNEL_PASSES = (
    "convert-scf-to-cf",
    "convert-arith-to-llvm",
    "convert-math-to-llvm",
    "convert-cf-to-llvm",
    "finalize-memref-to-llvm",
    "reconcile-unrealized-casts",
)


def _convert_ids(gmod: gpu.ModuleOp) -> None:
    for op in list(gmod.walk()):
        reg = _SREG.get(type(op))
        if reg is None:
            continue
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


# The math ops that NVPTX compiles by itself (to sqrt.rn, rcp, abs); the others need
# CUDA's libdevice or polynomial expansions, which this pass does not provide yet.
GPU_MATH = ("math.sqrt", "math.rsqrt", "math.absf", "math.absi")


class NotOnGpu(PassFailedException):
    """A program computes something the GPU path cannot compile yet (a user's error to
    report, not a compiler bug)."""


def _check_math(kernels: builtin.ModuleOp) -> None:
    for op in kernels.walk():
        if op.name.startswith("math.") and op.name not in GPU_MATH:
            raise NotOnGpu(
                f"convert-gpu-to-nvvm: {op.name} has no GPU lowering yet (only "
                f"{', '.join(n[len('math.'):] for n in GPU_MATH)} do); run the program on the CPU")


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
            _check_math(inner)
            for name in KERNEL_PASSES:
                get_pass(name)().apply(ctx, inner)
                if name == "convert-scf-to-cf":
                    _trap_failed_checks(inner)
            for k in list(inner.body.block.ops):
                k.detach()
                gmod.body.block.add_op(k)
