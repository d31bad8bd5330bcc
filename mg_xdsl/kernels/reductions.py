"""The reduction kernels: a sum or maximum of every row, or of every column, of a matrix, in
vector registers at memory speed, the independent part an ``scf.parallel`` (for threads).

Folding one element at a time into the result, a row sum is a chain of dependent additions
(each waits for the one before: 3 cycles apiece), a third of what memory delivers. The row
kernel instead takes, for each row in parallel, A ``vector<Lxf64>`` accumulators over
S = A * L elements at a time, combined at the end with ``vector.reduction`` starting from
the cell's value, then the last ``N mod S`` elements (for a sum, whole vectors first, then
one at a time). L and A are the target's (``mg_xdsl.core.target.reduction_vectors``: on AVX-512
four ``vector<8xf64>``, S = 32). That reassociates the sum: the result may differ from the
reference pipeline's left-to-right order in the last bits (a maximum does not change).

Memory delivers several streams faster than one: on a Zen 3 core a row maximum of 4096 x
4096 f64 read 18.5 GB/s one row at a time, 29 GB/s four rows side by side (a C loop,
2026-12-06). So the kernel walks ``rows_at_once`` (4) rows in one loop, the A accumulators
shared among them (A / 4 a row, at least one: the registers hold no more), the groups of
rows in parallel; the last ``M mod 4`` rows follow one at a time, each with all A. A row's
sum then depends on whether it is in a group (the number of rows), never on the threads.

A column reduction walks the matrix row by row already (the inner loop runs along a row);
its rows are cut into blocks of ``row_block`` (``ROW_BLOCK``, 256) that threads take in
parallel, each folding its rows, ``rows_at_once`` (4) at a time, into a partial result row
of its own, L lanes at a time; the partial rows are then folded into the result in order.
A sum then adds up block by block: the same as the reference pipeline's order for up to ``row_block``
rows, and otherwise different in the last bits, but never dependent on the number of
threads. (Threads taking blocks of columns instead would keep the order, but walking a
matrix in narrow column stripes is slow here.)

Maxima are exact: NaN propagates and +0 beats -0, as ``arith.maximumf`` says. The vector
maxima of both kinds are marked ``fastmath<nsz>`` (the sign of a zero may come out wrong),
because ordering -0 below +0 costs two blends around every ``vmaxpd`` on CPUs without
AVX-512, half a row maximum's speed there; where a result is zero, it is recomputed
exactly, element by element (a rare and short second pass). The fold of the partial rows
into a column result is exact as it is.

The scalar loops after the vector loops run fewer times than a vector has lanes (a row
maximum's: up to S - 1); they carry ``#llvm.loop_annotation`` so that LLVM does not
vectorise and unroll them again (``loop_builders.for_loop``'s ``short``), except a row
maximum's, whose vector copy made by LLVM is faster. So do a sum's loop over its last whole
vectors (fewer than its accumulators) and a row maximum's exact second pass, which runs
only where the maximum is zero (``as_written``): LLVM's vector and unrolled copies of them
were a sixth of the code of a row-fused softmax, compiled for nothing.

Each kernel is a private function per module, kind and element type, ``@mg_row_sum_f64(A,
OUT)``, ``@mg_column_max_f64(A, OUT)``, ... on ``memref<?x?xf64>``: A is M x N, OUT is M x 1
for rows and 1 x N for columns, and holds the start values (see ``mg_xdsl.kernels``).
Where the kernels are compiled apart, one row in a loop calls ``@mg_one_row_sum_f64(A,
OUT)`` (``one_row_kernel``), A a 1 x N view of the row and OUT its cell, both any strided
matrix (``strided_matrix``).
"""

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import DYNAMIC_INDEX, FloatAttr, MemRefType, ModuleOp, VectorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.utils import FastMathFlag
from xdsl.dialects.vector import CombiningKindAttr, CombiningKindFlag
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from mg_xdsl.core.target import ReductionVectors
from mg_xdsl.dialects import mg
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

