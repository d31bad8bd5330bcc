"""``linalg-fuse-rows``: a run of ``linalg`` ops that each work row by row (a softmax: the
row maximum, ``exp(s - max)``, the row sum, the division) -> one parallel loop over the rows,
in which each op works on its row alone, while the row is in the cache.

Op by op, a softmax over the rows of a 16 MiB matrix is four passes over memory: the maximum
reads it, the ``exp`` reads it again and writes ``e``, the sum reads ``e``, the division reads
and writes it. Row by row, a row of 4 KiB is read from memory once and written once; the
other passes find it in the L1 cache. That is upstream MLIR's tiling of the ops by rows,
one row a tile, with the producers fused into the consumer's tile
(``scf::tileConsumerAndFuseProducersUsingSCF``), here on buffers and for the one shape of
tile that the programs' reductions over the last axis need.

The ops (*members*): ``linalg.generic`` and ``linalg.fill`` on memrefs of rank r >= 2 whose
first r - 1 loops (the *row loops*) are parallel and whose last loop is parallel or a
reduction (a row reduction folds a row into its cell ``(d0, 0)``), every shaped operand read
or written through a map whose k-th result is ``dk`` or ``0`` (a broadcast: a ``1 x C`` bias,
a cell of a row reduction). They are fused when they form a *run*: consecutive ops of one
block (allocations, ``memref.dim`` and constants between them move before the run) whose row
loops have the same sizes, where

- every buffer a member writes is a ``memref.alloc`` of the block, read by the members through
  the same value (not a view) and with its row loops' map, ``dk`` for every row loop: row
  ``i`` of it is then written and read in iteration ``i`` only, in the members' order;
- no member reads a written buffer another way (a view of it, a broadcast of its row 0);

and a group of members connected by the buffers they write (a member reads what another
wrote) is worth a loop: it has a row reduction, two of its ops walk the same rows (read or
write a buffer's whole rows: the second finds them in the cache; ``row_sum(x) * 2`` only
scales the cells, and stays as it was), its rows are at least ``MIN_ROW`` long or of ``?``
size, and the rows of the buffers it reads and writes whole fit in ``max-row-bytes`` (half
an L2 cache: where they do not, each pass over a row would come from memory again, as
before). Other members stay as they were.

Each member then becomes, inside a loop over the R rows (the product of the row loops'
sizes), the same op on a ``1 x C`` view of its operands' row (``memref.subview``,
rank-reducing for r > 2: the indices of row ``k``, or 0 for a broadcast dimension; ``1 x 1``
for a cell): its maps ``(d0, d1) -> (d0, d1)`` or ``(d0, 0)``, its loops one parallel row
loop and its last. ``vectorize-reductions`` writes the row reductions there in place (the row
kernel's body for one row), ``convert-linalg-to-affine-loops`` the other ops as loops that
LLVM vectorises. A buffer that only the members use (the cells of a softmax's maximum and
sum, a layer norm's ``d * d``) is needed a row at a time: it becomes a ``1 x C`` buffer
allocated for each block of rows and used by its rows in turn, which stays in the cache,
instead of a whole buffer written out to memory (a layer norm of 4096 x 1024 f64, one
thread: 7.4 -> 5.0 ms). The rows are cut into blocks of about ``THRESHOLD`` elements' work (a row's
length times the ops that walk it; computed when the program runs where the length is a
``?`` size), which ``convert-parallel-loops-to-threads`` shares among threads
(``mg.min_chunk = 1``: a block is a thread's worth); with less work than two threads'
(``MIN_WORK``), the loop over rows is a plain ``scf.for``.

Before (a softmax; the bodies and maps abridged)::

    %m = memref.alloc() : memref<4096x1xf32>
    linalg.fill ins(%ninf : f32) outs(%m : memref<4096x1xf32>)
    linalg.generic {[#id, (d0, d1) -> (d0, 0)], ["parallel", "reduction"]}
        ins(%s : memref<4096x1024xf32>) outs(%m : memref<4096x1xf32>) { maximumf }
    %e = memref.alloc() : memref<4096x1024xf32>
    linalg.generic {[#id, (d0, d1) -> (d0, 0), #id], ["parallel", "parallel"]}
        ins(%s, %m : ...) outs(%e : memref<4096x1024xf32>) { exp(s - m) }
    ...the sum into %t, and %e / %t into %e

After (4096 elements' work a row: blocks of 8 rows; ``%m`` and ``%t``, which only the ops
read, a cell for each block)::

    %e = memref.alloc() : memref<4096x1024xf32>
    ...
    scf.parallel (%b) = (0) to (512) step (1) {
      %mk = memref.alloc() : memref<1x1xf32>
      %tk = memref.alloc() : memref<1x1xf32>
      scf.for %k = %b * 8 to min(%b * 8 + 8, 4096) step 1 {
        linalg.fill ins(%ninf : f32) outs(%mk : memref<1x1xf32>)
        %sk = memref.subview %s[%k, 0] [1, 1024] [1, 1] : ... to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
        linalg.generic {[#id, (d0, d1) -> (d0, 0)], ["parallel", "reduction"]} ins(%sk) outs(%mk) { maximumf }
        %ek = memref.subview %e[%k, 0] [1, 1024] [1, 1] : ...
        linalg.generic {[#id, (d0, d1) -> (d0, 0), #id], ["parallel", "parallel"]} ins(%sk, %mk) outs(%ek) { exp(s - m) }
        ...
      }
    } {mg.min_chunk = 1 : index}
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    MemRefType,
    ModuleOp,
    ShapedType,
    StridedLayoutAttr,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.core.element_types import byte_size
from mg_xdsl.support.buffers import static_strides_and_offset
from mg_xdsl.support.loop_builders import (
    add,
    ceil_div,
    constant_value,
    for_loop,
    index,
    maximum,
    minimum,
    mul,
    parallel_loop,
)
from mg_xdsl.support.op_builders import linalg_generic
from mg_xdsl.support.thread_work import MIN_WORK, THRESHOLD
from mg_xdsl.transforms.memref.memref_views import VIEW_OPS, base

MIN_ROW = 16
"""Shorter rows stay op by op: a row's views and loops would cost more than the passes saved."""

