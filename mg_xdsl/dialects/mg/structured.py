"""The ops whose loops are not one per element: the matrix product, reductions, broadcasts
and the linear scan.
"""

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import ShapeError, fmt_shape
from mg_xdsl.dialects.mg.base import (
    MOVES,
    Differentiable,
    LoweredElementTypes,
    MgOp,
    inferred_type,
    shape_of,
    tensor_type,
    tensor_type_of,
)
from mg_xdsl.dialects.mg.scalar import INTEGER_REDUCTIONS, REDUCTIONS, Reduction, binary_arith

if TYPE_CHECKING:
    from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder

Adjoints = Sequence[SSAValue | None]


@irdl_op_definition
class MatmulOp(MgOp, Differentiable):
    """The matrix product ``(M x K) @ (K x N) -> (M x N)``, or one per index of the leading
    (batch) axes, which both operands have alike: ``(B x M x K) @ (B x K x N)``."""

    name = "mg.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.ACCUMULATING))
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            result_type = inferred_type(self.name, lhs, shapes.matmul_shape, shape_of(lhs.type), shape_of(rhs.type))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        self.check_same_element_type(self.lhs, self.rhs, self.result)
        try:
            want = shapes.matmul_shape(shape_of(self.lhs.type), shape_of(self.rhs.type))
        except ShapeError as e:
            raise self.fail(str(e)) from None
        got = shape_of(self.result.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(got)}")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``A @ B``: ``g @ B^T`` for ``A``, ``A^T @ g`` for ``B`` (each matrix of a batch)."""
        a, b = self.lhs, self.rhs
        return [
            d.matmul(g, d.swap_last_two(b)) if d.active(a) else None,
            d.matmul(d.swap_last_two(a), g) if d.active(b) else None,
        ]


REDUCE_KINDS = tuple(REDUCTIONS)


