"""``lower-affine``: affine loops and accesses -> ``scf.for`` and ``memref.load/store``.

The same rewrite as upstream MLIR's pass of this name:

- ``affine.for %i = lb to ub step s`` -> ``scf.for %i = lb to ub step s``, where the bounds
  are affine maps applied to the loop's bound operands (so a bound may be a run-time size,
  ``affine.for %i = 0 to %n``, as loops over ``?`` dimensions need);
- ``affine.load/store %m[map(dims)[symbols]]`` -> ``memref.load/store %m[indices]``, with the
  map's arithmetic expanded into ``arith`` ops;
- ``affine.apply`` -> the ``arith`` ops of its map; ``affine.yield`` -> ``scf.yield``;
- ``affine.parallel`` (without reductions, one bound per dimension, as ``affine-parallelize``
  makes them) -> ``scf.parallel`` with the same bounds and steps, its terminator an empty
  ``scf.reduce``.

xDSL's own ``lower-affine`` assumes constant loop bounds and maps without symbols; this
module handles the operands, and expands expressions as xDSL's ``affine_expr_ops`` does
(the same ops, made by ``op_builders``: a loop's bounds and step are three constants).
"""

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, scf
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mg_xdsl.support.op_builders import (
    arith_binary,
    arith_constant,
    index_constant,
    memref_load,
    memref_store,
    scf_for,
    scf_yield,
)
from mg_xdsl.support.rewrite_each import rewrite_each

_BINARY = {
    AffineBinaryOpKind.Add: arith.AddiOp,
    AffineBinaryOpKind.Mul: arith.MuliOp,
    AffineBinaryOpKind.Mod: arith.RemSIOp,
    AffineBinaryOpKind.FloorDiv: arith.FloorDivSIOp,
    AffineBinaryOpKind.CeilDiv: arith.CeilDivSIOp,
}


def expression_ops(
    expr: AffineExpr, dims: Sequence[SSAValue], symbols: Sequence[SSAValue]
) -> tuple[list[Operation], SSAValue]:
    """The arith ops evaluating ``expr`` on ``dims`` and ``symbols``, and the value."""
    if isinstance(expr, AffineConstantExpr):
        constant = index_constant(expr.value)
        return [constant], constant.result
    if isinstance(expr, AffineDimExpr):
        return [], dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return [], symbols[expr.position]
    if isinstance(expr, AffineBinaryOpExpr):
        lhs_ops, lhs = expression_ops(expr.lhs, dims, symbols)
        rhs_ops, rhs = expression_ops(expr.rhs, dims, symbols)
        op = arith_binary(_BINARY[expr.kind], lhs, rhs)
        return [*lhs_ops, *rhs_ops, op], op.results[0]
    raise ValueError(f"Unexpected affine expr: {expr}")


def apply_map(map: AffineMap, operands: Sequence[SSAValue]) -> tuple[list[Operation], list[SSAValue]]:
    """The arith ops computing each result of ``map`` on ``operands`` (dims, then symbols)."""
    dims, symbols = operands[: map.num_dims], operands[map.num_dims :]
    ops: list[Operation] = []
    values: list[SSAValue] = []
    for expr in map.results:
        new_ops, value = expression_ops(expr, dims, symbols)
        ops.extend(new_ops)
        values.append(value)
    return ops, values


def single(map: AffineMap, operands: Sequence[SSAValue], what: str) -> tuple[list[Operation], SSAValue]:
    if len(map.results) != 1:
        raise ValueError(f"affine.for {what} bound with {len(map.results)} results (min/max) is not supported")
    ops, (value,) = apply_map(map, operands)
    return ops, value


class LowerAffineFor(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.ForOp, rewriter: PatternRewriter) -> None:
        lb_ops, lb = single(op.lowerBoundMap.data, op.lowerBoundOperands, "lower")
        ub_ops, ub = single(op.upperBoundMap.data, op.upperBoundOperands, "upper")
        step = arith_constant(op.step, op.step.type)
        rewriter.insert([*lb_ops, *ub_ops, step])
        body = rewriter.move_region_contents_to_new_regions(op.body)
        rewriter.replace(op, scf_for(lb, ub, step.result, op.inits, body))


class LowerAffineParallel(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.ParallelOp, rewriter: PatternRewriter) -> None:
        if op.res or op.reductions.data:
            raise ValueError("affine.parallel with reductions is not supported")
        lb_map, ub_map = op.lowerBoundsMap.data, op.upperBoundsMap.data
        if any(g != 1 for g in (*op.lowerBoundsGroups.get_values(), *op.upperBoundsGroups.get_values())):
            raise ValueError("affine.parallel bounds with max/min groups are not supported")
        n_lb = lb_map.num_dims + lb_map.num_symbols
        lb_ops, lbs = apply_map(lb_map, op.map_operands[:n_lb])
        ub_ops, ubs = apply_map(ub_map, op.map_operands[n_lb:])
        steps = [index_constant(s.value.data) for s in op.steps.data]
        rewriter.insert([*lb_ops, *ub_ops, *steps])
        body = rewriter.move_region_contents_to_new_regions(op.body)
        term = body.block.last_op
        if isinstance(term, affine.YieldOp):
            rewriter.replace(term, scf.ReduceOp())
        rewriter.replace(op, scf.ParallelOp(lbs, ubs, [s.result for s in steps], body))


class LowerAffineLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.LoadOp, rewriter: PatternRewriter) -> None:
        ops, indices = apply_map(op.map.data, op.indices) if op.map else ([], list(op.indices))
        rewriter.insert(ops)
        rewriter.replace(op, memref_load(op.memref, indices))


class LowerAffineStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.StoreOp, rewriter: PatternRewriter) -> None:
        ops, indices = apply_map(op.map.data, op.indices) if op.map else ([], list(op.indices))
        rewriter.insert(ops)
        rewriter.replace(op, memref_store(op.value, op.memref, indices))


class LowerAffineYield(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.YieldOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, scf_yield(op.arguments))


class LowerAffineApply(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.ApplyOp, rewriter: PatternRewriter) -> None:
        ops, (value,) = apply_map(op.map.data, op.mapOperands)
        rewriter.replace(op, ops, [value])


class LowerAffinePass(ModulePass):
    name = "lower-affine"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_each(
            [inner for inner in op.walk() if inner.name.startswith("affine.")],
            GreedyRewritePatternApplier(
                [
                    LowerAffineFor(),
                    LowerAffineParallel(),
                    LowerAffineLoad(),
                    LowerAffineStore(),
                    LowerAffineApply(),
                    LowerAffineYield(),
                ],
                dce_enabled=False,  # a conversion keeps dead code, as upstream's does
            ),
        )
