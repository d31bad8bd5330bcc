"""``affine-loop-normalize``: ``affine.for`` loops -> loops from 0 in steps of 1, and with
``promote-single-iter=true`` a loop that runs exactly once -> its body, in place.

As upstream MLIR's pass of this name::

    affine.for %i = 2 to 10 step 3 {            affine.for %i' = 0 to 3 {
      use(%i)                          ->          %i = affine.apply (d0) -> (d0 * 3 + 2)(%i')
    }                                              use(%i)
                                                 }

    %c0 = arith.constant 0 : index  (at the top of the function)
    affine.for %j = 0 to 1 {
      affine.store %x, %m[%i, %j]      ->        affine.store %x, %m[%i, %c0]
    }

``lower-mg-to-affine`` makes one loop per dimension, so a reduction's ``?x1`` result, a
``1x?`` row broadcast or a ``1xN`` matrix gets loops of one iteration: a fifth of the loops
of a typical program, each of which would otherwise become a compare, two branches and an
increment in every later stage (the reference pipeline's affine stage shows them; this pass runs after
it). Loops of other constant trip counts are left to LLVM.

A promoted loop's iteration arguments become its initial values and its results what its
body yields. Normalising needs both bounds constant (the loops this project makes from a
``?`` size start at 0 in steps of 1 already, and are normal); any other loop, and
``affine.parallel``, is left as it is.
"""

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import affine, func
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.support.loop_builders import index


def constant_bound(bound: AffineMapAttr) -> int | None:
    """The value of a bound map with no operands and one constant result."""
    m = bound.data
    if m.num_dims or m.num_symbols or len(m.results) != 1:
        return None
    return m.results[0].value if isinstance(m.results[0], AffineConstantExpr) else None


def entry_constant(loop: affine.ForOp, value: int, made: dict) -> SSAValue:
    """``arith.constant value : index`` at the start of the function around ``loop``, one
    per function and value: an index used in an affine map must be defined at the top of
    its affine scope (a constant in a loop's body is not a valid dimension upstream)."""
    scope = loop.parent_op()
    while not isinstance(scope, func.FuncOp | ModuleOp):
        assert scope is not None, "an affine.for outside any function"
        scope = scope.parent_op()
    key = (scope, value)
    if key not in made:
        made[key] = index(Builder(InsertPoint.at_start(scope.body.blocks[0])), value)
        made[key].name_hint = f"c{value}"
    return made[key]


def promote(loop: affine.ForOp, lower: SSAValue) -> None:
    """Replace ``loop``, which runs once with its induction variable at ``lower``, by its body."""
    body: Block = loop.body.block
    name = lower.name_hint
    body.args[0].replace_all_uses_with(lower)
    lower.name_hint = name  # (which the induction variable's would replace)
    for arg, init in zip(body.args[1:], loop.inits):
        arg.replace_all_uses_with(init)
    yielded = body.last_op
    assert isinstance(yielded, affine.YieldOp)
    for result, value in zip(loop.res, yielded.operands):
        result.replace_all_uses_with(value)
    Rewriter.erase_op(yielded)
    Rewriter.inline_block(body, InsertPoint.before(loop))
    Rewriter.erase_op(loop)


def normalize(loop: affine.ForOp, lower: int, upper: int, step: int) -> None:
    """Make ``loop`` run from 0 in steps of 1, the old induction variable recomputed."""
    trips = max(0, -(-(upper - lower) // step))
    iv = loop.body.block.args[0]
    b = Builder(InsertPoint.at_start(loop.body.block))
    d0 = AffineExpr.dimension(0)
    old = b.insert(affine.ApplyOp([iv], AffineMapAttr(AffineMap(1, 0, (d0 * step + lower,)))))
    iv.replace_uses_with_if(old.result, lambda use: use.operation is not old)
    loop.lowerBoundMap = AffineMapAttr(AffineMap.constant_map(0))
    loop.upperBoundMap = AffineMapAttr(AffineMap.constant_map(trips))
    loop.step = IntegerAttr.from_index_int_value(1)


@dataclass(frozen=True)
class AffineLoopNormalizePass(ModulePass):
    name = "affine-loop-normalize"

    promote_single_iter: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        made: dict = {}  # the index constants at the top of each function
        # Innermost first, so that a promoted body lands in a loop still to be looked at.
        for loop in reversed([o for o in op.walk() if isinstance(o, affine.ForOp)]):
            lower, upper = constant_bound(loop.lowerBoundMap), constant_bound(loop.upperBoundMap)
            if lower is None or upper is None:
                continue
            step = loop.step.value.data
            if self.promote_single_iter and lower < upper <= lower + step:
                promote(loop, entry_constant(loop, lower, made))
            elif lower != 0 or step != 1:
                normalize(loop, lower, upper, step)
