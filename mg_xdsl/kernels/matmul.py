"""The matrix-product kernel: ``C += A @ B`` as packed, cache-tiled, register-blocked
vector code (the BLIS scheme), its row blocks an ``scf.parallel`` (for threads).

The plain nest ``C[i, j] += A[i, k] * B[k, j]`` reads a column of B for every element of C:
about 1% of what the machine can do. The kernel does, for A: M x K, B: K x N,

    for jc in [0, N) step NC:                  -- a block of NC columns of B and C
      for pc in [0, K) step KC:                -- KC of the K products at a time
        pack B[pc:pc+KC, jc:jc+NC] into Bp     -- panels of NR columns, each row of a
                                               --   panel contiguous, zero-padded
        scf.parallel over row blocks ic of MC rows:       (threads take row blocks)
          pack A[ic:ic+MC, pc:pc+KC] into Ap   -- panels of MR rows, k-major (rows loaded
                                               --   as vectors, transposed), zero-padded
          for each NR-column panel jr, for each MR-row panel ir:
            prefetch C's MR x NR block (memref.prefetch: its lines are rarely
              cached), where the block has PREFETCH_MIN_DEPTH products or more
            micro-kernel: MR x NR sums in MR * NR/L vector<Lxf64> registers,
              for k < KC: load NR values of Bp's row k, and for each of the MR rows
              broadcast Ap's value and vector.fma it into the row's registers
            C[ir block, jr block] += the registers  (via a small buffer at the edges)

The register block (MR x NR), the vector length L and the cache blocks (KC, MC, NC) are
the target's (``mg_xdsl.core.target.matmul_blocks``): for f64 with a typical core's
caches, AVX-512's block is 6 x 32 with L = 8 and KC, MC, NC 128, 132, 1024 (in 256-bit
halves, Zen 4: 8 x 16, 256, 128, 1024), AVX2's 6 x 8 with L = 4 and 512, 66, 512. Without
fused multiply-add in hardware the kernel multiplies and adds (``llvm.fma`` would become a
call to the C library's ``fma``).

Packing makes the micro-kernel's loads contiguous and the blocks fit the caches (an Ap
block of MC x KC in L2, a panel of Bp in L1), and the register block reuses each loaded
value MR or NR/L times, so the FMA units, not memory, set the pace.

The products are summed in blocks of KC with fused multiply-adds, so the result may differ
from the reference pipeline's order (k from 0 up, rounding after each multiplication and each
addition) in the last bits.

The code (some 1,200 ops in the LLVM dialect) is one private function per module and
element type, ``@mg_matmul_f64(A, B, C)`` on ``memref<?x?xf64, strided<[?, 1], offset: ?>>`` (see
``mg_xdsl.kernels``: a view, so that a batched product calls it on each matrix of the batch;
the sizes that a static product would give an inlined copy made no measurable difference
to its speed).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    ShapedType,
    VectorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from mg_xdsl.core.target import Caches, MatmulBlocks, VectorUnit, matmul_blocks
from mg_xdsl.dialects.memref_prefetch import PrefetchOp
from mg_xdsl.kernels.shared import element_type, kernel_function, strided_matrix
from mg_xdsl.support.loop_builders import (
    add,
    ceil_div,
    constant_value,
    for_loop,
    if_else,
    if_else_value,
    index,
    minimum,
    mul,
    parallel_loop,
    round_down,
    sub,
)

ALIGNMENT = 64  # bytes: packed buffers start on a cache line
PANELS_A_THREAD = 4  # the fewest panels of B a thread packs
# C's block is prefetched (``prefetch_c``) only before a micro-kernel of at least this many
# products: a shorter one is over about when the lines arrive, and the prefetches and their
# clamped addresses then only cost time. Measured on a Zen 3 (one thread, four alternating
# processes each way, as ratios to NumPy's time): with no prefetch at all, 8 x (256x64 @
# 64x256) in f32 (blocks of 64 products) 3-7% faster, but 8 x (256x256 @ 256x256) in f64
# 3% slower and 1024 x 1024 in f64 8% slower.
PREFETCH_MIN_DEPTH = 128
REDUCTION = IteratorType.REDUCTION


@dataclass
class MatmulOperands:
    """``C += A @ B``: the operands of a matched nest, or of the kernel function."""

    a: SSAValue
    b: SSAValue
    c: SSAValue


# ---------------------------------------------------------------------------------------
# The ops the kernel computes: ``tile-matmul`` replaces them, and ``convert-mg-to-linalg``
# copies a view that one of them would pass it with rows not of unit stride.
# ---------------------------------------------------------------------------------------


@dataclass
class Product:
    """A matched product: its operands, which inputs it reads transposed, and how many
    leading batch axes it has (each a matrix product of its own)."""

    operands: MatmulOperands
    transposed: tuple[bool, bool]
    batch: int = 0

    def sizes(self) -> tuple[int, int, int]:
        """M, N and K of each product (negative where dynamic)."""
        a, b = (_shape(v)[self.batch :] for v in (self.operands.a, self.operands.b))
        m, k = a[::-1] if self.transposed[0] else a
        n = b[0] if self.transposed[1] else b[1]
        return m, n, k


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, ShapedType)  # (a matched operand is read through a map of its dimensions)
    return t.get_shape()


def _dims(m: AffineMap) -> tuple[int, ...] | None:
    """The loops that the map's results are, if each is one."""
    dims = tuple(e.position for e in m.results if isinstance(e, AffineDimExpr))
    return dims if len(dims) == len(m.results) else None


