"""Applying a conversion's patterns to just the ops it converts, each once.

The conversions to the LLVM dialect (and ``lower-affine``, ``convert-scf-to-cf``) rewrite
each op of their dialects once, in walk order, and never look at an op again. xDSL's
``PatternRewriteWalker`` does that with ``apply_recursively=False``, but on its way it puts
every op of the module on a worklist, offers each to every pattern (a dozen ``isinstance``
tests for an op no pattern wants: ``convert-func-to-llvm`` wants a few dozen of a long
program's ten thousand ops), and records every insertion and removal. Upstream MLIR's
dialect conversion looks the patterns up by the op's name instead. Here a pass collects the
ops it converts in the walk it makes anyway (to check that it can convert them all before
changing anything) and offers only those to its patterns, in the same order as the walker
would, skipping any that an earlier rewrite erased.
"""

from collections.abc import Callable, Iterable

from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.rewriter import InsertPoint


def rewrite_each(
    ops: Iterable[Operation],
    pattern: RewritePattern,
    inserted: Callable[[Operation], None] | None = None,
) -> bool:
    """Offer each of ``ops`` (in order) to ``pattern`` once; True if anything changed.
    ``inserted``, if given, is told of every op the rewrites insert."""
    erased: set[Operation] = set()

    def removed(op: Operation) -> None:
        erased.update(op.walk())

    listener = PatternRewriterListener(
        operation_removal_handler=[removed],
        operation_insertion_handler=[inserted] if inserted else [],
    )
    rewriter = _OneOpRewriter(listener)
    changed = False
    for op in ops:
        if op in erased:
            continue
        rewriter.start(op)
        pattern.match_and_rewrite(op, rewriter)
        changed |= rewriter.has_done_action
    return changed


class _OneOpRewriter(PatternRewriter):
    """A ``PatternRewriter`` made once and pointed at each op in turn (xDSL's driver makes
    one per op), whose ``insert`` of one op before the matched one, by far the most common
    call, links it in directly instead of going through the general path for lists of ops
    at any point. The two took a tenth off ``convert-to-llvm`` (437 to 398 ms for the
    100-statement program with ``--reference``)."""

    def __init__(self, listener: PatternRewriterListener):
        super().__init__(InsertPoint.at_start(Block()))  # until ``start`` points it at an op
        self.extend_from_listener(listener)

    def start(self, op: Operation) -> None:
        self._current_operation = op
        self.insertion_point = InsertPoint.before(op)
        self.has_done_action = False
        self._name_hint = None

    def insert(self, op, insertion_point=None):
        if insertion_point is not None or not isinstance(op, Operation) or self._name_hint is not None:
            return super().insert(op, insertion_point)
        self.has_done_action = True
        # Rewriter.insert_op's two cases, for one op: its general path costs 3% of a conversion.
        point = self.insertion_point
        if point.insert_before is None:
            point.block.add_op(op)
        else:
            point.block.insert_op_before(op, point.insert_before)
        self.handle_operation_insertion(op)
        return op
