"""Element-type rules of Mountain Goat, in one place (as ``shapes`` holds the shape rules):
what the compiler asks of element types, in xDSL's types. Every table here is derived from
the records of ``element_records``, one per element type.

Every tensor of a program has one element type, written last in its type as in MLIR
(``tensor[2x3xf32]``, ``tensor[i64]``; none written means ``f64``). ``NAMES`` are the types
the language writes; ``ARITHMETIC`` those whose arithmetic the mg dialect lowers: the float
ops (``arith.addf``, ``arith.maximumf``) for floats, the signed integer ops (``arith.addi``,
``arith.maxsi``, ``arith.divsi`` behind a zero check) for integers. ``mg.print`` calls the
runner library's printer of its element type (``PRINTERS``). The mg dialect's verifiers ask
``unsupported`` (through the trait ``LoweredElementTypes``) and reject anything else with
the rule, instead of a later pass failing an assertion, emitting invalid arithmetic or
crashing at run time. ``i1`` tensors (``STORED``) are compared, selected from, converted and
moved, never computed with; ``mg.print`` has no printer for them (the front end extends them
to ``i32``: ``printed_as``).
``bf16`` is stored, never computed with (``computed_in``): the lowerings compute each
operation in ``f32`` and round the result to ``bf16`` once, in integer operations
(``mg.ScalarComputation.compute``); the front end gives matrix products and reductions of
``bf16`` ``f32`` operands and converts the result (they accumulate in ``f32``:
``accumulates_in``; ``ACCUMULATING`` are the types that accumulate in themselves), and
prints ``bf16`` as ``f32``.

Numbers in the IR are built here too (``attr``): a float type's ``FloatAttr``, an integer
type's ``IntegerAttr`` (a float type's ``-inf`` is an integer type's minimum, for the
identity of ``max``).
"""

import math
from collections.abc import Iterable

from xdsl.dialects.builtin import AnyFloat, FixedBitwidthType, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute

from mg_xdsl.core.element_records import (
    DEFAULT as DEFAULT_RECORD,
    ELEMENT_TYPES,
    IN_LANGUAGE_ORDER,
    ElementType,
    bytes_for,
)

RECORD_OF: dict[Attribute, ElementType] = {e.ir: e for e in ELEMENT_TYPES}
# The element types of the language, by the name it writes them with, in the order it
# lists them (its default first).
NAMES: dict[str, Attribute] = {e.name: e.ir for e in IN_LANGUAGE_ORDER}
NAME_OF: dict[Attribute, str] = {t: name for name, t in NAMES.items()}
DEFAULT: Attribute = DEFAULT_RECORD.ir
F32, F64, BF16, I1 = NAMES["f32"], NAMES["f64"], NAMES["bf16"], NAMES["i1"]

# Every element type a tensor may hold: ``i1`` (the booleans that comparisons give and
# ``where`` takes) is stored, moved, compared and converted, but has no arithmetic.
STORED: tuple[Attribute, ...] = tuple(e.ir for e in ELEMENT_TYPES)
ARITHMETIC: tuple[Attribute, ...] = tuple(e.ir for e in ELEMENT_TYPES if e.has_arithmetic)
FLOATS: tuple[Attribute, ...] = tuple(e.ir for e in ELEMENT_TYPES if e.kind == "float")
INTEGERS: tuple[Attribute, ...] = tuple(e.ir for e in ELEMENT_TYPES if e.kind == "integer")
# What ids and indices into a tensor are (index, gather and their adds take them): any
# integer type.
INDICES: tuple[Attribute, ...] = INTEGERS
# What matrix products and reductions take: the types that accumulate in themselves (a
# bf16 one is written on f32, as its record says: its sums accumulate in f32, rounded once
# at the end).
ACCUMULATING: tuple[Attribute, ...] = tuple(e.ir for e in ELEMENT_TYPES if e.accumulates_in == e.name)
# ``mg.print``: the function of MLIR's runner library that prints each element type.
PRINTERS: dict[Attribute, str] = {e.ir: e.printer for e in ELEMENT_TYPES if e.printer is not None}
PRINTABLE: tuple[Attribute, ...] = tuple(PRINTERS)


def record(t: Attribute) -> ElementType:
    """The record of the element type of ``t`` (a scalar, vector, tensor or memref type)."""
    return RECORD_OF[element_of(t)]


def computed_in(element: Attribute) -> Attribute:
    """The type that operations on ``element`` values compute in: ``f32`` for ``bf16``, the
    type itself for every other (and for a type the language has no record of: ``index``)."""
    found = RECORD_OF.get(element)
    return element if found is None else NAMES[found.computed_in]


def accumulates_in(element: Attribute) -> Attribute:
    """The type that sums and products of ``element`` values accumulate in: ``f32`` for ``bf16``."""
    wide = RECORD_OF[element].accumulates_in
    assert wide is not None, f"{element} has no arithmetic (the checker refuses its sums)"
    return NAMES[wide]


def printed_as(element: Attribute) -> Attribute:
    """The type ``print`` prints ``element`` values as (one that has a printer): ``f32`` for
    ``bf16``, ``i32`` for ``i1``, the type itself for the others."""
    return NAMES[RECORD_OF[element].printed_as]


def one_of(types: Iterable[Attribute]) -> str:
    """The types as a message lists them: ``f32, f64 or bf16``."""
    names = [str(t) for t in types]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def element_of(t: Attribute) -> Attribute:
    """The element type of a scalar, vector, tensor or memref type (a scalar is its own)."""
    return getattr(t, "element_type", t)


def is_integer(t: Attribute) -> bool:
    """Whether ``t`` (or the elements of ``t``) is an integer type."""
    return isinstance(element_of(t), IntegerType)


def is_float(t: Attribute) -> bool:
    return isinstance(element_of(t), AnyFloat)


def is_bool(t: Attribute) -> bool:
    return element_of(t) == I1


def integer_range(t: Attribute) -> tuple[int, int]:
    """The smallest and largest value of the integer type ``t``: signed, but ``i1`` holds 0
    and 1 (false and true)."""
    element = element_of(t)
    assert isinstance(element, IntegerType), f"{element} is no integer type"
    width = element.width.data
    if width == 1:
        return 0, 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def byte_size(t: Attribute) -> int:
    """The bytes an element of type ``t`` takes in memory (``i1``: one byte, as LLVM stores it)."""
    element = element_of(t)
    assert isinstance(element, FixedBitwidthType), f"{element} has no fixed size"
    return bytes_for(element.bitwidth)


def attr(value: float, t: Attribute) -> FloatAttr | IntegerAttr:
    """``value`` as a number of type ``t``: a float type's ``FloatAttr``, or an integer type's
    ``IntegerAttr`` (``-inf`` and ``inf`` are the type's minimum and maximum)."""
    if isinstance(t, IntegerType):
        low, high = integer_range(t)
        number = low if value == -math.inf else high if value == math.inf else int(value)
        return IntegerAttr(number, t)
    assert isinstance(t, AnyFloat), f"{t} is no number type"
    return FloatAttr(value, t)


def unsupported(element_type: Attribute, lowered: tuple[Attribute, ...] = ARITHMETIC) -> str | None:
    """Why no lowering takes tensors of ``element_type``, or ``None`` if one does."""
    if element_type in lowered:
        return None
    return f"element type must be {one_of(lowered)}, got {element_type}"