def _is_multiply_add(block: Block) -> bool:
    """``yield(acc + a * b)``, in either order of either operation."""
    a, b, acc = block.args
    ops = list(block.ops)
    if len(ops) != 3:
        return False
    product, total, yielded = ops
    return (
        isinstance(product, arith.MulfOp)
        and set(product.operands) == {a, b}
        and isinstance(total, arith.AddfOp)
        and set(total.operands) == {product.result, acc}
        and isinstance(yielded, linalg.YieldOp)
        and list(yielded.operands) == [total.result]
    )


def match_product(op: Operation) -> Product | None:
    """``op`` as a matrix product that the kernel computes, if it is one (see
    ``tile-matmul``): two parallel loops ``i, j`` and one reduction loop ``k``, in any order,
    behind parallel batch loops, reading ``A[i, k]`` (or ``A[k, i]``) and ``B[k, j]`` (or
    ``B[j, k]``) into ``C[i, j]`` with a multiply and an add."""
    if not isinstance(op, LinalgStructuredOperation) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return None
    iterators = [it.data for it in op.get_iterator_types()]
    if len(iterators) < 3 or iterators.count(REDUCTION) != 1:
        return None
    k = iterators.index(REDUCTION)  # (in any loop order: batched products run (b, i, k, j))
    a_map, b_map, c_map = (_dims(m.data) for m in op.get_indexing_maps())
    if c_map is None or sorted((*c_map, k)) != list(range(len(iterators))):
        return None
    *lead, i, j = c_map
    batch = len(lead)
    # (A batch of transposed operands is left as loops: its copies would be batches too.)
    a_forms = ((*lead, i, k), (*lead, k, i)) if not batch else ((*lead, i, k),)
    b_forms = ((*lead, k, j), (*lead, j, k)) if not batch else ((*lead, k, j),)
    if c_map != (*lead, i, j) or a_map not in a_forms or b_map not in b_forms:
        return None
    if not _is_multiply_add(op.body.block):
        return None
    a, b = op.inputs
    return Product(
        MatmulOperands(a, b, op.outputs[0]),
        (a_map == a_forms[-1] != a_forms[0], b_map == b_forms[-1] != b_forms[0]),
        batch,
    )


def _alloc(b: Builder, element, shape: list[SSAValue]) -> SSAValue:
    static = [constant_value(s) for s in shape]
    t = MemRefType(element, [DYNAMIC_INDEX if s is None else s for s in static])
    dynamic = [s for s, c in zip(shape, static) if c is None]
    op = memref.AllocOp(dynamic, [], t, alignment=IntegerAttr(ALIGNMENT, i64))
    return b.insert(op).memref


