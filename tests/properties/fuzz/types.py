"""Tensor types with ``?`` dimensions, and the shape rules of the language as the checker
applies them (``mg_xdsl/core/shapes.py``, restated here so that a program the generator believes
valid is one the compiler must accept).

Two failures are told apart: ``Invalid`` (the checker rejects the program: the generator
must not produce it) and ``Unsafe`` (it compiles, but a run-time check could fail, because a
``?`` size is compared with a size it may differ from: the generator avoids it too, so that
every program runs to its end).
"""

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .values import INTS


class Invalid(Exception):
    """The checker rejects this: a compile error."""


class Unsafe(Exception):
    """This compiles, but a run-time check may fail."""


@dataclass(frozen=True)
class Sym:
    """A ``?`` dimension, and the size it has where the generator made it. At the top level
    a ``?`` comes from a call's result: ``size`` is what it is there (which the generator
    knows and the compiler does not). In a def (``varies``), each call may give it another
    size: ``name`` ties together the dimensions that every call gives one size, and
    ``size`` is the first call's. A concat along ``?`` sizes makes a ``?`` whose size is
    the sum of its ``parts``."""

    name: str
    size: int
    varies: bool = False
    parts: tuple = ()


Dim = int | Sym


def size_of(d: Dim) -> int:
    """A dimension's size (for a ``?`` of a def, at its first call)."""
    return d.size if isinstance(d, Sym) else d


def dim_text(d: Dim) -> str:
    return "?" if isinstance(d, Sym) else str(d)