ROW_BLOCK = 256  # rows per parallel block of a column reduction
ROWS_AT_ONCE = 4  # rows folded into the partial row per pass over it
PARALLEL, REDUCTION = IteratorType.PARALLEL, IteratorType.REDUCTION

# The ops that fold an element into a cell: arith's binary operations on floats.
Combine = arith.FloatingPointLikeBinaryOperation

# The combining op -> its vector.reduction kind, its neutral start value, its kernel's name
# (the last two from the mg dialect's REDUCTIONS).
VECTOR_KIND: dict[type[Combine], str] = {arith.AddfOp: "add", arith.MaximumfOp: "maximumf"}
COMBINE = {
    r.combine: (VECTOR_KIND[r.combine], r.identity, kind)
    for kind, r in mg.REDUCTIONS.items()
    if issubclass(r.combine, Combine) and r.combine in VECTOR_KIND
}  # (products and minima: the loops convert-linalg-to-affine-loops writes)


# ---------------------------------------------------------------------------------------
# The ops the kernels compute: ``vectorize-reductions`` replaces them, and
# ``convert-mg-to-linalg`` copies a view that one of them would pass a kernel.
# ---------------------------------------------------------------------------------------


@dataclass
class Reduction:
    """A matched reduction: ``out[dst] = combine(out[dst], in[i, j])`` for all ``i < M, j < N``."""

    op: linalg.GenericOp
    out: SSAValue
    input: SSAValue
    combine: type[Combine]
    axis: int  # 1: one cell per row, [i, 0]; 0: one cell per column, [0, j]


ROW_CELLS = AffineMap.from_callable(lambda i, j: (i, 0))
COLUMN_CELLS = AffineMap.from_callable(lambda i, j: (0, j))
FOLDS = {(PARALLEL, REDUCTION, ROW_CELLS): 1, (REDUCTION, PARALLEL, COLUMN_CELLS): 0}


def match_reduction(op: Operation) -> Reduction | None:
    """``op`` as a row or column reduction that a kernel computes, if it is one (see
    ``vectorize-reductions``): a ``linalg.generic`` over two loops that reads its input
    through the identity map and folds each element into its row's or column's cell with a
    combining op of ``COMBINE``."""
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 1 or len(op.outputs) != 1:
        return None
    in_map, out_map = (m.data for m in op.indexing_maps)
    iterators = tuple(it.data for it in op.iterator_types)
    if len(iterators) != 2:
        return None
    axis = FOLDS.get((iterators[0], iterators[1], out_map))
    if axis is None or in_map != AffineMap.identity(2):
        return None
    x, acc = op.body.block.args
    body = list(op.body.block.ops)
    if len(body) != 2:
        return None
    combined, yielded = body
    if (
        not isinstance(combined, Combine)
        or type(combined) not in COMBINE
        or set(combined.operands) != {x, acc}
        or not isinstance(yielded, linalg.YieldOp)
        or list(yielded.operands) != [combined.results[0]]
    ):
        return None
    return Reduction(op, op.outputs[0], op.inputs[0], type(combined), axis)


def reduction_kernel(
    module: ModuleOp,
    combine: type[Combine],
    axis: int,
    element: Attribute,
    vectors: ReductionVectors,
    row_block: int = ROW_BLOCK,
    rows_at_once: int = ROWS_AT_ONCE,
) -> func.FuncOp:
    """``@mg_row_<kind>_<element>(A, OUT)`` (``axis`` 1) or ``@mg_column_<kind>_<element>``
    (``axis`` 0), for ``vectors``; made on first use."""

    def body(b: Builder, args) -> None:
        a, result = args
        rows, cols = (b.insert(memref.DimOp(a, index(b, d))).result for d in (0, 1))
        if axis == 1:
            row_reduction(b, combine, a, result, rows, cols, vectors, rows_at_once)
        else:
            column_reduction(b, combine, a, result, rows, cols, vectors, row_block, rows_at_once)

    name = f"mg_{'row' if axis == 1 else 'column'}_{COMBINE[combine][2]}_{element}"
    return kernel_function(module, name, element, ["a", "out"], body, f"{vectors} {row_block} {rows_at_once}")


