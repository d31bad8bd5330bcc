"""Element-type rules of Mountain Goat, in one place (as ``shapes`` holds the shape rules).

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
to ``i32``, as upstream's ``printMemrefI8`` would print raw bytes).
``bf16`` is stored, never computed with: the lowerings compute each operation in ``f32`` and
round the result to ``bf16`` once, in integer operations (``mg.ScalarComputation.compute``);
the front end gives matrix products and reductions of ``bf16`` ``f32`` operands and converts
the result (they accumulate in ``f32``: ``ACCUMULATING``), and prints ``bf16`` as ``f32``.

Numbers in the IR are built here too (``attr``): a float type's ``FloatAttr``, an integer
type's ``IntegerAttr`` (a float type's ``-inf`` is an integer type's minimum, for the
identity of ``max``).
"""

import math

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    FloatAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute

F32, F64, BF16, I1 = Float32Type(), Float64Type(), BFloat16Type(), i1

# The element types of the language, by the name it writes them with.
NAMES: dict[str, Attribute] = {"f64": F64, "f32": F32, "bf16": BF16, "i32": i32, "i64": i64, "i1": i1}
NAME_OF: dict[Attribute, str] = {t: name for name, t in NAMES.items()}
ARITHMETIC: tuple[Attribute, ...] = (F32, F64, BF16, i32, i64)
FLOATS: tuple[Attribute, ...] = (F32, F64, BF16)
# What matrix products and reductions take: a bf16 one is written on f32 (its sums
# accumulate in f32, rounded once at the end).
ACCUMULATING: tuple[Attribute, ...] = (F32, F64, i32, i64)
# Every element type a tensor may hold: ``i1`` (the booleans that comparisons give and
# ``where`` takes) is stored, moved, compared and converted, but has no arithmetic.
STORED: tuple[Attribute, ...] = (*ARITHMETIC, i1)
# What ids and indices into a tensor are (index, gather and their adds take them).
INDICES: tuple[Attribute, ...] = (i32, i64)
# ``mg.print``: the function of MLIR's runner library that prints each element type.
PRINTERS: dict[Attribute, str] = {F32: "printMemrefF32", F64: "printMemrefF64",
                                  i32: "printMemrefI32", i64: "printMemrefI64"}
PRINTABLE: tuple[Attribute, ...] = tuple(PRINTERS)


def element_of(t: Attribute) -> Attribute:
    """The element type of a scalar, vector, tensor or memref type (a scalar is its own)."""
    return getattr(t, "element_type", t)


def is_integer(t: Attribute) -> bool:
    """Whether ``t`` (or the elements of ``t``) is an integer type."""
    return isinstance(element_of(t), IntegerType)


def is_float(t: Attribute) -> bool:
    return isinstance(element_of(t), AnyFloat)


def is_bool(t: Attribute) -> bool:
    return element_of(t) == i1


def integer_range(t: Attribute) -> tuple[int, int]:
    """The smallest and largest value of the integer type ``t``: signed, but ``i1`` holds 0
    and 1 (false and true)."""
    width = element_of(t).width.data  # type: ignore[attr-defined]
    if width == 1:
        return 0, 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def byte_size(t: Attribute) -> int:
    """The bytes an element of type ``t`` takes in memory (``i1``: one byte, as LLVM stores it)."""
    element = element_of(t)
    bits = element.width.data if isinstance(element, IntegerType) else element.bitwidth  # type: ignore[attr-defined]
    return max(1, (bits + 7) // 8)


def attr(value: float, t: Attribute) -> FloatAttr | IntegerAttr:
    """``value`` as a number of type ``t``: a float type's ``FloatAttr``, or an integer type's
    ``IntegerAttr`` (``-inf`` and ``inf`` are the type's minimum and maximum)."""
    if isinstance(t, IntegerType):
        low, high = integer_range(t)
        number = low if value == -math.inf else high if value == math.inf else int(value)
        return IntegerAttr(number, t)
    return FloatAttr(value, t)  # type: ignore[arg-type]


def unsupported(element_type: Attribute, lowered: tuple[Attribute, ...] = ARITHMETIC) -> str | None:
    """Why no lowering takes tensors of ``element_type``, or ``None`` if one does."""
    if element_type in lowered:
        return None
    names = [str(t) for t in lowered]
    allowed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"element type must be {allowed}, got {element_type}"