MAX_ROW_BYTES = 1 << 18
"""The default ``max-row-bytes``: half of a 512 KiB L2 cache (Zen 3's, the smallest here)."""

Member = linalg.GenericOp | linalg.FillOp
# The ops that may sit between members: they read no buffer's elements, and move before the run.
MOVABLE = (memref.AllocOp, memref.DimOp, arith.ConstantOp)


@dataclass(frozen=True)
class RunTimeSize:
    """A size known when the program runs: dimension ``dim`` of ``value`` (a parameter, a view)."""

    value: SSAValue
    dim: int


# A row loop's size as the compiler knows it: a number, or the run-time size it is (allocations
# followed to the sizes they were made from), so that equal keys are equal sizes.
Extent = int | RunTimeSize | SSAValue


def extent(value: SSAValue, dim: int) -> Extent:
    """``value``'s size along ``dim`` (see ``Extent``)."""
    t = value.type
    assert isinstance(t, ShapedType)
    shape = t.get_shape()
    if shape[dim] >= 0:
        return shape[dim]
    if isinstance(owner := value.owner, memref.AllocOp):
        size = allocated_size(owner, dim)
        if isinstance(of := size.owner, memref.DimOp) and (k := constant_value(of.index)) is not None:
            return extent(of.source, k)
        known = constant_value(size)
        return size if known is None else known
    return RunTimeSize(value, dim)


def allocated_size(alloc: memref.AllocOp, dim: int) -> SSAValue:
    """The size ``alloc`` was given for its dynamic dimension ``dim``."""
    shape = alloc.memref.type.get_shape()
    dynamic = [d for d, size in enumerate(shape) if size < 0]
    return alloc.dynamic_sizes[dynamic.index(dim)]