@irdl_op_definition
class ReduceOp(MgOp, Differentiable):
    """Reduce along one axis with ``sum``, ``max``, ``prod`` or ``min``; the axis collapses
    to size 1.

    ``axis = 1`` combines the elements of each row (an M x 1 result), ``axis = 0`` those of
    each column (1 x N).
    """

    name = "mg.reduce"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    kind = prop_def(StringAttr)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.ACCUMULATING))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axis: int, kind: str, result_type: Attribute | None = None):
        if result_type is None:
            result_type = inferred_type(self.name, input, shapes.reduce_shape, shape_of(input.type), axis)
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64), "kind": StringAttr(kind)},
        )

    @property
    def reduction(self) -> Reduction:
        integer = element_types.is_integer(self.input.type)
        return (INTEGER_REDUCTIONS if integer else REDUCTIONS)[self.kind.data]

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        in_shape, out_shape = shape_of(self.input.type), shape_of(self.result.type)
        axis = self.axis.value.data
        try:
            shapes.check_axis(len(in_shape), axis)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        if self.kind.data not in REDUCE_KINDS:
            raise self.fail(f"kind must be one of {', '.join(REDUCE_KINDS)}, got '{self.kind.data}'")
        want = shapes.reduce_shape(in_shape, axis)
        if out_shape[axis : axis + 1] != (1,) or not shapes.shapes_compatible(want, out_shape):
            raise self.fail(
                f"reducing axis {axis} of {self.input.type} must give a result with that "
                f"axis of size 1, got {self.result.type}"
            )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``sum``: ``g`` repeated along the axis; ``prod``: ``g * result / x`` (not defined
        where an element is 0); ``max``/``min``: ``g`` shared equally by the elements equal
        to the result (JAX's rule for ties)."""
        x, kind = self.input, self.kind.data
        if kind == "sum":
            return [d.broadcast_like(g, x)]
        if kind == "prod":
            return [d.div(d.broadcast_like(d.mul(g, self.result), x), x)]
        chosen = d.compare(x, d.broadcast_like(self.result, x), "eq")
        count = d.sum_axis(d.convert(chosen, tensor_type_of(g).element_type), self.axis.value.data)
        return [d.only_where(chosen, d.broadcast_like(d.div(g, count), x))]


@irdl_op_definition
class BroadcastOp(MgOp, Differentiable):
    """Repeat a tensor to fill a larger shape: leading dimensions are added, each static 1
    grows to a static size, and every other dimension (``?`` included) stays as it is
    (``tensor<?x1xf64> -> tensor<?x10xf64>``, ``tensor<3xf64> -> tensor<2x3xf64>``). An added
    dimension may be a ``?`` (a rank-0 or lower-rank tensor against one with ``?`` sizes, as
    NumPy broadcasts), and so may one that grows from a static 1 (``broadcast_to(m,
    shape(x))``): its size is read from the first ``like`` operand (right-aligned like the
    input) that has a ``?`` there:
    ``mg.broadcast %b like %x : tensor<3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>``,
    ``mg.broadcast %m like %x : tensor<?x1xf64>, tensor<?x?xf64> -> tensor<?x?xf64>``."""

    name = "mg.broadcast"
    input = operand_def(TensorType)
    like = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = MOVES
    assembly_format = "$input (`like` $like^)? attr-dict `:` type($input) (`,` type($like)^)? `->` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute, like: Sequence[SSAValue] = ()):
        super().__init__(operands=[input, list(like)], result_types=[result_type])

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        in_shape, out_shape = shape_of(self.input.type), shape_of(self.result.type)
        d = shapes.broadcast_blocker(in_shape, out_shape, grows_to_unknown=True)
        if d is not None:
            raise self.fail(
                f"dimension {d} of {self.input.type} can only stay as it is or grow from a "
                f"static 1, not to {self.result.type}"
            )
        for d in range(len(out_shape)):
            if out_shape[d] is None and grows(self, d) and size_source(self, d) is None:
                raise self.fail(
                    f"dimension {d} of {self.result.type} is '?' where the input has none or a "
                    "static 1: a like operand must have a '?' there to give its size"
                )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``g`` summed over the axes the broadcast added or grew (the like operands only
        give sizes)."""
        return [d.sum_to(g, self.input), *(None for _ in self.like)]


@irdl_op_definition
class ArgReduceOp(MgOp):
    """The position of the largest (``kind = "max"``) or smallest (``"min"``) element along
    ``axis``, which the result drops, as ``i64`` (NumPy's ``argmax``/``argmin``): the first
    of equal ones, and the first NaN where there is one (NumPy's rule, since NaN compares
    above and below everything there). ``mg.arg_reduce %x {axis = 1 : i64, kind = "max"} :
    tensor<3x4xf64> -> tensor<3xi64>``."""

    name = "mg.arg_reduce"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    kind = prop_def(StringAttr)
    traits = traits_def(Pure(), LoweredElementTypes(element_types.STORED))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axis: int, kind: str):
        shape = tuple(s for d, s in enumerate(shape_of(input.type)) if d != axis)
        super().__init__(
            operands=[input],
            result_types=[tensor_type(shape, i64)],
            properties={"axis": IntegerAttr(axis, i64), "kind": StringAttr(kind)},
        )

    def verify_(self) -> None:
        shape, axis = shape_of(self.input.type), self.axis.value.data
        if self.kind.data not in ("max", "min"):
            raise self.fail(f"kind must be max or min, got '{self.kind.data}'")
        if not 0 <= axis < len(shape):
            raise self.fail(f"axis {axis} is out of range for rank {len(shape)}")
        want = tuple(s for d, s in enumerate(shape) if d != axis)
        if shape_of(self.result.type) != want or tensor_type_of(self.result).element_type != i64:
            raise self.fail(f"the result must be {fmt_shape(want)} of i64, got {self.result.type}")


def grows(op: BroadcastOp, d: int) -> bool:
    """Whether the result's dimension ``d`` is added in front or grows from a static 1."""
    in_shape, rank = shape_of(op.input.type), len(shape_of(op.result.type))
    pos = d - (rank - len(in_shape))
    return pos < 0 or in_shape[pos] == 1 and shape_of(op.result.type)[d] != 1


def size_source(op: BroadcastOp, d: int) -> tuple[SSAValue, int] | None:
    """The ``like`` operand of ``op`` whose size gives the result's added dimension ``d``
    (a ``?``), and that dimension of it; ``None`` if none has a ``?`` there."""
    rank = len(shape_of(op.result.type))
    for v in op.like:
        pos = d - (rank - len(shape_of(v.type)))
        if pos >= 0 and shape_of(v.type)[pos] is None:
            return v, pos
    return None


@irdl_op_definition
class LinearScanOp(MgOp, Differentiable):
    """The first-order linear recurrence along ``axis``: ``h[t] = a[t] * h[t-1] + b[t]`` from
    ``h = 0`` (so ``h[0] = b[0]``), from the end if ``reverse``; ``a``, ``b`` and the result of
    one shape and type (``cumsum`` is ``a = 1``). ``bf16`` is carried in ``f32`` and rounded
    once per element. ``mg.linear_scan %a, %b {axis = 0 : i64, reverse = false} : tensor<4x3xf64>,
    tensor<4x3xf64> -> tensor<4x3xf64>``."""

    name = "mg.linear_scan"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    reverse = prop_def(BoolAttr)
    traits = traits_def(Pure(), LoweredElementTypes())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)"

    def __init__(self, a: SSAValue, b: SSAValue, axis: int, reverse: bool, result_type: Attribute | None = None):
        super().__init__(
            operands=[a, b],
            result_types=[result_type or b.type],
            properties={"axis": IntegerAttr(axis, i64), "reverse": BoolAttr.from_bool(reverse)},
        )

    def verify_(self) -> None:
        self.check_elementwise(self.a, self.b, self.result)
        try:
            shapes.check_axis(len(shape_of(self.result.type)), self.axis.value.data)
        except ShapeError as e:
            raise self.fail(str(e)) from None

    def step(self, a: SSAValue, b: SSAValue, h: SSAValue) -> SSAValue:
        """``a * h + b`` on elements (of the type the recurrence is carried in)."""
        return binary_arith("add", binary_arith("mul", a, h), b)

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``h[t] = a[t] * h[t-1] + b[t]``: the adjoint of ``h``, ``lam[t] = g[t] + a[t+1] *
        lam[t+1]``, is the same recurrence run the other way with ``a`` moved one place
        (``lam[t] = g[t]`` at the end), and it is ``b``'s adjoint; ``a``'s is ``lam[t] *
        h[t-1]`` (``h[-1] = 0``). ``reverse`` swaps the directions. (A ``cumsum``'s ``a`` is a
        ``full_like``, a constant: it needs no moving, its last element multiplying the
        scan's start, 0, and it gets no adjoint.)"""
        axis, reverse = self.axis.value.data, self.reverse.value.data
        step = -1 if reverse else 1  # h[t-1] is h moved one place by `step`
        a = self.a
        c = d.constant(a)
        next_a = a if c is not None and math.isfinite(c) else d.shift(a, axis, -step)
        lam = d.linear_scan(next_a, g, axis, reverse=not reverse)
        return [
            d.mul(lam, d.shift(self.result, axis, step)) if d.varies(a) else None,
            lam if d.varies(self.b) else None,
        ]
