"""``convert-mg-to-linalg``: mg ops on tensors -> upstream ``linalg`` ops on memrefs.

The optimised pipeline's first lowering. Where ``lower-mg-to-affine`` writes each op as loops,
this pass says what each op computes as a *structured op*: a buffer for the result
(``memref.alloc``) and a ``linalg`` op that fills it, whose indexing maps say which element
of each operand every iteration reads and writes, and whose iterator types say which loops
are independent (``parallel``) and which fold (``reduction``). The passes after it decide
fusion, tiling, vectorisation and threads from those maps and iterator types alone, for any
element type and rank; ``convert-linalg-to-affine-loops`` then writes the loops.

- elementwise ops (``mg.add/sub/mul/div/compare/select/neg/relu/scalar/convert``): a
  ``linalg.generic`` with identity maps, all loops parallel, the op's scalar computation
  (``mg.ScalarComputation``) as its body; one computed in place (``mg.in_place``, ``w +=
  g``) has its first operand's buffer as its output too (``ins(%w, %g) outs(%w)``);
- ``mg.full_like``, ``mg.full``: ``linalg.fill`` of a new buffer;
- ``mg.reshape`` (dimensions of size 1 dropped or added): a copying ``linalg.generic`` whose
  input map reads 0 in a dropped dimension, e.g. ``(d0) -> (d0, 0)``;
- ``mg.broadcast``: a ``linalg.generic`` whose input map reads index 0 where the input has
  size 1, e.g. ``(d0, d1) -> (0, d1)``;
- ``mg.reduce``: ``linalg.fill`` with the reduction's identity, then a ``linalg.generic``
  whose output map drops the reduced loop, ``(d0, d1) -> (d0, 0)`` for axis 1, that loop a
  ``reduction``, the body the reduction's combine (``mg.REDUCTIONS``);
- ``mg.matmul``: ``linalg.fill`` with 0, then ``linalg.matmul`` (with batch axes a
  ``linalg.generic`` of the same maps, the batch loops parallel);
- ``mg.transpose``: ``linalg.transpose`` (its permutation);
- ``mg.slice``, ``mg.concat`` and a general ``mg.reshape`` (static shapes: a row-major
  position's digits are no affine map) as ``lower-mg-to-affine`` lowers them;
- ``mg.cast``, ``mg.constant``, ``mg.extract``, ``mg.print``, signatures and calls: as
  ``lower-mg-to-affine`` lowers them (they build no loops); ``mg.iota``, ``mg.random`` and
  ``mg.linear_scan`` as it does too (a scan is no structured op: its loop along the axis
  carries a value); ``mg.index``, ``mg.index_add``, ``mg.gather`` and ``mg.scatter_add``
  as well (their positions are values read from a tensor, which no indexing map says; the
  adds' loops stay sequential, as repeated ids accumulate into one cell).

The run-time checks of ``?`` sizes (``cf.assert``) come before the op they guard, with the
messages of ``lower-mg-to-affine``. A buffer's sizes are the ones it was allocated with, and
an operand's ``?`` sizes are read once (``memref.dim``), so a chain of ops on ``?`` shapes
compares the same values all along, and a size is never checked against itself. Before::

    %2 = mg.add %a, %b : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>

After::

    %2 = memref.alloc() : memref<4x3xf64>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x3xf64>, memref<4x3xf64>) outs(%2 : memref<4x3xf64>) {
    ^bb0(%x: f64, %y: f64, %out: f64):
      %s = arith.addf %x, %y : f64
      linalg.yield %s : f64
    }
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern

from mg_xdsl import shapes
from mg_xdsl.dialects import mg
from mg_xdsl.dialects.mg import shape_of
from mg_xdsl.transforms.lower_mg_to_affine import (
    CallLowering,
    CastLowering,
    ConstantLowering,
    ExtractLowering,
    FuncSignatureLowering,
    IotaLowering,
    RandomLowering,
    SliceLowering,
    ConcatLowering,
    reshape_copy,
    LinearScanLowering,
    IndexLowering,
    IndexAddLowering,
    GatherLowering,
    ScatterAddLowering,
    MgLowering,
    matmul_sizes,
    reshape_sizes,
    PrintLowering,
    alloc,
    broadcast_sizes,
    elementwise_sizes,
    element_type_of,
    extents,
    element_constant,
)
from mg_xdsl.transforms.op_builders import iterator_types, linalg_generic, linalg_yield

class Sizes(dict[SSAValue, list[int | SSAValue]]):
    """The sizes of the buffers of a function: those this pass allocated, the sizes it
    allocated them with; any other, read once (``memref.dim`` of each ``?``). So the sizes of
    a chain of ops on ``?`` shapes are the same values all along, and a check that compares
    a size with itself is left out (``a - a - a ...``: no check at all; the chapter's
    lowering makes 2 * 10^4 of them for 10^4 terms)."""

    def of(self, v: SSAValue) -> list[int | SSAValue]:
        if v not in self:
            self[v] = extents(v, shape_of(v.type))
        return self[v]

    def alloc(self, result_type: Attribute, sizes: Sequence[int | SSAValue]) -> SSAValue:
        out = alloc(result_type, sizes)
        self[out] = [d if d is not None else s for d, s in zip(shape_of(result_type), sizes)]
        return out


def generic(inputs: Sequence[SSAValue], input_maps: Sequence[AffineMap], out: SSAValue,
            out_map: AffineMap, parallel: Sequence[bool],
            body: Callable[[Sequence[SSAValue]], SSAValue]) -> linalg.GenericOp:
    """A ``linalg.generic`` writing ``out``, its loops ``parallel`` or not (reduction);
    ``body(args)`` builds the element to store from one element of each input and (last)
    the output's current element."""
    block = Block(arg_types=[element_type_of(v) for v in (*inputs, out)])
    with ImplicitBuilder(block):
        linalg_yield([body(block.args)])
    return linalg_generic(inputs, [out], Region(block), [*input_maps, out_map], iterator_types(tuple(parallel)))


