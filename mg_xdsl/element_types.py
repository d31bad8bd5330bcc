"""Element-type rules of Mountain Goat, in one place (as ``shapes`` holds the shape rules).

Every tensor of a program has one element type. The language writes only ``f64`` tensors
today, but the mg dialect is wider: its lowerings build their arithmetic and constants from
the element type (``arith.addf``, ``arith.maximumf``), and ``f32`` programs of every op run
correctly through both CPU pipelines (``tests/test_element_types.py``, against NumPy).
Nothing else is accepted yet. ``f16`` goes through the pipelines, but the optimised
matrix product's kernel crashes on it, and the LLVM IR printer has no ``bf16``. Integers do
not lower at all: ``arith.addf`` on ``i32`` is invalid, and ``relu`` has no integer form
yet. ``mg.print`` calls the runner library's printer of its element type (``PRINTERS``). The mg dialect's
verifiers ask ``unsupported`` (through the trait ``LoweredElementTypes``) and reject
anything else with the rule, instead of a later pass failing an assertion, emitting invalid
arithmetic or crashing at run time. The issue that adds element types to the language grows
these tuples together with the lowering of each.
"""


from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Attribute

ARITHMETIC: tuple[Attribute, ...] = (Float32Type(), Float64Type())
# ``mg.print``: the function of MLIR's runner library that prints each element type (the
# run time also has ``printMemrefI32`` and ``printMemrefI64`` for the integer types).
PRINTERS: dict[Attribute, str] = {Float32Type(): "printMemrefF32", Float64Type(): "printMemrefF64"}
PRINTABLE: tuple[Attribute, ...] = tuple(PRINTERS)


def unsupported(element_type: Attribute, lowered: tuple[Attribute, ...] = ARITHMETIC) -> str | None:
    """Why no lowering takes tensors of ``element_type``, or ``None`` if one does."""
    if element_type in lowered:
        return None
    names = [str(t) for t in lowered]
    allowed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"element type must be {allowed}, got {element_type}"
