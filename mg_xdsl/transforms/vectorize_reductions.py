"""``vectorize-reductions``: the reduction nests of ``lower-mg-to-affine`` -> calls to the
module's reduction kernels (``mg_xdsl.kernels.reductions``: vector loops that run at memory
speed, rows or row blocks in parallel).

``lower-mg-to-affine`` folds every element into its result cell one at a time::

    affine.for %i = 0 to M {
      affine.for %j = 0 to N {
        %acc = affine.load %out[%i, %c0]      // a row reduction; a column one reads [%c0, %j]
        %x = affine.load %in[%i, %j]
        %r = arith.addf %acc, %x              // or arith.maximumf
        affine.store %r, %out[%i, %c0]
      }
    }

This pass replaces such a nest with

    func.call @mg_row_sum_f64(%in, %out)     // each cast to memref<?x?xf64>

(``@mg_column_sum_f64``, ``@mg_row_max_f64``, ``@mg_column_max_f64`` for the others) and adds
the kernel function to the module the first time it is called. Its vector width and number
of accumulators are the target's (``mg_xdsl.target.reduction_vectors``; the pass options
name its vector unit, by default AVX-512's); ``row-block`` and ``rows-at-once`` shape the
column kernel. A sum is reassociated: the result may differ from the chapter's
left-to-right order in the last bits (a maximum does not change).

The cost model: small nests are left as they are, a nest of static sizes with fewer than
``min-elements`` elements (a reduction of a few thousand numbers takes microseconds either
way, and a call has to cast its operands), and a row reduction whose rows are statically
shorter than one vector step, whose vector loop would never run.
"""

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.kernels.reductions import COMBINE, ROW_BLOCK, ROWS_AT_ONCE, reduction_kernel
from mg_xdsl.kernels.shared import call_kernel
from mg_xdsl.target import DEFAULT, ReductionVectors, VectorUnit, reduction_vectors
from mg_xdsl.transforms.affine_nests import identity_indices, perfect_child, upper_bound
from mg_xdsl.transforms.loop_builders import constant_value

MIN_ELEMENTS = 4096  # smaller static nests stay scalar (see the module's docstring)


@dataclass
class ReductionNest:
    """A matched nest: ``out[dst] = combine(out[dst], in[%i, %j])`` for all ``i < M, j < N``."""

    outer: affine.ForOp
    out: SSAValue
    input: SSAValue
    combine: type[Operation]
    axis: int  # 1: one cell per row, [%i, 0]; 0: one cell per column, [0, %j]


def match(outer: affine.ForOp) -> ReductionNest | None:
    inner = perfect_child(outer)
    if inner is None or outer.inits or inner.inits:
        return None
    if upper_bound(outer) is None or upper_bound(inner) is None:
        return None
    body = [o for o in inner.body.block.ops if not isinstance(o, arith.ConstantOp | affine.YieldOp)]
    if len(body) != 4:
        return None
    acc, x, combined, store = body
    if not (isinstance(acc, affine.LoadOp) and isinstance(x, affine.LoadOp)
            and type(combined) in COMBINE and isinstance(store, affine.StoreOp)):
        return None
    i, j = outer.body.block.args[0], inner.body.block.args[0]
    dst, src, written = identity_indices(acc), identity_indices(x), identity_indices(store)
    if dst is None or src != (i, j) or written != dst or store.memref is not acc.memref:
        return None
    if list(combined.operands) != [acc.result, x.result] or store.value is not combined.results[0]:
        return None
    if dst[0] is i and _is_zero(dst[1]):
        axis = 1
    elif _is_zero(dst[0]) and dst[1] is j:
        axis = 0
    else:
        return None
    return ReductionNest(outer, acc.memref, x.memref, type(combined), axis)


def _is_zero(v: SSAValue) -> bool:
    return constant_value(v) == 0


def worth_vectorizing(nest: ReductionNest, min_elements: int, vectors: ReductionVectors) -> bool:
    rows, cols = upper_bound(nest.outer), upper_bound(perfect_child(nest.outer))  # type: ignore[arg-type]
    if nest.axis == 1 and isinstance(cols, int) and cols < vectors.step:
        return False
    return not (isinstance(rows, int) and isinstance(cols, int) and rows * cols < min_elements)


@dataclass(frozen=True)
class VectorizeReductionsPass(ModulePass):
    name = "vectorize-reductions"

    min_elements: int = MIN_ELEMENTS
    # A column reduction's rows per parallel block, and rows folded per pass over its
    # partial row.
    row_block: int = ROW_BLOCK
    rows_at_once: int = ROWS_AT_ONCE
    # The target's vector unit (see mg_xdsl.target); the pipeline passes the host's or
    # ``--cpu``'s.
    vector_bits: int = DEFAULT.bits
    vector_registers: int = DEFAULT.registers
    # Where the unit runs narrower than its registers (0: it does not), the reductions use
    # vectors of that width (``VectorUnit.stream_bits``).
    datapath_bits: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unit = VectorUnit(self.vector_bits, self.vector_registers, fma=False,  # no products here
                          datapath=self.datapath_bits)
        for loop in [o for o in op.walk() if isinstance(o, affine.ForOp)]:
            nest = match(loop)
            if nest is None:
                continue
            element = nest.out.type.element_type  # type: ignore[attr-defined]
            vectors = reduction_vectors(unit, element.bitwidth)
            if not worth_vectorizing(nest, self.min_elements, vectors):
                continue
            kernel = reduction_kernel(op, nest.combine, nest.axis, element, vectors, self.row_block,
                                      self.rows_at_once)
            call_kernel(Builder(InsertPoint.before(loop)), kernel, [nest.input, nest.out])
            Rewriter.erase_op(loop)
