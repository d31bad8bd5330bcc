"""Work-arounds for the pinned xDSL (0.75), each with why it exists and when it can go.

Verification in linear time
---------------------------
``Operation.verify`` asks ``len(region.blocks)`` for the last op of every block (a block's
last op must be a terminator when its region has several blocks), and xDSL 0.75 answers by
walking the region's list of blocks: verifying a region of B blocks costs O(B^2). After
``convert-scf-to-cf`` a program of a few hundred statements has thousands of blocks in
``main``, and verification took longer than all the passes together.

Likewise each ``func.call`` looks its callee up by walking the module's ops: O(calls x
functions), which matters once ``outline-loop-nests`` has made a function per loop nest.

``verify(op)`` (and ``mg-opt``'s check between passes, inside ``verifying()``) verifies
exactly as ``op.verify()`` does, but while it runs, the current thread's
``len(region.blocks)`` counts each region's blocks once and remembers the count, and symbol
look-ups index each symbol table once (verification does not change the IR). Other
threads, and code outside it, see xDSL's own functions. It can go when xDSL's
``RegionBlocks.__len__`` stops walking the list (check ``xdsl/ir/core.py`` when the pin
moves; ``tests/unit/support/test_xdsl_compat.py`` says whether it is still needed).

Splitting a block in constant time
----------------------------------
``Block.split_before`` (what every lowering of a loop or a check to branches calls) finds
its block's index by walking the region's blocks, then walks them again to insert the new
block at that index: O(B) per split, O(B^2) for a function. The replacement inserts the new
block right after the old one, as the original's docstring promises, without counting.
It can go when xDSL's ``split_before`` uses ``insert_block_after``.

Fast-math flags on intrinsic calls
----------------------------------
xDSL 0.75's translation to LLVM IR refuses an ``llvm.call_intrinsic`` with fast-math flags
(``NotImplementedError``), which upstream's translates to a call carrying them (``call nsz
<4 x double> @llvm.maximum.v4f64``). ``vectorize-reductions`` marks its vector maxima
``nsz`` (see there). ``translate_fast_math_calls()``, which ``jit.translate`` calls before
translating, makes xDSL's translation put the flags on the call. It can go when xDSL's
``_convert_call_intrinsic`` translates them (``tests/unit/support/test_xdsl_compat.py`` checks).

Making an op in a third of the time
-----------------------------------
``Operation.create`` goes through ``Operation.__init__`` (property setters that build
operand and successor tuples through generators, the location looked up through a lazy
import) and ``IRDLOperation.__post_init__`` (which walks the definition for defaults): about
6 microseconds for an ``llvm.mlir.constant``, and the lowerings make tens of thousands of
ops. ``create_op`` sets the same fields directly, defaults included, in about 2, and
then calls ``Operation.__post_init__`` as ``create`` does (an ``ImplicitBuilder`` inserts the op
there).
``tests/unit/support/test_xdsl_compat.py`` checks that it gives the same object as ``Operation.create``
(every field, the uses linked); if a new xDSL adds a field to ``Operation``, that test
fails, and ``create_op`` can go back to calling ``Operation.create``.
"""

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import TypeVar

from xdsl.dialects.builtin import UNKNOWN_LOC, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue, SSAValues, Use
from xdsl.ir.core import RegionBlocks
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import OptionalDef
from xdsl.traits import SymbolOpInterface, SymbolTable

_walking_len = RegionBlocks.__len__
_verifying = threading.local()


def _len_of_blocks(self: RegionBlocks) -> int:
    counts: dict[int, tuple[object, int]] | None = getattr(_verifying, "counts", None)
    if counts is None:
        return _walking_len(self)
    region = self._region
    known = counts.get(id(region))
    if known is None:
        # The region is kept in the entry, so its id cannot be reused while we remember it.
        known = counts[id(region)] = (region, _walking_len(self))
    return known[1]


RegionBlocks.__len__ = _len_of_blocks


_walking_lookup = SymbolTable.lookup_symbol


def _lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
    tables: dict[int, tuple[Operation, dict[StringAttr, Operation]]] | None = getattr(_verifying, "symbols", None)
    ref = SymbolRefAttr(name) if isinstance(name, str | StringAttr) else name
    if tables is None or ref.nested_references.data:
        return _walking_lookup(op, name)
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    if anchor is None:
        return _walking_lookup(op, name)  # which raises xDSL's error
    known = tables.get(id(anchor))
    if known is None:
        symbols: dict[StringAttr, Operation] = {}
        for o in anchor.regions[0].block.ops:
            interface = o.get_trait(SymbolOpInterface)
            symbol = None if interface is None else interface.get_sym_attr_name(o)
            if symbol is not None:
                symbols.setdefault(symbol, o)  # the first, as xDSL's walk
        known = tables[id(anchor)] = (anchor, symbols)
    return known[1].get(ref.root_reference)


