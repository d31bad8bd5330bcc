"""``convert-scf-to-cf``: ``scf.for``, ``scf.if`` and ``scf.index_switch`` -> blocks and branches.

The patterns are xDSL's (``xdsl.transforms.convert_scf_to_cf``, translations of upstream's
``SCFToControlFlow``); ``ForLowering`` is its pattern for ``scf.for`` with the ops made by
``op_builders`` (a program has hundreds of loops), and the order they are applied in is this
project's. Lowering a loop
splits its block before the loop, and every op after it moves into the new block. Walking a
block forward, the k-th of N loops moves the ops of the N - k loops after it: O(N^2) moves
for a function of N statements. Walking it backward, the ops after a loop are only those
up to the next, already lowered, loop: each op moves once. The result is the same IR::

    scf.for %i = %lb to %ub step %c1 {          cf.br ^cond(%lb : index)
      "body"(%i) : (index) -> ()              ^cond(%i: index):
    }                                           %go = arith.cmpi slt, %i, %ub : index
    "after"() : () -> ()                        cf.cond_br %go, ^body, ^after
                                              ^body:
                                                "body"(%i) : (index) -> ()
                                                %next = arith.addi %i, %c1 : index
                                                cf.br ^cond(%next : index)
                                              ^after:
                                                "after"() : () -> ()

One walk lowers every op: a loop's body moves into its parent's region with its ops, which
are still on the walk's list. Nothing else is cleaned up on the way (a conversion keeps dead
code, as upstream's does); each of these would cost a further walk of the whole module.
"""

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.transforms.convert_scf_to_cf import IfLowering, SwitchLowering

from mg_xdsl.dialects.llvm_loop_annotation import PARALLEL_ACCESSES
from mg_xdsl.support.op_builders import arith_binary, arith_cmpi, cf_br, cf_cond_br
from mg_xdsl.support.rewrite_each import rewrite_each

LOWERED = (scf.ForOp, scf.IfOp, scf.IndexSwitchOp)


def llvm_attributes(op: Operation) -> dict[str, Attribute]:
    """``op``'s attributes that are a loop's hints to LLVM: those of the LLVM dialect
    (``#llvm.loop_annotation``) and ``mg.parallel_accesses``."""
    return {
        name: value
        for name, value in op.attributes.items()
        if name == PARALLEL_ACCESSES or value.name.startswith("llvm.")
    }


class ForLowering(RewritePattern):
    """The block is split at the loop; the loop's first block becomes the condition block
    (it has the induction variable and the carried values as arguments), its ops move to a
    new first body block, and the body blocks move between the two halves."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter):
        init_block = op.parent_block()
        if init_block is None:
            return
        end_block = init_block.split_before(op)
        condition_block = op.body.first_block
        assert condition_block is not None and condition_block.first_op is not None
        first_body_block = condition_block.split_before(condition_block.first_op)
        last_body_block = op.body.last_block
        assert last_body_block is not None
        rewriter.inline_region(op.body, BlockInsertPoint.before(end_block))
        iv = condition_block.args[0]

        # The body's end steps the induction variable and branches back with the carried
        # values (the operands of its yield).
        terminator = last_body_block.last_op
        assert isinstance(terminator, scf.YieldOp)
        stepped = arith_binary(arith.AddiOp, iv, op.step)
        rewriter.insert(stepped, InsertPoint.before(terminator))
        back = cf_br(condition_block, [stepped.results[0], *terminator.operands])
        # The loop's hints to LLVM (``#llvm.loop_annotation``) go on the branch back, which
        # LLVM reads them from, as upstream's lowering does.
        back.attributes.update(llvm_attributes(op))
        rewriter.replace(terminator, back)

        rewriter.insert(cf_br(condition_block, [op.lb, *op.iter_args]), InsertPoint.at_end(init_block))
        comparison = arith_cmpi("slt", iv, op.ub)
        rewriter.insert(comparison, InsertPoint.at_end(condition_block))
        rewriter.insert(
            cf_cond_br(comparison.results[0], first_body_block, (), end_block, ()), InsertPoint.at_end(condition_block)
        )
        # The loop's results: the carried values when the condition fails.
        rewriter.replace(op, [], condition_block.args[1:])


class ConvertScfToCfPass(ModulePass):
    name = "convert-scf-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Backward, and each op before the ops nested in it.
        ops = [inner for inner in op.walk(region_first=True) if isinstance(inner, LOWERED)]
        rewrite_each(
            reversed(ops),
            GreedyRewritePatternApplier([SwitchLowering(), IfLowering(), ForLowering()], dce_enabled=False),
        )
