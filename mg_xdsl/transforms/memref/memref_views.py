"""Views: memrefs that read another buffer's elements in place, with a strided layout.

The optimised pipeline makes ``slice``, ``transpose`` and ``reshape`` views where a view is
enough (``convert-mg-to-linalg`` decides; the reference pipeline copies, one loop nest per
op). Each view is one upstream op, and the passes that care about aliasing ask this module:

- ``slice(x, axis, start, stop)``: ``memref.subview`` of ``x``, any layout and ``?`` sizes
  (the view's strides and offset are ``?`` where ``x``'s are);
- ``transpose(x, perm)`` of ``x`` whose shape, strides and offset are all static, or of
  identity layout with ``?`` sizes: ``memref.reinterpret_cast`` to the permuted sizes and
  strides (the latter's strides computed when the program runs);
- ``reshape(x, shape)`` of ``x`` of static shape and identity layout (contiguous from offset
  0): ``memref.reinterpret_cast`` to the new shape, itself of identity layout.

Otherwise the shape op copies (``convert-mg-to-linalg``): a transpose of a view with ``?``
sizes (its strides would have to be read from its descriptor; upstream's
``memref.transpose`` is not in xDSL), a reshape of a view (its elements are not in row-major
order from offset 0) or of ``?`` sizes.

A view never owns memory: ``buffer-deallocation`` frees its base after the view's last use
(``aliases``), and ``reuse-dying-buffers`` never writes over a buffer that has a view.
"""

from collections.abc import Iterator, Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.ir import Attribute, Operation, SSAValue

# (to_memref: a parameter is a tensor until the signature is lowered)
from mg_xdsl.support.buffers import as_index, static_strides_and_offset, to_memref

# The ops whose result reads their source's buffer (a cast changes only the static type).
VIEW_OPS = (memref.CastOp, memref.SubviewOp, memref.ReinterpretCastOp, memref.CollapseShapeOp, memref.ExpandShapeOp)


def base(value: SSAValue) -> SSAValue:
    """The buffer that ``value`` reads, through any chain of views (a view of a view)."""
    while isinstance(value.owner, VIEW_OPS):
        value = value.owner.operands[0]
    return value


def aliases(value: SSAValue) -> Iterator[Operation]:
    """Every op that reads ``value``'s buffer: its users and, for a view among them, the
    view's users in turn."""
    for use in value.uses:
        yield use.operation
        if isinstance(use.operation, VIEW_OPS):
            yield from aliases(use.operation.results[0])


def has_view(value: SSAValue) -> bool:
    """Whether some view reads ``value``'s buffer at other indices than ``value`` (a cast
    does not count: it reads the same elements at the same indices)."""
    return any(isinstance(op, VIEW_OPS) and not isinstance(op, memref.CastOp) for op in aliases(value))


def _static(t: Attribute) -> tuple[list[int], int] | None:
    """The strides and offset of a memref type whose shape and layout are all static."""
    if not isinstance(t, MemRefType) or DYNAMIC_INDEX in t.get_shape():
        return None
    strides, offset = static_strides_and_offset(t)
    known = [s for s in strides if s is not None]
    if offset is None or len(known) != len(strides):
        return None
    return known, offset


def subview(source: SSAValue, axis: int, start: int, stop: int, sizes: Sequence[int | SSAValue]) -> SSAValue:
    """``source[.., start:stop, ..]`` along ``axis``, ``sizes`` the source's (a ``?`` one as
    its ``memref.dim``), of upstream's inferred type (a stride or offset is ``?`` where the
    source's is)."""
    t = to_memref(source.type)
    assert isinstance(t, MemRefType)
    strides, offset = static_strides_and_offset(t)
    if start and offset is not None:
        stride = strides[axis]
        offset = None if stride is None else offset + start * stride
    shape = [stop - start if d == axis else s for d, s in enumerate(t.get_shape())]
    view = MemRefType(t.element_type, shape, StridedLayoutAttr(strides, offset))
    rank = len(shape)
    dynamic = [s for d, s in enumerate(sizes) if d != axis and isinstance(s, SSAValue)]
    return memref.SubviewOp(
        source, [], dynamic, [], [start if d == axis else 0 for d in range(rank)], shape, [1] * rank, view
    ).result


def transpose_view(source: SSAValue, perm: Sequence[int], sizes: Sequence[int | SSAValue]) -> SSAValue | None:
    """``source`` with its dimensions permuted (result dimension ``k`` is ``perm[k]``), if
    its layout is static, or is the identity with ``?`` sizes (``sizes`` the source's, a
    ``?`` one as its ``memref.dim``: the row-major strides are their products, computed when
    the program runs); else ``None``."""
    t = to_memref(source.type)
    assert isinstance(t, MemRefType)
    layout = _static(t)
    if layout is not None:
        (strides, offset), shape = layout, t.get_shape()
        static_sizes, steps = [shape[a] for a in perm], [strides[a] for a in perm]
        view = MemRefType(t.element_type, static_sizes, StridedLayoutAttr(steps, offset))
        return memref.ReinterpretCastOp(source, [], [], [], [offset], static_sizes, steps, view).result
    if not isinstance(t.layout, NoneAttr):
        return None
    row_major = _row_major_strides(sizes)
    permuted_sizes, permuted_strides = [sizes[a] for a in perm], [row_major[a] for a in perm]

    def static(values: list[int | SSAValue]) -> list[int]:
        return [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]

    def dynamic(values: list[int | SSAValue]) -> list[SSAValue]:
        return [v for v in values if isinstance(v, SSAValue)]

    view = MemRefType(
        t.element_type,
        static(permuted_sizes),
        StridedLayoutAttr([None if isinstance(v, SSAValue) else v for v in permuted_strides], 0),
    )
    return memref.ReinterpretCastOp(
        source,
        [],
        dynamic(permuted_sizes),
        dynamic(permuted_strides),
        [0],
        static(permuted_sizes),
        static(permuted_strides),
        view,
    ).result


def _row_major_strides(sizes: Sequence[int | SSAValue]) -> list[int | SSAValue]:
    """The strides of a row-major buffer of ``sizes``: each the product of the sizes to its
    right, folded where they are known, an ``arith.muli`` where one is ``?``."""
    strides: list[int | SSAValue] = []
    running: int | SSAValue = 1
    for size in reversed(sizes):
        strides.append(running)
        if isinstance(running, int) and isinstance(size, int):
            running *= size
        elif running == 1:
            running = size
        else:
            running = arith.MuliOp(as_index(running), as_index(size)).result
    return list(reversed(strides))


def reshape_view(source: SSAValue, shape: Sequence[int | None]) -> SSAValue | None:
    """The elements of ``source`` in another static ``shape`` (``None`` for a ``?`` size), if ``source`` is contiguous
    from offset 0 (static shape, identity layout); else ``None``. The view is contiguous from
    offset 0 too."""
    t = to_memref(source.type)
    if not isinstance(t, MemRefType) or _static(t) is None or not isinstance(t.layout, NoneAttr):
        return None
    sizes = [d for d in shape if d is not None]
    if len(sizes) != len(shape):  # (``None``: a ``?`` size, which a static source never gives)
        return None
    view = MemRefType(t.element_type, sizes)
    static = _static(view)
    assert static is not None  # (a static shape, the identity layout)
    strides, _ = static
    return memref.ReinterpretCastOp(source, [], [], [], [0], sizes, strides, view).result
