"""``buffer-deallocation``: free every buffer the program allocates, exactly once.

After ``lower-mg-to-affine`` a function's body is a block of allocations and loop nests, and
of the front end's loops (``scf.for``, carrying buffers as iteration arguments) and
conditionals (``scf.if``, yielding buffers), whose bodies are blocks of the same kind. Each
block (a function's, a loop body's, a branch's) *owns* some buffers:

- its ``memref.alloc`` results, the memref results of its calls (results belong to the
  caller) and of its nested ``scf.for`` and ``scf.if`` ops (every buffer they yield is one
  they hand on, below);
- a loop body also owns its iteration arguments: each iteration receives the buffers the
  previous one yielded (the first, the loop's initial values).

An owned buffer is freed (``memref.dealloc``) right after the last op of its block that uses
it, directly or through a view of it (``memref.cast``, ``subview``, ``reinterpret_cast``,
..., and views of those: ``mg_xdsl.transforms.memref.memref_views``); a use inside a nested op
(a loop nest, a loop, a conditional) counts as a use by that op. A view is never freed
itself: it owns nothing. A buffer freed already (a kernel's own scratch buffer) is left alone.
Ownership passes on instead, and the buffer is not freed in its block, where

- (a) ``func.return`` returns it: the caller frees it in turn (a C++ ``mg::Matrix`` or a
  NumPy array, at the outermost level);
- (b) it is the initial value of an ``scf.for`` of its block (by its base, through views)
  whose last use it is, not read inside the loop otherwise, and not passed twice: the loop
  body owns it as its iteration argument;
- (c) a loop body's ``scf.yield`` yields it: the next iteration, or the loop's result, owns
  it. An iteration argument updated in place (``w += g``) is yielded as it is, so a loop that
  only updates its buffers allocates nothing per iteration; an iteration argument that is
  not yielded is freed after its last use in the body;
- (d) a branch's ``scf.yield`` yields it: the ``scf.if``'s result owns it.

A value handed on that the block does not own (a parameter, a constant global, a buffer of an
enclosing block, one handed on twice) is copied into a new buffer first, just before the
return, the yield or the loop, so that whatever is handed on can always be freed by its new
owner, and no buffer is freed twice or while another still reads it.

Upstream MLIR's ownership-based deallocation solves the general problem (any branches, with
run-time ownership flags); structured loops and conditionals need only these static rules.
"""

from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import func, memref, scf
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
    """The buffers ``block`` owns: a loop body's iteration arguments, and the buffers its
    allocations, calls, loops and conditionals make."""
    owned: list[SSAValue] = []
    if isinstance(block.parent_op(), scf.ForOp):
        owned.extend(a for a in block.args[1:] if isinstance(a.type, MemRefType))
    for op in block.ops:
        if isinstance(op, memref.AllocOp):
            owned.append(op.memref)
        elif isinstance(op, func.CallOp | scf.ForOp | scf.IfOp):
            owned.extend(r for r in op.results if isinstance(r.type, MemRefType))
    return owned


def hands_on(op: Operation) -> bool:
    """Whether ``op`` hands the buffers it takes on to a new owner: a function's return, or
    the yield of a loop body or a branch."""
    return isinstance(op, func.ReturnOp) or (
        isinstance(op, scf.YieldOp) and isinstance(op.parent_op(), scf.ForOp | scf.IfOp)
    )


def read_inside(buffer: SSAValue, loop: Operation) -> bool:
    """Whether an op inside ``loop`` reads ``buffer`` (not as one of its initial values)."""
    return any(user is not loop and loop.is_ancestor(user) for user in aliases(buffer))


def transfer_into_loops(block: Block, owned: list[SSAValue], position: dict[Operation, int]) -> set[SSAValue]:
    """Rule (b): the owned buffers each ``scf.for`` of ``block`` takes as initial values; a
    value it may not take is copied before the loop."""
    taken: set[SSAValue] = set()
    for loop in [op for op in block.ops if isinstance(op, scf.ForOp)]:
        for i, init in enumerate(loop.iter_args):
            if not isinstance(init.type, MemRefType):
                continue
            buffer = base(init)
            if buffer in owned and buffer not in taken and not read_inside(buffer, loop):
                users = [top_level_user(user, block) for user in aliases(buffer)]
                if max(users, key=position.__getitem__) is loop:
                    taken.add(buffer)
                    continue
            loop.operands[3 + i] = copy_before(loop, init)
            position.clear()  # (the copy is a new op, and a new user of the buffer)
            position.update((op, i) for i, op in enumerate(block.ops))
    return taken


def deallocate_block(block: Block) -> None:
    """Free what ``block`` owns, hand on what it hands on, then the same in its nested
    blocks."""
    position = {op: i for i, op in enumerate(block.ops)}
    owned = owned_buffers(block)
    handed_on = transfer_into_loops(block, owned, position)
    end = block.last_op
    if end is not None and hands_on(end):
        for i, value in enumerate(end.operands):
            if isinstance(value.type, MemRefType) and base(value) not in owned:
                end.operands[i] = copy_before(end, value)  # (not this block's to hand on)
            elif isinstance(value.type, MemRefType) and base(value) in handed_on:
                end.operands[i] = copy_before(end, value)  # (handed on twice)
            elif isinstance(value.type, MemRefType):
                handed_on.add(base(value))
    position = {op: i for i, op in enumerate(block.ops)}  # (the copies are new ops)
    for buffer in owned:
        if buffer in handed_on or any(isinstance(u.operation, memref.DeallocOp) for u in buffer.uses):
            continue
        users = [top_level_user(user, block) for user in aliases(buffer)]
        if not users:
            if isinstance(buffer.owner, Operation):
                Rewriter.insert_op(memref_dealloc(buffer), InsertPoint.after(buffer.owner))
            else:  # (an iteration argument the body never reads)
                Rewriter.insert_op(memref_dealloc(buffer), InsertPoint.at_start(block))
            continue
        last = max(users, key=position.__getitem__)
        assert last is not end, "a buffer freed by the op that hands it on"
        Rewriter.insert_op(memref_dealloc(buffer), InsertPoint.after(last))
    for op in list(block.ops):
        for region in op.regions:
            if len(region.blocks) > 1:
                raise ValueError(
                    f"buffer-deallocation: an '{op.name}' has branches; only structured ones are supported"
                )
            for nested in region.blocks:
                deallocate_block(nested)


def copy_before(op: Operation, value: SSAValue) -> SSAValue:
    """A fresh buffer holding a copy of ``value``, made just before ``op``."""
    block = Block()
    with ImplicitBuilder(block):
        fresh = alloc(value.type, extents(value, shape_of(value.type)))
        memref.CopyOp(value, fresh)
    for new in list(block.ops):
        new.detach()
        new.location = op.location
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
                deallocate_block(fn.body.block)