@dataclass
class Tiling:
    """What the emitted loops share: the operands, their sizes, the element type, the
    target's blocking."""

    operands: MatmulOperands
    m: SSAValue
    n: SSAValue
    k: SSAValue
    blocks: MatmulBlocks
    # C = A @ B: C's values before are never read (the first block of K products stores its
    # sums, the later ones add theirs), so C need not be filled with zeros first.
    overwrite: bool = False

    @property
    def element(self) -> AnyFloat:
        return element_type(self.operands.c)

    @property
    def vtype(self) -> VectorType:
        return VectorType(self.element, [self.blocks.lanes])

    def zero(self, b: Builder) -> SSAValue:
        return b.insert(arith.ConstantOp(FloatAttr(0.0, self.element))).result

    # ----------------------------------------------------------------------------- packing

    def pack_b(self, b: Builder, bp: SSAValue, jc: SSAValue, nc: SSAValue, pc: SSAValue, kc: SSAValue) -> None:
        """``Bp[p, k, c] = B[pc + k, jc + p * NR + c]``, zero past column ``nc``."""
        src = self.operands.b
        NR, LANES = self.blocks.nr, self.blocks.lanes

        def panel(b: Builder, p: SSAValue, _) -> list:
            first = mul(b, p, index(b, NR))
            width = minimum(b, index(b, NR), sub(b, nc, first))
            col0 = add(b, jc, first)

            def row(b: Builder, kk: SSAValue, _) -> list:
                src_row = add(b, pc, kk)
                full = b.insert(arith.CmpiOp(width, index(b, NR), "eq")).result

                def whole(b: Builder) -> None:
                    for q in range(NR // LANES):
                        at = add(b, col0, index(b, q * LANES))
                        v = b.insert(vector.LoadOp(src, [src_row, at], self.vtype)).result
                        b.insert(vector.StoreOp(v, bp, [p, kk, index(b, q * LANES)]))

                def edge(b: Builder) -> None:
                    def copy(b: Builder, c: SSAValue, _) -> list:
                        x = b.insert(memref.LoadOp.get(src, [src_row, add(b, col0, c)])).res
                        b.insert(memref.StoreOp.get(x, bp, [p, kk, c]))
                        return []

                    def pad(b: Builder, c: SSAValue, _) -> list:
                        b.insert(memref.StoreOp.get(self.zero(b), bp, [p, kk, c]))
                        return []

                    for_loop(b, index(b, 0), width, 1, copy)
                    for_loop(b, width, index(b, NR), 1, pad)

                if_else(b, full, whole, edge)
                return []

            for_loop(b, index(b, 0), kc, 1, row)
            return []

        def shared_panel(b: Builder, p: SSAValue) -> None:
            panel(b, p, None)

        # The threads share the panels out (each a KC x NR copy, some microseconds): packed
        # by one, B was a tenth of a 256 x 256 product's time at two threads.
        parallel_loop(b, ceil_div(b, nc, NR), shared_panel, min_chunk=PANELS_A_THREAD)

    def pack_a(self, b: Builder, ap: SSAValue, ic: SSAValue, mc: SSAValue, pc: SSAValue, kc: SSAValue) -> None:
        """``Ap[p, k, r] = A[ic + p * MR + r, pc + k]``, zero past row ``mc``. A whole panel
        is written a vector of MR values per k, stored at once (a loop along a row of A
        instead is turned into scatter stores by LLVM's loop vectoriser, which costs a tenth
        of the product's time): ``transpose_step`` k at a time, a vector loaded from each row
        and the values put in place by ``transpose``, then the last few k one at a time, the
        MR values gathered by scalar loads (6 loads and 5 inserts a k on AVX2, as every k
        was once); a panel at the bottom edge row by row, padded with zeros."""
        src = self.operands.a
        MR = self.blocks.mr

        def panel(b: Builder, p: SSAValue, _) -> list:
            top = mul(b, p, index(b, MR))
            whole_panel = b.insert(arith.CmpiOp(add(b, top, index(b, MR)), mc, "sle")).result

            def whole(b: Builder) -> None:
                rows = [add(b, ic, add(b, top, index(b, r))) for r in range(MR)]

                def column(b: Builder, kk: SSAValue, _) -> list:
                    col = add(b, pc, kk)
                    gathered = b.insert(vector.BroadcastOp(self.zero(b), VectorType(self.element, [MR]))).vector
                    for r, row in enumerate(rows):
                        x = b.insert(memref.LoadOp.get(src, [row, col])).res
                        gathered = b.insert(vector.InsertOp(x, gathered, [r])).result
                    b.insert(vector.StoreOp(gathered, ap, [p, kk, index(b, 0)]))
                    return []

                step = self.transpose_step
                whole_k = index(b, 0)  # (where the k gathered one at a time start)
                if step is not None:
                    whole_k = round_down(b, kc, step)
                    vt = VectorType(self.element, [step])

                    def columns(b: Builder, k0: SSAValue, _) -> list:
                        col = add(b, pc, k0)
                        loaded = [b.insert(vector.LoadOp(src, [row, col], vt)).result for row in rows]
                        for j, gathered in enumerate(self.transpose(b, loaded)):
                            b.insert(vector.StoreOp(gathered, ap, [p, add(b, k0, index(b, j)), index(b, 0)]))
                        return []

                    for_loop(b, index(b, 0), whole_k, step, columns)
                for_loop(b, whole_k, kc, 1, column, short=step is not None)

            def edge(b: Builder) -> None:
                def row(b: Builder, r: SSAValue, _) -> list:
                    local = add(b, top, r)
                    inside = b.insert(arith.CmpiOp(local, mc, "slt")).result

                    def copy(b: Builder) -> None:
                        def one(b: Builder, kk: SSAValue, _) -> list:
                            x = b.insert(memref.LoadOp.get(src, [add(b, ic, local), add(b, pc, kk)])).res
                            b.insert(memref.StoreOp.get(x, ap, [p, kk, r]))
                            return []

                        for_loop(b, index(b, 0), kc, 1, one)

                    def pad(b: Builder) -> None:
                        def one(b: Builder, kk: SSAValue, _) -> list:
                            b.insert(memref.StoreOp.get(self.zero(b), ap, [p, kk, r]))
                            return []

                        for_loop(b, index(b, 0), kc, 1, one)

                    if_else(b, inside, copy, pad)
                    return []

                for_loop(b, index(b, 0), index(b, MR), 1, row)

            if_else(b, whole_panel, whole, edge)
            return []

        for_loop(b, index(b, 0), ceil_div(b, mc, MR), 1, panel)

    @property
    def transpose_step(self) -> int | None:
        """How many k a whole panel of A is packed at a time by ``transpose``: the lanes of a
        vector that holds a panel's MR values (a power of two, at least the unit's lanes);
        None where MR is odd (the panel is then gathered a k at a time)."""
        MR, LANES = self.blocks.mr, self.blocks.lanes
        if MR % 2:
            return None
        return max(LANES, 1 << (MR - 1).bit_length())

    def transpose(self, b: Builder, rows: Sequence[SSAValue]) -> list[SSAValue]:
        """The MR vectors of S values of a panel's rows (``rows[r]``: row r at k0 ... k0 + S - 1),
        as S vectors of MR values, one per k (lane r: row r's), by shuffles that LLVM maps to
        the unit's own: each pair of rows interleaved (their values for each k side by side,
        in the low or high half), then for each k the pairs' two values gathered, a pair at a
        time. Loading whole vectors and shuffling in registers replaces a scalar load and a
        vector insert for each of the panel's values."""
        t = rows[0].type
        assert isinstance(t, VectorType)
        S = t.get_shape()[0]
        half = S // 2

        def shuffle(x: SSAValue, y: SSAValue, mask: list[int]) -> SSAValue:
            rt = VectorType(self.element, [len(mask)])
            return b.insert(vector.ShuffleOp(x, y, DenseArrayBase.from_list(i64, mask), result_type=rt)).result

        low = [x for i in range(half) for x in (i, S + i)]
        high = [x for i in range(half, S) for x in (i, S + i)]
        pairs = [
            (shuffle(rows[i], rows[i + 1], low), shuffle(rows[i], rows[i + 1], high)) for i in range(0, len(rows), 2)
        ]
        out = []
        for k in range(S):
            part, at = (0 if k < half else 1), 2 * (k % half)
            gathered = pairs[0][part]
            kept = [at, at + 1]  # (lanes of ``gathered`` that hold this k's values so far)
            for i, pair in enumerate(pairs[1:], start=1):
                last = i == len(pairs) - 1
                mask = kept + [S + at, S + at + 1]
                # (until the last, S lanes, those past ``mask`` never read: lane 0 will do; a
                # -1, upstream's "any", is not a lane that llvmlite's IR builder accepts)
                gathered = shuffle(gathered, pair[part], mask if last else mask + [0] * (S - len(mask)))
                kept = list(range(len(mask)))
            if len(pairs) == 1:
                gathered = shuffle(gathered, gathered, kept)
            out.append(gathered)
        return out

    # ----------------------------------------------------------------------------- kernel

    def micro_kernel(
        self, b: Builder, ap: SSAValue, ip: SSAValue, bp: SSAValue, jp: SSAValue, kc: SSAValue
    ) -> list[SSAValue]:
        """The MR x NR sums over ``k < kc`` of ``Ap[ip, k, r] * Bp[jp, k, c]``, as MR rows of
        NR/L vectors (row-major)."""
        MR, NR, LANES = self.blocks.mr, self.blocks.nr, self.blocks.lanes
        zeros = b.insert(vector.BroadcastOp(self.zero(b), self.vtype)).vector

        def step(b: Builder, kk: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            columns = [
                b.insert(vector.LoadOp(bp, [jp, kk, index(b, q * LANES)], self.vtype)).result
                for q in range(NR // LANES)
            ]
            out = []
            for r in range(MR):
                a = b.insert(memref.LoadOp.get(ap, [ip, kk, index(b, r)])).res
                splat = b.insert(vector.BroadcastOp(a, self.vtype)).vector
                for q, col in enumerate(columns):
                    out.append(self.multiply_add(b, splat, col, acc[r * len(columns) + q]))
            return out

        return for_loop(b, index(b, 0), kc, 1, step, [zeros] * (MR * NR // LANES))

    def multiply_add(self, b: Builder, x: SSAValue, y: SSAValue, acc: SSAValue) -> SSAValue:
        """``acc + x * y``: one fused multiply-add where the target has them."""
        if self.blocks.fma:
            return b.insert(vector.FMAOp(x, y, acc)).res
        product = b.insert(arith.MulfOp(x, y)).result
        return b.insert(arith.AddfOp(acc, product)).result

    def prefetch_c(self, b: Builder, row0: SSAValue, col0: SSAValue) -> None:
        """Ask for the MR x NR block of C at ``row0, col0`` before the micro-kernel runs: its
        lines are rarely still cached (C is walked once per KC products), and the update
        after the micro-kernel would otherwise wait for them, a quarter of the product's
        time with AVX2 (``row_block`` asks only before a micro-kernel of
        ``PREFETCH_MIN_DEPTH`` products or more). The first and last element of each row
        (clamped to C, at the edges) cover its one or two cache lines."""
        MR, NR = self.blocks.mr, self.blocks.nr
        last_row, last_col = sub(b, self.m, index(b, 1)), sub(b, self.n, index(b, 1))
        cols = [col0, minimum(b, add(b, col0, index(b, NR - 1)), last_col)]
        for r in range(MR):
            row = minimum(b, add(b, row0, index(b, r)), last_row)
            for col in cols:
                b.insert(PrefetchOp(self.operands.c, [row, col], write=True, locality=3))

    def accumulate(
        self, b: Builder, sums: list[SSAValue], row0: SSAValue, col0: SSAValue, tile: SSAValue, first: SSAValue | None
    ) -> None:
        """``C[row0 + r, col0 + c] += sums[r][c]``: straight into C for a whole block; at the
        bottom and right edges through ``tile`` (MR x NR), for the part inside C. Where
        ``first`` (the first block of K products of a kernel that overwrites C), C's old
        values are not read: the sums are stored as they are, which is what adding them to
        a C of zeros gives (a sum begun at +0 is never -0)."""
        c_buf = self.operands.c
        MR, NR, LANES = self.blocks.mr, self.blocks.nr, self.blocks.lanes
        per_row = NR // LANES
        rows = minimum(b, index(b, MR), sub(b, self.m, row0))
        cols = minimum(b, index(b, NR), sub(b, self.n, col0))
        full_rows = b.insert(arith.CmpiOp(rows, index(b, MR), "eq")).result
        full_cols = b.insert(arith.CmpiOp(cols, index(b, NR), "eq")).result
        full = b.insert(arith.AndIOp(full_rows, full_cols)).result

        def whole(b: Builder, add_old: bool = True) -> None:
            for r in range(MR):
                row = add(b, row0, index(b, r))
                for q in range(per_row):
                    col = add(b, col0, index(b, q * LANES))
                    new = sums[r * per_row + q]
                    if add_old:
                        old = b.insert(vector.LoadOp(c_buf, [row, col], self.vtype)).result
                        new = b.insert(arith.AddfOp(old, new)).result
                    b.insert(vector.StoreOp(new, c_buf, [row, col]))

        def edge(b: Builder) -> None:
            for r in range(MR):
                for q in range(per_row):
                    b.insert(vector.StoreOp(sums[r * per_row + q], tile, [index(b, r), index(b, q * LANES)]))

            def row(b: Builder, r: SSAValue, _) -> list:
                def col(b: Builder, c: SSAValue, _) -> list:
                    at = [add(b, row0, r), add(b, col0, c)]
                    s = b.insert(memref.LoadOp.get(tile, [r, c])).res
                    if first is None:
                        s = self._add_old(b, at, s)
                    else:
                        s = if_else_value(b, first, lambda b: s, lambda b: self._add_old(b, at, s))
                    b.insert(memref.StoreOp.get(s, c_buf, at))
                    return []

                for_loop(b, index(b, 0), cols, 1, col)
                return []

            for_loop(b, index(b, 0), rows, 1, row)

        if first is None:
            if_else(b, full, whole, edge)
        else:
            if_else(b, full, lambda b: if_else(b, first, lambda b: whole(b, add_old=False), whole), edge)

    def _add_old(self, b: Builder, at: list[SSAValue], s: SSAValue) -> SSAValue:
        """``C[at] + s``."""
        old = b.insert(memref.LoadOp.get(self.operands.c, at)).res
        return b.insert(arith.AddfOp(old, s)).result

    # ----------------------------------------------------------------------------- blocks

    def emit(self, b: Builder) -> None:
        NR, KC, MC, NC = self.blocks.nr, self.blocks.kc, self.blocks.mc, self.blocks.nc
        # Each panel as deep as a block of products can be: KC rows, or K where K is less.
        # Panels KC deep left a shallow product's (K = 64 in f32 on AVX2: 4 KiB used of every
        # 32 KiB) a power of two apart, in the same few sets of L1 and L2.
        depth = minimum(b, index(b, KC), self.k)
        bp = _alloc(b, self.element, [ceil_div(b, minimum(b, self.n, index(b, NC)), NR), depth, index(b, NR)])

        def column_block(b: Builder, jc: SSAValue, _) -> list:
            nc = minimum(b, index(b, NC), sub(b, self.n, jc))

            def depth_block(b: Builder, pc: SSAValue, _) -> list:
                kc = minimum(b, index(b, KC), sub(b, self.k, pc))
                first = b.insert(arith.CmpiOp(pc, index(b, 0), "eq")).result if self.overwrite else None
                self.pack_b(b, bp, jc, nc, pc, kc)
                parallel_loop(
                    b,
                    ceil_div(b, self.m, MC),
                    lambda b, blk: self.row_block(b, blk, bp, jc, nc, pc, kc, first),
                    min_chunk=1,
                )
                return []

            for_loop(b, index(b, 0), self.k, KC, depth_block)
            return []

        for_loop(b, index(b, 0), self.n, NC, column_block)
        b.insert(memref.DeallocOp.get(bp))
        if self.overwrite:  # (no block of K products when K is 0: C = 0 then)
            if_else(b, b.insert(arith.CmpiOp(self.k, index(b, 0), "eq")).result, self.zero_c, lambda b: None)

    def zero_c(self, b: Builder) -> None:
        """C = 0, element by element (for a product with K = 0, which has no sums to store)."""
        zero = self.zero(b)

        def row(b: Builder, i: SSAValue, _) -> list:
            def col(b: Builder, j: SSAValue, _) -> list:
                b.insert(memref.StoreOp.get(zero, self.operands.c, [i, j]))
                return []

            for_loop(b, index(b, 0), self.n, 1, col)
            return []

        for_loop(b, index(b, 0), self.m, 1, row)

    def row_block(
        self,
        b: Builder,
        blk: SSAValue,
        bp: SSAValue,
        jc: SSAValue,
        nc: SSAValue,
        pc: SSAValue,
        kc: SSAValue,
        first: SSAValue | None,
    ) -> None:
        MR, NR, MC = self.blocks.mr, self.blocks.nr, self.blocks.mc
        ic = mul(b, blk, index(b, MC))
        mc = minimum(b, index(b, MC), sub(b, self.m, ic))
        # Each thread packs into buffers of its own (freed here: they live inside a loop).
        ap = _alloc(b, self.element, [index(b, MC // MR), kc, index(b, MR)])
        tile = _alloc(b, self.element, [index(b, MR), index(b, NR)])
        self.pack_a(b, ap, ic, mc, pc, kc)
        deep = b.insert(arith.CmpiOp(kc, index(b, PREFETCH_MIN_DEPTH), "sge")).result

        def column_panel(b: Builder, jp: SSAValue, _) -> list:
            def row_panel(b: Builder, ip: SSAValue, _) -> list:
                row0 = add(b, ic, mul(b, ip, index(b, MR)))
                col0 = add(b, jc, mul(b, jp, index(b, NR)))
                if_else(b, deep, lambda b: self.prefetch_c(b, row0, col0), lambda b: None)
                sums = self.micro_kernel(b, ap, ip, bp, jp, kc)
                self.accumulate(b, sums, row0, col0, tile, first)
                return []

            for_loop(b, index(b, 0), ceil_div(b, mc, MR), 1, row_panel)
            return []

        for_loop(b, index(b, 0), ceil_div(b, nc, NR), 1, column_panel)
        b.insert(memref.DeallocOp.get(ap))
        b.insert(memref.DeallocOp.get(tile))


def matmul_kernel(
    module: ModuleOp, element: AnyFloat, unit: VectorUnit, caches: Caches, overwrite: bool = False
) -> func.FuncOp:
    """``@mg_matmul_<element>(A, B, C)``: ``C += A @ B`` on ``memref<?x?x<element>, strided<[?, 1],
    offset: ?>>`` (whole matrices, or matrices of a batch), the tiled code for ``unit`` and
    ``caches``; made on first use. ``overwrite``: ``@mg_matmul_set_<element>``, ``C = A @ B``
    (C's values before are not read)."""

    def body(b: Builder, args) -> None:
        a, b_, c = args
        zero, one = index(b, 0), index(b, 1)
        m, k, n = (b.insert(memref.DimOp(v, d)).result for v, d in ((a, zero), (a, one), (b_, one)))
        blocks = matmul_blocks(unit, element.bitwidth, caches)
        Tiling(MatmulOperands(a, b_, c), m, n, k, blocks, overwrite).emit(b)

    name = f"mg_matmul_{'set_' if overwrite else ''}{element}"
    return kernel_function(module, name, element, "abc", body, f"{unit} {caches}", strided_matrix(element))
