"""Shape rules of Mountain Goat, in one place.

The front end uses these to type a program and to phrase its errors; the mg dialect's
verifiers use the same functions to check the IR. A shape is a tuple of dimensions, each a
non-negative int or ``None`` for a dimension written ``?`` (known only at run time). The
rules are written for any rank: the example programs are rank 2, but nothing here depends on it.

Each rule either returns the result shape or raises ``ShapeError`` with a message that says
which rule was broken, phrased for a user of the language.
"""

import math
from collections.abc import Sequence

Dim = int | None
Shape = tuple[Dim, ...]

# Limits on static sizes. Every element is an f64 (8 bytes); the generated code computes
# sizes, offsets and byte counts in signed 64-bit integers (MLIR's `index` on a 64-bit
# target), so a tensor whose byte size does not fit in one could only be compiled into code
# that overflows. One dimension is further capped at 2^40, far beyond any real matrix.
MAX_DIMENSION = 2**40
ELEMENT_BYTES = 8
MAX_BYTES = 2**63 - 1


class ShapeError(Exception):
    """A shape rule was broken; the message is the user-facing explanation."""


def fmt_dim(d: Dim) -> str:
    return "?" if d is None else str(d)


def fmt_shape(shape: Sequence[Dim]) -> str:
    """``(2, None)`` -> ``"2x?"``, the way the language writes shapes."""
    return "x".join(fmt_dim(d) for d in shape)


def check_dimension(d: int) -> None:
    """A static dimension is at most ``MAX_DIMENSION``. (The language also requires it to
    be positive; the IR allows 0, so that rule is the front end's.)"""
    if d > MAX_DIMENSION:
        raise ShapeError(f"dimension {d} is too large: at most 2^40 = {MAX_DIMENSION}")


def check_size(shape: Sequence[Dim]) -> None:
    """A tensor of ``shape`` must be addressable: its static dimensions are each at most
    ``MAX_DIMENSION``, and their product times 8 bytes fits in a signed 64-bit integer.

    A ``?`` dimension counts as 1 here (it is at least 1 at run time, and an allocation
    too large for the machine is reported when the program runs).
    """
    for d in shape:
        if d is not None:
            check_dimension(d)
    elements = math.prod(d for d in shape if d is not None)
    if elements * ELEMENT_BYTES > MAX_BYTES:
        raise ShapeError(
            f"tensor[{fmt_shape(shape)}] is too large: {elements:.3g} elements of "
            f"{ELEMENT_BYTES} bytes do not fit in 64-bit memory addresses "
            f"(at most 2^63 - 1 bytes)"
        )


def dims_compatible(a: Dim, b: Dim) -> bool:
    """Two dimensions can describe the same value: equal, or either unknown until run time."""
    return a is None or b is None or a == b


