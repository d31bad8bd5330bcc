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
- ``mg.reshape`` (dimensions of size 1 dropped or added) that is no view (of ``?`` sizes, of
  a view): a copying ``linalg.generic`` whose input map reads 0 in a dropped dimension, e.g.
  ``(d0) -> (d0, 0)``;
- ``mg.broadcast``: a ``linalg.generic`` whose input map reads index 0 where the input has
  size 1, e.g. ``(d0, d1) -> (0, d1)``;
- ``mg.reduce``: ``linalg.fill`` with the reduction's identity, then a ``linalg.generic``
  whose output map drops the reduced loop, ``(d0, d1) -> (d0, 0)`` for axis 1, that loop a
  ``reduction``, the body the reduction's combine (``mg.REDUCTIONS``);
- ``mg.matmul``: ``linalg.fill`` with 0, then ``linalg.matmul`` (with batch axes a
  ``linalg.generic`` of the same maps, the batch loops parallel);
- ``mg.slice``, ``mg.transpose``, ``mg.reshape``: a *view* where a view is enough
  (``memref_views``: ``memref.subview`` of any slice, ``memref.reinterpret_cast`` for a
  transpose of static sizes and layout and a reshape of a contiguous buffer), no buffer and
  no loop; otherwise a copy: ``linalg.transpose`` (its permutation), the reshape's generic
  below, or, for a slice and a general reshape (a row-major position's digits are no
  affine map), as ``lower-mg-to-affine`` lowers them. A view of a ``var``'s buffer, or one
  that becomes a ``var``, is such a copy too (``Views``: an update in place would change it
  under the view or write through it). Last, a view read by an op that needs a contiguous
  buffer of identity layout (a return, a call, a print, a cast, an operand that
  ``vectorize-reductions`` would pass to a kernel, or one that ``tile-matmul`` would whose
  rows are not of unit stride, as a transpose's) is copied just before it (a copying
  ``linalg.generic``);
- ``mg.concat`` as ``lower-mg-to-affine`` lowers it;
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
from dataclasses import dataclass, field

from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import affine, func, memref
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ModuleOp, NoneAttr, StridedLayoutAttr, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, Use
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions import mg_lowering_common as common
from mg_xdsl.core import shapes
from mg_xdsl.dialects import mg
from mg_xdsl.dialects.mg import shape_of
from mg_xdsl.kernels.matmul import match_product
from mg_xdsl.kernels.reductions import match_reduction
from mg_xdsl.support.buffers import alloc, element_constant, element_type_of, extents
from mg_xdsl.support.op_builders import iterator_types, linalg_generic, linalg_yield
from mg_xdsl.transforms.memref.memref_views import VIEW_OPS, reshape_view, subview, transpose_view


class Sizes(dict[tuple[SSAValue, Block | None], list[int | SSAValue]]):
    """The sizes of the buffers of a function: those this pass allocated, the sizes it
    allocated them with; any other, read once (``memref.dim`` of each ``?``). So the sizes of
    a chain of ops on ``?`` shapes are the same values all along, and a check that compares
    a size with itself is left out (``a - a - a ...``: no check at all; the reference
    pipeline's ``lower-mg-to-affine`` makes 2 * 10^4 of them for 10^4 terms).

    Each entry is kept with the block it was computed in (that of the op being lowered,
    ``MgLowering.current_block``) and serves that block and the blocks nested in it: a size
    read in a loop's body or a branch is not visible after the loop or in the other branch
    (the ops are lowered in order, so an entry of an enclosing block comes before)."""

    def _find(self, v: SSAValue) -> list[int | SSAValue] | None:
        block = common.MgLowering.current_block
        while True:
            if (v, block) in self:
                return self[v, block]
            if block is None:
                return None
            block = block.parent_block()

    def of(self, v: SSAValue) -> list[int | SSAValue]:
        found = self._find(v)
        if found is None:
            found = self[v, common.MgLowering.current_block] = extents(v, shape_of(v.type))
        return found

    def alloc(self, result_type: Attribute, sizes: Sequence[int | SSAValue]) -> SSAValue:
        out = alloc(result_type, sizes)
        sizes = [d if d is not None else s for d, s in zip(shape_of(result_type), sizes)]
        self[out, common.MgLowering.current_block] = sizes
        return out


def generic(
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMap],
    out: SSAValue,
    out_map: AffineMap,
    parallel: Sequence[bool],
    body: Callable[[Sequence[SSAValue]], SSAValue],
) -> linalg.GenericOp:
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
        constants = [element_constant(c, args[0].type) for c in op.scalar_constants()]
        return op.compute(args[:-1], constants)

    return body


