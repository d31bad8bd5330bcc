"""``gpu-to-runtime-calls``: the host side of a GPU program -> calls into the launch runtime.

Upstream MLIR's ``gpu-to-llvm`` does this job at the LLVM level, calling its ``mgpu*``
runtime (module load, stream, launch). Here it stays at the func level, so that the memref
operands go through ``convert-func-to-llvm`` like any other call and reach the runtime in
exactly the form the kernel takes them (each memref as the scalar fields of its descriptor):

    "gpu.launch_func"(%gx, %gy, %gz, %bx, %by, %bz, %a, %b) <{kernel = @f_kernels::@f_kernel}>

becomes

    %status = func.call @mgrt_launch_f_kernels_f_kernel(%gx, %gy, %gz, %bx, %by, %bz, %a, %b)
    %ok = arith.cmpi eq, %status, %c0_i32
    cf.assert %ok, "gpu: launching kernel f_kernel failed"

with one declaration per kernel,

    func.func private @mgrt_launch_f_kernels_f_kernel(index, index, index, index, index,
        index, memref<...>, memref<...>) -> i32
        attributes {mg.gpu_kernel = @f_kernels::@f_kernel, mg.gpu_written = array<i64: 1>}

The run time (``mg_xdsl.backend.gpu_runtime``) binds each such symbol to a function that
copies the buffers to the device, launches the kernel named by ``mg.gpu_kernel``, waits, and
copies back those the kernel writes (``mg.gpu_written``, kept from ``gpu-kernel-outlining``); it returns non-zero (after saying why on stderr) if the device failed,
and the ``cf.assert`` turns that into the program's usual run-time failure.

The ``gpu.module`` ops are erased: their kernels are compiled to PTX apart, before this pass.
"""

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, gpu
from xdsl.dialects.builtin import IndexType, SymbolRefAttr, i32
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions.gpu.gpu_kernel_outlining import WRITTEN_ATTR

KERNEL_ATTR = "mg.gpu_kernel"
LAUNCH_PREFIX = "mgrt_launch_"


def launch_symbol(kernel: SymbolRefAttr) -> str:
    return LAUNCH_PREFIX + "_".join([kernel.root_reference.data, *(r.data for r in kernel.nested_references)])


def _declaration(module: builtin.ModuleOp, launch: gpu.LaunchFuncOp, declared: dict[str, func.FuncOp]) -> func.FuncOp:
    name = launch_symbol(launch.kernel)
    if name not in declared:
        inputs = [IndexType()] * 6 + [v.type for v in launch.kernelOperands]
        decl = func.FuncOp.external(name, inputs, [i32])
        decl.attributes[KERNEL_ATTR] = launch.kernel
        if WRITTEN_ATTR in launch.attributes:
            decl.attributes[WRITTEN_ATTR] = launch.attributes[WRITTEN_ATTR]
        module.body.block.add_op(decl)
        declared[name] = decl
    return declared[name]


class GpuToRuntimeCallsPass(ModulePass):
    name = "gpu-to-runtime-calls"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        declared: dict[str, func.FuncOp] = {}
        for launch in [o for o in op.walk() if isinstance(o, gpu.LaunchFuncOp)]:
            decl = _declaration(op, launch, declared)
            sizes = [
                launch.gridSizeX,
                launch.gridSizeY,
                launch.gridSizeZ,
                launch.blockSizeX,
                launch.blockSizeY,
                launch.blockSizeZ,
            ]
            b = Builder(InsertPoint.before(launch))
            call = b.insert(func.CallOp(decl.sym_name.data, [*sizes, *launch.kernelOperands], [i32]))
            zero = b.insert(arith.ConstantOp.from_int_and_width(0, 32))
            ok = b.insert(arith.CmpiOp(call.results[0], zero.result, "eq"))
            kernel = launch.kernel.nested_references.data[-1].data
            check = b.insert(cf.AssertOp(ok.result, f"gpu: launching kernel {kernel} failed"))
            check.location = launch.location  # the report names the source line
            Rewriter.erase_op(launch)
        for g in [o for o in op.body.block.ops if isinstance(o, gpu.ModuleOp)]:
            Rewriter.erase_op(g)
        op.attributes.pop("gpu.container_module", None)


def launches(module: builtin.ModuleOp) -> dict[str, func.FuncOp]:
    """The launch declarations this pass made, symbol -> declaration."""
    return {
        f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR in f.attributes
    }