def shapes_compatible(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    return len(a) == len(b) and all(dims_compatible(x, y) for x, y in zip(a, b))


def broadcast_shapes(lhs: Sequence[Dim], rhs: Sequence[Dim], verb: str = "combine") -> Shape:
    """The shape of an elementwise ``lhs op rhs``.

    Shapes are aligned on the right; the dimensions of the higher rank in front of the other
    stay as they are (NumPy pads the lower rank with 1s, which grow to any size, ``?``
    included). Per dimension both have: equal sizes stay; a *static* 1 grows to the
    other size; a ``?`` is never broadcast, so against a static size (a written 1 too) it
    takes that size (checked at run time) and against another ``?`` it stays ``?``. Anything
    else cannot be combined.
    """
    rank = max(len(lhs), len(rhs))
    out: list[Dim] = list(lhs[: rank - len(rhs)] or rhs[: rank - len(lhs)])  # (added in front of the other)
    for a, b in zip(lhs[len(lhs) - min(len(lhs), len(rhs)) :], rhs[len(rhs) - min(len(lhs), len(rhs)) :]):
        if a is None or b is None or a == b:
            out.append(b if a is None else a)
        elif a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        else:
            raise ShapeError(
                f"cannot {verb} shapes {fmt_shape(lhs)} and {fmt_shape(rhs)}: "
                f"dimensions {a} and {b} differ and neither is 1"
            )
    return tuple(out)


def never_broadcast(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> bool:
    """Whether an elementwise ``lhs op rhs`` pairs a ``?`` dimension with a static 1.

    The program compiles, but the ``?`` is not broadcast (NumPy would broadcast a size-1
    array against it): the two sizes are checked to be equal at run time, so the program
    aborts unless the ``?`` turns out to be 1. The front end warns about it.
    """
    # (Only the dimensions both have: a dimension added in front of the lower rank grows to a
    # '?' as NumPy's does, its size read when the program runs.)
    return any((a is None and b == 1) or (a == 1 and b is None) for a, b in zip(lhs[::-1], rhs[::-1]))


def needs_broadcast(shape: Sequence[Dim], target: Sequence[Dim]) -> bool:
    """Whether an operand of ``shape`` must be repeated to fill ``target``.

    Dimensions that are equal, or where either side is ``?``, need no repetition (a ``?`` is
    checked at run time instead).
    """
    return len(shape) != len(target) or not shapes_compatible(shape, target)


def broadcast_blocker(shape: Sequence[Dim], target: Sequence[Dim], grows_to_unknown: bool = False) -> int | None:
    """The rule of ``mg.broadcast``: the first dimension of ``target`` (after right-aligning
    ``shape``) that ``shape`` can neither keep (the same static size, or ``?`` for ``?``) nor
    grow to from a static 1 (to a static size; to a ``?`` only if ``grows_to_unknown``: an
    operator never grows a static 1 to a ``?``, ``broadcast_to(m, shape(x))`` does);
    ``None`` if ``shape`` broadcasts to ``target``. The dimensions added in front may be
    anything, ``?`` included."""
    if len(shape) > len(target):
        return 0
    lead = len(target) - len(shape)
    for d, (a, t) in enumerate(zip(shape, target[lead:]), start=lead):
        if a != t and (a != 1 or t is None and not grows_to_unknown):
            return d
    return None


def repeated_dims(shape: Sequence[Dim], target: Sequence[Dim]) -> tuple[bool, ...]:
    """For each dimension of ``shape`` (right-aligned against ``target``), whether it is a
    static 1 that grows, i.e. whether a broadcast reads it at index 0 for every index."""
    lead = len(target) - len(shape)
    return tuple(a == 1 and target[lead + d] != 1 for d, a in enumerate(shape))


def unit_dims_map(shape: Sequence[Dim], target: Sequence[Dim]) -> list[int | None]:
    """How ``target`` holds the elements of ``shape`` when only dimensions of size 1 differ
    (``mg.reshape``): for each dimension of ``shape``, the dimension of ``target`` with its
    index, or ``None`` for a static 1 that ``target`` drops."""
    mapping: list[int | None] = []
    t = 0
    for d in shape:
        while t < len(target) and target[t] == 1 and d != 1:
            t += 1  # a 1 that target adds
        if t < len(target) and target[t] == d:
            mapping.append(t)
            t += 1
        elif d == 1:
            mapping.append(None)
        else:
            raise ShapeError(
                f"cannot reshape {fmt_shape(shape)} to {fmt_shape(target)}: only dimensions of "
                "size 1 may be dropped or added"
            )
    if any(size != 1 for size in target[t:]):
        raise ShapeError(
            f"cannot reshape {fmt_shape(shape)} to {fmt_shape(target)}: only dimensions of "
            "size 1 may be dropped or added"
        )
    return mapping


def reduce_shape(shape: Sequence[Dim], axis: int) -> Shape:
    """The shape of a reduction along ``axis``: that axis collapses to size 1."""
    check_axis(len(shape), axis)
    return tuple(1 if d == axis else s for d, s in enumerate(shape))


def check_axis(rank: int, axis: int) -> None:
    if not 0 <= axis < rank:
        allowed = " or ".join(str(a) for a in range(rank)) if rank <= 2 else f"in [0, {rank})"
        raise ShapeError(f"axis must be {allowed}, got {axis}")


def matmul_shape(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> Shape:
    """``(..., M x K) @ (..., K x N) -> (..., M x N)``, the rule of ``mg.matmul``: the inner
    sizes agree (or are ``?``), and so do the leading (batch) axes, of which both have the
    same number (the front end has broadcast them: ``batched_matmul_shape``)."""
    if len(lhs) < 2 or len(rhs) < 2:
        raise ShapeError(
            f"cannot matrix-multiply shapes {fmt_shape(lhs)} and {fmt_shape(rhs)}: "
            "@ needs two matrices (or stacks of them: rank 2 or more)"
        )
    if not dims_compatible(lhs[-1], rhs[-2]):
        raise ShapeError(
            f"cannot matrix-multiply shapes {fmt_shape(lhs)} and {fmt_shape(rhs)}: "
            f"inner dimensions {lhs[-1]} and {rhs[-2]} differ"
        )
    batch = lhs[:-2]
    if len(lhs) != len(rhs) or not shapes_compatible(batch, rhs[:-2]):
        raise ShapeError(
            f"cannot matrix-multiply shapes {fmt_shape(lhs)} and {fmt_shape(rhs)}: "
            "the batch (leading) dimensions differ"
        )
    merged = tuple(b if a is None else a for a, b in zip(batch, rhs[:-2]))
    return (*merged, lhs[-2], rhs[-1])


def batched_matmul_shape(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> Shape:
    """``@`` as the language has it: the last two axes multiply (``matmul_shape``), the
    leading (batch) axes broadcast as an elementwise operator's do."""
    if len(lhs) < 2 or len(rhs) < 2:
        return matmul_shape(lhs, rhs)  # (which says what is wrong)
    batch = broadcast_shapes(lhs[:-2], rhs[:-2], "matrix-multiply")
    return matmul_shape((*batch, *lhs[-2:]), (*batch, *rhs[-2:]))


def as_matrices(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> tuple[Shape, Shape]:
    """The operands of ``@`` as matrices, NumPy's ``matmul`` rule for a vector (rank 1): a
    row (``1xN``) on the left, a column (``Nx1``) on the right."""
    return ((1, *lhs) if len(lhs) == 1 else tuple(lhs)), ((*rhs, 1) if len(rhs) == 1 else tuple(rhs))


def vector_product_shape(product: Sequence[Dim], lhs: Sequence[Dim], rhs: Sequence[Dim]) -> Shape:
    """The shape of ``lhs @ rhs`` from that of the product of ``as_matrices``: the axis a
    vector operand gained, dropped again (two vectors give rank 0)."""
    shape = list(product)
    if len(rhs) == 1:
        del shape[-1]
    if len(lhs) == 1:
        del shape[-2 if len(rhs) != 1 else -1]
    return tuple(shape)


def transpose_shape(shape: Sequence[Dim], permutation: Sequence[int] | None = None) -> Shape:
    """The shape with its axes permuted (NumPy's ``transpose(x, axes)``: the result's axis
    ``i`` is the input's axis ``permutation[i]``); without one, reversed (for a matrix, rows
    and columns swap)."""
    if permutation is None:
        return tuple(reversed(tuple(shape)))
    return tuple(shape[p] for p in permutation)


def element_count(shape: Sequence[Dim]) -> int:
    """The number of elements of a static shape."""
    sizes = [d for d in shape if d is not None]
    assert len(sizes) == len(shape), f"{fmt_shape(shape)} is not static"
    return math.prod(sizes)


def reshape_shape(shape: Sequence[Dim], written: Sequence[int], what: str | None = None) -> Shape:
    """The shape ``written`` for a tensor of ``shape`` (static), a ``-1`` (at most one) the
    size that keeps the element count; ``[]`` is rank 0, for a tensor of one element. ``what``
    names the tensor in the messages (by default its shape)."""
    what = what or fmt_shape(shape)
    if None in shape:
        raise ShapeError(f"cannot reshape {what}: its sizes must be static ('?' is not)")
    count = element_count(shape)
    if list(written).count(-1) > 1 or any(d < -1 or d == 0 for d in written):
        raise ShapeError(f"a shape for reshape is positive sizes and at most one -1, got {list(written)}")
    known = math.prod(d for d in written if d != -1)
    if -1 in written and count % known:
        raise ShapeError(
            f"cannot reshape {what} ({elements(count)}) to {list(written)}: {count} is not a multiple of {known}"
        )
    target = [count // known if d == -1 else d for d in written]
    if math.prod(target) != count:
        raise ShapeError(
            f"cannot reshape {what} ({elements(count)}) to {list(written)} ({elements(math.prod(target))})"
        )
    return tuple(target)


def elements(count: int) -> str:
    return f"{count} element" + ("" if count == 1 else "s")


def slice_shape(shape: Sequence[Dim], axis: int, start: int, stop: int) -> Shape:
    """The shape of ``x[..., start:stop, ...]`` along ``axis``: ``0 <= start < stop <= size``
    (a ``?`` size is checked when the program runs)."""
    size = shape[axis]
    if not 0 <= start < stop or (size is not None and stop > size):
        raise ShapeError(
            f"a slice of axis {axis} needs 0 <= start < stop <= {fmt_dim(size)}, got start {start} and stop {stop}"
        )
    return tuple(stop - start if d == axis else s for d, s in enumerate(shape))


def index_shape(table: Sequence[Dim], ids: Sequence[Dim]) -> Shape:
    """The shape of ``index(table, ids)``, the rows of ``table`` that ``ids`` name: ``ids``'
    shape, then each row's (``table``'s after its first axis), as NumPy's ``table[ids]``."""
    if not table:
        raise ShapeError("a table of rows must have rank 1 or more, got a rank-0 tensor")
    return (*ids, *table[1:])


def along_axis_shape(x: Sequence[Dim], idx: Sequence[Dim], axis: int, verb: str) -> Shape:
    """The shape of ``gather(x, idx, axis)`` (NumPy's ``take_along_axis``) and of what
    ``scatter_add`` adds: ``idx``'s. ``idx`` has ``x``'s rank and, off ``axis``, its sizes
    (NumPy would broadcast them; here a ``?`` is checked when the program runs)."""
    check_axis(len(x), axis)
    if len(idx) != len(x) or not shapes_compatible((*x[:axis], *x[axis + 1 :]), (*idx[:axis], *idx[axis + 1 :])):
        raise ShapeError(
            f"cannot {verb} along axis {axis} of {fmt_shape(x)} with indices {fmt_shape(idx)}: "
            f"the indices must have rank {len(x)} and the sizes of {fmt_shape(x)} off the axis"
        )
    return tuple(idx)
