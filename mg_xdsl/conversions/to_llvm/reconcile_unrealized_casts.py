"""``reconcile-unrealized-casts``: chains of ``builtin.unrealized_conversion_cast`` that
cancel out -> nothing; their users take the value the chain started from.

The conversions to the LLVM dialect leave a cast wherever a converted value meets a user not
converted yet; once everything is converted, each such chain leads from a type back to the
same type. The pattern is xDSL's (``ReconcileUnrealizedCastsPattern``, upstream's semantics,
warning about a chain that does not cancel out); xDSL's pass walks the whole module at least
twice and offers every op to it, where only the casts that start a chain need to be
offered, once each (offered a cast in the middle of a chain first, the pattern would warn
that it cannot remove it, then remove it with the chain's start)::

    %c = builtin.unrealized_conversion_cast %x : i64 to index
    %d = builtin.unrealized_conversion_cast %c : index to i64      (%d's users now use %x)
    llvm.store %d, %p : i64, !llvm.ptr
"""

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.passes import ModulePass
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

from mg_xdsl.support.rewrite_each import rewrite_each


def _continues_a_chain(cast: UnrealizedConversionCastOp) -> bool:
    return len(cast.inputs) == 1 and isinstance(cast.inputs[0].owner, UnrealizedConversionCastOp)


class ReconcileUnrealizedCastsPass(ModulePass):
    name = "reconcile-unrealized-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        casts = [
            inner
            for inner in op.walk()
            if isinstance(inner, UnrealizedConversionCastOp) and not _continues_a_chain(inner)
        ]
        rewrite_each(casts, ReconcileUnrealizedCastsPattern(warn_on_failure=True))