def scalar_body(op: mg.ScalarComputation) -> Callable[[Sequence[SSAValue]], SSAValue]:
    """The body of an elementwise op: its constants, then its scalar computation."""
    def body(args: Sequence[SSAValue]) -> SSAValue:
        constants = [element_constant(c, args[0].type) for c in op.scalar_constants()]  # type: ignore[arg-type]
        return op.compute(args[:-1], constants)
    return body


@dataclass
class ToLinalg(MgLowering):
    """Base of this pass's patterns: they share the function's known sizes."""

    sizes: Sizes

    def elementwise(self, op: mg.ScalarComputation, inputs: Sequence[SSAValue],
                    sizes: Sequence[int | SSAValue]) -> SSAValue:
        in_place = mg.IN_PLACE in op.attributes  # type: ignore[attr-defined]
        out = op.operands[0] if in_place else self.sizes.alloc(op.result.type, sizes)  # type: ignore[attr-defined]
        identity = AffineMap.identity(len(sizes))
        generic(inputs, [identity] * len(inputs), out, identity, [True] * len(sizes), scalar_body(op))
        return out


class ElementwiseToLinalg(ToLinalg):
    op_type = (mg.BinaryOp, mg.SelectOp)

    def build(self, op: mg.BinaryOp | mg.SelectOp) -> SSAValue:
        sizes = elementwise_sizes(op, [self.sizes.of(x) for x in op.operands])
        return self.elementwise(op, list(op.operands), sizes)


class ReshapeToLinalg(ToLinalg):
    """A copy: ``linalg.generic`` reading the input at the result's indices of the
    dimensions both have, 0 in a dimension of size 1 that the result drops."""

    op_type = mg.ReshapeOp

    def build(self, op: mg.ReshapeOp) -> SSAValue:
        if not op.unit_dims_only():  # (no affine map reads a reshape between other shapes)
            return reshape_copy(op)
        mapping, sizes = reshape_sizes(op, self.sizes.of(op.input))
        out = self.sizes.alloc(op.result.type, sizes)
        rank = len(sizes)
        read = AffineMap(rank, 0, tuple(AffineExpr.constant(0) if t is None else AffineExpr.dimension(t)
                                        for t in mapping))
        generic([op.input], [read], out, AffineMap.identity(rank), [True] * rank, lambda args: args[0])
        return out


class FullToLinalg(ToLinalg):
    op_type = mg.FullOp

    def build(self, op: mg.FullOp) -> SSAValue:
        out = self.sizes.alloc(op.result.type, list(shape_of(op.result.type)))  # type: ignore[arg-type]
        fill(op.value.value.data, out)
        return out


class FullLikeToLinalg(ToLinalg):
    op_type = mg.FullLikeOp

    def build(self, op: mg.FullLikeOp) -> SSAValue:
        out = self.sizes.alloc(op.result.type, self.sizes.of(op.like))
        fill(op.value.value.data, out)
        return out


class ElementwiseUnaryToLinalg(ToLinalg):
    op_type = (mg.ElementwiseUnaryOp, mg.ScalarOp, mg.ConvertOp)

    def build(self, op: mg.ElementwiseUnaryOp | mg.ScalarOp) -> SSAValue:
        return self.elementwise(op, [op.input], self.sizes.of(op.input))


def broadcast_map(in_shape: Sequence[int | None], out_shape: Sequence[int | None]) -> AffineMap:
    """Reads of an input broadcast to ``out_shape``: index 0 where it repeats (a size 1
    that grows); lower ranks are aligned on the right."""
    lead = len(out_shape) - len(in_shape)
    return AffineMap(len(out_shape), 0, tuple(
        AffineExpr.constant(0) if r else AffineExpr.dimension(lead + d)
        for d, r in enumerate(shapes.repeated_dims(in_shape, out_shape))))


