"""``convert-scf-to-cf``: ``scf.for``, ``scf.if`` and ``scf.index_switch`` -> blocks and branches.

The patterns are xDSL's (``xdsl.transforms.convert_scf_to_cf``, translations of upstream's
``SCFToControlFlow``); only the order they are applied in is this project's. Lowering a loop
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
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering

from mg_xdsl.transforms.rewrite_each import rewrite_each


LOWERED = (scf.ForOp, scf.IfOp, scf.IndexSwitchOp)


class ConvertScfToCfPass(ModulePass):
    name = "convert-scf-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Backward, and each op before the ops nested in it.
        ops = [inner for inner in op.walk(region_first=True) if isinstance(inner, LOWERED)]
        rewrite_each(
            reversed(ops),
            GreedyRewritePatternApplier([SwitchLowering(), IfLowering(), ForLowering()], dce_enabled=False),
        )