@dataclass
class ToLinalg(common.MgLowering[common.OpT]):
    """Base of this pass's patterns: they share the function's known sizes."""

    sizes: Sizes
    views: "Views"

    def elementwise(
        self, op: mg.ScalarComputation, inputs: Sequence[SSAValue], sizes: Sequence[int | SSAValue]
    ) -> SSAValue:
        in_place = mg.IN_PLACE in op.attributes
        out = op.operands[0] if in_place else self.sizes.alloc(op.results[0].type, sizes)
        identity = AffineMap.identity(len(sizes))
        generic(inputs, [identity] * len(inputs), out, identity, [True] * len(sizes), scalar_body(op))
        return out


class ElementwiseToLinalg(ToLinalg[mg.BinaryOp | mg.SelectOp]):
    op_type = (mg.BinaryOp, mg.SelectOp)

    def build(self, op: mg.BinaryOp | mg.SelectOp) -> SSAValue:
        sizes = common.elementwise_sizes(op, [self.sizes.of(x) for x in op.operands])
        return self.elementwise(op, list(op.operands), sizes)


class ReshapeToLinalg(ToLinalg[mg.ReshapeOp]):
    """A view of a contiguous input; else a copy: ``linalg.generic`` reading the input at the
    result's indices of the dimensions both have, 0 in a dimension of size 1 that the result
    drops (or, between other shapes, ``reshape_copy``)."""

    op_type = mg.ReshapeOp

    def build(self, op: mg.ReshapeOp) -> SSAValue:
        view = self.views.make(op, lambda: reshape_view(op.input, shape_of(op.result.type)))
        if view is not None:
            return view
        if not op.unit_dims_only():  # (no affine map reads a reshape between other shapes)
            return common.reshape_copy(op)
        mapping, sizes = common.reshape_sizes(op, self.sizes.of(op.input))
        out = self.sizes.alloc(op.result.type, sizes)
        rank = len(sizes)
        read = AffineMap(
            rank, 0, tuple(AffineExpr.constant(0) if t is None else AffineExpr.dimension(t) for t in mapping)
        )
        generic([op.input], [read], out, AffineMap.identity(rank), [True] * rank, lambda args: args[0])
        return out


class FullToLinalg(ToLinalg[mg.FullOp]):
    op_type = mg.FullOp

    def build(self, op: mg.FullOp) -> SSAValue:
        out = self.sizes.alloc(op.result.type, common.static_shape(op.result.type))
        fill(op.value.value.data, out)
        return out


class FullLikeToLinalg(ToLinalg[mg.FullLikeOp]):
    op_type = mg.FullLikeOp

    def build(self, op: mg.FullLikeOp) -> SSAValue:
        out = self.sizes.alloc(op.result.type, self.sizes.of(op.like))
        fill(op.value.value.data, out)
        return out


class ElementwiseUnaryToLinalg(ToLinalg[mg.ElementwiseUnaryOp | mg.ScalarOp | mg.ConvertOp]):
    op_type = (mg.ElementwiseUnaryOp, mg.ScalarOp, mg.ConvertOp)

    def build(self, op: mg.ElementwiseUnaryOp | mg.ScalarOp | mg.ConvertOp) -> SSAValue:
        return self.elementwise(op, [op.input], self.sizes.of(op.input))


def broadcast_map(in_shape: Sequence[int | None], out_shape: Sequence[int | None]) -> AffineMap:
    """Reads of an input broadcast to ``out_shape``: index 0 where it repeats (a size 1
    that grows); lower ranks are aligned on the right."""
    lead = len(out_shape) - len(in_shape)
    return AffineMap(
        len(out_shape),
        0,
        tuple(
            AffineExpr.constant(0) if r else AffineExpr.dimension(lead + d)
            for d, r in enumerate(shapes.repeated_dims(in_shape, out_shape))
        ),
    )


class BroadcastToLinalg(ToLinalg[mg.BroadcastOp]):
    op_type = mg.BroadcastOp

    def build(self, op: mg.BroadcastOp) -> SSAValue:
        in_shape, out_shape = shape_of(op.input.type), shape_of(op.result.type)
        out = self.sizes.alloc(op.result.type, common.broadcast_sizes(op, self.sizes.of))
        rank = len(out_shape)
        generic(
            [op.input],
            [broadcast_map(in_shape, out_shape)],
            out,
            AffineMap.identity(rank),
            [True] * rank,
            lambda args: args[0],
        )
        return out


