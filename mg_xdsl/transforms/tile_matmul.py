"""``tile-matmul``: the matrix-product nest of ``lower-mg-to-affine`` -> a call to the
module's matrix-product kernel, ``@mg_matmul_f64`` (``mg_xdsl.kernels.matmul``: packed,
cache-tiled, register-blocked vector code, its row blocks in parallel).

``lower-mg-to-affine`` computes ``C = A @ B`` (A: M x K, B: K x N; C zero-filled by the nest
before it) as

    affine.for %i = 0 to M { affine.for %j = 0 to N { affine.for %k = 0 to K {
      C[i, j] = C[i, j] + A[i, k] * B[k, j] } } }

which reads a column of B for every element of C: about 1% of what the machine can do.
This pass replaces the nest with

    func.call @mg_matmul_f64(%A, %B, %C)    -- each cast to memref<?x?xf64>

and adds the kernel function to the module on the first product of each element type.

The kernel's register block, vector length and cache blocks are the target's
(``mg_xdsl.target.matmul_blocks``): the pass options name the target's vector unit, and
default to AVX-512's, and its caches (``l1-cache``, ``l2-cache``, ``l3-cache`` in bytes; by
default a typical core's). Matrix products with static sizes whose M * N * K is below
``min-work`` (the pass option, by default ``MIN_WORK``, 32768) keep the simple nest: tiling
buys nothing there. The kernel sums in blocks with fused multiply-adds, so the result may
differ from the chapter's order in the last bits.
"""

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.kernels.matmul import MatmulOperands, matmul_kernel
from mg_xdsl.kernels.shared import call_kernel
from mg_xdsl.target import DEFAULT, TYPICAL_CACHES, Caches, VectorUnit
from mg_xdsl.transforms.affine_nests import identity_indices, perfect_child, upper_bound

MIN_WORK = 32 * 32 * 32


def match(loop: affine.ForOp) -> MatmulOperands | None:
    """``C[i, j] = C[i, j] + A[i, k] * B[k, j]`` over a perfect ``i, j, k`` nest from 0."""
    j_loop = perfect_child(loop)
    k_loop = perfect_child(j_loop) if j_loop else None
    if k_loop is None or any(upper_bound(lp) is None for lp in (loop, j_loop, k_loop)):
        return None
    body = [o for o in k_loop.body.block.ops if not isinstance(o, affine.YieldOp)]
    if len(body) != 6:
        return None
    load_a, load_b, product, load_c, total, store = body
    i, j, k = (lp.body.block.args[0] for lp in (loop, j_loop, k_loop))
    if not (identity_indices(load_a) == (i, k) and identity_indices(load_b) == (k, j)
            and identity_indices(load_c) == (i, j) and identity_indices(store) == (i, j)
            and isinstance(product, arith.MulfOp)
            and isinstance(total, arith.AddfOp) and isinstance(store, affine.StoreOp)
            and isinstance(load_c, affine.LoadOp)):
        return None
    if (list(product.operands) != [load_a.results[0], load_b.results[0]]  # type: ignore[union-attr]
            or list(total.operands) != [load_c.results[0], product.results[0]]
            or store.value is not total.results[0] or store.memref is not load_c.memref):
        return None
    return MatmulOperands(load_a.memref, load_b.memref, load_c.memref)  # type: ignore[union-attr]


@dataclass(frozen=True)
class TileMatmulPass(ModulePass):
    name = "tile-matmul"

    # The target's vector unit (see mg_xdsl.target); the pipeline passes the host's or
    # ``--cpu``'s.
    vector_bits: int = DEFAULT.bits
    vector_registers: int = DEFAULT.registers
    fma: bool = DEFAULT.fma
    # Its caches, in bytes (L1 data, L2, this core's share of L3), for the cache blocks;
    # by default a typical core's.
    l1_cache: int = TYPICAL_CACHES.l1
    l2_cache: int = TYPICAL_CACHES.l2
    l3_cache: int = TYPICAL_CACHES.l3
    # Products of static sizes with M * N * K below this keep the plain nest.
    min_work: int = MIN_WORK

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unit = VectorUnit(self.vector_bits, self.vector_registers, self.fma)
        caches = Caches(self.l1_cache, self.l2_cache, self.l3_cache)
        for loop in [o for o in op.walk() if isinstance(o, affine.ForOp)]:
            nest = match(loop)
            if nest is None:
                continue
            j_loop = perfect_child(loop)
            k_loop = perfect_child(j_loop)  # type: ignore[arg-type]
            sizes = [upper_bound(lp) for lp in (loop, j_loop, k_loop)]  # type: ignore[arg-type]
            if all(isinstance(s, int) for s in sizes) and sizes[0] * sizes[1] * sizes[2] < self.min_work:  # type: ignore[operator]
                continue
            kernel = matmul_kernel(op, nest.c.type.element_type, unit, caches)  # type: ignore[attr-defined]
            call_kernel(Builder(InsertPoint.before(loop)), kernel, [nest.a, nest.b, nest.c])
            Rewriter.erase_op(loop)
