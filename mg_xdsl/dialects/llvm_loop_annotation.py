"""``#llvm.loop_annotation``: upstream MLIR's loop hints for LLVM, which xDSL 0.75's llvm
dialect lacks; the part of it this project uses.

    scf.for %j = %tail to %n step %c1 {
      ...
    } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}

tells LLVM's optimiser to neither vectorize nor unroll the loop. ``vectorize-reductions``
marks its scalar tails so: the few elements left after the vector loop, fewer than a
vector holds. LLVM cannot know that they are few and would vectorize and unroll each
tail again, with its own tail and run-time checks, for code that never runs: a third of
the LLVM time of a program of ``?``-shaped reductions.

The attribute travels as upstream's does: ``convert-scf-to-cf`` puts a loop's LLVM
attributes on the branch back to its condition block, ``convert-cf-to-llvm`` keeps a
branch's attributes on the ``llvm.br``, and the translation to LLVM IR writes
``br label %bb1, !llvm.loop !0`` with ``!0 = distinct !{!0, !1, !2}``,
``!1 = !{!"llvm.loop.vectorize.enable", i1 false}``, ``!2 = !{!"llvm.loop.unroll.disable"}``
(``mlir-translate-22`` writes the same). Upstream's attribute has a dozen more hints; this
one parses and prints only ``vectorize`` and ``unroll`` with ``disable = true``, and says
so where a program asks for more. It can go when xDSL's llvm dialect has the attribute.
"""

from typing import TypeVar

from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Operation, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

HINTS = ("vectorize", "unroll")  # in upstream's order of parameters


@irdl_attr_definition
class LoopAnnotationAttr(ParametrizedAttribute):
    name = "llvm.loop_annotation"

    disable_vectorize: BoolAttr
    disable_unroll: BoolAttr

    def __init__(self, disable_vectorize: bool = False, disable_unroll: bool = False):
        super().__init__(BoolAttr.from_bool(disable_vectorize), BoolAttr.from_bool(disable_unroll))

    def disabled(self) -> list[str]:
        """The hints whose transformation is disabled, in upstream's order."""
        flags = (self.disable_vectorize, self.disable_unroll)
        return [hint for hint, flag in zip(HINTS, flags) if flag.value.data]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join(f"{hint} = <disable = true>" for hint in self.disabled()) + ">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list:
        disabled: set[str] = set()

        def hint() -> None:
            name = parser.parse_keyword_in(
                HINTS, " in #llvm.loop_annotation (mg-xdsl knows only `vectorize` and `unroll`)"
            )
            parser.parse_punctuation("=")
            parser.parse_punctuation("<")
            parser.parse_keyword("disable")
            parser.parse_punctuation("=")
            if not parser.parse_boolean():
                parser.raise_error(f"mg-xdsl's #llvm.loop_annotation knows only `{name} = <disable = true>`")
            parser.parse_punctuation(">")
            disabled.add(name)

        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation(">") is None:
            parser.parse_comma_separated_list(parser.Delimiter.NONE, hint)
            parser.parse_punctuation(">")
        return [BoolAttr.from_bool(h in disabled) for h in HINTS]


SHORT_LOOP = LoopAnnotationAttr(disable_vectorize=True, disable_unroll=True)
"""The hint for a loop of fewer iterations than a vector holds: neither vectorize nor unroll."""

LOOP_ANNOTATION = "loop_annotation"
"""The name of the attribute on ``scf.for``, ``cf.br`` and ``llvm.br``, as upstream's."""

PARALLEL_ACCESSES = "mg.parallel_accesses"
"""The unit attribute of an innermost loop whose iterations touch no memory that another
iteration writes: the loop over the innermost dimension of an all-parallel linalg op, its
inputs read where it writes or in other buffers (``convert-linalg-to-affine-loops`` decides).
It travels with the loop as ``loop_annotation`` does, to the branch back; the translation to
LLVM IR puts the loads and stores of that branch's block in an access group of the loop's
own (``load ..., !llvm.access.group !1``) and names the group in the loop's metadata
(``!0 = distinct !{!0, !2}``, ``!2 = !{!"llvm.loop.parallel_accesses", !1}``). LLVM's
vectoriser then needs no run-time check that the loop's pointers do not overlap, nor a
scalar copy of the loop for when they do: it cannot know that two buffers read from an
outlined loop nest's context are different ones. Where the loop body is more than one block,
only the last one's accesses are in the group, and LLVM treats the loop as any other.
Upstream's form is ``#llvm.loop_annotation<parallelAccesses = ...>`` and ``access_groups``
on each ``llvm.load`` and ``llvm.store``; a unit attribute, which upstream's tools pass over,
keeps the affine-level IR what ``mlir-opt-22`` reads.
"""

LoopT = TypeVar("LoopT", bound=Operation)


def keep_parallel_accesses(loop: Operation, lowered: LoopT) -> LoopT:
    """``lowered``, the loop that replaces ``loop``, marked ``PARALLEL_ACCESSES`` if ``loop`` was."""
    if PARALLEL_ACCESSES in loop.attributes:
        lowered.attributes[PARALLEL_ACCESSES] = loop.attributes[PARALLEL_ACCESSES]
    return lowered
