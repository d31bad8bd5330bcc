"""``gpu-kernel-outlining``: ``gpu.launch`` bodies -> ``gpu.func`` kernels + ``gpu.launch_func``.

For every function ``@F`` with launches, a ``gpu.module @F_kernels`` is added to the module
(which gets the ``gpu.container_module`` attribute). The body of each ``gpu.launch`` in ``@F``
becomes ``gpu.func @F_kernel`` (then ``@F_kernel_0``, ``@F_kernel_1``, ... as upstream MLIR
names them) with the ``gpu.kernel`` attribute:

- the values the body uses but does not define become the kernel's arguments, in order of
  first use, except ``arith.constant`` ops, which are cloned into the kernel (sunk) as
  upstream does;
- the launch's twelve block arguments become ``gpu.block_id``, ``gpu.block_dim``,
  ``gpu.thread_id`` and ``gpu.grid_dim`` ops (x, y, z) at the kernel's entry, where used;
- ``gpu.terminator`` becomes ``gpu.return``.

The launch is replaced by ``gpu.launch_func @F_kernels::@F_kernel`` with the same grid and
block sizes and the captured values as kernel operands. It also gets ``mg.gpu_written``, the
positions of the operands the kernel stores into, so that the launch run time copies back
only those (an operand may be a constant global the host cannot write).
"""

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, gpu, memref
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, SymbolRefAttr, UnitAttr, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

WRITTEN_ATTR = "mg.gpu_written"
_ID_OPS = (gpu.BlockIdOp, gpu.BlockDimOp, gpu.ThreadIdOp, gpu.GridDimOp)


def _captured(launch: gpu.LaunchOp) -> list[SSAValue]:
    seen: dict[SSAValue, None] = {}
    for op in launch.body.walk():
        for v in op.operands:
            owner = v.owner
            parent = owner.parent_op() if isinstance(owner, Block) else owner
            inside = False
            while parent is not None:
                if parent is launch:
                    inside = True
                    break
                parent = parent.parent_op()
            if not inside:
                seen.setdefault(v, None)
    return list(seen)


def outline(launch: gpu.LaunchOp, name: str, module_name: str) -> gpu.FuncOp:
    captured = _captured(launch)
    sunk = {v: v.owner for v in captured if isinstance(v.owner, arith.ConstantOp)}
    args = [v for v in captured if v not in sunk]

    region = Rewriter.move_region_contents_to_new_regions(launch.body)
    old_entry = region.block
    entry = Block(arg_types=[v.type for v in args])
    region.insert_block(entry, 0)
    # Sink constants, and materialise the ids the launch's block arguments stood for.
    for v, constant in sunk.items():
        clone = constant.clone()
        entry.add_op(clone)
        v_uses = [u for u in list(v.uses) if _is_in(u.operation, region)]
        for u in v_uses:
            u.operation.operands[u.index] = clone.results[0]
    for k, arg in enumerate(old_entry.args):
        if arg.uses:
            kind, dim = _ID_OPS[k // 3], ("x", "y", "z")[k % 3]
            id_op = kind(gpu.DimensionAttr(gpu.DimensionEnum(dim)))
            entry.add_op(id_op)
            arg.replace_all_uses_with(id_op.result)
    for v, a in zip(args, entry.args):
        for u in [u for u in list(v.uses) if _is_in(u.operation, region)]:
            u.operation.operands[u.index] = a
    # Merge the old entry block into the new one.
    for op in list(old_entry.ops):
        op.detach()
        entry.add_op(op)
    region.detach_block(old_entry)
    old_entry.erase()
    for op in list(region.walk()):
        if isinstance(op, gpu.TerminatorOp):
            Rewriter.replace_op(op, gpu.ReturnOp([]))

    kernel = gpu.FuncOp(name, ([v.type for v in args], []), region, kernel=True)
    call = gpu.LaunchFuncOp(
        SymbolRefAttr(module_name, [name]),
        [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
        [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ],
        kernelOperands=args,
    )
    stored = {op.memref for op in region.walk() if isinstance(op, memref.StoreOp)}
    written = [k for k, a in enumerate(entry.args) if a in stored]
    call.attributes[WRITTEN_ATTR] = DenseArrayBase.from_list(i64, written)
    Rewriter.replace_op(launch, call)
    return kernel


def _is_in(op, region: Region) -> bool:
    r = op.parent_region()
    while r is not None:
        if r is region:
            return True
        parent = r.parent_op()
        r = parent.parent_region() if parent is not None else None
    return False


class GpuKernelOutliningPass(ModulePass):
    name = "gpu-kernel-outlining"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.body.block.ops):
            if not isinstance(f, func.FuncOp):
                continue
            launches = [o for o in f.walk() if isinstance(o, gpu.LaunchOp)]
            if not launches:
                continue
            fname = f.sym_name.data
            module_name = f"{fname}_kernels"
            kernels = []
            for k, launch in enumerate(launches):
                name = f"{fname}_kernel" if k == 0 else f"{fname}_kernel_{k - 1}"
                kernels.append(outline(launch, name, module_name))
            gmod = gpu.ModuleOp(StringAttr(module_name), Region(Block(kernels)))  # pyright: ignore[reportArgumentType]  # xDSL: the name becomes the sym_name, a StringAttr, but is annotated SymbolRefAttr
            Rewriter.insert_op(gmod, InsertPoint.after(f))
            op.attributes["gpu.container_module"] = UnitAttr()
