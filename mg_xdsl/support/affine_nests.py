"""Reading the affine loop nests that ``lower-mg-to-affine`` makes: the questions that
``affine-parallelize`` (the GPU pipeline's) asks of a nest."""

from xdsl.dialects import affine
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineMap


def identity_indices(op: Operation) -> tuple[SSAValue, ...] | None:
    """The index values of an ``affine.load``/``affine.store`` whose map is the identity
    (``None`` for another map, or another op)."""
    if not isinstance(op, affine.LoadOp | affine.StoreOp):
        return None
    indices = tuple(op.indices)
    if op.map is not None:
        m = op.map.data
        if m.num_symbols or m != AffineMap.identity(m.num_dims) or m.num_dims != len(indices):
            return None
    return indices


def perfect_child(loop: affine.ForOp | affine.ParallelOp) -> affine.ForOp | None:
    """The loop that is the only op (besides the terminator) of ``loop``'s body."""
    ops = list(loop.body.block.ops)
    if len(ops) == 2 and isinstance(ops[0], affine.ForOp) and isinstance(ops[1], affine.YieldOp):
        return ops[0]
    return None


def upper_bound(loop: affine.ForOp) -> int | SSAValue | None:
    """For a loop from 0 in steps of 1 (as ``lower-mg-to-affine`` makes them) its upper
    bound: a number, or the run-time size of a ``()[s0] -> (s0)`` map; ``None`` for any
    other loop."""
    lower, upper = loop.lowerBoundMap.data, loop.upperBoundMap.data
    if (
        lower.num_dims
        or lower.num_symbols
        or not isinstance(lower.results[0], AffineConstantExpr)
        or lower.results[0].value != 0
        or loop.step.value.data != 1
        or upper.num_dims
        or len(upper.results) != 1
    ):
        return None
    if upper.num_symbols == 0:
        bound = upper.results[0]  # (no dimensions, no symbols: a number)
        return bound.value if isinstance(bound, AffineConstantExpr) else None
    if upper.num_symbols == 1 and len(loop.upperBoundOperands) == 1:
        return loop.upperBoundOperands[0]
    return None
