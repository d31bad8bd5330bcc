"""``lower-mg-to-affine``: mg ops on tensors -> affine loop nests on memrefs.

Every tensor becomes a memref of the same shape, and every mg op becomes a freshly
allocated result buffer filled by a nest of ``affine.for`` loops, one loop per dimension:

- elementwise ops (``mg.add/sub/mul/div/compare/select/neg/relu/scalar/convert``): one nest
  that loads each operand at ``[i, j]``, computes with ``arith`` and stores into the result
  (the op's own ``scalar``: relu is ``arith.maximumf(x, 0.0)``, which propagates NaN, on
  integers ``arith.maxsi``; an integer division checks its divisor); one computed in place
  (``mg.in_place``, ``w += g``) stores into its first operand's buffer, allocating nothing;
- ``mg.full_like``, ``mg.full``: one nest storing the value; ``mg.iota`` one storing each
  element's index along its axis; ``mg.random`` one storing each element's random number;
- ``mg.linear_scan``: a nest over the other dimensions, around an ``scf.for`` along the axis
  that carries the recurrence;
- ``mg.index``, ``mg.gather``: a nest over the ids (indices), each loaded, checked to be in
  range and cast to an ``index``, that copies what it names; ``mg.index_add``,
  ``mg.scatter_add``: a copy of ``base``, then such a nest adding each row (element) of
  ``values`` where its id names, in order (repeated ids accumulate);
- ``mg.reshape`` (dimensions of size 1 dropped or added): a copying nest;
- ``mg.broadcast``: one nest over the result that reads the input with index 0 in every
  dimension where the input has size 1;
- ``mg.reduce``: two nests, the first storing the start value (0 for a sum, -inf for a max)
  into every result cell, the second walking the input and folding each element into the
  cell of its row (``[i, 0]``, axis 1) or column (``[0, j]``, axis 0);
- ``mg.matmul``: a zero-fill nest, then an ``i, j, k`` nest accumulating ``a[i,k] * b[k,j]``
  (with batch axes, those loops outermost);
- ``mg.transpose``: one nest storing ``in[j, i]`` into ``out[i, j]`` (any permutation of the
  axes);
- ``mg.slice``: one nest reading ``start`` further along the axis; ``mg.concat`` one nest
  per input, storing it further along the axis; a general ``mg.reshape``
  (static shapes) one reading at the same row-major position;
- ``mg.cast``: a ``memref.cast``;
- ``mg.extract``: a ``memref.load`` of the element, stored into a rank-0 buffer;

Where sizes must agree but one of them is a ``?`` (elementwise operands, the inner
dimensions of a matrix product, a ``?`` passed as a static size), a ``cf.assert`` compares
them at run time with the message the program stops with, e.g. ``mg.add: operand shapes
differ at runtime in dimension 0``. Static shapes get no check.
- ``mg.constant``: a ``memref.global`` constant, read with ``memref.get_global``;
- ``mg.print``: a cast to ``memref<*xf64>`` and a call to ``printMemrefF64``, the printer of
  MLIR's runner library (provided by ``mg_xdsl.backend.runtime`` when JIT-compiling); an
  ``f32`` tensor to ``memref<*xf32>`` and ``printMemrefF32``, and so on
  (``element_types.PRINTERS``);
- ``mg.item``: a ``memref.load`` of the rank-0 buffer; ``mg.from_item``: a new rank-0 buffer
  and a ``memref.store``.

Function signatures, calls and returns change their tensor types to memref types last, and
then the front end's loops and conditionals (``scf.for`` with iteration arguments, ``scf.if``
with results), whose bodies' mg ops are lowered like any other: their results, iteration
arguments and yields carry memrefs (``mg_lowering_common.lower_control_flow``).

The patterns here are the ops that ``convert-mg-to-linalg`` lowers otherwise (to structured
ops); those of the ops that both lower alike, and the size checks, are in
``mg_lowering_common``.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern

from mg_xdsl.conversions import mg_lowering_common as common
from mg_xdsl.core import shapes
from mg_xdsl.dialects import mg
from mg_xdsl.dialects.mg import shape_of
from mg_xdsl.support.buffers import (
    alloc,
    element_constant,
    element_type_of,
    extents,
    index_constant,
    load,
    nest,
    result_buffer,
    store,
)


class ElementwiseLowering(common.MgLowering[mg.BinaryOp | mg.SelectOp]):
    """``mg.add/sub/mul/div/compare`` and ``mg.select``: ``out[ivs] = op(a[ivs], b[ivs], ...)``."""

    op_type = (mg.BinaryOp, mg.SelectOp)

    def build(self, op: mg.BinaryOp | mg.SelectOp) -> SSAValue:
        sizes = common.elementwise_sizes(op, [extents(x, shape_of(x.type)) for x in op.operands])
        out = result_buffer(op, sizes)

        def body(ivs: list[SSAValue]) -> None:
            store(op.compute([load(x, ivs) for x in op.operands], []), out, ivs)

        nest(sizes, body)
        return out


class ReshapeLowering(common.MgLowering[mg.ReshapeOp]):
    """``mg.reshape`` (dimensions of size 1 dropped or added): a copy, each element read at
    the result's indices of the dimensions both have, 0 in a dropped one."""

    op_type = mg.ReshapeOp

    def build(self, op: mg.ReshapeOp) -> SSAValue:
        if not op.unit_dims_only():
            return common.reshape_copy(op)
        mapping, sizes = common.reshape_sizes(op, extents(op.input, shape_of(op.input.type)))
        out = alloc(op.result.type, sizes)

        def body(ivs: list[SSAValue]) -> None:
            zero = index_constant(0)
            store(load(op.input, [zero if t is None else ivs[t] for t in mapping]), out, ivs)

        nest(sizes, body)
        return out