SymbolTable.lookup_symbol = staticmethod(_lookup_symbol)


@contextmanager
def verifying() -> Iterator[None]:
    """Within it, this thread's block counts and symbol look-ups are remembered: for code
    that only verifies (or reads) the IR, such as xdsl-opt's check between passes."""
    outer = getattr(_verifying, "counts", None), getattr(_verifying, "symbols", None)
    _verifying.counts = {} if outer[0] is None else outer[0]
    _verifying.symbols = {} if outer[1] is None else outer[1]
    try:
        yield
    finally:
        _verifying.counts, _verifying.symbols = outer


def verify(op: Operation) -> None:
    """``op.verify()``, in time linear in the size of the IR."""
    with verifying():
        op.verify()


def _split_before(self: Block, b_first: Operation, *, arg_types: Iterable[Attribute] = ()) -> Block:
    """xDSL 0.75's ``Block.split_before``, with the new block placed after ``self`` directly."""
    if b_first.parent is not self:
        raise ValueError("Cannot split block on operation outside of the block.")
    parent = self.parent
    if parent is None:
        raise ValueError("Cannot split block with no parent.")
    a_last = b_first.prev_op
    b_last = self._last_op
    self._first_op = None if a_last is None else self._first_op
    self._last_op = a_last
    b = Block(arg_types=arg_types)
    parent.insert_block_after(b, self)
    b._first_op = b_first
    b._last_op = b_last
    moved: Operation | None = b_first
    while moved is not None:
        moved.parent = b
        moved = moved.next_op
    if a_last is not None:
        a_last._next_op = None
    b_first._prev_op = None
    return b


Block.split_before = _split_before


def translate_fast_math_calls() -> None:
    """Make xDSL's LLVM IR translation keep the fast-math flags of ``llvm.call_intrinsic``
    (installed once; imports the translation only when asked)."""
    # (xDSL's translation imports llvmlite's IR builder: only a module the project's own
    # printer cannot print needs it)
    from xdsl.backend.llvm import convert_op
    from xdsl.dialects import llvm

    original = convert_op._convert_call_intrinsic
    if getattr(original, "keeps_fast_math", False):
        return

    def convert(op: llvm.CallIntrinsicOp, builder, val_map) -> None:
        flags = op.fastmathFlags
        if not flags.data:
            return original(op, builder, val_map)
        # xDSL's own translation of the call, without the flags it refuses; then the flags
        # on the call it made (the builder's last instruction).
        op.properties["fastmathFlags"] = llvm.FastMathAttr(None)
        try:
            original(op, builder, val_map)
        finally:
            op.properties["fastmathFlags"] = flags
        call = builder.block.instructions[-1]
        for flag in flags.data:
            call.fastmath.add(flag.value)

    # Marked as installed, and xDSL's own kept beside it (for the tests).
    convert.__dict__.update(keeps_fast_math=True, __wrapped__=original)
    convert_op._convert_call_intrinsic = convert


OpT = TypeVar("OpT", bound=Operation)


def create_op(
    cls: type[OpT],
    *,
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: Mapping[str, Attribute] = {},
    attributes: Mapping[str, Attribute] = {},
    successors: Sequence[Block] = (),
    regions: Sequence[Region] = (),
) -> OpT:
    """``cls.create(...)`` (with an unknown location), setting the fields directly."""
    op = cls.__new__(cls)
    op._operands = operands = SSAValues(operands)
    op._operand_uses = uses = tuple([Use(op, i) for i in range(len(operands))])
    for value, use in zip(operands, uses):
        value.add_use(use)
    op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    op.properties = dict(properties)
    op.attributes = dict(attributes)
    op.location = UNKNOWN_LOC
    op._successors = successors = tuple(successors)
    op._successor_uses = uses = tuple([Use(op, i) for i in range(len(successors))])
    for block, use in zip(successors, uses):
        block.add_use(use)
    op.regions = ()
    for region in regions:
        op.add_region(region)
    properties_by_default, attributes_by_default = _defaults(cls)
    for name, value in properties_by_default:
        op.properties.setdefault(name, value)
    for name, value in attributes_by_default:
        op.attributes.setdefault(name, value)
    # What IRDLOperation.__post_init__ calls after the defaults: inside an ImplicitBuilder,
    # which replaces it while it is open, this inserts the op.
    Operation.__post_init__(op)
    return op


@cache
def _defaults(cls: type[Operation]) -> tuple[tuple[tuple[str, Attribute], ...], ...]:
    """The properties and attributes that ``IRDLOperation.__post_init__`` fills in."""
    if not issubclass(cls, IRDLOperation):
        return (), ()
    definition = cls.get_irdl_definition()
    return tuple(
        tuple(
            (name, d.default_value)
            for name, d in defs.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        )
        for defs in (definition.properties, definition.attributes)
    )
