"""The project's dialects: ``mg``, and the pieces of upstream MLIR's dialects that xDSL 0.75
lacks (``memref.prefetch``, ``#llvm.loop_annotation``)."""

from xdsl.context import Context

from mg_xdsl.dialects.llvm_loop_annotation import LoopAnnotationAttr
from mg_xdsl.dialects.memref_prefetch import PrefetchOp


def load_upstream_extras(ctx: Context) -> None:
    """Make ``ctx`` know the upstream ops and attributes that xDSL's dialects lack, so that
    it parses what upstream MLIR and this project print."""
    ctx.load_op(PrefetchOp)  # memref.prefetch
    ctx.load_attr_or_type(LoopAnnotationAttr)  # #llvm.loop_annotation
