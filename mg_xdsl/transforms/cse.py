"""``cse``: an op that computes what an op before it computes -> that op's results; an op
whose results nobody uses and that has no side effects -> nothing. Upstream MLIR's
common subexpression elimination, for the ops without regions.

Two ops compute the same when they have the same name, operands, attributes, properties
and result types, and neither has side effects; the earlier must dominate the later: it
is in the same block, or in a block around it (a loop's body sees the ops before the
loop, a function nothing outside it). An op that only reads memory (``memref.load``) also
repeats an earlier one of its block when nothing between them may write. Terminators stay,
and so do regions of several blocks, as upstream's pass and xDSL's leave them.

The pipeline runs it after ``lower-affine``, which makes the constants of every loop's
bounds afresh (most of the ops it emits). xDSL's pass of the same name does the same, but
hashes each op's attributes anew at every lookup and looks up the side effects of each op
through its traits each time: it took 77 ms of the 100-statement program's compile time.
Here an op's key is built once and the effects are known per op class.

Before::

    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %c0_1 = arith.constant 0 : index
      %x = memref.load %m[%i, %c0_1] : memref<2x1xf64>
      %y = memref.load %m[%i, %c0_1] : memref<2x1xf64>
      %s = arith.addf %x, %y : f64
      ...

After::

    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %x = memref.load %m[%i, %c0] : memref<2x1xf64>
      %s = arith.addf %x, %x : f64
      ...
"""

from collections.abc import Callable, Hashable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import IsolatedFromAbove, IsTerminator, MemoryEffectKind, get_effects

PURE, READS, OTHER = "pure", "reads", "other"

_kinds: dict[type[Operation], str] = {}


def _effects_kind(op: Operation) -> str:
    effects = get_effects(op)
    if effects is None:
        return OTHER
    if not effects:
        return PURE
    return READS if all(e.kind == MemoryEffectKind.READ for e in effects) else OTHER


def _kind(op: Operation) -> str:
    """Whether ``op`` has no side effects, only reads memory, or anything else (a write, or
    effects not known)."""
    if op.regions:  # the effects of what is inside: asked of this op, not of its class
        return _effects_kind(op)
    kind = _kinds.get(type(op))
    if kind is None:
        kind = _kinds[type(op)] = _effects_kind(op)
    return kind


class _Key:
    """An op's key, hashed once: the attributes in it hash their whole structure at every
    call, and a key is looked up, stored and dropped."""

    __slots__ = ("hash", "parts")

    def __init__(self, parts: tuple[object, ...]):
        self.parts = parts
        self.hash = hash(parts)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.hash == other.hash and self.parts == other.parts


def _key(op: Operation) -> Hashable:
    return _Key(
        (
            op.name,
            tuple(op.operands),
            tuple(r.type for r in op.results),
            tuple(sorted(op.properties.items())),
            tuple(sorted(op.attributes.items())),
        )
    )


def _replace(op: Operation, earlier: Operation) -> None:
    for old, new in zip(op.results, earlier.results, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(op)


Kind = Callable[[Operation], str]
"""Which ops may be merged: ``PURE`` (with an earlier one in scope), ``READS`` (with an
earlier one of its block, no write between) or ``OTHER`` (never)."""


def simplify_region(
    region: Region, known: dict[Hashable, Operation], kind: Kind = _kind, erase_dead: bool = True
) -> None:
    """CSE in ``region``, whose dominating ops are in ``known``; ``kind`` says which ops may be
    merged, ``erase_dead`` whether a ``PURE`` op nobody uses goes (``mg-cse`` passes its own:
    it keeps dead ops, whose run-time checks are part of the program)."""
    # A region of several blocks is left alone, as upstream's CSE leaves it (the pipeline
    # runs this pass before there are any).
    if len(region.blocks) == 1:
        _simplify_block(region.block, known, kind, erase_dead)


def _simplify_block(block: Block, known: dict[Hashable, Operation], kind_of: Kind, erase_dead: bool) -> None:
    """CSE in ``block``, whose dominating ops (in blocks around it) are in ``known``."""
    added: list[Hashable] = []
    reads: dict[Hashable, Operation] = {}  # since the last op that may write
    for op in list(block.ops):
        if op.regions:
            # Nothing outside a function is visible in it.
            inner = {} if op.has_trait(IsolatedFromAbove) else known
            for region in op.regions:
                simplify_region(region, inner, kind_of, erase_dead)
        if op.has_trait(IsTerminator):
            continue
        kind = kind_of(op)
        if erase_dead and kind == PURE and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)  # trivially dead
            continue
        if kind == OTHER:
            reads.clear()
            continue
        if op.regions:
            continue
        key = _key(op)
        table = known if kind == PURE else reads
        earlier = table.get(key)
        if earlier is not None:
            _replace(op, earlier)
        else:
            table[key] = op
            if kind == PURE:
                added.append(key)
    for key in added:
        del known[key]


class CsePass(ModulePass):
    name = "cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify_region(op.body, {})