def one_row_kernel(
    module: ModuleOp, combine: type[Combine], element: Attribute, vectors: ReductionVectors
) -> func.FuncOp:
    """``@mg_one_row_<kind>_<element>(A, OUT)``: the one row of ``A`` (1 x N, a view of a
    row: ``strided_matrix``) folded into ``OUT[0, 0]`` by ``fold_row``, for ``vectors``; made
    on first use. What ``vectorize-reductions`` calls for a row in a loop where the
    module's kernels are apart: the same code, compiled once instead of in every program."""

    def body(b: Builder, args) -> None:
        a, result = args
        fold_one_row(b, combine, a, result, vectors)

    name = f"mg_one_row_{COMBINE[combine][2]}_{element}"
    return kernel_function(module, name, element, ["a", "out"], body, str(vectors), strided_matrix(element))


def fold_one_row(b: Builder, combine: type[Combine], a: SSAValue, result: SSAValue, vectors: ReductionVectors) -> None:
    """The one row of ``a`` (1 x N) folded by ``combine`` into ``result[0, 0]`` (``fold_row``)."""
    zero = index(b, 0)
    static = a.type.get_shape()[1] if isinstance(a.type, MemRefType) else DYNAMIC_INDEX
    cols = index(b, static) if static >= 0 else b.insert(memref.DimOp(a, index(b, 1))).result
    fold_row(b, combine, a, result, zero, cols, round_down(b, cols, vectors.step), vectors)


