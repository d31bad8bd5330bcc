"""``affine-parallelize``: ``affine.for`` loops that carry no dependence -> ``affine.parallel``.

A loop is parallel when its iterations touch disjoint memory cells: every ``affine.store`` in
its body writes at indices that contain the loop's induction variable directly, and every
``affine.load`` of the same memref in the body reads exactly the same index values (so an
iteration only reads what it wrote). A loop whose body passes a memref to anything other
than an affine load or store, or has results, stays sequential.

So an elementwise or broadcast nest becomes parallel in every dimension, and in a reduction
(``out[%i, %c0] += in[%i, %j]``) the row loop ``%i`` becomes parallel while the accumulation
loop ``%j`` stays an ``affine.for``. Where a sequential loop encloses a parallel loop in a
perfect nest (a column reduction ``out[%c0, %j] += in[%i, %j]``: ``for %i { for %j }``), the
two are interchanged first, so that parallel loops are outermost; this is legal because the
loop moved inwards is the sequential one and the parallel one carries no dependence.

Each parallel loop becomes a one-dimensional ``affine.parallel`` with the loop's bound maps
and step (as upstream MLIR's pass of this name does); nested parallel loops stay nested.

With ``min-iterations=N`` a nest that does fewer than N iterations in all (its loop and the
chain of first loops nested in it, all of static sizes) is left as it is: the CPU pipeline
gives the size below which ``convert-parallel-loops-to-threads`` would make the loop
sequential again anyway, so that the small loops of a long program are not converted there
and back (the GPU pipeline keeps the default, 0: every parallel loop is a kernel).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, builtin
from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from mg_xdsl.support.affine_nests import identity_indices, perfect_child, upper_bound
from mg_xdsl.support.op_builders import affine_parallel


def is_parallel(loop: affine.ForOp) -> bool:
    if loop.inits or loop.res:
        return False
    iv = loop.body.block.args[0]
    stores: dict[SSAValue, list[tuple[SSAValue, ...]]] = {}
    loads: dict[SSAValue, list[tuple[SSAValue, ...] | None]] = {}
    for op in loop.body.walk():
        if isinstance(op, affine.StoreOp):
            idx = identity_indices(op)
            if idx is None or iv not in idx:
                return False
            stores.setdefault(op.memref, []).append(idx)
        elif isinstance(op, affine.LoadOp):
            loads.setdefault(op.memref, []).append(identity_indices(op))
        elif any(isinstance(v.type, builtin.MemRefType | builtin.UnrankedMemRefType) for v in op.operands):
            return False
    for memref, written in stores.items():
        if len(set(written)) != 1:
            return False
        if any(r != written[0] for r in loads.get(memref, [])):
            return False
    return True


def _defined_outside(value: SSAValue, op: Operation) -> bool:
    return not op.is_ancestor(value.owner)


def interchange(outer: affine.ForOp, inner: affine.ForOp) -> None:
    """Swap a perfectly nested pair by exchanging their bounds and induction variables."""
    o_iv, i_iv = outer.body.block.args[0], inner.body.block.args[0]
    o_bounds = (
        outer.lowerBoundMap,
        outer.upperBoundMap,
        outer.step,
        list(outer.lowerBoundOperands),
        list(outer.upperBoundOperands),
    )
    i_bounds = (
        inner.lowerBoundMap,
        inner.upperBoundMap,
        inner.step,
        list(inner.lowerBoundOperands),
        list(inner.upperBoundOperands),
    )
    for loop, (lbm, ubm, step, lbo, ubo) in ((outer, i_bounds), (inner, o_bounds)):
        loop.properties["lowerBoundMap"] = lbm
        loop.properties["upperBoundMap"] = ubm
        loop.properties["step"] = step
        loop.operands = [*lbo, *ubo]
        # The operand groups' sizes live in a property of their own; they move with the bounds.
        loop.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [len(lbo), len(ubo), 0])
    # The body's uses of the two induction variables are exchanged with the bounds.
    o_uses = [(u.operation, u.index) for u in list(o_iv.uses)]
    i_uses = [(u.operation, u.index) for u in list(i_iv.uses)]
    for op, k in o_uses:
        op.operands[k] = i_iv
    for op, k in i_uses:
        op.operands[k] = o_iv
    o_iv.name_hint, i_iv.name_hint = i_iv.name_hint, o_iv.name_hint


def sink_sequential(loop: affine.ForOp) -> None:
    """Interchange ``loop`` with a perfectly nested parallel child where that is legal."""
    inner = perfect_child(loop)
    while inner is not None and not is_parallel(loop) and is_parallel(inner):
        if not all(_defined_outside(v, loop) for v in inner.operands):
            return
        interchange(loop, inner)
        loop, inner = inner, perfect_child(inner)


def to_parallel(loop: affine.ForOp) -> affine.ParallelOp:
    body = Rewriter.move_region_contents_to_new_regions(loop.body)
    return affine_parallel(
        loop.lowerBoundMap,
        loop.upperBoundMap,
        list(loop.lowerBoundOperands),
        list(loop.upperBoundOperands),
        body,
        loop.step.value.data,
    )


def static_iterations(loop: affine.ForOp) -> int | None:
    """The iterations of ``loop`` and of the chain of first loops nested in it (as
    ``convert-parallel-loops-to-threads`` measures a nest's work); None if one is not static."""
    total = 1
    current: affine.ForOp | None = loop
    while current is not None:
        size = upper_bound(current)
        if not isinstance(size, int):
            return None
        total *= size
        current = next((o for o in current.body.block.ops if isinstance(o, affine.ForOp)), None)
    return total


@dataclass(frozen=True)
class AffineParallelizePass(ModulePass):
    name = "affine-parallelize"

    min_iterations: int = 0

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        loops = [o for o in op.walk() if isinstance(o, affine.ForOp)]
        small = {loop for loop in loops if (n := static_iterations(loop)) is not None and n < self.min_iterations}
        # Outermost first, so that a sequential loop sinks below the parallel ones.
        for loop in loops:
            if loop not in small:
                sink_sequential(loop)
        for loop in reversed([o for o in op.walk() if isinstance(o, affine.ForOp)]):
            if loop not in small and is_parallel(loop):
                Rewriter.replace_op(loop, to_parallel(loop))
