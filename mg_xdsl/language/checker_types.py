"""What the checker gives an expression, and how its messages write it.

A type is a ``TensorType`` (a tensor of any rank: a shape and an element type) or a
compile-time number, which the checker folds: ``2 * 3`` is the number 6.0, and a matrix
with a number is an ``mg.scalar`` later, of the matrix's element type. Tensors of two
element types never combine (``cast`` converts one); a number combines with a tensor of any
element type if it is a number of that type (``2`` with an ``i32`` tensor, not ``2.5``).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeGuard

from mg_xdsl.core import element_types
from mg_xdsl.core.shapes import Shape, fmt_shape
from mg_xdsl.language.syntax_tree import TensorType

Type = TensorType | int | float  # a number: a compile-time number, its value (an int while exact)


def is_number(t: object) -> TypeGuard[int | float]:
    """Whether the type ``t`` is a compile-time number (its value). (Where it is not, the
    type checker learns nothing: ``isinstance(t, TensorType)`` says that ``t`` is a tensor.)"""
    return isinstance(t, (int, float))


def is_whole(value: int | float) -> bool:
    return isinstance(value, int) or value.is_integer()


def number_text(value: int | float) -> str:
    """A compile-time number as the messages write it: an integer exactly, else ``%g``."""
    return str(value) if isinstance(value, int) else f"{value:g}"


@dataclass
class Signature:
    """A def's parameters (names and types) and its results' types, as the Python API and
    the C++ header present them. ``results`` lists every result's type in order (a def that
    returns ``a, b`` has two); left out, it is ``[result_type]``. ``result_type`` is the first
    result's (the only one's, for a def of one result)."""

    names: list[str]
    types: list[TensorType]
    result_type: TensorType
    results: list[TensorType] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.results:
            self.results = [self.result_type]

    @property
    def params(self) -> list[tuple[str, Shape]]:
        return [(name, t.shape) for name, t in zip(self.names, self.types)]

    @property
    def result(self) -> Shape:
        return self.result_type.shape


def type_text(t: TensorType) -> str:
    """The type as the language writes it: ``tensor[2x3]``, ``tensor[3xi32]``, ``tensor[i64]``."""
    parts = [fmt_shape(t.shape)] if t.shape else []
    if t.element != element_types.DEFAULT:
        parts.append(element_types.NAME_OF[t.element])
    return f"tensor[{'x'.join(parts)}]"


def describe(t: Type) -> str:
    if not isinstance(t, TensorType):
        return f"the number {number_text(t)}"
    if len(t.shape) == 2 and t.element == element_types.F64:
        return f"a {fmt_shape(t.shape)} matrix"
    return f"a {type_text(t)}"


def elements_differ(t: Type, other: Type) -> bool:
    return isinstance(t, TensorType) and isinstance(other, TensorType) and t.element != other.element


def describe_beside(t: Type, other: Type) -> str:
    """``describe(t)`` in a message that sets ``t`` beside ``other``: where both are tensors of
    different element types, ``t``'s type with its element type written even if it is the
    default ``f64`` (``a tensor[3xf64]`` beside ``a tensor[3xf32]``, not ``a tensor[3]``), so
    that the difference shows."""
    return f"a {typed_text(t)}" if elements_differ(t, other) else describe(t)


def typed_text(t: Type) -> str:
    """A type as a note names it, element type always written: ``tensor[2x16xf64]``."""
    if not isinstance(t, TensorType):
        return f"the number {number_text(t)}"
    element = element_types.NAME_OF[t.element]
    return f"tensor[{fmt_shape(t.shape)}x{element}]" if t.shape else f"tensor[{element}]"


def fold_call(function: Callable[..., int | float], *numbers: int | float) -> int | float:
    """``function`` of compile-time numbers, with NumPy's results where Python raises: NaN
    outside the function's domain, infinity where it overflows (``abs`` of an integer is one)."""
    try:
        result = function(*numbers)
        return result if isinstance(result, int) else float(result)
    except (ValueError, ZeroDivisionError):
        return math.nan
    except OverflowError:
        return math.inf


def number_of_type(value: int | float, t: TensorType) -> str | None:
    """Why the compile-time number ``value`` is not a number of ``t``'s element type (None if
    it is): an integer type takes integers within its range."""
    if not element_types.is_integer(t.element):
        return None
    name = element_types.NAME_OF[t.element]
    if not is_whole(value):
        return f"the number {number_text(value)} is not an integer, and {describe(t)} holds {name} integers"
    low, high = element_types.integer_range(t.element)
    if not low <= value <= high:
        return f"the number {number_text(value)} is out of the range of {name} ({low} to {high})"
    return None


def fold(op: str, a: int | float, b: int | float) -> int | float:
    """Arithmetic on two compile-time numbers: ``+ - *`` of integers exactly (up to 2^64, the
    integer types' range and more: ``2^53 + 1`` stays itself for an ``i64``), everything else
    in ``f64`` (``7 / 2`` is 3.5), with IEEE results for division by zero; ``%`` and ``//``
    as Python computes them (NumPy's remainder and floor_divide; ``7 // 2`` is 3)."""
    if isinstance(a, int) and isinstance(b, int) and op in "+-*":
        exact = a + b if op == "+" else a - b if op == "-" else a * b
        if exact and abs(exact) < 2**64:
            return exact
        a, b = float(a), float(b)  # (f64's zero has a sign: 0 * -5 is -0)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("%", "//"):  # (Python's rules are NumPy's remainder and floor_divide)
        if b == 0:
            return (
                math.nan if op == "%" or a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
            )
        if isinstance(a, int) and isinstance(b, int):
            return a % b if op == "%" else a // b
        return float(a) % float(b) if op == "%" else float(a) // float(b)
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b
