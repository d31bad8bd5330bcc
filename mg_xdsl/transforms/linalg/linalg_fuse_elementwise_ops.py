"""``linalg-fuse-elementwise-ops``: trees of elementwise ``linalg.generic``s on memrefs -> one
``linalg.generic`` each, and no buffer between them.

Lowered one op at a time, ``relu(a + b)`` is two loop nests and a temporary buffer the size
of the result, written once and read once: twice the memory traffic of a single pass. This
pass (upstream MLIR's of this name fuses on tensors; this one on the buffers that
``convert-mg-to-linalg`` allocates) merges them, deciding from the ops' structure alone:

- an *elementwise* generic is one whose loops are all ``parallel``, with one output read
  through the identity map and a body that does not read the output's old value;
- its result joins its consumer's tree when the consumer is elementwise too, in the same
  block, reads the buffer through the identity map (a producer read broadcast would
  compute each element again for every repetition; it stays a buffer), and the buffer (a
  ``memref.alloc``) has no other use than being written by the one and read by the other (``memref.dim`` of it aside, which then reads the allocation's
  size instead); a buffer read twice is computed once and kept; a producer that reads a
  buffer updated in place (``w += g``), or a view of one, between it and the root of its
  tree (where the fused generic goes) stays where it is (moved there, it would read the new
  values);
- the fused generic reads the tree's inputs through the composed maps: a producer's input
  map after the consumer's map of the buffer, so a broadcast (``(d0, d1) -> (0, d1)``) that
  feeds a tree is read in place instead of being materialised. An input read twice through
  the same map is read once.

Before::

    %t = memref.alloc() : memref<4x3xf64>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, #id],
                    iterator_types = ["parallel", "parallel"]}
        ins(%row : memref<1x3xf64>) outs(%t : memref<4x3xf64>) {
    ^bb0(%x: f64, %o: f64):
      linalg.yield %x : f64
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %t : memref<4x3xf64>, memref<4x3xf64>) outs(%r : memref<4x3xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      linalg.yield %s : f64
    }

After::

    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id],
                    iterator_types = ["parallel", "parallel"]}
        ins(%a, %row : memref<4x3xf64>, memref<1x3xf64>) outs(%r : memref<4x3xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      linalg.yield %s : f64
    }
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TypeGuard

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.support.buffers import element_type_of
from mg_xdsl.support.loop_builders import constant_value
from mg_xdsl.support.op_builders import linalg_generic
from mg_xdsl.transforms.memref.memref_views import base

identity = cache(AffineMap.identity)


def is_elementwise(op: Operation) -> TypeGuard[linalg.GenericOp]:
    """All loops parallel, one output (one value yielded) through the identity map, whose
    old value the body does not read."""
    if not isinstance(op, linalg.GenericOp):
        return False
    block = op.body.block
    out_map = op.indexing_maps.data[-1].data
    yielded = block.last_op
    return (
        yielded is not None
        and len(yielded.operands) == 1
        and all(it.data == IteratorType.PARALLEL for it in op.iterator_types)
        and out_map == identity(out_map.num_dims)
        and not block.args[-1].uses
    )


def producer(
    value: SSAValue,
    consumer: linalg.GenericOp,
    updated: frozenset[SSAValue] = frozenset(),
    root: linalg.GenericOp | None = None,
) -> linalg.GenericOp | None:
    """The elementwise generic that fills ``value`` if it can join ``consumer``'s tree (an
    elementwise generic: its last operand is its output), whose fused generic takes the place
    of ``root`` (``consumer`` itself by default). ``updated``: the buffers that some generic
    updates in place (``updated_in_place``)."""
    if not isinstance(value.owner, memref.AllocOp) or value.owner.parent is not consumer.parent:
        return None
    writer: linalg.GenericOp | None = None
    reads = 0
    for use in value.uses:
        user = use.operation
        if isinstance(user, memref.DimOp):
            continue
        if user is consumer and use.index < len(consumer.operands) - 1 and _reads_each_once(consumer, use.index):
            reads += 1
        elif writer is None and use.index == len(user.operands) - 1 and is_elementwise(user):
            writer = user
        else:
            return None
    if reads != 1 or writer is None or writer.parent is not consumer.parent:
        return None
    # Fused, the writer computes where the root is: no input of it may be updated before then
    # (``let a = f(x); let b = a <= c; x -= x; print b``: the root, the conversion for print,
    # comes after the update, two consumers away).
    if any(_updated_between(base(v), writer, root or consumer) for v in writer.operands[:-1] if base(v) in updated):
        return None
    return writer


def _writes_in_place(op: Operation, buffer: SSAValue) -> bool:
    """Whether ``op`` is a generic that updates ``buffer`` in place (``w += g``: ``buffer`` is
    its output and one of its inputs)."""
    return isinstance(op, linalg.GenericOp) and op.operands[-1] is buffer and buffer in op.operands[:-1]


def updated_in_place(generics: Sequence[Operation]) -> frozenset[SSAValue]:
    """The buffers that one of ``generics`` updates in place: found once, so that a buffer
    read ten thousand times is not searched for such a writer at each read."""
    return frozenset(g.operands[-1] for g in generics if _writes_in_place(g, g.operands[-1]))


def _updated_between(buffer: SSAValue, writer: Operation, consumer: Operation) -> bool:
    """Whether ``buffer`` (updated in place somewhere), which ``writer`` reads, is updated
    between ``writer`` and ``consumer`` (where the fused generic goes): fused there, the writer
    would read the new values. An update inside a loop or a conditional between them counts
    (a branch may update a var of the enclosing block in place)."""
    op = writer.next_op
    while op is not None and op is not consumer:
        if any(_writes_in_place(inner, buffer) for inner in op.walk()):
            return True
        op = op.next_op
    return False


def _reads_each_once(consumer: linalg.GenericOp, operand: int) -> bool:
    """Whether the consumer reads each element of that operand once (its map is the
    identity): fusing a producer that the consumer reads broadcast would compute each of its
    elements again for every repetition."""
    m = consumer.indexing_maps.data[operand].data
    return m == identity(m.num_dims)


@dataclass
class Tree:
    """The generics of one fused tree (producers before their consumers, the root last), the
    inputs they read with their maps over the root's loops, and where each operand comes
    from: an input (its position) or a producer."""

    root: linalg.GenericOp
    ops: list[linalg.GenericOp] = field(default_factory=list)
    inputs: list[tuple[SSAValue, AffineMap]] = field(default_factory=list)
    source: dict[tuple[linalg.GenericOp, int], int | linalg.GenericOp] = field(default_factory=dict)

    @staticmethod
    def of(root: linalg.GenericOp, updated: frozenset[SSAValue] = frozenset()) -> "Tree":
        """Depth first, operands left to right, so the inputs are in first-use order. An
        explicit stack, not recursion: a chain of 10^4 additions is a tree 10^4 deep."""
        tree = Tree(root)
        position: dict[tuple[SSAValue, AffineMap], int] = {}
        loops = root.indexing_maps.data[-1].data.num_dims
        stack: list[tuple[linalg.GenericOp, AffineMap, int]] = [(root, identity(loops), 0)]
        while stack:
            op, to_op, i = stack.pop()  # to_op: the op's loops from the root's
            if i == len(op.operands) - 1:  # every input done: the op's own turn
                tree.ops.append(op)
                continue
            stack.append((op, to_op, i + 1))
            value, read = op.operands[i], op.indexing_maps.data[i].data.compose(to_op)
            made_by = producer(value, op, updated, root)
            if made_by is not None:
                tree.source[(op, i)] = made_by
                stack.append((made_by, read, 0))
            else:
                key = (value, read)
                if key not in position:
                    position[key] = len(tree.inputs)
                    tree.inputs.append(key)
                tree.source[(op, i)] = position[key]
        return tree

    def body(self) -> Region:
        """Each generic's body in turn, its operands the tree's inputs or the values its
        producers yield."""
        root_out = self.root.body.block.args[-1]
        block = Block(arg_types=[*(element_type_of(v) for v, _ in self.inputs), root_out.type])
        yielded: dict[linalg.GenericOp, SSAValue] = {}
        for op in self.ops:
            args = op.body.block.args
            values: dict[SSAValue, SSAValue] = {args[-1]: block.args[-1]}
            for i, arg in enumerate(args[:-1]):
                src = self.source[(op, i)]
                values[arg] = block.args[src] if isinstance(src, int) else yielded[src]
            for inner in op.body.block.ops:
                if isinstance(inner, linalg.YieldOp):
                    yielded[op] = values[inner.operands[0]]
                else:
                    block.add_op(clone := inner.clone(value_mapper=values))
                    values.update(zip(inner.results, clone.results))
        block.add_op(linalg.YieldOp(yielded[self.root]))
        return Region(block)


def release(buffer: SSAValue) -> None:
    """Erase a buffer no generic uses any more; a ``memref.dim`` of it reads the
    allocation's size instead."""
    alloc = buffer.owner
    assert isinstance(alloc, memref.AllocOp)
    shape = alloc.memref.type.get_shape()
    for use in list(buffer.uses):
        dim = use.operation
        assert isinstance(dim, memref.DimOp)
        d = constant_value(dim.index)
        assert d is not None and shape[d] < 0, "a memref.dim of a static or unknown dimension"
        size = alloc.dynamic_sizes[sum(1 for s in shape[:d] if s < 0)]
        Rewriter.replace_op(dim, [], [size])
    Rewriter.erase_op(alloc)


def fuse(tree: Tree) -> None:
    root = tree.root
    maps = [m for _, m in tree.inputs] + [root.indexing_maps.data[-1].data]
    fused = linalg_generic([v for v, _ in tree.inputs], [root.operands[-1]], tree.body(), maps, root.iterator_types)
    fused.location = root.location
    Rewriter.insert_op(fused, InsertPoint.before(root))
    for op in reversed(tree.ops):  # consumers before the buffers they read
        buffer = op.operands[-1]
        Rewriter.erase_op(op)
        if op is not root:
            release(buffer)


class LinalgFuseElementwiseOpsPass(ModulePass):
    name = "linalg-fuse-elementwise-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        generics = [o for o in op.walk() if is_elementwise(o)]
        updated = updated_in_place(generics)
        roots = [
            g
            for g in generics
            if not any(
                producer(g.operands[-1], u.operation, updated) is g
                for u in g.operands[-1].uses
                if u.operation is not g and is_elementwise(u.operation)
            )
        ]
        for root in roots:
            tree = Tree.of(root, updated)
            if len(tree.ops) > 1:
                fuse(tree)
