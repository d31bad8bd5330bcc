"""Small builders for the scf loops and index arithmetic that the optimising passes emit
(``vectorize-reductions``, ``tile-matmul``, ``convert-parallel-loops-to-threads``), so that each pass reads as the loop nest it
makes. Index arithmetic on constants is folded here, so static sizes give static code."""

from collections.abc import Callable, Iterable, Mapping, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mg_xdsl.dialects.llvm_loop_annotation import LOOP_ANNOTATION, SHORT_LOOP

INDEX = IndexType()

LoopBody = Callable[[Builder, SSAValue, list[SSAValue]], Sequence[SSAValue]]


def index(b: Builder, value: int) -> SSAValue:
    return b.insert(arith.ConstantOp.from_int_and_width(value, INDEX)).result


def constant_value(v: SSAValue) -> int | None:
    """The integer an ``arith.constant`` holds; ``None`` for anything else."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def captured_values(ops: Operation | Sequence[Operation], own_operands: bool = True) -> list[SSAValue]:
    """The values ``ops`` (one op, or a run of ops of one block, in order) use from outside
    them (their own operands too, unless not ``own_operands``), in order of first use: what
    an outlined copy of them must be given."""
    inside: set[SSAValue] = set()
    seen: dict[SSAValue, None] = {}
    for top in [ops] if isinstance(ops, Operation) else ops:
        for inner in top.walk():
            for region in inner.regions:
                for block in region.blocks:
                    inside.update(block.args)
            if inner is not top or own_operands:
                for v in inner.operands:
                    if v not in inside:
                        seen.setdefault(v)
            inside.update(inner.results)
    return list(seen)


def use_instead(ops: Iterable[Operation], mapping: Mapping[SSAValue, SSAValue]) -> None:
    """Each operand of ``ops`` (each op itself, not the ops it nests) that ``mapping`` names
    replaced by its value there: what ops moved into an outlined function use in place of
    the values they captured."""
    for op in ops:
        for i, value in enumerate(op.operands):
            if (new := mapping.get(value)) is not None:
                op.operands[i] = new


def split_captures(captured: Sequence[SSAValue]) -> tuple[list[SSAValue], list[SSAValue]]:
    """Captured values as (constants, to make again inside the outlined code, so that it
    still sees them as numbers; the others, to pass)."""
    constants = [v for v in captured if isinstance(v.owner, arith.ConstantOp)]
    return constants, [v for v in captured if not isinstance(v.owner, arith.ConstantOp)]


def for_loop(
    b: Builder,
    lb: SSAValue,
    ub: SSAValue,
    step: SSAValue | int,
    body: LoopBody,
    inits: Sequence[SSAValue] = (),
    short: bool = False,
    as_written: bool = False,
) -> list[SSAValue]:
    """``scf.for %iv = lb to ub step step iter_args(inits)``; ``body(builder, iv, args)``
    builds the body and returns the values to yield. Returns the loop's results.

    A ``short`` loop runs fewer iterations than a vector has lanes (it does what a vector
    loop left). Where its bounds are known only at run time, it carries
    ``SHORT_LOOP``, which tells LLVM not to vectorize or unroll it: LLVM cannot know that it
    is short, and would make vector and unrolled copies of it, with run-time checks, that
    never run. A short loop of constant bounds LLVM unrolls fully, quickly, as it should.
    An ``as_written`` loop carries the same hint whatever its bounds: it runs few
    iterations of whole vectors, or only on a rare path, and LLVM's copies of it would cost
    compile time only."""
    if isinstance(step, int):
        step = index(b, step)
    block = Block(arg_types=[INDEX, *(v.type for v in inits)])
    inner = Builder(InsertPoint.at_end(block))
    yielded = body(inner, block.args[0], list(block.args[1:]))
    inner.insert(scf.YieldOp(*yielded))
    loop = scf.ForOp(lb, ub, step, list(inits), block)
    if as_written or (short and (constant_value(lb) is None or constant_value(ub) is None)):
        loop.attributes[LOOP_ANNOTATION] = SHORT_LOOP
    return list(b.insert(loop).results)


def parallel_loop(
    b: Builder,
    ub: SSAValue,
    body: Callable[[Builder, SSAValue], None],
    min_chunk: int | None = None,
    work_scale: int | None = None,
) -> scf.ParallelOp:
    """``scf.parallel %k = 0 to ub``, its body built by ``body(builder, k)``. ``min_chunk``
    tells ``convert-parallel-loops-to-threads`` how many iterations are worth a thread,
    where one iteration is known to be much work; ``work_scale``, how many elements' work
    each iteration of the nested loops it counts stands for (a vector step, a block of
    rows)."""
    block = Block(arg_types=[INDEX])
    inner = Builder(InsertPoint.at_end(block))
    body(inner, block.args[0])
    inner.insert(scf.ReduceOp())
    loop = scf.ParallelOp([index(b, 0)], [ub], [index(b, 1)], Region(block))
    if min_chunk is not None:
        loop.attributes[MIN_CHUNK_ATTR] = IntegerAttr(min_chunk, INDEX)
    if work_scale is not None:
        loop.attributes[WORK_SCALE_ATTR] = IntegerAttr(work_scale, INDEX)
    return b.insert(loop)


MIN_CHUNK_ATTR = "mg.min_chunk"
WORK_SCALE_ATTR = "mg.work_scale"


def if_else(b: Builder, cond: SSAValue, then: Callable[[Builder], None], otherwise: Callable[[Builder], None]) -> None:
    """``scf.if cond { then } else { otherwise }``, each side built by a function."""
    regions = []
    for side in (then, otherwise):
        block = Block()
        inner = Builder(InsertPoint.at_end(block))
        side(inner)
        inner.insert(scf.YieldOp())
        regions.append(Region(block))
    b.insert(scf.IfOp(cond, [], regions[0], regions[1]))


def if_else_value(
    b: Builder, cond: SSAValue, then: Callable[[Builder], SSAValue], otherwise: Callable[[Builder], SSAValue]
) -> SSAValue:
    """``scf.if cond -> T { yield then } else { yield otherwise }``: the value of the side
    taken, each side built by a function that returns what it yields."""
    regions, types = [], []
    for side in (then, otherwise):
        block = Block()
        inner = Builder(InsertPoint.at_end(block))
        value = side(inner)
        inner.insert(scf.YieldOp(value))
        regions.append(Region(block))
        types.append(value.type)
    return b.insert(scf.IfOp(cond, types[:1], regions[0], regions[1])).results[0]


def _fold(b: Builder, op_type, fold, x: SSAValue, y: SSAValue) -> SSAValue:
    cx, cy = constant_value(x), constant_value(y)
    if cx is not None and cy is not None:
        return index(b, fold(cx, cy))
    return b.insert(op_type(x, y)).result


def add(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    if constant_value(y) == 0:
        return x
    return _fold(b, arith.AddiOp, lambda p, q: p + q, x, y)


def sub(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return _fold(b, arith.SubiOp, lambda p, q: p - q, x, y)


def mul(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return _fold(b, arith.MuliOp, lambda p, q: p * q, x, y)


def minimum(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return _fold(b, arith.MinSIOp, min, x, y)


def maximum(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return _fold(b, arith.MaxSIOp, max, x, y)


def ceil_div(b: Builder, x: SSAValue, d: int | SSAValue) -> SSAValue:
    return _fold(b, arith.CeilDivSIOp, lambda p, q: -(-p // q), x, index(b, d) if isinstance(d, int) else d)


def round_down(b: Builder, x: SSAValue, multiple: int) -> SSAValue:
    """The largest multiple of ``multiple`` not above ``x`` (for ``x >= 0``)."""
    if (c := constant_value(x)) is not None:
        return index(b, c - c % multiple)
    rem = b.insert(arith.RemSIOp(x, index(b, multiple))).result
    return b.insert(arith.SubiOp(x, rem)).result
