"""``linalg-fuse-elementwise-ops``: trees of elementwise ``linalg.generic``s on memrefs -> one
``linalg.generic`` each, and no buffer between them.

Lowered one op at a time, ``relu(a + b)`` is two loop nests and a temporary buffer the size
of the result, written once and read once: twice the memory traffic of a single pass. This
pass (upstream MLIR's of this name fuses on tensors; this one on the buffers that
``convert-mg-to-linalg`` allocates) merges them, deciding from the ops' structure alone:

- an *elementwise* generic is one whose loops are all ``parallel``, with one output read
  through the identity map and a body that does not read the output's old value;
- its result joins its consumers' trees when every consumer is elementwise too, in the
  same block, reads the buffer through the identity map (a producer read broadcast would
  compute each element again for every repetition; it stays a buffer), and the buffer (a
  ``memref.alloc``) has no other use than being written by the one and read by the others
  (``memref.dim`` of it aside, which then reads the allocation's size instead); a producer
  that reads a buffer updated in place (``w += g``), or a view of one, between it and the
  root of a tree (where the fused generic goes) stays where it is (moved there, it would
  read the new values);
- a producer read more than once (``Plan``) is computed once inside the fused generic when
  its readers all end in one tree (``d * d + relu(d)``); when they end in several, it is
  computed again in each if that is cheap (a few additions, multiplications, comparisons,
  selects: ``RECOMPUTE_COST``, of at most ``MAX_COPIES`` trees, which read few inputs
  again), else (an exp, a log, a division chain) computed once into its buffer, which each
  tree reads; so is a producer that a reduction or a matrix product also reads;
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
from xdsl.ir.affine import AffineDimExpr, AffineMap
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
    *,
    plan: "Plan",
) -> linalg.GenericOp | None:
    """The elementwise generic that fills ``value`` if it can join ``consumer``'s tree (an
    elementwise generic: its last operand is its output), whose fused generic takes the place
    of ``root`` (``consumer`` itself by default). ``updated``: the buffers that some generic
    updates in place (``updated_in_place``). ``plan``: which producers join their readers'
    trees (``Plan``)."""
    writer = plan.writer_of.get(value)
    if writer is None or writer not in plan.joins or writer.parent is not consumer.parent:
        return None
    reads = [use.index for use in value.uses if use.operation is consumer]
    if not reads or not all(i < len(consumer.operands) - 1 and _reads_each_once(consumer, i) for i in reads):
        return None
    # Fused, the writer computes where the root is: no input of it may be updated before then
    # (``let a = f(x); let b = a <= c; x -= x; print b``: the root, the conversion for print,
    # comes after the update, two consumers away).
    if any(_updated_between(base(v), writer, root or consumer) for v in writer.operands[:-1] if base(v) in updated):
        return None
    return writer


def readers(
    value: SSAValue, updated: frozenset[SSAValue] = frozenset()
) -> tuple[linalg.GenericOp, list[linalg.GenericOp]] | None:
    """The elementwise generic that fills buffer ``value`` and the elementwise generics that
    read it (one per read: a generic that reads it twice is there twice), if every read can
    take the writer into the reader's tree: the buffer (a ``memref.alloc``) has no other use
    (``memref.dim`` of it aside, which then reads the allocation's size instead), each reader
    is in the writer's block and reads it through the identity map (one that reads it
    broadcast would compute each element again for every repetition), and no input of the
    writer is updated in place between it and a reader; else ``None``."""
    alloc = value.owner
    if not isinstance(alloc, memref.AllocOp):
        return None
    writer: linalg.GenericOp | None = None
    found: list[linalg.GenericOp] = []
    for use in value.uses:
        user = use.operation
        if isinstance(user, memref.DimOp):
            continue
        last = len(user.operands) - 1
        if (
            use.index < last
            and is_elementwise(user)
            and user.parent is alloc.parent
            and _reads_each_once(user, use.index)
        ):
            found.append(user)
        elif writer is None and use.index == last and is_elementwise(user):
            writer = user
        else:
            return None
    if writer is None or writer.parent is not alloc.parent or not found:
        return None
    if any(
        _updated_between(base(v), writer, reader)
        for v in writer.operands[:-1]
        if base(v) in updated
        for reader in set(found)
    ):
        return None
    return writer, found


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
    def of(root: linalg.GenericOp, plan: "Plan", updated: frozenset[SSAValue] = frozenset()) -> "Tree":
        """Depth first, operands left to right, so the inputs are in first-use order; a
        producer two of the tree's generics read is computed once. An explicit stack, not
        recursion: a chain of 10^4 additions is a tree 10^4 deep."""
        tree = Tree(root)
        visited: set[linalg.GenericOp] = set()
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
            made_by = producer(value, op, updated, root, plan=plan)
            if made_by is not None:
                tree.source[(op, i)] = made_by
                if made_by not in visited:  # (a second read: every map in a tree is the identity)
                    visited.add(made_by)
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
    """The tree's generics -> one, before its root. A producer whose buffer another tree
    still reads (it is computed again there, or kept for it) stays until that tree goes."""
    root = tree.root
    maps = [m for _, m in tree.inputs] + [root.indexing_maps.data[-1].data]
    fused = linalg_generic([v for v, _ in tree.inputs], [root.operands[-1]], tree.body(), maps, root.iterator_types)
    fused.location = root.location
    Rewriter.insert_op(fused, InsertPoint.before(root))
    for op in reversed(tree.ops):  # consumers before the buffers they read
        buffer = op.operands[-1]
        if op is root:
            Rewriter.erase_op(op)
        elif all(use.operation is op or isinstance(use.operation, memref.DimOp) for use in buffer.uses):
            Rewriter.erase_op(op)
            release(buffer)


# What one element of a generic's body costs, in simple arithmetic ops (an add, a multiply,
# a comparison, a select, a maximum: one vector instruction each): a division or a square
# root is several times slower, and exp, log, tanh, pow, the trigonometric functions are
# polynomials of a dozen or more instructions.
SLOW_OPS = {
    "arith.divf": 4,
    "arith.divsi": 4,
    "arith.divui": 4,
    "arith.remf": 4,
    "arith.remsi": 4,
    "arith.remui": 4,
    "arith.floordivsi": 4,
    "arith.ceildivsi": 4,
    "math.sqrt": 4,
    "math.rsqrt": 4,
}
MATH_COST = 16  # every other math op
FREE_OPS = frozenset({"arith.constant", "linalg.yield", "linalg.index"})

RECOMPUTE_COST = 4
"""A producer read by generics of several trees is computed again in each when its element
(with the producers read only by it, fused into it) costs at most this many simple ops: a
subtraction, a scaling, a comparison and a select, a short chain of them; an exp, a log, a
division chain is computed once, into its buffer."""
MAX_COPIES = 4
"""... and when at most this many trees read it (a value computed at most four times)."""


def body_cost(op: linalg.GenericOp) -> int:
    cost = 0
    for inner in op.body.walk():
        name = inner.name
        if name in FREE_OPS:
            continue
        cost += SLOW_OPS.get(name, MATH_COST if name.startswith("math.") else 1)
    return cost


def _full_reads(op: linalg.GenericOp) -> set[SSAValue]:
    """The inputs ``op`` reads an element of per iteration (not a broadcast row or column)."""
    loops = op.indexing_maps.data[-1].data.num_dims
    full: set[SSAValue] = set()
    for value, m in zip(op.operands[:-1], op.indexing_maps.data[:-1]):
        dims = {e.position for e in m.data.results if isinstance(e, AffineDimExpr)}
        if len(dims) == loops:
            full.add(value)
    return full


@dataclass
class Plan:
    """Which elementwise generics join the trees of the generics that read their buffer
    (``joins``; the others are roots: their buffer is kept), decided once for the module.

    A generic read once joins its reader's tree, as does one whose readers all end in one
    tree (``let d = x - y; d * d + relu(d)``: one generic that computes ``d`` once). One whose
    readers end in several trees is *recomputed* in each when that is cheaper than writing
    it and reading it back: its element, with the producers that only it reads, costs at
    most ``RECOMPUTE_COST`` simple ops (``body_cost``), at most ``MAX_COPIES`` trees read it,
    and the trees together read no more of its inputs than the buffer would cost (``k``
    trees, ``n`` inputs read element by element: ``(k - 1) * n <= k + 1``, the buffer's one
    write and ``k`` reads against ``n`` reads each tree adds). Otherwise (an exp, a division
    chain, an expensive subtree) it is computed once and its buffer read by each tree; a
    generic whose buffer something else reads (a reduction, a matrix product, a return) is
    always computed once."""

    writer_of: dict[SSAValue, linalg.GenericOp] = field(default_factory=dict)
    joins: set[linalg.GenericOp] = field(default_factory=set)

    @staticmethod
    def of(generics: Sequence[linalg.GenericOp], updated: frozenset[SSAValue]) -> "Plan":
        plan = Plan()
        read_by: dict[linalg.GenericOp, list[linalg.GenericOp]] = {}
        for g in generics:
            found = readers(g.operands[-1], updated)
            if found is not None and found[0] is g:
                plan.writer_of[g.operands[-1]] = g
                read_by[g] = found[1]
        # Producers before consumers: the cost of each generic with the producers only it
        # reads, and the inputs that subtree reads element by element (both only as far as
        # the decision needs: capped).
        cost: dict[linalg.GenericOp, int] = {}
        full: dict[linalg.GenericOp, frozenset[SSAValue]] = {}
        for g in generics:
            c, inputs, reads = body_cost(g), set[SSAValue](), _full_reads(g)
            for value in dict.fromkeys(g.operands[:-1]):
                p = plan.writer_of.get(value)
                if p is not None and p in cost and all(r is g for r in read_by[p]):
                    c += cost[p]
                    inputs |= full[p]
                elif value in reads:
                    inputs.add(value)
                if c > RECOMPUTE_COST or len(inputs) > MAX_COPIES:
                    break
            cost[g], full[g] = min(c, RECOMPUTE_COST + 1), frozenset(list(inputs)[: MAX_COPIES + 1])
        # Consumers before producers: the roots of the trees each generic ends in.
        trees: dict[linalg.GenericOp, frozenset[linalg.GenericOp]] = {}
        for g in reversed(generics):
            found = read_by.get(g)
            if not found or any(r not in trees for r in found):
                trees[g] = frozenset((g,))
                continue
            ends = frozenset().union(*(trees[r] for r in found))
            k, n = len(ends), len(full[g])
            # (One reader: its tree or trees, whose cost counted this one.)
            if (
                all(r is found[0] for r in found)
                or k == 1
                or (k <= MAX_COPIES and cost[g] <= RECOMPUTE_COST and (k - 1) * n <= k + 1)
            ):
                plan.joins.add(g)
                trees[g] = ends
            else:
                trees[g] = frozenset((g,))
        return plan


class LinalgFuseElementwiseOpsPass(ModulePass):
    name = "linalg-fuse-elementwise-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        generics = [o for o in op.walk() if is_elementwise(o)]
        updated = updated_in_place(generics)
        plan = Plan.of(generics, updated)
        for root in [g for g in generics if g not in plan.joins]:
            tree = Tree.of(root, plan, updated)
            if len(tree.ops) > 1:
                fuse(tree)
