"""``buffer-deallocation``: free every buffer the program allocates, exactly once.

After ``lower-mg-to-affine`` a function's body is one block of allocations and loop nests,
and a buffer is *owned* by the function that holds it if it came from ``memref.alloc`` or
was returned by a call (results belong to the caller). This pass

- inserts ``memref.dealloc %buf`` right after the last top-level op that uses the buffer,
  directly or through a view of it (``memref.cast``, ``subview``, ``reinterpret_cast``, ...,
  and views of those: ``mg_xdsl.transforms.memref.memref_views``); a use inside a loop nest counts
  as a use by the nest. A view is never freed itself: it owns nothing;
- leaves returned buffers alone: ownership passes to the caller, which frees them in turn
  (a C++ ``mg::Matrix`` or a NumPy array, at the outermost level); so are buffers that are
  freed already (a kernel's own scratch buffers);
- copies a returned value the function does not own (a parameter, a constant global) into
  a new buffer, so that whatever a function returns can always be freed by its caller.

Upstream MLIR's ownership-based deallocation solves the general problem (branches,
loops carrying buffers); this program shape needs only the straight-line case.
"""

from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.dialects.mg import shape_of
from mg_xdsl.support.buffers import alloc, extents
from mg_xdsl.support.op_builders import memref_dealloc
from mg_xdsl.transforms.memref.memref_views import aliases, base


def top_level_user(op: Operation, block: Block) -> Operation:
    """The op of ``block`` that contains ``op`` (``op`` itself if it is in ``block``)."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def owned_buffers(block: Block) -> list[SSAValue]:
    owned: list[SSAValue] = []
    for op in block.ops:
        if isinstance(op, memref.AllocOp):
            owned.append(op.memref)
        elif isinstance(op, func.CallOp):
            owned.extend(r for r in op.results if isinstance(r.type, MemRefType))
    return owned


def deallocate(fn: func.FuncOp) -> None:
    block = fn.body.block
    position = {op: i for i, op in enumerate(block.ops)}
    owned = owned_buffers(block)
    returned = {base(v) for op in block.ops if isinstance(op, func.ReturnOp) for v in op.arguments}
    for buffer in owned:
        if buffer in returned or any(isinstance(u.operation, memref.DeallocOp) for u in buffer.uses):
            continue
        users = [top_level_user(user, block) for user in aliases(buffer)]
        last = max(users, key=position.__getitem__) if users else buffer.owner
        assert isinstance(last, Operation)
        Rewriter.insert_op(memref_dealloc(buffer), InsertPoint.after(last))
    for ret in [op for op in block.ops if isinstance(op, func.ReturnOp)]:
        for i, value in enumerate(ret.arguments):
            if isinstance(value.type, MemRefType) and base(value) not in owned:
                ret.operands[i] = copy_before(ret, value)


def copy_before(op: Operation, value: SSAValue) -> SSAValue:
    """A fresh buffer holding a copy of ``value``, made just before ``op``."""
    block = Block()
    with ImplicitBuilder(block):
        fresh = alloc(value.type, extents(value, shape_of(value.type)))
        memref.CopyOp(value, fresh)
    for new in list(block.ops):
        new.detach()
        Rewriter.insert_op(new, InsertPoint.before(op))
    return fresh


class BufferDeallocationPass(ModulePass):
    name = "buffer-deallocation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.body.block.ops:
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                if len(fn.body.blocks) != 1:
                    raise ValueError(
                        f"buffer-deallocation: @{fn.sym_name.data} has branches; "
                        "only straight-line functions are supported"
                    )
                deallocate(fn)