class FullLowering(common.MgLowering[mg.FullOp]):
    """``mg.full``: every element stored the value (made once, before the loops)."""

    op_type = mg.FullOp

    def build(self, op: mg.FullOp) -> SSAValue:
        value = element_constant(op.value.value.data, op.result.type.element_type)
        return common.filled(op.result.type, lambda ivs: value)


class FullLikeLowering(common.MgLowering[mg.FullLikeOp]):
    """``mg.full_like``: a buffer of ``like``'s sizes, every element stored the value."""

    op_type = mg.FullLikeOp

    def build(self, op: mg.FullLikeOp) -> SSAValue:
        sizes = extents(op.like, shape_of(op.like.type))
        out = alloc(op.result.type, sizes)
        value = element_constant(op.value.value.data, element_type_of(out))
        nest(sizes, lambda ivs: store(value, out, ivs))
        return out


class ElementwiseUnaryLowering(common.MgLowering[mg.ElementwiseUnaryOp | mg.ScalarOp | mg.ConvertOp]):
    """``mg.neg``, ``mg.relu`` and ``mg.scalar``: one load, the op's computation, one store;
    the numbers it needs (relu's 0.0, the scalar's) made once, before the nest."""

    op_type = (mg.ElementwiseUnaryOp, mg.ScalarOp, mg.ConvertOp)

    def build(self, op: mg.ElementwiseUnaryOp | mg.ScalarOp | mg.ConvertOp) -> SSAValue:
        sizes = extents(op.input, shape_of(op.result.type))
        out = result_buffer(op, sizes)
        element = element_type_of(op.input)
        constants = [element_constant(c, element) for c in op.scalar_constants()]

        def body(ivs: list[SSAValue]) -> None:
            store(op.compute([load(op.input, ivs)], constants), out, ivs)

        nest(sizes, body)
        return out


class BroadcastLowering(common.MgLowering[mg.BroadcastOp]):
    """``out[i, j] = in[i or 0, j or 0]``: index 0 in each dimension where the input has size
    1 and the result does not."""

    op_type = mg.BroadcastOp

    def build(self, op: mg.BroadcastOp) -> SSAValue:
        in_shape, out_shape = shape_of(op.input.type), shape_of(op.result.type)
        sizes = common.broadcast_sizes(op, lambda v: extents(v, shape_of(v.type)))
        out = alloc(op.result.type, sizes)
        repeated = shapes.repeated_dims(in_shape, out_shape)
        lead = len(out_shape) - len(in_shape)  # lower ranks are aligned on the right

        def body(ivs: list[SSAValue]) -> None:
            zero = index_constant(0)
            src = [zero if r else ivs[lead + d] for d, r in enumerate(repeated)]
            store(load(op.input, src), out, ivs)

        nest(sizes, body)
        return out


