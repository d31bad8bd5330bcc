"""The project's dialects: ``mg``, and the pieces of upstream MLIR's dialects that xDSL 0.75
lacks (``memref.prefetch``, ``#llvm.loop_annotation``)."""


def load_upstream_extras(ctx) -> None:
    """Make ``ctx`` (an ``xdsl.context.Context``) know the upstream ops and attributes that
    xDSL's dialects lack, so that it parses what upstream MLIR and this project print."""
    from mg_xdsl.dialects.llvm_loop_annotation import LoopAnnotationAttr
    from mg_xdsl.dialects.memref_prefetch import PrefetchOp

    ctx.load_op(PrefetchOp)  # memref.prefetch
    ctx.load_attr_or_type(LoopAnnotationAttr)  # #llvm.loop_annotation