def size_value(b: Builder, value: SSAValue, dim: int) -> SSAValue:
    """``value``'s size along ``dim`` as a value at ``b``: a constant where it is static, the
    size a new buffer was allocated with (so that nothing reads the sizes of a buffer that
    ``fuse`` replaces by rows of scratch), else its ``memref.dim``."""
    t = value.type
    assert isinstance(t, ShapedType)
    size = t.get_shape()[dim]
    if size >= 0:
        return index(b, size)
    if isinstance(owner := value.owner, memref.AllocOp):
        return allocated_size(owner, dim)
    return b.insert(memref.DimOp(value, index(b, dim))).result


def maps_of(op: Member) -> list[AffineMap]:
    return [m.data for m in op.get_indexing_maps()]


def iterators_of(op: Member) -> list[IteratorType]:
    return [it.data for it in op.get_iterator_types()]


def shaped(op: Member) -> list[tuple[SSAValue, AffineMap]]:
    """``op``'s memref operands, each with its map."""
    return [(v, m) for v, m in zip(op.operands, maps_of(op)) if isinstance(v.type, ShapedType)]


def row_rank(op: Operation) -> int | None:
    """The rank r of ``op`` as a member (see the module's docstring), else ``None``."""
    if not isinstance(op, Member) or op.results:
        return None
    iterators = iterators_of(op)
    rank = len(iterators)
    if rank < 2 or any(it != IteratorType.PARALLEL for it in iterators[:-1]):
        return None
    for operand, m in shaped(op):
        if not isinstance(operand.type, MemRefType) or len(m.results) != rank:
            return None
        for k, expr in enumerate(m.results):
            is_dim = isinstance(expr, AffineDimExpr) and expr.position == k
            if not (is_dim or expr == AffineConstantExpr(0)):
                return None
    return rank


def whole_rows(m: AffineMap) -> bool:
    """Whether ``m`` reaches its buffer at the row loops' own indices (``dk`` for each)."""
    return all(isinstance(e, AffineDimExpr) for e in m.results[:-1])


def is_row_reduction(op: Member) -> bool:
    return iterators_of(op)[-1] == IteratorType.REDUCTION


def row_loop_operands(op: Member) -> list[SSAValue] | None:
    """For each of ``op``'s row loops, the first operand that the loop indexes (its size is
    the loop's); ``None`` if a loop indexes none."""
    found: list[SSAValue | None] = [None] * (len(iterators_of(op)) - 1)
    for operand, m in shaped(op):
        for k, expr in enumerate(m.results[:-1]):
            if isinstance(expr, AffineDimExpr) and found[k] is None:
                found[k] = operand
    operands = [v for v in found if v is not None]
    return operands if len(operands) == len(found) else None


def row_extents(op: Member) -> tuple[Extent, ...] | None:
    """The sizes of ``op``'s row loops (see ``Extent``)."""
    operands = row_loop_operands(op)
    return None if operands is None else tuple(extent(v, k) for k, v in enumerate(operands))


@dataclass
class Run:
    """Consecutive members of one block with the same row loops, and the ops between them."""

    rank: int
    rows: tuple[Extent, ...]
    members: list[Member] = field(default_factory=list)
    between: list[Operation] = field(default_factory=list)
    written: set[SSAValue] = field(default_factory=set)
    # The buffers the members have reached another way than by value through whole rows.
    read_otherwise: set[SSAValue] = field(default_factory=set)

    def admits(self, op: Member) -> bool:
        """Whether ``op`` can join: the same rows, its outputs new buffers of the block that
        no member reached another way, and nothing written reached another way."""
        if row_rank(op) != self.rank or row_extents(op) != self.rows:
            return False
        outputs = set(op.outputs)
        for operand, m in shaped(op):
            by_value = whole_rows(m) and not isinstance(operand.owner, VIEW_OPS)
            if operand in outputs and (
                not isinstance(operand.owner, memref.AllocOp) or operand in self.read_otherwise or not by_value
            ):
                return False
            if base(operand) in self.written and not by_value:
                return False
        return True

    def add(self, op: Member) -> None:
        self.members.append(op)
        self.written.update(op.outputs)
        self.read_otherwise.update(base(v) for v, m in shaped(op) if not whole_rows(m) or v != base(v))


