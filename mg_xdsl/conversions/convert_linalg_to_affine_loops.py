"""``convert-linalg-to-affine-loops``: ``linalg`` ops on memrefs -> affine loop nests.

One lowering for every structured op (``linalg.generic``, ``linalg.fill``, ``linalg.matmul``,
``linalg.transpose``, ...), read from what the op declares rather than from what it is: a
loop per iterator, its extent the size of an operand dimension that the indexing maps reach
directly from that loop (a static one where there is one, else ``memref.dim``); in the
innermost body, each input loaded at its map's indices (a scalar input used as it is), the
output loaded only where the body reads it, the body's ops cloned, and each yielded value
stored at its output map's indices. A constant of the body is made once, before the nest.

Before (a row sum)::

    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                     affine_map<(d0, d1) -> (d0, 0)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x3xf64>) outs(%r : memref<4x1xf64>) {
    ^bb0(%x: f64, %acc: f64):
      %s = arith.addf %acc, %x : f64
      linalg.yield %s : f64
    }

After::

    %c0 = arith.constant 0 : index
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 3 {
        %x = affine.load %a[%i, %j] : memref<4x3xf64>
        %acc = affine.load %r[%i, %c0] : memref<4x1xf64>
        %s = arith.addf %acc, %x : f64
        affine.store %s, %r[%i, %c0] : memref<4x1xf64>
      }
    }

Upstream MLIR's pass of this name does the same (``mlir-opt-22`` is the test's oracle).

Parallelisation is decided here, from the iterator types: with ``min-parallel-work=N``
(N >= 0) every ``parallel`` loop of a nest becomes a one-dimensional ``affine.parallel``
(nested ones stay nested), the first of them moved outermost (a column sum's columns; the
loops keep their declared order otherwise, which leaves each result cell's order of folding
as it was), unless the loop and those
inside it have static sizes and do fewer than N iterations in all:
``convert-parallel-loops-to-threads`` would make such a loop sequential again anyway. Nor
does a nest inside a parallel loop (``linalg-fuse-rows``' loop over rows, whose iterations
the threads share already). By default (-1) every loop stays an ``affine.for``, in the order
the op declares.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp, ShapedType, UnitAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker

from mg_xdsl.conversions.lower_affine import lower_nests_upstream_rejects
from mg_xdsl.conversions.mg_lowering_common import MgLowering
from mg_xdsl.dialects.llvm_loop_annotation import PARALLEL_ACCESSES
from mg_xdsl.support.buffers import index_constant, load, nest, store
from mg_xdsl.transforms.memref.memref_views import base


def loop_sizes(op: LinalgStructuredOperation, maps: Sequence[AffineMap]) -> list[int | SSAValue]:
    """Each loop's extent: a static size of an operand dimension its map reaches directly
    from that loop, else the run-time size of the first such dimension."""
    sizes: list[int | SSAValue | None] = [None] * maps[0].num_dims
    dynamic: dict[int, tuple[SSAValue, int]] = {}
    for operand, m in zip(op.operands, maps):
        if not isinstance(operand.type, ShapedType):
            continue
        for position, (expr, size) in enumerate(zip(m.results, operand.type.get_shape())):
            if not isinstance(expr, AffineDimExpr) or sizes[expr.position] is not None:
                continue
            if size >= 0:
                sizes[expr.position] = size
            else:
                dynamic.setdefault(expr.position, (operand, position))
    for loop, (operand, position) in dynamic.items():
        if sizes[loop] is None:
            sizes[loop] = memref.DimOp(operand, index_constant(position)).result
    found = [s for s in sizes if s is not None]
    assert len(found) == len(sizes), f"{op.name}: a loop that no operand dimension bounds"
    return found


@dataclass
class Indexer:
    """The indices of an access through an affine map, from the loops' induction variables
    (``ivs[d]`` for loop ``d``); the constant indices made once, before the nest."""

    constants: dict[int, SSAValue]

    def __call__(self, m: AffineMap, ivs: Sequence[SSAValue]) -> list[SSAValue]:
        indices = []
        for expr in m.results:
            if isinstance(expr, AffineDimExpr):
                indices.append(ivs[expr.position])
            elif isinstance(expr, AffineConstantExpr):
                indices.append(self.constants[expr.value])
            else:  # any other affine expression of the loops
                indices.append(affine.ApplyOp(ivs, AffineMapAttr(AffineMap(m.num_dims, 0, (expr,)))).result)
        return indices

    @staticmethod
    def before_nest(maps: Sequence[AffineMap]) -> "Indexer":
        values = sorted({e.value for m in maps for e in m.results if isinstance(e, AffineConstantExpr)})
        return Indexer({v: index_constant(v) for v in values})


def is_parallel(iterator: IteratorTypeAttr) -> bool:
    return iterator.data == IteratorType.PARALLEL


def enough_work(sizes: Sequence[int | SSAValue], min_work: int) -> bool:
    """Whether a loop and those inside it (``sizes``) do ``min_work`` iterations or more, or
    may (a size is known only at run time); never if ``min_work`` is negative."""
    static = [s for s in sizes if isinstance(s, int)]
    return min_work >= 0 and not (len(static) == len(sizes) and prod(static) < min_work)


def independent_iterations(op: LinalgStructuredOperation, maps: Sequence[AffineMap], loop: int) -> bool:
    """Whether no iteration of ``loop`` of ``op``'s nest reads or writes an element that
    another one writes, with all loops parallel (``mg.parallel_accesses``: see
    ``mg_xdsl.dialects.llvm_loop_annotation``): each output's map uses the loop (a cell of
    its own for each iteration), and each input is another buffer than every output's,
    through any views, or the output itself read through the output's map (``w += g``, or a
    result written over a dying input: ``reuse-dying-buffers``)."""
    n_inputs = len(op.inputs)
    outputs = list(zip(op.operands[n_inputs:], maps[n_inputs:]))
    if not all(any(isinstance(e, AffineDimExpr) and e.position == loop for e in m.results) for _, m in outputs):
        return False
    for value, m in zip(op.operands[:n_inputs], maps):
        if isinstance(value.type, ShapedType):
            for out, out_map in outputs:
                if base(value) == base(out) and (value != out or m != out_map):
                    return False
    return True


def in_parallel_loop(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ParallelOp | affine.ParallelOp):
            return True
        parent = parent.parent_op()
    return False


@dataclass
class LinalgToAffineLoops(MgLowering[LinalgStructuredOperation]):
    """The loop nest of any structured op, built where the op was."""

    min_parallel_work: int
    op_type = LinalgStructuredOperation

    def build(self, op: LinalgStructuredOperation) -> None:
        maps = [m.data for m in op.get_indexing_maps()]
        iterators = [is_parallel(it) for it in op.get_iterator_types()]
        sizes = loop_sizes(op, maps)
        min_work = -1 if in_parallel_loop(op) else self.min_parallel_work
        # Loop order: as declared; where the nest is worth parallelising, its first parallel
        # loop outermost (the one that threads share; the others keep their declared
        # places, so a batched product's j loop stays innermost, reading rows).
        order = list(range(len(sizes)))
        if enough_work(sizes, min_work):
            first = next((d for d in order if iterators[d]), None)
            if first is not None:
                order = [first, *(d for d in order if d != first)]
        indexer = Indexer.before_nest(maps)
        block = op.body.block
        values: dict[SSAValue, SSAValue] = {}
        for inner in block.ops:
            if isinstance(inner, arith.ConstantOp):  # made once, before the nest
                values[inner.result] = inner.clone().result
        n_inputs = len(op.inputs)

        def body(loop_ivs: list[SSAValue]) -> None:
            ivs: list[SSAValue] = [*loop_ivs]
            for d, iv in zip(order, loop_ivs):
                ivs[d] = iv
            env = dict(values)
            for arg, operand, m in zip(block.args, op.operands, maps):
                if isinstance(operand.type, ShapedType):
                    if arg.uses:
                        env[arg] = load(operand, indexer(m, ivs))
                else:
                    env[arg] = operand
            for inner in block.ops:
                if isinstance(inner, linalg.YieldOp):
                    for value, out, m in zip(inner.operands, op.operands[n_inputs:], maps[n_inputs:]):
                        store(env[value], out, indexer(m, ivs))
                elif not isinstance(inner, arith.ConstantOp):
                    env.update(zip(inner.results, inner.clone(value_mapper=env).results))

        ordered = [sizes[d] for d in order]
        innermost = nest(
            ordered,
            body,
            [iterators[d] and enough_work(ordered[t:], min_work) for t, d in enumerate(order)],
        )
        if innermost is not None and all(iterators) and independent_iterations(op, maps, order[-1]):
            innermost.attributes[PARALLEL_ACCESSES] = UnitAttr()


@dataclass(frozen=True)
class ConvertLinalgToAffineLoopsPass(ModulePass):
    name = "convert-linalg-to-affine-loops"

    # Nests of at least this many iterations (or of ? sizes) get their parallel loops as
    # affine.parallel; -1: none do.
    min_parallel_work: int = -1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LinalgToAffineLoops(self.min_parallel_work), apply_recursively=False).rewrite_module(op)
        # (in the front end's loops, a nest bounded by a size computed there: see there)
        lower_nests_upstream_rejects(op)
