"""The words the ops' derivative rules are written in (a helper module: no op, no pass).

Reverse-mode differentiation (``mg-autodiff``) asks each op on the path from the inputs to
the differentiated value for its rule, ``op.adjoints(d, g)``: given ``g``, the adjoint of
the op's result (how much the final value changes per unit change of each of its elements),
the adjoint of each operand (its vector-Jacobian product, as JAX's transpose rules and
Enzyme's ``AutoDiffOpInterface`` give it). A rule is mathematics: ``mul``'s is
``[d.mul(g, b), d.mul(g, a)]``. ``AdjointBuilder`` is the vocabulary it is said in: every
method builds mg ops at the builder's insertion point (``ImplicitBuilder``), so the rules
neither import the op classes nor place ops themselves, and no op module imports another to
state its rule.

The shapes a rule meets: elementwise operands have agreeing shapes (the front end inserts
every broadcast as ``mg.broadcast``), but one may know a size statically where the other
has ``?``; ``like`` casts an adjoint to exactly its value's type.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import Attribute, SSAValue

from mg_xdsl.core import element_types
from mg_xdsl.dialects.mg import creation, elementwise, indexing, items, shape, structured
from mg_xdsl.dialects.mg.base import shape_of, tensor_type, tensor_type_of


@dataclass
class AdjointBuilder:
    """Builds a rule's mg ops; ``active(v)`` says whether ``v``'s adjoint is wanted at all
    (it depends on a value differentiated with respect to), so a rule can skip the others."""

    active: Callable[[SSAValue], bool]

    # -- arithmetic ----------------------------------------------------------------------

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return elementwise.AddOp(a, b).result

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return elementwise.SubOp(a, b).result

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return elementwise.MulOp(a, b).result

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return elementwise.DivOp(a, b).result

    def neg(self, a: SSAValue) -> SSAValue:
        return elementwise.NegOp(a).result

    def scale(self, a: SSAValue, number: float) -> SSAValue:
        """``a * number``."""
        return elementwise.ScalarOp(a, "mul", number, reversed=False).result

    def plus(self, a: SSAValue, number: float) -> SSAValue:
        """``a + number``."""
        return elementwise.ScalarOp(a, "add", number, reversed=False).result

    def pow(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return elementwise.PowOp(a, b).result

    def square(self, a: SSAValue) -> SSAValue:
        return self.mul(a, a)

    def sqrt(self, a: SSAValue) -> SSAValue:
        return elementwise.SqrtOp(a).result

    def log(self, a: SSAValue) -> SSAValue:
        return elementwise.LogOp(a).result

    def sin(self, a: SSAValue) -> SSAValue:
        return elementwise.SinOp(a).result

    def cos(self, a: SSAValue) -> SSAValue:
        return elementwise.CosOp(a).result

    # -- masks ---------------------------------------------------------------------------

    def compare(self, a: SSAValue, b: SSAValue, predicate: str) -> SSAValue:
        return elementwise.CompareOp(a, b, predicate).result

    def compare_number(self, a: SSAValue, predicate: str, number: float) -> SSAValue:
        """``a predicate number``, an ``i1`` tensor."""
        return elementwise.ScalarOp(a, predicate, number, reversed=False).result

    def where(self, mask: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return elementwise.SelectOp(mask, a, b).result

    def full_like(self, like: SSAValue, value: float, element: Attribute | None = None) -> SSAValue:
        """A tensor of ``like``'s shape, every element ``value`` (of ``like``'s element type)."""
        return creation.FullLikeOp(like, value, element or tensor_type_of(like).element_type).result

    def only_where(self, mask: SSAValue, g: SSAValue) -> SSAValue:
        """``g`` where ``mask`` holds, else 0."""
        return self.where(mask, g, self.full_like(g, 0.0))

    def convert(self, a: SSAValue, element: Attribute) -> SSAValue:
        if tensor_type_of(a).element_type == element:
            return a
        return elementwise.ConvertOp(a, element).result

    # -- shapes ----------------------------------------------------------------------------

    def like(self, g: SSAValue, value: SSAValue) -> SSAValue:
        """``g`` with exactly ``value``'s type: sizes one knows statically and the other as
        ``?`` made ``value``'s (``mg.cast``)."""
        if g.type == value.type:
            return g
        return shape.CastOp(g, value.type).result

    def reshape(self, g: SSAValue, t: Attribute) -> SSAValue:
        return g if g.type == t else shape.ReshapeOp(g, t).result

    def transpose(self, g: SSAValue, permutation: Sequence[int] | None = None) -> SSAValue:
        return shape.TransposeOp(g, permutation=permutation).result

    def swap_last_two(self, g: SSAValue) -> SSAValue:
        """The matrix transpose of each matrix of a batch (the last two axes swapped)."""
        rank = len(shape_of(g.type))
        return self.transpose(g, None if rank == 2 else [*range(rank - 2), rank - 1, rank - 2])

    def broadcast_like(self, g: SSAValue, x: SSAValue) -> SSAValue:
        """``g`` (``x``'s shape with some axes of size 1) repeated to ``x``'s shape, ``x``
        giving the run-time sizes of its ``?`` axes."""
        if shape_of(g.type) == shape_of(x.type):
            return self.like(g, x)
        t = tensor_type(shape_of(x.type), tensor_type_of(g).element_type)
        return structured.BroadcastOp(g, t, [x]).result

    def accumulating(self, build: Callable[..., SSAValue], *operands: SSAValue) -> SSAValue:
        """``build(*operands)``, an op that accumulates (a sum, a product), on the operands
        converted to the type their element type accumulates in, the result converted back:
        a ``bf16`` sum is computed in ``f32`` and rounded once, as the forward ops' are (the
        front end's ``accumulating``; ``mg.reduce`` and ``mg.matmul`` take no ``bf16``)."""
        element = tensor_type_of(operands[0]).element_type
        wide = element_types.accumulates_in(element)
        return self.convert(build(*(self.convert(v, wide) for v in operands)), element)

    def sum_axis(self, g: SSAValue, axis: int) -> SSAValue:
        """``g`` summed along ``axis``, kept with size 1."""
        return self.accumulating(lambda g: structured.ReduceOp(g, axis, "sum").result, g)

    def sum_to(self, g: SSAValue, x: SSAValue) -> SSAValue:
        """The adjoint of broadcasting ``x`` to ``g``'s shape: ``g`` summed over the axes the
        broadcast added in front and those it grew from 1, so it has ``x``'s shape (all of
        them in the type ``g``'s accumulates in, rounded once)."""
        out, into = shape_of(g.type), shape_of(x.type)
        added = len(out) - len(into)
        axes = [axis for axis in range(len(out)) if axis < added or into[axis - added] == 1 and out[axis] != 1]

        def summed(g: SSAValue) -> SSAValue:
            for axis in axes:
                g = structured.ReduceOp(g, axis, "sum").result
            return g

        if axes:
            g = self.accumulating(summed, g)
        return self.like(self.reshape(g, tensor_type(into, tensor_type_of(g).element_type)), x)

    def matmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.accumulating(lambda a, b: structured.MatmulOp(a, b).result, a, b)

    def slice(self, g: SSAValue, axis: int, start: int, stop: int) -> SSAValue:
        return shape.SliceOp(g, axis, start, stop).result

    def concat(self, parts: Sequence[SSAValue], axis: int, result_type: Attribute) -> SSAValue:
        return shape.ConcatOp(parts, axis, result_type).result

    def tensor_type(self, value: SSAValue) -> TensorType:
        return tensor_type_of(value)

    # -- constants -------------------------------------------------------------------------

    def constant(self, v: SSAValue) -> float | None:
        """The number every element of ``v`` is, where an ``mg.full_like`` makes it (the ``1``
        of a ``cumsum``'s scan, ``zeros_like(x)``), else ``None``."""
        op = v.owner
        return float(op.value.value.data) if isinstance(op, creation.FullLikeOp) else None

    def varies(self, v: SSAValue) -> bool:
        """Whether ``v``'s adjoint is wanted and its value can change with a variable: a
        ``full_like`` reads its operand for its shape only, so it is a constant however
        ``active`` it looks."""
        return self.active(v) and self.constant(v) is None

    # -- positions -------------------------------------------------------------------------

    def positions(self, like: SSAValue, axis: int, from_end: bool = False) -> SSAValue:
        """Each element's index along ``axis`` (counted from the end, the last 0, where
        ``from_end``): an ``i64`` tensor of ``like``'s shape. An ``mg.iota`` of a static
        shape; of ``?`` sizes, the running count of ones along the axis, less one."""
        shape = shape_of(like.type)
        if None not in shape:
            iota = creation.IotaOp(tensor_type(shape, i64), axis).result
            size = shape[axis]
            assert size is not None
            return elementwise.ScalarOp(iota, "sub", size - 1, reversed=True).result if from_end else iota
        ones = self.full_like(like, 1, i64)
        count = self.linear_scan(ones, ones, axis, reverse=from_end)
        return elementwise.ScalarOp(count, "sub", 1, reversed=False).result

    def offset(self, positions: SSAValue, start: int | SSAValue) -> SSAValue:
        """``positions`` (an ``i64`` tensor) plus ``start``: a number, or a rank-0 integer
        tensor known when the program runs."""
        if isinstance(start, int):
            return elementwise.ScalarOp(positions, "add", start, reversed=False).result if start else positions
        start = self.convert(start, i64)
        return self.add(positions, structured.BroadcastOp(start, positions.type, [positions]).result)

    def size(self, x: SSAValue, axis: int) -> int | SSAValue:
        """``x``'s size along ``axis``: a number if static, else a rank-0 ``i64`` tensor
        (``mg.size``) known when the program runs."""
        size = shape_of(x.type)[axis]
        return size if size is not None else items.SizeOp(x, [axis]).result

    def add_sizes(self, a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
        """The sum of two sizes, each a number or a rank-0 ``i64`` tensor (``size``)."""
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) or isinstance(b, int):
            number, tensor = (a, b) if isinstance(a, int) else (b, a)
            assert isinstance(number, int) and not isinstance(tensor, int)
            return self.offset(tensor, number)
        return self.add(a, b)

    # -- scans -----------------------------------------------------------------------------

    def linear_scan(self, a: SSAValue, b: SSAValue, axis: int, reverse: bool) -> SSAValue:
        """``h[t] = a[t] * h[t-1] + b[t]`` along ``axis`` from ``h = 0`` (from the end if
        ``reverse``), of ``b``'s type."""
        return structured.LinearScanOp(a, b, axis, reverse).result

    def shift(self, x: SSAValue, axis: int, step: int) -> SSAValue:
        """``x`` moved one place along ``axis``, a zero filling the place left:
        ``out[t] = x[t - 1]`` (``out[0] = 0``) for ``step = 1``, ``out[t] = x[t + 1]`` (the last
        0) for ``step = -1``. A static size: a slice and a zero concatenated; a ``?`` size: a
        ``gather`` at the positions one over, masked at the end that has none."""
        assert step in (1, -1), step
        size = shape_of(x.type)[axis]
        if size is not None:
            if size == 1:
                return self.full_like(x, 0.0)
            zero = self.full_like(self.slice(x, axis, 0, 1), 0.0)
            if step == 1:
                return self.concat([zero, self.slice(x, axis, 0, size - 1)], axis, x.type)
            return self.concat([self.slice(x, axis, 1, size), zero], axis, x.type)
        position = self.positions(x, axis)
        edge = self.compare_number(position if step == 1 else self.positions(x, axis, from_end=True), "eq", 0)
        # the position read: one over, or the element's own at the edge (masked anyway)
        source = self.where(edge, position, self.offset(position, -step))
        return self.where(edge, self.full_like(x, 0.0), self.gather(x, source, axis))

    # -- indexing --------------------------------------------------------------------------

    def index(self, table: SSAValue, ids: SSAValue) -> SSAValue:
        """The rows of ``table`` that ``ids`` name (NumPy's ``table[ids]``)."""
        return indexing.IndexOp(table, ids).result

    def index_add(self, base: SSAValue, ids: SSAValue, values: SSAValue) -> SSAValue:
        """``base`` with each row of ``values`` added at the row its id names."""
        return indexing.IndexAddOp(base, ids, values).result

    def gather(self, x: SSAValue, idx: SSAValue, axis: int) -> SSAValue:
        """The elements of ``x`` along ``axis`` at the positions in ``idx`` (of its shape)."""
        return indexing.GatherOp(x, idx, axis).result

    def scatter_add(self, base: SSAValue, idx: SSAValue, values: SSAValue, axis: int) -> SSAValue:
        """``base`` with each element of ``values`` added along ``axis`` at its ``idx``."""
        return indexing.ScatterAddOp(base, idx, values, axis).result

    def dynamic_slice(self, x: SSAValue, start: SSAValue, axis: int, size: int) -> SSAValue:
        """``size`` elements of ``x`` along ``axis`` from ``start``, a rank-0 integer tensor."""
        return shape.DynamicSliceOp(x, start, axis, size).result

    def part(self, g: SSAValue, like: SSAValue, axis: int, start: int | SSAValue) -> SSAValue:
        """The part of ``g`` along ``axis`` from ``start`` (a number or a rank-0 ``i64``
        tensor) that has ``like``'s size there (a ``slice``, a ``dynamic_slice``, or for a
        ``?`` size a ``gather`` at ``like``'s positions there plus ``start``)."""
        size = shape_of(like.type)[axis]
        if size is not None and isinstance(start, int):
            return self.slice(g, axis, start, start + size)
        if size is not None:
            assert not isinstance(start, int)
            return self.dynamic_slice(g, start, axis, size)
        return self.gather(g, self.offset(self.positions(like, axis), start), axis)

    def place(self, g: SSAValue, x: SSAValue, axis: int, start: int | SSAValue) -> SSAValue:
        """Zeros of ``x``'s shape with ``g`` (``x``'s sizes off ``axis``, a static one along
        it) added from ``start`` along ``axis`` (a number or a rank-0 integer tensor): the
        adjoint of a slice. Along axis 0 an ``index_add`` of ``g``'s rows at ``start`` plus
        an ``iota``, along another a ``scatter_add`` at ``g``'s positions plus ``start``."""
        zeros = self.full_like(x, 0.0)
        count = shape_of(g.type)[axis]
        if axis == 0 and count is not None:
            ids = self.offset(creation.IotaOp(tensor_type((count,), i64), 0).result, start)
            return self.index_add(zeros, ids, g)
        return self.scatter_add(zeros, self.offset(self.positions(g, axis), start), g, axis)

    def at(self, g: SSAValue, x: SSAValue, indices: Sequence[int]) -> SSAValue:
        """Zeros of ``x``'s shape with ``g`` (rank 0) at ``indices`` (one per axis; a
        negative one counts from the end): ``g`` broadcast, masked to the place where every
        axis' position is its index (the adjoint of ``mg.extract``)."""
        out = self.broadcast_like(g, x)
        for axis, index in enumerate(indices):
            size = shape_of(x.type)[axis]
            if size == 1:  # (every position is the index)
                continue
            if size is not None and index < 0:
                index += size
            position = self.positions(x, axis, from_end=index < 0)
            out = self.only_where(self.compare_number(position, "eq", -index - 1 if index < 0 else index), out)
        return out
