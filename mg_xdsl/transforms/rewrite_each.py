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

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern


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
    changed = False
    for op in ops:
        if op in erased:
            continue
        rewriter = PatternRewriter(op)
        rewriter.extend_from_listener(listener)
        pattern.match_and_rewrite(op, rewriter)
        changed |= rewriter.has_done_action
    return changed