class ReduceLowering(common.MgLowering[mg.ReduceOp]):
    """Initialise every result cell (0 for sum, -inf for max), then walk the input and fold
    each element into ``out[i, 0]`` (axis 1: one value per row) or ``out[0, j]`` (axis 0)."""

    op_type = mg.ReduceOp

    def build(self, op: mg.ReduceOp) -> SSAValue:
        axis, reduction = op.axis.value.data, op.reduction
        element = element_type_of(op.input)
        in_sizes = extents(op.input, shape_of(op.input.type))
        out_sizes = [1 if d == axis else s for d, s in enumerate(in_sizes)]
        out = alloc(op.result.type, out_sizes)
        start = element_constant(reduction.identity, element)
        nest(out_sizes, lambda ivs: store(start, out, ivs))

        def accumulate(ivs: list[SSAValue]) -> None:
            zero = index_constant(0)
            dst = [zero if d == axis else iv for d, iv in enumerate(ivs)]
            acc = load(out, dst)
            x = load(op.input, ivs)
            store(reduction.combine(acc, x).results[0], out, dst)

        nest(in_sizes, accumulate)
        return out


class MatmulLowering(common.MgLowering[mg.MatmulOp]):
    """``out[.., i, j] = sum over k of lhs[.., i, k] * rhs[.., k, j]``, summed in order of k
    (``..``: the batch indices, if any)."""

    op_type = mg.MatmulOp

    def build(self, op: mg.MatmulOp) -> SSAValue:
        lhs_sizes = extents(op.lhs, shape_of(op.lhs.type))
        sizes = common.matmul_sizes(lhs_sizes, extents(op.rhs, shape_of(op.rhs.type)))
        out = alloc(op.result.type, sizes)
        zero = element_constant(0.0, element_type_of(op.lhs))
        nest(sizes, lambda ivs: store(zero, out, ivs))

        def accumulate(ivs: list[SSAValue]) -> None:
            *batch, i, j, kk = ivs
            product = mg.binary_arith("mul", load(op.lhs, [*batch, i, kk]), load(op.rhs, [*batch, kk, j]))
            store(mg.binary_arith("add", load(out, [*batch, i, j]), product), out, [*batch, i, j])

        nest([*sizes, lhs_sizes[-1]], accumulate)
        return out


class TransposeLowering(common.MgLowering[mg.TransposeOp]):
    """``out[i, j] = in[j, i]`` (for rank N, the indices reversed)."""

    op_type = mg.TransposeOp

    def build(self, op: mg.TransposeOp) -> SSAValue:
        in_sizes = extents(op.input, shape_of(op.input.type))
        axes = op.axes()
        sizes = [in_sizes[a] for a in axes]
        out = alloc(op.result.type, sizes)

        def body(ivs: list[SSAValue]) -> None:
            at = list(ivs)
            for i, a in enumerate(axes):  # (the result's axis i is the input's axis a)
                at[a] = ivs[i]
            store(load(op.input, at), out, ivs)

        nest(sizes, body)
        return out


class SliceLowering(common.MgLowering[mg.SliceOp]):
    """``mg.slice``: a copy, each element read ``start`` further along the axis; a ``stop``
    beyond a ``?`` size is checked first."""

    op_type = mg.SliceOp

    def build(self, op: mg.SliceOp) -> SSAValue:
        in_sizes = extents(op.input, shape_of(op.input.type))
        common.check_slice_stop(op, in_sizes)
        return common.slice_copy(op, in_sizes)


@dataclass(frozen=True)
class LowerMgToAffinePass(ModulePass):
    name = "lower-mg-to-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [
            common.ConstantLowering(op),
            ElementwiseLowering(),
            FullLikeLowering(),
            FullLowering(),
            ReshapeLowering(),
            ElementwiseUnaryLowering(),
            BroadcastLowering(),
            ReduceLowering(),
            MatmulLowering(),
            TransposeLowering(),
            SliceLowering(),
            *common.shared_patterns(op),
        ]
        common.lower_module(op, patterns)