@dataclass(frozen=True)
class TType:
    """A tensor type: a shape (static sizes and ``Sym``s) and an element type."""

    shape: tuple[Dim, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def text(self) -> str:
        """``tensor[2x?xf32]``; f64, the default, is left out."""
        parts = [dim_text(d) for d in self.shape] + ([] if self.dtype == "f64" else [self.dtype])
        return f"tensor[{'x'.join(parts)}]"

    def is_static(self) -> bool:
        return not any(isinstance(d, Sym) for d in self.shape)

    def sizes(self) -> tuple[int, ...]:
        """The sizes (a def's ``?``s at its first call)."""
        return tuple(size_of(d) for d in self.shape)

    def numel(self) -> int:
        return int(math.prod(self.sizes()))

    def with_shape(self, shape) -> "TType":
        return TType(tuple(shape), self.dtype)

    def with_dtype(self, dtype: str) -> "TType":
        return TType(self.shape, dtype)


NUMBER = TType((), "number")  # a compile-time number: it takes the type of the tensor it meets


def is_tensor(t: TType) -> bool:
    return t.dtype != "number"


def varies(d: Dim) -> bool:
    return isinstance(d, Sym) and d.varies


_pinned: list[set[str]] = []


@contextmanager
def pins() -> Iterator[set[str]]:
    """Collect the ``?``s of a def that a run-time check compares with another size while
    a body is typed: every call must give them their first call's size."""
    found: set[str] = set()
    _pinned.append(found)
    try:
        yield found
    finally:
        _pinned.pop()


def check_same_size(a: Dim, b: Dim) -> None:
    """A run-time check that two sizes agree (at least one is a ``?``): safe if they are
    one ``?`` of a def, or equal where the generator makes them (a def's ``?`` is then
    pinned to its first call's size)."""
    if a == b:
        return
    if size_of(a) != size_of(b):
        raise Unsafe(f"sizes {a} and {b} differ at run time")
    for d in (a, b):
        if varies(d) and _pinned:
            _pinned[-1].add(d.name)  # type: ignore[union-attr]


def broadcast(left: tuple[Dim, ...], right: tuple[Dim, ...]) -> tuple[Dim, ...]:
    """The shape of an elementwise operation (``shapes.broadcast_shapes``): aligned on the
    right, the lower rank grows along the axes it lacks; a static 1 grows to a static size;
    a ``?`` is never broadcast (it must equal the other size, a 1 included, at run time)."""
    n = min(len(left), len(right))
    out = list(left[: len(left) - n] or right[: len(right) - n])
    for a, b in zip(left[len(left) - n :], right[len(right) - n :]):
        if isinstance(a, Sym) or isinstance(b, Sym) or a == b:
            if a != b:
                check_same_size(a, b)
            out.append(b if isinstance(a, Sym) else a)
        elif a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        else:
            raise Invalid(f"cannot broadcast {a} and {b}")
    return tuple(out)


def combine(left: TType, right: TType, numbers_ok: bool = True) -> TType:
    """The type of ``left op right`` for an elementwise operator: one element type (a
    number takes the tensor's), shapes broadcast; two numbers fold into a number."""
    if not is_tensor(left) and not is_tensor(right):
        return NUMBER
    if not is_tensor(left) or not is_tensor(right):
        if not numbers_ok:
            raise Invalid("a number where a tensor is needed")
        return right if not is_tensor(left) else left
    if left.dtype != right.dtype:
        raise Invalid("element types differ")
    return TType(broadcast(left.shape, right.shape), left.dtype)


def matmul(left: TType, right: TType) -> TType:
    """``@`` (``shapes.batched_matmul_shape``): the last two axes multiply, the inner
    sizes agree; the leading (batch) axes broadcast."""
    if not is_tensor(left) or not is_tensor(right) or left.rank < 2 or right.rank < 2:
        raise Invalid("@ needs two matrices")
    if left.dtype != right.dtype or left.dtype == "i1":
        raise Invalid("@ of these element types")
    batch = broadcast(left.shape[:-2], right.shape[:-2])
    inner_l, inner_r = left.shape[-1], right.shape[-2]
    if isinstance(inner_l, Sym) or isinstance(inner_r, Sym):
        check_same_size(inner_l, inner_r)
    elif inner_l != inner_r:
        raise Invalid("inner dimensions differ")
    return TType((*batch, left.shape[-2], right.shape[-1]), left.dtype)


def reduce(t: TType, axes: list[int], keepdims: bool) -> TType:
    return t.with_shape(
        tuple(1 if d in axes else s for d, s in enumerate(t.shape))
        if keepdims
        else tuple(s for d, s in enumerate(t.shape) if d not in axes)
    )


def slice_(t: TType, axis: int, start: int, stop: int) -> TType:
    """``slice``: a static size is checked when compiling, a ``?`` one when it runs."""
    size = t.shape[axis]
    if not 0 <= start < stop:
        raise Invalid("slice bounds")
    if stop > size_of(size):
        raise Unsafe("a slice beyond a '?' size") if isinstance(size, Sym) else Invalid("slice bounds")
    return t.with_shape(tuple(stop - start if d == axis else s for d, s in enumerate(t.shape)))


def element(t: TType, indices: list[int]) -> TType:
    """``x[i, j]``: every axis indexed; a ``?`` axis checked when the program runs."""
    for i, d in zip(indices, t.shape):
        if not -size_of(d) <= i < size_of(d):
            raise Unsafe("an index beyond a '?' size") if isinstance(d, Sym) else Invalid("index out of range")
    return TType((), t.dtype)


def concat(items: list[TType], axis: int) -> TType:
    """``concat``: one rank and element type; the sizes off ``axis`` agree (a ``?`` checked
    when the program runs); along it, a ``?`` if any item has one."""
    first = items[0]
    shape = list(first.shape)
    for t in items[1:]:
        if t.rank != first.rank or t.dtype != first.dtype:
            raise Invalid("concat of different ranks or types")
        for d, (x, y) in enumerate(zip(shape, t.shape)):
            if d == axis:
                continue
            if isinstance(x, Sym) or isinstance(y, Sym):
                check_same_size(x, y)
                if isinstance(x, Sym):
                    shape[d] = y
            elif x != y:
                raise Invalid("concat sizes differ")
    along = [t.shape[axis] for t in items]
    if any(isinstance(d, Sym) for d in along):
        shape[axis] = Sym(
            "+".join(dim_text(d) if not isinstance(d, Sym) else d.name for d in along),
            sum(size_of(d) for d in along),
            any(varies(d) for d in along),
            tuple(along),
        )
    else:
        shape[axis] = sum(along)  # type: ignore[arg-type]
    return first.with_shape(shape)


def ids_ok(ids: TType) -> None:
    if ids.dtype not in INTS:
        raise Invalid("ids must be i32 or i64")


def along_axis(x: TType, idx: TType, axis: int) -> None:
    """``gather``/``scatter_add``: ``idx`` has ``x``'s rank and, off the axis, its sizes."""
    ids_ok(idx)
    if idx.rank != x.rank:
        raise Invalid("indices of another rank")
    for d, (a, b) in enumerate(zip(x.shape, idx.shape)):
        if d == axis:
            continue
        if isinstance(a, Sym) or isinstance(b, Sym):
            check_same_size(a, b)
        elif a != b:
            raise Invalid("indices of other sizes")


def check_equal_shapes(a: tuple[Dim, ...], b: tuple[Dim, ...]) -> None:
    """Shapes compatible when compiling (``?`` matches anything) and equal when running."""
    if len(a) != len(b):
        raise Invalid("ranks differ")
    for x, y in zip(a, b):
        if isinstance(x, Sym) or isinstance(y, Sym):
            check_same_size(x, y)
        elif x != y:
            raise Invalid("sizes differ")
