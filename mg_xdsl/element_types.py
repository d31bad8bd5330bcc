"""Element-type rules of Mountain Goat, in one place (as ``shapes`` holds the shape rules).

Every tensor of a program has one element type. The language writes only ``f64`` tensors
today, but the mg dialect is wider: its lowerings build their arithmetic from the element type
(``arith.addf``, ``arith.maximumf``, constants of that type) and the LLVM conversion knows
every IEEE float LLVM has, so ``f16``, ``bf16``, ``f32`` and ``f64`` tensors lower. Integers
do not (``arith.addf`` on ``i32`` is invalid, and ``relu`` has no integer form yet), and
``mg.print`` calls ``printMemrefF64``, so it prints ``f64`` only. The mg dialect's verifiers
ask ``unsupported`` (through the trait ``LoweredElementTypes``) and reject anything else with
the rule, instead of a later pass failing an assertion or emitting invalid arithmetic. The
issue that adds integer and other element types to the language grows these tuples together
with the lowering of each.
"""

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type
from xdsl.ir import Attribute

ARITHMETIC: tuple[Attribute, ...] = (Float16Type(), BFloat16Type(), Float32Type(), Float64Type())
PRINTABLE: tuple[Attribute, ...] = (Float64Type(),)


def unsupported(element_type: Attribute, lowered: tuple[Attribute, ...] = ARITHMETIC) -> str | None:
    """Why no lowering takes tensors of ``element_type``, or ``None`` if one does."""
    if element_type in lowered:
        return None
    names = [str(t) for t in lowered]
    allowed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"element type must be {allowed}, got {element_type}"