def fill(value: float, out: SSAValue) -> None:
    linalg.FillOp([element_constant(value, element_type_of(out))], [out], res=())


class ReduceToLinalg(ToLinalg[mg.ReduceOp]):
    op_type = mg.ReduceOp

    def build(self, op: mg.ReduceOp) -> SSAValue:
        axis, reduction = op.axis.value.data, op.reduction
        in_sizes = self.sizes.of(op.input)
        out = self.sizes.alloc(op.result.type, [1 if d == axis else s for d, s in enumerate(in_sizes)])
        fill(reduction.identity, out)
        rank = len(in_sizes)
        out_map = AffineMap(
            rank, 0, tuple(AffineExpr.constant(0) if d == axis else AffineExpr.dimension(d) for d in range(rank))
        )
        generic(
            [op.input],
            [AffineMap.identity(rank)],
            out,
            out_map,
            [d != axis for d in range(rank)],
            lambda args: reduction.combine(args[1], args[0]).results[0],
        )  # (running value, element)
        return out


class MatmulToLinalg(ToLinalg[mg.MatmulOp]):
    """``linalg.matmul`` for matrices; with batch axes a ``linalg.generic`` over
    ``(b.., i, k, j)`` reading ``lhs[b.., i, k]`` and ``rhs[b.., k, j]`` into ``out[b.., i, j]``,
    ``k`` the one reduction loop."""

    op_type = mg.MatmulOp

    def build(self, op: mg.MatmulOp) -> SSAValue:
        lhs_sizes = self.sizes.of(op.lhs)
        out = self.sizes.alloc(op.result.type, common.matmul_sizes(lhs_sizes, self.sizes.of(op.rhs)))
        fill(0.0, out)
        rank = len(lhs_sizes)
        if rank == 2:
            linalg.MatmulOp([op.lhs, op.rhs], [out], res=())
            return out
        # Loops (b.., i, k, j): the innermost reads a row of rhs and of out, contiguously.
        batch = [AffineExpr.dimension(d) for d in range(rank - 2)]
        i, k, j = (AffineExpr.dimension(d) for d in range(rank - 2, rank + 1))
        maps = [AffineMap(rank + 1, 0, (*batch, i, k)), AffineMap(rank + 1, 0, (*batch, k, j))]
        generic(
            [op.lhs, op.rhs],
            maps,
            out,
            AffineMap(rank + 1, 0, (*batch, i, j)),
            [True] * (rank - 1) + [False, True],
            lambda args: mg.binary_arith("add", args[2], mg.binary_arith("mul", args[0], args[1])),
        )
        return out


class TransposeToLinalg(ToLinalg[mg.TransposeOp]):
    op_type = mg.TransposeOp

    def build(self, op: mg.TransposeOp) -> SSAValue:
        in_sizes, axes = self.sizes.of(op.input), op.axes()
        view = self.views.make(op, lambda: transpose_view(op.input, axes, in_sizes))
        if view is not None:
            return view
        out = self.sizes.alloc(op.result.type, [in_sizes[a] for a in axes])
        linalg.TransposeOp(op.input, out, DenseArrayBase.from_list(i64, axes))
        return out


class SliceToLinalg(ToLinalg[mg.SliceOp]):
    """A view (``memref.subview``) unless the sliced value is a ``var``'s buffer."""

    op_type = mg.SliceOp

    def build(self, op: mg.SliceOp) -> SSAValue:
        axis, start, stop = (a.value.data for a in (op.axis, op.start, op.stop))
        common.check_slice_stop(op, self.sizes.of(op.input))
        view = self.views.make(op, lambda: subview(op.input, axis, start, stop, self.sizes.of(op.input)))
        return view if view is not None else common.slice_copy(op, self.sizes.of(op.input))