def runs(block: Block) -> list[Run]:
    """The block's runs of members (see ``Run``)."""
    found: list[Run] = []
    current: Run | None = None
    for op in list(block.ops):
        rank = row_rank(op)
        if rank is None:
            if not (isinstance(op, MOVABLE) and current is not None):
                current = None
            elif current is not None:
                current.between.append(op)
            continue
        assert isinstance(op, Member)
        if current is None or not current.admits(op):
            rows = row_extents(op)
            current = Run(rank, rows) if rows is not None else None
            if current is None or not current.admits(op):
                current = None
                continue
            found.append(current)
        current.add(op)
    return found


def groups(run: Run) -> list[list[Member]]:
    """The run's members, in groups that share no buffer a member writes (each group's
    members in order): groups may then run in any order."""
    parent = list(range(len(run.members)))

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    first_use: dict[SSAValue, int] = {}
    for k, op in enumerate(run.members):
        for operand, _ in shaped(op):
            buffer = base(operand)
            if buffer not in run.written:
                continue
            if buffer in first_use:
                parent[root(k)] = root(first_use[buffer])
            else:
                first_use[buffer] = k
    by_root: dict[int, list[Member]] = {}
    for k, op in enumerate(run.members):
        by_root.setdefault(root(k), []).append(op)
    return list(by_root.values())


def row_length(members: Sequence[Member]) -> int | None:
    """The longest last loop of the members (``None``: one is a ``?`` size)."""
    longest = 0
    for op in members:
        for operand, m in shaped(op):
            if isinstance(m.results[-1], AffineDimExpr):
                assert isinstance(operand.type, MemRefType)
                size = operand.type.get_shape()[-1]
                if size < 0:
                    return None
                longest = max(longest, size)
    return longest


def row_bytes(members: Sequence[Member]) -> int:
    """The bytes of a row of every buffer the members read or write whole rows of (static)."""
    seen: set[SSAValue] = set()
    total = 0
    for op in members:
        for operand, m in shaped(op):
            if operand not in seen and isinstance(m.results[-1], AffineDimExpr):
                seen.add(operand)
                assert isinstance(operand.type, MemRefType)
                total += max(operand.type.get_shape()[-1], 0) * byte_size(operand.type)
    return total


def walks(operand: SSAValue, m: AffineMap) -> bool:
    """Whether an op reaches ``operand`` through ``m`` along rows longer than a cell."""
    t = operand.type
    assert isinstance(t, MemRefType)
    return isinstance(m.results[-1], AffineDimExpr) and t.get_shape()[-1] != 1


def worth_a_loop(members: Sequence[Member], max_row_bytes: int) -> bool:
    """See the module's docstring: a row reduction, a row that two ops walk, rows at least
    ``MIN_ROW`` long, and their buffers' rows within ``max_row_bytes``."""
    working = [op for op in members if isinstance(op, linalg.GenericOp)]
    if not any(is_row_reduction(op) for op in working):
        return False
    walkers: dict[SSAValue, int] = {}  # buffer -> the ops that walk its rows (not its cells)
    for op in working:
        for buffer in {base(v) for v, m in shaped(op) if walks(v, m)}:
            walkers[buffer] = walkers.get(buffer, 0) + 1
    if max(walkers.values(), default=0) < 2:
        return False
    length = row_length(members)
    return length is None or (length >= MIN_ROW and row_bytes(members) <= max_row_bytes)


def row_length_value(b: Builder, members: Sequence[Member]) -> SSAValue:
    """The members' row length where it is a ``?`` size (``row_length`` is ``None``), as a
    value at ``b``: the first such size of an operand read whole."""
    for op in members:
        for operand, m in shaped(op):
            t = operand.type
            assert isinstance(t, MemRefType)
            if isinstance(m.results[-1], AffineDimExpr) and t.get_shape()[-1] < 0:
                return size_value(b, operand, len(t.get_shape()) - 1)
    raise AssertionError("a ? row length without a ? operand")


