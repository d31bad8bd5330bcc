"""``reuse-dying-buffers``: an elementwise ``linalg.generic`` writes its result into an input
buffer that dies there, instead of a new one.

After ``linalg-fuse-elementwise-ops``, ``relu(x @ w + b)`` is a matrix product into a new
buffer and one generic that reads it and writes a second buffer of the same size, after which
the first is never read again. Writing the result over the product (each iteration reads its
element before it writes it, at the same indices) saves the allocation and a pass of the
memory system over a cold buffer. So, for an elementwise generic (all loops parallel, the
output read through the identity map, not read by the body), whose output is a new
``memref.alloc`` (used by nothing before it: not a buffer updated in place, ``w += g``): the
first input of the same type, read through the identity map, that is
itself a new allocation of this block with no use after the generic, directly or through a
cast of it, and no view (``memref_views``: a slice or transpose of it may be read later, or
by the generic itself at other indices), becomes the output, and the output's allocation
goes.

Before::

    %p = memref.alloc() : memref<4x3xf64>      // filled by linalg.matmul
    %r = memref.alloc() : memref<4x3xf64>
    linalg.generic {...} ins(%p, %b : ...) outs(%r : memref<4x3xf64>) {...}
    func.return %r : memref<4x3xf64>

After::

    %p = memref.alloc() : memref<4x3xf64>
    linalg.generic {...} ins(%p, %b : ...) outs(%p : memref<4x3xf64>) {...}
    func.return %p : memref<4x3xf64>
"""

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from mg_xdsl.transforms.linalg.linalg_fuse_elementwise_ops import identity, is_elementwise
from mg_xdsl.transforms.memref.memref_views import aliases, has_view


def dead_after(buffer: SSAValue, op: Operation) -> bool:
    """Whether ``buffer`` is a fresh allocation of ``op``'s block that nothing uses after
    ``op``, directly or through a ``memref.cast`` of it made before (a ``?``-sized
    parameter's cast, read by a call inlined after ``op``): then ``op`` may overwrite it in
    place."""
    if not isinstance(buffer.owner, memref.AllocOp) or buffer.owner.parent is not op.parent:
        return False
    if has_view(buffer):  # (read through the view later, or by ``op`` at other indices)
        return False
    block = op.parent
    assert block is not None
    for reader in aliases(buffer):
        user = block.find_ancestor_op_in_block(reader)
        if user is None or (user is not op and not user.is_before_in_block(op)):
            return False
    return True


def written_before(out: SSAValue, op: Operation) -> bool:
    """Whether ``out`` is in use before ``op``, or read by it (``op`` updates it in place, ``w
    += g``): then it is not a new buffer that ``op`` fills, and another may not replace it."""
    block = op.parent
    assert block is not None
    if out in op.operands[:-1]:
        return True
    for use in out.uses:
        user = block.find_ancestor_op_in_block(use.operation)
        if user is not None and user is not op and user.is_before_in_block(op):
            return True
    return False


def dying_input(op: linalg.GenericOp) -> SSAValue | None:
    *inputs, out = op.operands  # an elementwise generic: one output, last
    maps = op.indexing_maps.data
    for value, m in zip(inputs, maps):
        if value.type == out.type and m.data == identity(m.data.num_dims) and dead_after(value, op):
            return value
    return None


class ReuseDyingBuffersPass(ModulePass):
    name = "reuse-dying-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in [o for o in op.walk() if is_elementwise(o)]:
            out = generic.operands[-1]
            if not isinstance(out.owner, memref.AllocOp) or out.owner.parent is not generic.parent:
                continue
            if written_before(out, generic):  # (a var's buffer, updated in place: not a new one)
                continue
            buffer = dying_input(generic)
            if buffer is None:
                continue
            out.replace_all_uses_with(buffer)
            Rewriter.erase_op(out.owner)