class BroadcastToLinalg(ToLinalg):
    op_type = mg.BroadcastOp

    def build(self, op: mg.BroadcastOp) -> SSAValue:
        in_shape, out_shape = shape_of(op.input.type), shape_of(op.result.type)
        out = self.sizes.alloc(op.result.type, broadcast_sizes(op, self.sizes.of))
        rank = len(out_shape)
        generic([op.input], [broadcast_map(in_shape, out_shape)], out, AffineMap.identity(rank),
                [True] * rank, lambda args: args[0])
        return out


def fill(value: float, out: SSAValue) -> None:
    linalg.FillOp([element_constant(value, element_type_of(out))], [out], res=())


class ReduceToLinalg(ToLinalg):
    op_type = mg.ReduceOp

    def build(self, op: mg.ReduceOp) -> SSAValue:
        axis, reduction = op.axis.value.data, op.reduction
        in_sizes = self.sizes.of(op.input)
        out = self.sizes.alloc(op.result.type, [1 if d == axis else s for d, s in enumerate(in_sizes)])
        fill(reduction.identity, out)
        rank = len(in_sizes)
        out_map = AffineMap(rank, 0, tuple(AffineExpr.constant(0) if d == axis else AffineExpr.dimension(d)
                                           for d in range(rank)))
        generic([op.input], [AffineMap.identity(rank)], out, out_map, [d != axis for d in range(rank)],
                lambda args: reduction.combine(args[1], args[0]).results[0])  # (running value, element)
        return out


class MatmulToLinalg(ToLinalg):
    """``linalg.matmul`` for matrices; with batch axes a ``linalg.generic`` over
    ``(b.., i, k, j)`` reading ``lhs[b.., i, k]`` and ``rhs[b.., k, j]`` into ``out[b.., i, j]``,
    ``k`` the one reduction loop."""

    op_type = mg.MatmulOp

    def build(self, op: mg.MatmulOp) -> SSAValue:
        lhs_sizes = self.sizes.of(op.lhs)
        out = self.sizes.alloc(op.result.type, matmul_sizes(lhs_sizes, self.sizes.of(op.rhs)))
        fill(0.0, out)
        rank = len(lhs_sizes)
        if rank == 2:
            linalg.MatmulOp([op.lhs, op.rhs], [out], res=())
            return out
        # Loops (b.., i, k, j): the innermost reads a row of rhs and of out, contiguously.
        batch = [AffineExpr.dimension(d) for d in range(rank - 2)]
        i, k, j = (AffineExpr.dimension(d) for d in range(rank - 2, rank + 1))
        maps = [AffineMap(rank + 1, 0, (*batch, i, k)), AffineMap(rank + 1, 0, (*batch, k, j))]
        generic([op.lhs, op.rhs], maps, out, AffineMap(rank + 1, 0, (*batch, i, j)), [True] * (rank - 1) + [False, True],
                lambda args: mg.binary_arith("add", args[2], mg.binary_arith("mul", args[0], args[1])))
        return out


class TransposeToLinalg(ToLinalg):
    op_type = mg.TransposeOp

    def build(self, op: mg.TransposeOp) -> SSAValue:
        in_sizes, axes = self.sizes.of(op.input), op.axes()
        out = self.sizes.alloc(op.result.type, [in_sizes[a] for a in axes])
        linalg.TransposeOp(op.input, out, DenseArrayBase.from_list(i64, axes))
        return out


@dataclass(frozen=True)
class ConvertMgToLinalgPass(ModulePass):
    name = "convert-mg-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sizes = Sizes()  # values are unique to their function: one table serves them all
        patterns: list[RewritePattern] = [
            ConstantLowering(op),
            ElementwiseToLinalg(sizes),
            FullLikeToLinalg(sizes),
            FullToLinalg(sizes),
            ReshapeToLinalg(sizes),
            IotaLowering(),
            RandomLowering(),
            LinearScanLowering(),
            IndexLowering(),
            IndexAddLowering(),
            GatherLowering(),
            ScatterAddLowering(),
            SliceLowering(),
            ConcatLowering(),
            ElementwiseUnaryToLinalg(sizes),
            BroadcastToLinalg(sizes),
            ReduceToLinalg(sizes),
            MatmulToLinalg(sizes),
            TransposeToLinalg(sizes),
            CastLowering(),
            ExtractLowering(),
            PrintLowering(op),
        ]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(GreedyRewritePatternApplier([FuncSignatureLowering(), CallLowering()]),
                             apply_recursively=False).rewrite_module(op)