# ---------------------------------------------------------------------------------------
# The loop over rows
# ---------------------------------------------------------------------------------------


def row_view(b: Builder, operand: SSAValue, m: AffineMap, row: Sequence[SSAValue]) -> SSAValue:
    """``operand``'s row at ``row`` (one index per row loop) as a ``1 x C`` view (``1 x 1``
    for a cell): index 0 where the map broadcasts, the row's own length last."""
    t = operand.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    rank = len(shape)
    offsets: list[SSAValue | int] = [
        row[k] if isinstance(e, AffineDimExpr) else 0 for k, e in enumerate(m.results[:-1])
    ]
    offsets.append(0)
    strides, offset = static_strides_and_offset(t)
    if not all(isinstance(o, int) for o in offsets):
        offset = None  # a ? offset (else all are 0, a broadcast row: the source's)
    # A rank-reducing view keeps the first unit dimension and the last, as upstream's
    # computeRankReductionMask (and finalize-memref-to-llvm) match them.
    kept = [0, rank - 1] if shape[-1] != 1 else [0, 1]
    layout = StridedLayoutAttr([strides[k] for k in kept], offset)
    view = MemRefType(t.element_type, [1, shape[-1]], layout)
    last = [] if shape[-1] >= 0 else [size_value(b, operand, rank - 1)]
    return b.insert(
        memref.SubviewOp(
            operand,
            [o for o in offsets if isinstance(o, SSAValue)],
            last,
            [],
            [DYNAMIC_INDEX if isinstance(o, SSAValue) else o for o in offsets],
            [1] * (rank - 1) + [shape[-1]],
            [1] * rank,
            view,
        )
    ).result


WHOLE_ROW = AffineMap.from_callable(lambda i, j: (i, j))
CELL = AffineMap.from_callable(lambda i, j: (i, 0))
SCALAR = AffineMap(2, 0, ())


def member_on_row(b: Builder, op: Member, views: dict[SSAValue, SSAValue]) -> None:
    """``op`` on its operands' row views, at ``b``; ``op`` itself is left empty."""
    operands = [views.get(v, v) for v in op.operands]
    n = len(op.inputs)
    if isinstance(op, linalg.FillOp):
        b.insert(linalg.FillOp(operands[:n], operands[n:], res=()))
        return
    maps = [
        SCALAR
        if not isinstance(v.type, ShapedType)
        else WHOLE_ROW
        if isinstance(m.results[-1], AffineDimExpr)
        else CELL
        for v, m in zip(op.operands, maps_of(op))
    ]
    iterators = ArrayAttr([IteratorTypeAttr(IteratorType.PARALLEL), op.iterator_types.data[-1]])
    body = Rewriter.move_region_contents_to_new_regions(op.body)
    b.insert(linalg_generic(operands[:n], operands[n:], body, maps, iterators))


def row_indices(b: Builder, k: SSAValue, rows: Sequence[SSAValue]) -> list[SSAValue]:
    """Row number ``k`` as one index per row loop (row-major over ``rows``, their sizes)."""
    indices: list[SSAValue] = []
    for size in reversed(rows[1:]):
        indices.append(b.insert(arith.RemUIOp(k, size)).result)
        k = b.insert(arith.DivUIOp(k, size)).result
    return [k, *reversed(indices)]


def row_sizes(b: Builder, op: Member) -> list[SSAValue]:
    """The sizes of ``op``'s row loops as values, made at ``b`` (a static one a constant)."""
    operands = row_loop_operands(op)
    assert operands is not None  # (a member has its row extents)
    return [size_value(b, operand, k) for k, operand in enumerate(operands)]


def row_temporaries(members: Sequence[Member]) -> list[SSAValue]:
    """The buffers the members write that nothing else uses (layer norm's ``d * d``, which
    only its row sum reads): needed a row at a time."""
    inside = set(members)
    found: list[SSAValue] = []
    for op in members:
        for out in op.outputs:
            if (
                isinstance(out.owner, memref.AllocOp)
                and out not in found
                and all(u.operation in inside for u in out.uses)
            ):
                found.append(out)
    return found


