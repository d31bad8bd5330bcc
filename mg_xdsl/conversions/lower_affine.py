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
from xdsl.dialects import affine, arith, builtin, func, memref, scf
from xdsl.ir import Block, Operation, SSAValue
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

from mg_xdsl.dialects.llvm_loop_annotation import keep_parallel_accesses
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
        rewriter.replace(op, keep_parallel_accesses(op, scf_for(lb, ub, step.result, op.inits, body)))


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
        rewriter.replace(op, keep_parallel_accesses(op, scf.ParallelOp(lbs, ubs, [s.result for s in steps], body)))


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
        rewrite_each([inner for inner in op.walk() if inner.name.startswith("affine.")], patterns())


def patterns() -> GreedyRewritePatternApplier:
    return GreedyRewritePatternApplier(
        [
            LowerAffineFor(),
            LowerAffineParallel(),
            LowerAffineLoad(),
            LowerAffineStore(),
            LowerAffineApply(),
            LowerAffineYield(),
        ],
        dce_enabled=False,  # a conversion keeps dead code, as upstream's does
    )


AFFINE_LOOPS = (affine.ForOp, affine.ParallelOp)


def _top_level(value: SSAValue) -> bool:
    """Whether ``value`` is defined at the top level of its function (a parameter, or a
    result of an op of the function's own block): upstream's valid symbol of any type."""
    block = value.owner if isinstance(value.owner, Block) else value.owner.parent_block()
    return block is not None and isinstance(block.parent_op(), func.FuncOp)


def _valid_symbol(value: SSAValue) -> bool:
    """Upstream MLIR's rule (``affine::isValidSymbol``), for the values the lowerings use as
    loop bounds: a constant, a top-level value, or the size of a top-level buffer (or of an
    allocation whose sizes are valid symbols)."""
    if _top_level(value) or isinstance(value.owner, arith.ConstantOp):
        return True
    if isinstance(value.owner, memref.DimOp):
        source = value.owner.source
        if _top_level(source):
            return True
        if isinstance(source.owner, memref.AllocOp):
            return all(_valid_symbol(s) for s in source.owner.dynamic_sizes)
    return False


def _valid_operands(op: Operation) -> bool:
    """Whether upstream accepts the operands of an affine op: each the induction variable of
    an affine loop, or a valid symbol."""
    if not isinstance(op, (*AFFINE_LOOPS, affine.LoadOp, affine.StoreOp, affine.ApplyOp)):
        return True
    values = op.operands
    if isinstance(op, affine.LoadOp | affine.StoreOp):
        values = op.indices
    return all(
        (isinstance(v.owner, Block) and isinstance(v.owner.parent_op(), AFFINE_LOOPS)) or _valid_symbol(v)
        for v in values
    )


def lower_nests_upstream_rejects(module: builtin.ModuleOp) -> None:
    """The affine nests (in the front end's loops and conditionals) that upstream MLIR would
    reject -> ``scf.for`` loops and ``memref.load/store``, as ``lower-affine`` makes them.

    Upstream's affine scope is the function: inside an ``scf.for`` body or an ``scf.if``
    branch, a loop bound that is computed there (the size of a ``?`` dimension of an
    iteration argument or of a buffer allocated there) is not a valid symbol, and
    ``mlir-opt`` rejects the nest. Each such nest (its outermost affine loop) is lowered
    whole here, so that the affine stage stays valid upstream input; xDSL's passes would
    take either form."""
    rejected = [op for op in module.walk() if not _valid_operands(op)]
    roots: list[Operation] = []
    for op in rejected:
        while isinstance(op.parent_op(), AFFINE_LOOPS):
            op = op.parent_op()
            assert op is not None
        if op not in roots:
            roots.append(op)
    if roots:
        rewrite_each([inner for root in roots for inner in root.walk() if inner.name.startswith("affine.")], patterns())
