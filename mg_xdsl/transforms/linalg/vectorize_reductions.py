"""``vectorize-reductions``: row and column reductions on buffers -> calls to the module's
reduction kernels (``mg_xdsl.kernels.reductions``: vector loops that run at memory speed,
rows or row blocks in parallel).

A reduction is recognised by what it is (the kernels' ``match_reduction`` says which ops
they compute): a ``linalg.generic`` over two loops that reads one
input through the identity map and folds each element into its result cell with one of the
combining ops of ``mg.REDUCTIONS`` (``arith.addf``, ``arith.maximumf``, either operand
order), the cell one per row (iterators ``parallel, reduction``, output map
``(d0, d1) -> (d0, 0)``) or one per column (``reduction, parallel``, ``(d0, d1) -> (0, d1)``)::

    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                     affine_map<(d0, d1) -> (d0, 0)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<1000x1000xf64>) outs(%out : memref<1000x1xf64>) {
    ^bb0(%x: f64, %acc: f64):
      %s = arith.addf %acc, %x : f64
      linalg.yield %s : f64
    }

This pass replaces such an op with

    func.call @mg_row_sum_f64(%in, %out)     // each cast to memref<?x?xf64>

(``@mg_column_sum_f64``, ``@mg_row_max_f64``, ``@mg_column_max_f64`` for the others) and adds
the kernel function to the module the first time it is called. The kernels fold into the
result's cells as they are (``convert-mg-to-linalg`` fills them with the identity first).
Their vector width and number of accumulators are the target's (``mg_xdsl.core.target.reduction_vectors``; the pass options
name its vector unit, by default AVX-512's); ``row-block`` and ``rows-at-once`` shape the
column kernel. A sum is reassociated: the result may differ from the reference pipeline's
left-to-right order in the last bits (a maximum does not change).

A row reduction of one row inside a loop (``linalg-fuse-rows``' loop over rows, which runs it
once per row with the row's other ops) is not called but written in place: the kernel's body
for that row (``fold_row``), without its parallel loop. Where the module's kernels are
compiled apart (``mg.kernels_apart``, the Python API's: ``mg_xdsl.backend.kernel_library``),
that body is a kernel too, ``@mg_one_row_<kind>_<element>`` (one call per row, a few
nanoseconds against the row's hundreds): written in place, the vector loops of a softmax's
maximum and sum were half of its compile time, its passes' and LLVM's (0.25 -> 0.12 s on a
Zen 3, the same run time within noise).

The cost model: small reductions are left as they are, those of static sizes with fewer than
``min-elements`` elements (a reduction of a few thousand numbers takes microseconds either
way, and a call has to cast its operands), and a row reduction whose rows are statically
shorter than one vector step, whose vector loop would never run.
"""

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.core.target import DEFAULT, ReductionVectors, VectorUnit, reduction_vectors
from mg_xdsl.kernels.reductions import (
    ROW_BLOCK,
    ROWS_AT_ONCE,
    Reduction,
    fold_one_row,
    match_reduction,
    one_row_kernel,
    reduction_kernel,
)
from mg_xdsl.kernels.shared import KERNELS_APART, call_kernel, element_type

MIN_ELEMENTS = 4096  # smaller static reductions stay scalar (see the module's docstring)


def worth_vectorizing(found: Reduction, min_elements: int, vectors: ReductionVectors) -> bool:
    rows, cols = _shape(found.input)
    if found.axis == 1 and cols >= 0 and cols < vectors.step:
        return False
    return is_row_in_loop(found) or not (rows >= 0 and cols >= 0 and rows * cols < min_elements)


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def is_row_in_loop(found: Reduction) -> bool:
    """Whether ``found`` folds one row, statically, inside a loop (which runs it many times)."""
    return found.axis == 1 and _shape(found.input)[0] == 1 and not isinstance(found.op.parent_op(), func.FuncOp)


@dataclass(frozen=True)
class VectorizeReductionsPass(ModulePass):
    name = "vectorize-reductions"

    min_elements: int = MIN_ELEMENTS
    # A column reduction's rows per parallel block, and rows folded per pass over its
    # partial row.
    row_block: int = ROW_BLOCK
    rows_at_once: int = ROWS_AT_ONCE
    # The target's vector unit (see mg_xdsl.core.target); the pipeline passes the host's or
    # ``--cpu``'s.
    vector_bits: int = DEFAULT.bits
    vector_registers: int = DEFAULT.registers
    # Where the unit runs narrower than its registers (0: it does not), the reductions use
    # vectors of that width (``VectorUnit.stream_bits``).
    datapath_bits: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unit = VectorUnit(
            self.vector_bits,
            self.vector_registers,
            fma=False,  # no products here
            datapath=self.datapath_bits,
        )
        for candidate in list(op.walk()):
            found = match_reduction(candidate)
            if found is None:
                continue
            element = element_type(found.out)
            vectors = reduction_vectors(unit, element.bitwidth)
            if not worth_vectorizing(found, self.min_elements, vectors):
                continue
            b = Builder(InsertPoint.before(candidate))
            if is_row_in_loop(found):
                # One row, inside linalg-fuse-rows' loop: its body in place, or (kernels apart)
                # a call of the one-row kernel.
                if KERNELS_APART in op.attributes:
                    call_kernel(b, one_row_kernel(op, found.combine, element, vectors), [found.input, found.out])
                else:
                    fold_one_row(b, found.combine, found.input, found.out, vectors)
            else:
                kernel = reduction_kernel(
                    op, found.combine, found.axis, element, vectors, self.row_block, self.rows_at_once
                )
                call_kernel(b, kernel, [found.input, found.out])
            Rewriter.erase_op(candidate)