def scratch_row(b: Builder, buffer: SSAValue) -> SSAValue:
    """A ``1 x C`` buffer for a row of ``buffer`` (a ``memref.alloc`` result)."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    last = t.get_shape()[-1]
    sizes = [size_value(b, buffer, len(t.get_shape()) - 1)] if last == DYNAMIC_INDEX else []
    return b.insert(memref.AllocOp(sizes, [], MemRefType(t.element_type, [1, last]))).memref


def fuse(members: Sequence[Member]) -> None:
    """``members`` (one group, in order) as one loop over their rows, where the first was:
    blocks of rows in parallel, each about ``THRESHOLD`` elements' work (a row's length
    times the ops that walk it), and a loop over the block's rows; a plain loop over the
    rows where there is too little work for two threads. A buffer only the members use
    becomes a row of scratch for each block (``row_temporaries``), reused row after row in
    the cache, instead of a whole buffer written out to memory."""
    temporaries = row_temporaries(members)
    allocations = [op for t in temporaries if isinstance(op := t.owner, memref.AllocOp)]
    b = Builder(InsertPoint.before(members[0]))
    rows = row_sizes(b, members[0])
    total = rows[0]
    for size in rows[1:]:
        total = mul(b, total, size)
    walking = sum(isinstance(op, linalg.GenericOp) for op in members)
    length = row_length(members)

    def row_loop(b: Builder, first: SSAValue, end: SSAValue) -> None:
        scratch = {buffer: scratch_row(b, buffer) for buffer in temporaries}

        def one_row(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            row = row_indices(b, k, rows)
            # (operand, which row loops index it) -> its view of the row
            views: dict[tuple[SSAValue, tuple[bool, ...]], SSAValue] = {}
            for op in members:
                local: dict[SSAValue, SSAValue] = dict(scratch)
                for operand, m in shaped(op):
                    if operand in scratch:
                        continue
                    key = (operand, tuple(isinstance(e, AffineDimExpr) for e in m.results[:-1]))
                    if key not in views:
                        views[key] = row_view(b, operand, m, row)
                    local[operand] = views[key]
                member_on_row(b, op, local)
            return []

        for_loop(b, first, end, 1, one_row)

    n_rows = constant_value(total)
    if length is not None and n_rows is not None:  # all static: the blocks counted here
        work = max(length * walking, 1)
        if n_rows * work < MIN_WORK:
            row_loop(b, index(b, 0), total)
            return _erase([*members, *allocations])
        per_block = index(b, -(-THRESHOLD // work))
    else:
        row = index(b, length) if length is not None else row_length_value(b, members)
        work = mul(b, row, index(b, walking))
        per_block = ceil_div(b, index(b, THRESHOLD), maximum(b, work, index(b, 1)))

    def block(b: Builder, k: SSAValue) -> None:
        first = mul(b, k, per_block)
        row_loop(b, first, minimum(b, add(b, first, per_block), total))

    parallel_loop(b, ceil_div(b, total, per_block), block, min_chunk=1)
    _erase([*members, *allocations])


def _erase(ops: Sequence[Operation]) -> None:
    for op in ops:
        Rewriter.erase_op(op)


@dataclass(frozen=True)
class LinalgFuseRowsPass(ModulePass):
    name = "linalg-fuse-rows"

    # The bytes of a row of every buffer a loop reads or writes whole rows of that should
    # stay in the cache; longer rows stay op by op.
    max_row_bytes: int = MAX_ROW_BYTES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = [block for o in op.walk() for region in o.regions for block in region.blocks]
        for block in blocks:
            for run in runs(block):
                fusable = [g for g in groups(run) if worth_a_loop(g, self.max_row_bytes)]
                if not fusable:
                    continue
                for moved in run.between:  # (allocations, sizes, constants)
                    moved.detach()
                    Rewriter.insert_op(moved, InsertPoint.before(run.members[0]))
                for members in fusable:
                    fuse(members)
