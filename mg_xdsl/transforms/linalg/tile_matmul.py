"""``tile-matmul``: a matrix product on buffers -> a call to the module's matrix-product
kernel, ``@mg_matmul_<element>`` (``mg_xdsl.kernels.matmul``: packed, cache-tiled,
register-blocked vector code, its row blocks in parallel).

A matrix product is recognised by what it is, not by its loops (the kernel's
``match_product`` says which ops it computes): a ``linalg.matmul``, or any
structured op with two parallel loops ``i, j`` and one reduction loop ``k`` (in any order)
that reads ``A[i, k]`` and ``B[k, j]``, accumulates into ``C[i, j]``, and whose body is a
multiply and an add (``C = C + A * B``, either operand order). A batched product has
parallel batch loops ``b...`` in front (``A[b..., i, k]``, ``B[b..., k, j]``, ``C[b..., i,
j]``): the kernel is called on each matrix of the batch, in loops over the batch axes (the
outermost parallel when it has four matrices or more: threads take whole products), each
operand's matrix a rank-reducing ``memref.subview``. Either input may be read transposed
(``A[k, i]``, ``B[j, k]``): the pass then first copies it into its transpose
(``linalg.transpose`` into a new buffer), which costs a pass over that operand, against the
product's pass per row or column of the other. Written as loops the product would read a
column of B for every element of C: about 1% of what the machine can do. The op becomes

    func.call @mg_matmul_f64(%A, %B, %C)    -- each cast to memref<?x?xf64>

and the kernel function is added to the module on the first product of each element type.
The kernel accumulates into C, as the op does. Where C was just filled with zeros
(``convert-mg-to-linalg`` fills every product's C so), the fill goes and the call is to
``@mg_matmul_set_f64``, which stores C instead (``C = A @ B``: C is neither written with
zeros nor read back, a pass over C each saved; the sums are the same bits).

The kernel's register block, vector length and cache blocks are the target's
(``mg_xdsl.core.target.matmul_blocks``): the pass options name the target's vector unit, and
default to AVX-512's, and its caches (``l1-cache``, ``l2-cache``, ``l3-cache`` in bytes; by
default a typical core's). Matrix products with static sizes whose M * N * K is below
``min-work`` (the pass option, by default ``MIN_WORK``, 32768) stay as they are (loops, once
lowered): tiling buys nothing there. The kernel sums in blocks with fused multiply-adds, so the result may
differ from the reference pipeline's order in the last bits.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, FloatAttr, MemRefType, ModuleOp, StridedLayoutAttr, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from mg_xdsl.core.target import DEFAULT, TYPICAL_CACHES, Caches, VectorUnit
from mg_xdsl.kernels.matmul import match_product, matmul_kernel
from mg_xdsl.kernels.shared import call_kernel, element_type
from mg_xdsl.support.buffers import static_strides_and_offset
from mg_xdsl.support.loop_builders import for_loop, index, parallel_loop
from mg_xdsl.support.op_builders import memref_alloc

MIN_WORK = 32 * 32 * 32


def batch_matrix(b: Builder, v: SSAValue, at: Sequence[SSAValue]) -> SSAValue:
    """``v[at..., :, :]``: the matrix at batch index ``at``, a rank-reducing
    ``memref.subview`` of ``v`` (its rows as far apart as in ``v``)."""
    t = v.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    matrix = shape[len(at) :]
    sizes = [b.insert(memref.DimOp(v, index(b, len(at) + d))).result for d, s in enumerate(matrix) if s < 0]
    row_stride = static_strides_and_offset(t)[0][-2]
    view = MemRefType(t.element_type, matrix, StridedLayoutAttr([row_stride, 1], None))
    return b.insert(
        memref.SubviewOp(
            v, at, sizes, [], [DYNAMIC_INDEX] * len(at) + [0, 0], [1] * len(at) + list(matrix), [1] * len(shape), view
        )
    ).result


def each_matrix(b: Builder, batch: int, out: SSAValue, body: Callable[[Builder, list[SSAValue]], None]) -> None:
    """``body`` at every index of the first ``batch`` axes of ``out`` (once, at no index, for
    a plain matrix product): a nest of loops, the outermost an ``scf.parallel`` when it has
    ``PARALLEL_BATCH`` matrices or more (or a run-time count), the rest ``scf.for``.

    Threads then take whole products of the batch, each on its own, and the kernel's
    parallel row blocks inside run on the thread that calls it (the thread pool runs a
    nested parallel loop serially). That is what a batch of small products needs: a
    256 x 64 x 256 product has two row blocks, and splitting each of eight products in two
    would wake the threads eight times for a tenth of a millisecond's work each. A batch of
    fewer products than that keeps the threads inside each product, so that two or three
    large ones are not shared out unevenly."""

    def nest(b: Builder, at: list[SSAValue]) -> None:
        if len(at) == batch:
            body(b, at)
            return
        size = b.insert(memref.DimOp(out, index(b, len(at)))).result
        assert isinstance(out.type, MemRefType)
        count = out.type.get_shape()[len(at)]
        if not at and (count < 0 or count >= PARALLEL_BATCH):
            parallel_loop(b, size, lambda b, iv: nest(b, [iv]), min_chunk=1)
        else:
            for_loop(b, index(b, 0), size, 1, lambda b, iv, _: nest(b, [*at, iv]) or [])

    nest(b, [])


# The fewest matrices in a batch whose outermost axis threads share out (see each_matrix).
PARALLEL_BATCH = 4


def transposed_copy(b: Builder, v: SSAValue) -> SSAValue:
    """A new buffer holding the transpose of ``v``."""
    t = v.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    dynamic = [b.insert(memref.DimOp(v, index(b, d))).result for d in (1, 0) if shape[d] < 0]
    out = b.insert(memref_alloc(dynamic, MemRefType(t.element_type, shape[::-1]))).memref
    b.insert(linalg.TransposeOp(v, out, DenseArrayBase.from_list(i64, [1, 0])))
    return out


def zero_fill_before(product: Operation, out: SSAValue) -> linalg.FillOp | None:
    """The ``linalg.fill`` of ``out`` with +0 before ``product`` in its block, if nothing
    between them can see ``out``: the product may then store C instead of adding to it, and
    the fill go. Between them there may be ops without memory effects (constants, sizes)
    and, where ``out`` is a buffer of its own (a ``memref.alloc``) that nothing but its size
    is taken of before the product (no view of it that an op could reach it through), any
    op at all (the copy of a transposed view)."""
    block = product.parent_block()
    assert block is not None
    fills = [u.operation for u in out.uses if isinstance(u.operation, linalg.FillOp)]
    fill = next((f for f in fills if f.parent_block() is block and f.is_before_in_block(product)), None)
    if fill is None or list(fill.outputs) != [out] or not _is_plus_zero(fill.inputs[0]):
        return None
    own_buffer = isinstance(out.owner, memref.AllocOp) and all(
        _after(u.operation, product, block) or u.operation in (fill, product) or isinstance(u.operation, memref.DimOp)
        for u in out.uses
    )
    if own_buffer:
        return fill
    op = product.prev_op
    while op is not fill:
        assert op is not None
        if not is_side_effect_free(op):
            return None
        op = op.prev_op
    return fill


def _after(op: Operation, product: Operation, block: Block) -> bool:
    """Whether ``op`` (or the op of ``block`` it is inside) comes after ``product``."""
    top = block.find_ancestor_op_in_block(op)
    return top is not None and top is not product and product.is_before_in_block(top)


def _is_plus_zero(v: SSAValue) -> bool:
    c = v.owner
    if not isinstance(c, arith.ConstantOp) or not isinstance(c.value, FloatAttr):
        return False
    x = c.value.value.data
    return x == 0.0 and math.copysign(1.0, x) > 0  # (not -0: -0 + 0 is +0)


@dataclass(frozen=True)
class TileMatmulPass(ModulePass):
    name = "tile-matmul"

    # The target's vector unit (see mg_xdsl.core.target); the pipeline passes the host's or
    # ``--cpu``'s.
    vector_bits: int = DEFAULT.bits
    vector_registers: int = DEFAULT.registers
    fma: bool = DEFAULT.fma
    # Bits one vector instruction works on at a time, where fewer than vector_bits (Zen 4's
    # 256): such a unit has its own register block (core.target.HALF_DATAPATH_BLOCKS).
    datapath_bits: int = 0
    # Its caches, in bytes (L1 data, L2, this core's share of L3), for the cache blocks;
    # by default a typical core's.
    l1_cache: int = TYPICAL_CACHES.l1
    l2_cache: int = TYPICAL_CACHES.l2
    l3_cache: int = TYPICAL_CACHES.l3
    # Products of static sizes with M * N * K below this stay as they are (loops, later).
    min_work: int = MIN_WORK

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unit = VectorUnit(self.vector_bits, self.vector_registers, self.fma, self.datapath_bits)
        caches = Caches(self.l1_cache, self.l2_cache, self.l3_cache)
        for product in list(op.walk()):
            matched = match_product(product)
            if matched is None:
                continue
            sizes = matched.sizes()
            if all(s >= 0 for s in sizes) and sizes[0] * sizes[1] * sizes[2] < self.min_work:
                continue
            builder = Builder(InsertPoint.before(product))
            lhs, rhs, out = matched.operands.a, matched.operands.b, matched.operands.c
            fill = zero_fill_before(product, out)
            if fill is not None:
                Rewriter.erase_op(fill)
            lhs = transposed_copy(builder, lhs) if matched.transposed[0] else lhs
            rhs = transposed_copy(builder, rhs) if matched.transposed[1] else rhs
            kernel = matmul_kernel(op, element_type(out), unit, caches, overwrite=fill is not None)
            each_matrix(
                builder,
                matched.batch,
                out,
                lambda b, at: call_kernel(b, kernel, [batch_matrix(b, v, at) if at else v for v in (lhs, rhs, out)]),
            )
            Rewriter.erase_op(product)