def row_reduction(
    b: Builder,
    combine: type[Combine],
    a: SSAValue,
    result: SSAValue,
    rows: SSAValue,
    cols: SSAValue,
    vectors: ReductionVectors,
    rows_at_once: int = ROWS_AT_ONCE,
) -> None:
    """Every row of ``a`` (``rows`` x ``cols``) folded by ``combine`` into its cell of
    ``result`` (``rows`` x 1): groups of ``rows_at_once`` rows in parallel, each group's rows
    walked side by side, then the last ``rows mod rows_at_once`` rows one by one (see the
    module's docstring)."""
    # The group's accumulators shared among its rows: the registers do not hold more.
    per_row = max(1, vectors.accumulators // rows_at_once)
    # Where a row's vector steps end, before the loop: the same for every row, and
    # convert-parallel-loops-to-threads can then count a group's work (cols / its step)
    # and split the groups among threads.
    vector_end = round_down(b, cols, per_row * vectors.lanes)
    groups = b.insert(arith.DivUIOp(rows, index(b, rows_at_once))).result

    def group(b: Builder, g: SSAValue) -> None:
        first = mul(b, g, index(b, rows_at_once))
        members = [add(b, first, index(b, r)) for r in range(rows_at_once)]
        fold_rows_side_by_side(b, combine, a, result, members, cols, vector_end, per_row, vectors.lanes)

    # A group's work is counted in its vector steps, each `per_row * lanes` elements of
    # each of its rows.
    parallel_loop(b, groups, group, work_scale=rows_at_once * per_row * vectors.lanes)
    grouped = mul(b, groups, index(b, rows_at_once))
    row_end = round_down(b, cols, vectors.step)

    def one_row(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        fold_row(b, combine, a, result, i, cols, row_end, vectors)
        return []

    for_loop(b, grouped, rows, index(b, 1), one_row, short=True)


def fold_row(
    b: Builder,
    combine: type[Combine],
    a: SSAValue,
    result: SSAValue,
    i: SSAValue,
    cols: SSAValue,
    vector_end: SSAValue,
    vectors: ReductionVectors,
) -> None:
    """Row ``i`` of ``a`` (``cols`` long) folded by ``combine`` into ``result[i, 0]``, in
    ``vectors.accumulators`` accumulators up to ``vector_end`` (``cols`` rounded down to
    ``vectors.step``), then the rest (see the module's docstring). A row kernel's last rows,
    and ``vectorize-reductions``' code for one row in a loop (``linalg-fuse-rows``)."""
    fold_rows_side_by_side(b, combine, a, result, [i], cols, vector_end, vectors.accumulators, vectors.lanes)


def fold_rows_side_by_side(
    b: Builder,
    combine: type[Combine],
    a: SSAValue,
    result: SSAValue,
    rows: list[SSAValue],
    cols: SSAValue,
    vector_end: SSAValue,
    per_row: int,
    lanes: int,
) -> None:
    """Each row ``i`` of ``rows`` of ``a`` (``cols`` long) folded by ``combine`` into
    ``result[i, 0]``: one loop walks the rows side by side up to ``vector_end`` (``cols``
    rounded down to ``per_row * lanes``), each row in ``per_row`` accumulators of
    ``lanes``, then each row's rest on its own (see the module's docstring)."""
    element = element_type(result)
    vtype = VectorType(element, [lanes])
    zero = index(b, 0)
    splat = b.insert(
        vector.BroadcastOp(b.insert(arith.ConstantOp(FloatAttr(COMBINE[combine][1], element))).result, vtype)
    ).vector

    def chunk(b: Builder, j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
        out = []
        for r, row in enumerate(rows):
            for k in range(per_row):
                at = add(b, j, index(b, k * lanes))
                v = b.insert(vector.LoadOp(a, [row, at], vtype)).result
                out.append(combine_vectors(b, combine, accs[r * per_row + k], v))
        return out

    accs = for_loop(b, zero, vector_end, index(b, per_row * lanes), chunk, [splat] * (len(rows) * per_row))
    for r, row in enumerate(rows):
        finish_row(b, combine, a, result, row, cols, vector_end, accs[r * per_row : (r + 1) * per_row])


def finish_row(
    b: Builder,
    combine: type[Combine],
    a: SSAValue,
    result: SSAValue,
    i: SSAValue,
    cols: SSAValue,
    vector_end: SSAValue,
    accs: list[SSAValue],
) -> None:
    """Row ``i``'s fold finished: its accumulators ``accs`` (of its elements up to
    ``vector_end``) combined, its last elements folded in, and the start value in
    ``result[i, 0]`` with them; the total stored there."""
    kind = COMBINE[combine][0]
    element = element_type(result)
    vtype = accs[0].type
    assert isinstance(vtype, VectorType)
    lanes = vtype.get_shape()[0]
    zero = index(b, 0)
    start = b.insert(memref.LoadOp.get(result, [i, zero])).res

    def whole_vector(b: Builder, j: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
        v = b.insert(vector.LoadOp(a, [i, j], vtype)).result
        return [combine_vectors(b, combine, acc[0], v)]

    # (With one accumulator, vector_end is a multiple of L already.)
    whole_vectors_left = combine is not arith.MaximumfOp and len(accs) > 1
    while len(accs) > 1:  # a balanced tree: (a0 + a1) + (a2 + a3)
        accs = [combine_vectors(b, combine, accs[k], accs[k + 1]) for k in range(0, len(accs), 2)]
    # What is left of a row is mostly whole vectors (1000 = 31 * 32 + 8): for a sum, one
    # at a time, so that at most L - 1 elements take the slow scalar chain. Not for a
    # maximum: with that loop LLVM's code for a ?x? row maximum on AVX2 took twice as
    # long (8.4 -> 16 ms at 4096 x 4096, one thread), and a maximum's chain is short.
    if whole_vectors_left:
        lanes_end = round_down(b, cols, lanes)
        # (fewer than per_row vectors)
        (acc,) = for_loop(b, vector_end, lanes_end, index(b, lanes), whole_vector, accs, as_written=True)
    else:
        (acc,), lanes_end = accs, vector_end
    # A sum's lanes are added as a tree (reassoc): in lane order, LLVM's reduce.fadd is
    # a chain of L dependent additions, which per row costs as much as a tenth of a
    # 1000-element row's loads. The sum is reassociated already (the accumulators). A
    # maximum's lanes have no order to keep.
    reduced = b.insert(
        vector.ReductionOp.create(
            operands=[acc, start],
            result_types=[element],
            properties={
                "kind": CombiningKindAttr(CombiningKindFlag(kind)),
                "fastmath": NO_FLAGS if combine is arith.MaximumfOp else REASSOC,
            },
        )
    ).results[0]

    def one(b: Builder, j: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
        x = b.insert(memref.LoadOp.get(a, [i, j])).res
        return [b.insert(combine(acc[0], x)).results[0]]

    # A sum's last elements are fewer than L: short. A maximum's may be up to S - 1 (31),
    # which LLVM's vector copy of the loop does in a fifth less time (4000 x 1021).
    (total,) = for_loop(b, lanes_end, cols, index(b, 1), one, [reduced], short=combine is not arith.MaximumfOp)
    if combine is arith.MaximumfOp:
        # Of a zero maximum the sign may be wrong (see combine_vectors): then the exact
        # one, element by element.
        is_zero = b.insert(
            arith.CmpfOp(total, b.insert(arith.ConstantOp(FloatAttr(0.0, element))).result, "oeq")
        ).result
        # (a rare path: scalar code, as small as it can be)
        total = if_else_value(
            b,
            is_zero,
            lambda b: for_loop(b, zero, cols, index(b, 1), one, [start], as_written=True)[0],
            lambda b: total,
        )
    b.insert(memref.StoreOp.get(total, result, [i, zero]))


NO_SIGNED_ZEROS = arith.FastMathFlagsAttr([FastMathFlag.NO_SIGNED_ZEROS])
REASSOC = arith.FastMathFlagsAttr([FastMathFlag.REASSOC])
NO_FLAGS = arith.FastMathFlagsAttr("none")


def combine_vectors(b: Builder, combine: type[Combine], x: SSAValue, y: SSAValue) -> SSAValue:
    """``combine(x, y)`` on vectors. A maximum is marked ``nsz``: IEEE's maximum orders -0
    below +0, which without AVX-512 LLVM can only do with two blends around each
    ``vmaxpd`` (and a third for NaN), half the speed of a row maximum on AVX2. The sign of a
    zero maximum may then be wrong; ``row_reduction`` recomputes such a result exactly. NaN
    still propagates."""
    if combine is arith.MaximumfOp:
        return b.insert(arith.MaximumfOp(x, y, flags=NO_SIGNED_ZEROS)).result
    return b.insert(combine(x, y)).results[0]


def fold_rows(
    b: Builder,
    combine: type[Combine],
    dst: SSAValue,
    dst_row: SSAValue,
    src: SSAValue,
    src_rows: list[SSAValue],
    cols: SSAValue,
    lanes: int,
    exact: bool = False,
) -> None:
    """``dst[dst_row, j] = combine(...combine(dst[dst_row, j], src[r0, j])..., src[rn, j])``
    for every ``j < cols``, the rows ``src_rows`` in order: ``lanes`` at a time, then the
    rest one by one. Folding several rows per pass loads and stores ``dst`` once for all.
    Not ``exact``, the vectors are combined as ``combine_vectors`` does."""
    vtype = VectorType(element_type(dst), [lanes])
    vector_end = round_down(b, cols, lanes)

    def vector_step(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        acc = b.insert(vector.LoadOp(dst, [dst_row, j], vtype)).result
        for row in src_rows:
            x = b.insert(vector.LoadOp(src, [row, j], vtype)).result
            acc = b.insert(combine(acc, x)).results[0] if exact else combine_vectors(b, combine, acc, x)
        b.insert(vector.StoreOp(acc, dst, [dst_row, j]))
        return []

    def one(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        acc = b.insert(memref.LoadOp.get(dst, [dst_row, j])).res
        for row in src_rows:
            x = b.insert(memref.LoadOp.get(src, [row, j])).res
            acc = b.insert(combine(acc, x)).results[0]
        b.insert(memref.StoreOp.get(acc, dst, [dst_row, j]))
        return []

    for_loop(b, index(b, 0), vector_end, index(b, lanes), vector_step)
    for_loop(b, vector_end, cols, index(b, 1), one, short=True)


def column_reduction(
    b: Builder,
    combine: type[Combine],
    a: SSAValue,
    result: SSAValue,
    rows: SSAValue,
    cols: SSAValue,
    vectors: ReductionVectors,
    row_block: int = ROW_BLOCK,
    rows_at_once: int = ROWS_AT_ONCE,
) -> None:
    """Every column of ``a`` (``rows`` x ``cols``) folded by ``combine`` into its cell of
    ``result`` (1 x ``cols``): blocks of ``row_block`` rows in parallel, each into a partial row,
    then the partial rows in order (see the module's docstring)."""
    _, neutral, _ = COMBINE[combine]
    element = element_type(result)
    blocks = ceil_div(b, rows, row_block)
    shape = [constant_value(blocks), constant_value(cols)]
    partial_type = MemRefType(element, [DYNAMIC_INDEX if d is None else d for d in shape])
    partial = b.insert(memref.AllocOp([v for v, d in zip((blocks, cols), shape) if d is None], [], partial_type)).memref

    def block(b: Builder, k: SSAValue) -> None:
        first = mul(b, k, index(b, row_block))
        end = minimum(b, add(b, first, index(b, row_block)), rows)
        start = b.insert(arith.ConstantOp(FloatAttr(neutral, element))).result

        def fill(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            b.insert(memref.StoreOp.get(start, partial, [k, j]))
            return []

        def rows_at(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            fold_rows(
                b, combine, partial, k, a, [add(b, i, index(b, r)) for r in range(rows_at_once)], cols, vectors.lanes
            )
            return []

        def row(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            fold_rows(b, combine, partial, k, a, [i], cols, vectors.lanes)
            return []

        grouped_end = add(b, first, round_down(b, sub(b, end, first), rows_at_once))
        for_loop(b, index(b, 0), cols, index(b, 1), fill)
        for_loop(b, first, grouped_end, index(b, rows_at_once), rows_at)
        for_loop(b, grouped_end, end, index(b, 1), row)
        if combine is arith.MaximumfOp:
            exact_zero_maxima(b, partial, k, a, first, end, cols, start)

    # A block's work is counted by its first loop, the fill of its partial row (`cols`); it
    # folds `row_block` rows of that length.
    parallel_loop(b, blocks, block, work_scale=row_block)

    def total(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        # Few rows (one per block), and exact: of two zeros, the +0 must win.
        fold_rows(b, combine, result, index(b, 0), partial, [k], cols, vectors.lanes, exact=True)
        return []

    for_loop(b, index(b, 0), blocks, index(b, 1), total)


def exact_zero_maxima(
    b: Builder,
    dst: SSAValue,
    dst_row: SSAValue,
    src: SSAValue,
    first: SSAValue,
    end: SSAValue,
    cols: SSAValue,
    start: SSAValue,
) -> None:
    """Where ``dst[dst_row, j]`` (the maximum of rows ``first`` to ``end`` of column ``j``,
    folded by ``combine_vectors``) is zero, whose sign may be wrong, the exact maximum
    instead, row by row from ``start``."""
    zero = b.insert(arith.ConstantOp(FloatAttr(0.0, element_type(dst)))).result

    def column(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        folded = b.insert(memref.LoadOp.get(dst, [dst_row, j])).res

        def exact(b: Builder) -> None:
            def one(b: Builder, r: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                x = b.insert(memref.LoadOp.get(src, [r, j])).res
                return [b.insert(arith.MaximumfOp(acc[0], x)).result]

            (value,) = for_loop(b, first, end, index(b, 1), one, [start])
            b.insert(memref.StoreOp.get(value, dst, [dst_row, j]))

        if_else(b, b.insert(arith.CmpfOp(folded, zero, "oeq")).result, exact, lambda b: None)
        return []

    for_loop(b, index(b, 0), cols, index(b, 1), column)