@dataclass
class Views:
    """The views this pass makes, and the shape ops that must copy instead: those that read
    a ``var``'s buffer, which an update in place (``w += g``) would change under the view
    (``let v = slice(w, 0, 0, 2); w += 1``: ``v`` keeps the old values), or whose result
    becomes a ``var`` (an update would write through it)."""

    copied: set[Operation]
    made: list[SSAValue] = field(default_factory=list)

    @staticmethod
    def of(module: ModuleOp) -> "Views":
        updated = {v for op in module.walk() if mg.IN_PLACE in op.attributes for v in (op.operands[0], *op.results)}
        copied: set[Operation] = {
            op
            for op in module.walk()
            if isinstance(op, VIEW_MAKERS) and any(v in updated for v in (op.results[0], *_read_buffers(op)))
        }
        return Views(copied)

    def make(self, op: Operation, view: Callable[[], SSAValue | None]) -> SSAValue | None:
        made = None if op in self.copied else view()
        if made is not None:
            self.made.append(made)
        return made

    def copy_at_boundaries(self) -> None:
        """A view read by an op that needs a contiguous buffer of identity layout (a return, a
        call, a print, a cast, a kernel's operand) is copied just before it; ops that index
        through the layout (generics, transposes, loads, dims, further views) read it as it
        is. A reshape's view is contiguous: only a return copies it."""
        for view in self.made:
            block = view.owner.parent_block()
            if block is None:  # (the walker's dead-code elimination erased it: its reader was dead)
                continue
            for use in list(view.uses):
                if not reads_through_layout(use):
                    before = block.find_ancestor_op_in_block(use.operation)
                    assert before is not None
                    use.operation.operands[use.index] = contiguous_copy(view, before)


VIEW_MAKERS = (mg.SliceOp, mg.TransposeOp, mg.ReshapeOp)


def _read_buffers(op: Operation) -> list[SSAValue]:
    """The values whose buffer ``op``'s view would read: its input and, through views and
    casts, theirs."""
    found = []
    value = op.operands[0]
    while True:
        found.append(value)
        if not isinstance(value.owner, (*VIEW_MAKERS, mg.CastOp)):
            return found
        value = value.owner.operands[0]


def reads_through_layout(use: Use) -> bool:
    """Whether the op of ``use`` reads that operand, a view, through its layout as it is."""
    user = use.operation
    t = user.operands[use.index].type
    if isinstance(t, MemRefType) and isinstance(t.layout, NoneAttr):
        return not isinstance(user, func.ReturnOp)  # (a contiguous reshape; results own their buffer)
    if isinstance(user, (memref.LoadOp, affine.LoadOp, memref.DimOp, *VIEW_OPS)) and use.index == 0:
        return not isinstance(user, memref.CastOp)
    if not (isinstance(user, (linalg.GenericOp, linalg.TransposeOp, linalg.MatmulOp)) and use.index < len(user.inputs)):
        return False
    if match_reduction(user) is not None:  # (the reduction kernels take memref<?x?xT>)
        return False
    # The matrix-product kernel takes rows of unit stride from any offset and any distance
    # apart (a slice, a matrix of a batch): only a view whose rows are not so is copied.
    return match_product(user) is None or unit_rows(t)


def unit_rows(t: Attribute) -> bool:
    """Whether a memref of type ``t`` has its last dimension's elements next to each other."""
    return isinstance(t, MemRefType) and isinstance(t.layout, StridedLayoutAttr) and t.layout.get_strides()[-1] == 1


def contiguous_copy(view: SSAValue, before: Operation) -> SSAValue:
    """A new buffer of identity layout holding ``view``'s elements, filled before ``before``."""
    block = Block()
    with ImplicitBuilder(block):
        t = view.type
        assert isinstance(t, MemRefType)
        shape = shape_of(t)
        out = alloc(MemRefType(t.element_type, t.get_shape()), extents(view, shape))
        rank = len(shape)
        generic([view], [AffineMap.identity(rank)], out, AffineMap.identity(rank), [True] * rank, lambda args: args[0])
    for new in block.walk():
        new.location = before.location
    for new in list(block.ops):
        new.detach()
        Rewriter.insert_op(new, InsertPoint.before(before))
    return out


@dataclass(frozen=True)
class ConvertMgToLinalgPass(ModulePass):
    name = "convert-mg-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sizes = Sizes()  # values are unique to their function: one table serves them all
        views = Views.of(op)
        patterns: list[RewritePattern] = [
            common.ConstantLowering(op),
            ElementwiseToLinalg(sizes, views),
            FullLikeToLinalg(sizes, views),
            FullToLinalg(sizes, views),
            ReshapeToLinalg(sizes, views),
            SliceToLinalg(sizes, views),
            ElementwiseUnaryToLinalg(sizes, views),
            BroadcastToLinalg(sizes, views),
            ReduceToLinalg(sizes, views),
            MatmulToLinalg(sizes, views),
            TransposeToLinalg(sizes, views),
            *common.shared_patterns(op),
        ]
        common.lower_module(op, patterns)
        views.copy_at_boundaries()
