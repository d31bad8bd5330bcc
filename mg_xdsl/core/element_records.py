"""One record per element type: every fact about it that a layer of the compiler needs.

A tensor's element type is written last in its type (``tensor[2x3xf32]``; ``f64`` where
none is written). Each type has one ``ElementType`` record below, and every table of the
compiler is derived from the records: the front end's names, the mg dialect's verifiers and
lowerings (``element_types``, which adds the xDSL side: IR types, constants, the rules the
verifiers state), the printers of the run-time library (``backend/runtime.py``, mirrored in
C by ``backend/runtime.c``), the NumPy dtypes of the Python API and the C++ types of
``mgc lib``'s headers.

This module imports nothing but the standard library at start-up: the run-time library
reads the records on a run from the compile cache, which never imports xDSL. Each record
makes its xDSL type (``ir``) on first use.
"""

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (see ElementType.ir)
    from xdsl.ir import Attribute


def bytes_for(bits: int) -> int:
    """The bytes a value of ``bits`` bits takes in memory: whole bytes, at least one (an
    ``i1`` takes a byte, as LLVM stores it)."""
    return max(1, (bits + 7) // 8)


@dataclass(frozen=True)
class ElementType:
    """An element type of the language: its facts, one field each.

    To add an element type, add its record to ``ELEMENT_TYPES``: the front end then parses
    and checks it, the verifiers accept it where its kind is accepted, the API converts
    NumPy arrays of its dtype and ``mgc lib`` declares its C++ type. What a record cannot
    say is how the generated code computes with it; that is code, to write next to the
    existing types' code:

    - its arithmetic: ``mg.BINARY_ARITH`` and ``mg.COMPARISONS`` pick the arith ops by kind
      (float or integer); a new kind (unsigned integers, say) needs its own ops there, in
      ``mg.convert_element`` (casts) and in ``element_types.attr`` (its constants);
    - a type computed in another (``computed_in``, as ``bf16`` is in ``f32``) needs the
      conversion there and back, as ``mg.widened`` and ``mg.narrowed`` do for ``bf16``;
    - LLVM's spelling of it and of its constants (``backend/llvm_ir.py``), if it is not an
      ``iN``, ``f32`` or ``f64``, and its C++ type, if it is none of C++'s (``mg::bf16`` is
      defined in ``backend/cpp_header.py``'s prelude);
    - a printer of its own (``printer``) in ``backend/runtime.c``; the Python twin,
      ``backend/runtime.py``, reads it with the record's ``ctype``.
    """

    name: str
    """As the language writes it, which is also how MLIR writes the type: ``bf16``."""
    kind: str
    """``float``, ``integer`` or ``boolean`` (``i1``: compared, selected from, converted and
    moved, never computed with)."""
    bits: int
    computed_in: str
    """The type each operation on it computes in, rounding the result once: ``f32`` for
    ``bf16`` (stored in 16 bits, computed in 32), the type itself for the others."""
    accumulates_in: str | None
    """The type its sums and products (matrix products, reductions) accumulate in, rounded
    once at the end: ``f32`` for ``bf16``; ``None`` for a type that has no arithmetic."""
    printed_as: str
    """The type ``print`` prints it as: itself where the runner library has a printer of it
    (``printer``), else the type the front end converts it to first (``bf16`` as ``f32``;
    ``i1`` as ``i32``, as 0 and 1, where ``printMemrefI8`` would print raw bytes)."""
    printer: str | None
    """The function of MLIR's runner library that prints a memref of it (``printMemrefF64``),
    or ``None`` if it is printed as another type."""
    numpy: str
    """NumPy's name of its dtype (``bfloat16`` once ``ml_dtypes`` is imported)."""
    ctype: str
    """The ``ctypes`` type that reads one element from memory (a ``bf16`` as its bits)."""
    cpp: str
    """Its C++ type in ``mgc lib``'s headers (inside ``namespace mg``)."""

    @property
    def byte_size(self) -> int:
        return bytes_for(self.bits)

    @property
    def has_arithmetic(self) -> bool:
        return self.kind != "boolean"

    @cached_property
    def ir(self) -> "Attribute":
        """Its xDSL type. MLIR writes the type as the language does, so xDSL's parser makes
        it from ``name``."""
        # xDSL imported only here: a run from the compile cache reads the records, never xDSL.
        from xdsl.context import Context
        from xdsl.parser import Parser

        return Parser(Context(), self.name).parse_type()


# In the order the mg dialect's messages list them ("element type must be f32, f64, bf16,
# i32 or i64, got i16").
ELEMENT_TYPES: tuple[ElementType, ...] = (
    ElementType(
        "f32",
        "float",
        32,
        computed_in="f32",
        accumulates_in="f32",
        printed_as="f32",
        printer="printMemrefF32",
        numpy="float32",
        ctype="c_float",
        cpp="float",
    ),
    ElementType(
        "f64",
        "float",
        64,
        computed_in="f64",
        accumulates_in="f64",
        printed_as="f64",
        printer="printMemrefF64",
        numpy="float64",
        ctype="c_double",
        cpp="double",
    ),
    ElementType(
        "bf16",
        "float",
        16,
        computed_in="f32",
        accumulates_in="f32",
        printed_as="f32",
        printer=None,
        numpy="bfloat16",
        ctype="c_uint16",
        cpp="bf16",
    ),
    ElementType(
        "i32",
        "integer",
        32,
        computed_in="i32",
        accumulates_in="i32",
        printed_as="i32",
        printer="printMemrefI32",
        numpy="int32",
        ctype="c_int32",
        cpp="int32_t",
    ),
    ElementType(
        "i64",
        "integer",
        64,
        computed_in="i64",
        accumulates_in="i64",
        printed_as="i64",
        printer="printMemrefI64",
        numpy="int64",
        ctype="c_int64",
        cpp="int64_t",
    ),
    ElementType(
        "i1",
        "boolean",
        1,
        computed_in="i1",
        accumulates_in=None,
        printed_as="i32",
        printer=None,
        numpy="bool",
        ctype="c_uint8",
        cpp="uint8_t",
    ),
)
BY_NAME: dict[str, ElementType] = {e.name: e for e in ELEMENT_TYPES}

DEFAULT = BY_NAME["f64"]
"""The element type of a tensor type that writes none (``tensor[2x3]``)."""
# As the language lists them (its messages, ``mgc explain``): the default first.
IN_LANGUAGE_ORDER: tuple[ElementType, ...] = (DEFAULT, *(e for e in ELEMENT_TYPES if e is not DEFAULT))
