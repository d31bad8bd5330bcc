"""The ops that move elements without computing: transpose, concat, slice, reshape, and the
cast between static and ``?`` sizes.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import ShapeError, fmt_dim, fmt_shape
from mg_xdsl.dialects.mg.base import (
    CHECK_MESSAGES,
    MOVES,
    Differentiable,
    MgOp,
    UnaryOp,
    shape_of,
    tensor_type,
    tensor_type_of,
)

if TYPE_CHECKING:
    from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder

Adjoints = Sequence[SSAValue | None]


@irdl_op_definition
class TransposeOp(UnaryOp, Differentiable):
    """The axes permuted: ``mg.transpose %x : tensor<2x3xf64> to tensor<3x2xf64>`` reverses
    them (rows become columns); ``{permutation = array<i64: 0, 2, 1>}`` makes the result's
    axis ``i`` the input's axis ``permutation[i]``."""

    name = "mg.transpose"
    permutation = opt_prop_def(DenseArrayBase.constr(i64))
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute | None = None, permutation: Sequence[int] | None = None):
        if result_type is None:
            result_type = tensor_type(
                shapes.transpose_shape(shape_of(input.type), permutation), tensor_type_of(input).element_type
            )
        super().__init__(input, result_type)
        if permutation is not None:
            self.permutation = DenseArrayBase.from_list(i64, list(permutation))

    def axes(self) -> list[int]:
        """The input's axis of each of the result's."""
        rank = len(shape_of(self.input.type))
        return list(self.permutation.get_values()) if self.permutation is not None else list(range(rank))[::-1]

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        rank = len(shape_of(self.input.type))
        if sorted(self.axes()) != list(range(rank)):
            raise self.fail(f"the permutation must order the axes 0 to {rank - 1}, got {self.axes()}")
        want = shapes.transpose_shape(shape_of(self.input.type), self.axes())
        got = shape_of(self.result.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(got)}")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``g`` transposed back by the inverse permutation."""
        inverse = [0] * len(self.axes())
        for result_axis, input_axis in enumerate(self.axes()):
            inverse[input_axis] = result_axis
        return [d.transpose(g, inverse)]


@irdl_op_definition
class ConcatOp(MgOp, Differentiable):
    """Tensors of one rank and element type one after another along ``axis``, their other
    sizes equal (a ``?`` checked when the program runs): ``mg.concat %a, %b {axis = 0 :
    i64} : tensor<2x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>``."""

    name = "mg.concat"
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` type($inputs) `->` type($result)"

    def __init__(self, inputs: Sequence[SSAValue], axis: int, result_type: Attribute):
        super().__init__(
            operands=[list(inputs)], result_types=[result_type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def verify_(self) -> None:
        if not self.inputs:
            raise self.fail("there must be at least one input")
        self.check_same_element_type(*self.inputs, self.result)
        found = [shape_of(v.type) for v in self.inputs]
        result, axis = shape_of(self.result.type), self.axis.value.data
        try:
            shapes.check_axis(len(result), axis)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        off = [s[:axis] + s[axis + 1 :] for s in [*found, result]]
        if any(len(s) != len(result) for s in found) or any(not shapes.shapes_compatible(off[0], o) for o in off):
            raise self.fail(
                "the inputs and the result must have one rank and equal sizes off the axis, got "
                + ", ".join(fmt_shape(s) for s in [*found, result])
            )
        sizes = [s[axis] for s in found]
        known = [s for s in sizes if s is not None]
        want = sum(known) if len(known) == len(sizes) else None
        if not shapes.dims_compatible(want, result[axis]):
            raise self.fail(
                f"the result's size along the axis must be the inputs' sum {fmt_dim(want)}, got {fmt_dim(result[axis])}"
            )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """Each input's part of ``g``: a ``slice`` where the sizes before it and its own are
        static; after a ``?`` size, from a start known when the program runs (its sizes,
        ``mg.size``), a ``dynamic_slice``, or for a ``?`` size of its own a ``gather``."""
        axis = self.axis.value.data
        start: int | SSAValue = 0
        adjoints: list[SSAValue | None] = []
        for i, x in enumerate(self.inputs):
            adjoints.append(d.part(g, x, axis, start) if d.active(x) else None)
            if i + 1 < len(self.inputs):  # (the start after the last is not needed)
                start = d.add_sizes(start, d.size(x, axis))
        return adjoints


@irdl_op_definition
class SliceOp(UnaryOp, Differentiable):
    """``start`` to ``stop`` (not included) along ``axis``, the other axes whole:
    ``mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<2x4xf64> to
    tensor<2x2xf64>``. A stop beyond a ``?`` size is found when the program runs."""

    name = "mg.slice"
    axis = prop_def(IntegerAttr[IntegerType])
    start = prop_def(IntegerAttr[IntegerType])
    stop = prop_def(IntegerAttr[IntegerType])
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, axis: int, start: int, stop: int):
        shape = shapes.slice_shape(shape_of(input.type), axis, start, stop)
        super().__init__(input, tensor_type(shape, tensor_type_of(input).element_type))
        self.axis, self.start, self.stop = (IntegerAttr(v, i64) for v in (axis, start, stop))

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        shape = shape_of(self.input.type)
        try:
            shapes.check_axis(len(shape), self.axis.value.data)
            want = shapes.slice_shape(shape, self.axis.value.data, self.start.value.data, self.stop.value.data)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        if shape_of(self.result.type) != want:
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(shape_of(self.result.type))}")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """``g`` between zeros where the slice left elements out (a ``concat``); along a
        ``?`` size, ``g`` added into zeros from the start (``index_add``/``scatter_add``)."""
        x, axis = self.input, self.axis.value.data
        start, stop, size = self.start.value.data, self.stop.value.data, shape_of(self.input.type)[axis]
        if size is None:
            return [d.place(g, x, axis, start)]
        parts = [d.full_like(d.slice(x, axis, 0, start), 0.0)] if start > 0 else []
        parts.append(g)
        if stop < size:
            parts.append(d.full_like(d.slice(x, axis, stop, size), 0.0))
        return [parts[0] if len(parts) == 1 else d.concat(parts, axis, x.type)]


@irdl_op_definition
class DynamicSliceOp(MgOp, Differentiable):
    """``size`` elements along ``axis`` from a ``start`` known only when the program runs (a
    rank-0 integer tensor), the other axes whole (XLA's ``dynamic_slice``; the mini-batch
    ``x[i * 128 : i * 128 + 128]``): ``mg.dynamic_slice %x, %start {axis = 0 : i64, size = 128 :
    i64} : tensor<?x64xf32>, tensor<i64> -> tensor<128x64xf32>``. A start outside ``0`` to
    ``dim - size`` stops the program."""

    name = "mg.dynamic_slice"
    input = operand_def(TensorType)
    start = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    size = prop_def(IntegerAttr[IntegerType])
    traits = MOVES
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input `,` $start attr-dict `:` type($input) `,` type($start) `->` type($result)"

    def __init__(self, input: SSAValue, start: SSAValue, axis: int, size: int):
        shape = tuple(size if d == axis else s for d, s in enumerate(shape_of(input.type)))
        super().__init__(
            operands=[input, start],
            result_types=[tensor_type(shape, tensor_type_of(input).element_type)],
            properties={"axis": IntegerAttr(axis, i64), "size": IntegerAttr(size, i64)},
        )

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        shape, axis, size = shape_of(self.input.type), self.axis.value.data, self.size.value.data
        if shape_of(self.start.type) != () or tensor_type_of(self.start).element_type not in element_types.INTEGERS:
            raise self.fail("the start must be a rank-0 tensor of i32 or i64")
        if not 0 <= axis < len(shape):
            raise self.fail(f"axis {axis} is out of range for rank {len(shape)}")
        dim = shape[axis]
        if size <= 0 or dim is not None and size > dim:
            raise self.fail(f"size {size} must be positive and at most the axis' size {fmt_dim(dim)}")
        want = tuple(size if d == axis else s for d, s in enumerate(shape))
        if shape_of(self.result.type) != want:
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(shape_of(self.result.type))}")

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        """Zeros of the input's shape with ``g`` added from the start (``index_add`` of its
        rows along axis 0, ``scatter_add`` along another); the start has none."""
        return [d.place(g, self.input, self.axis.value.data, self.start), None]


@irdl_op_definition
class CastOp(UnaryOp, Differentiable):
    """Change what is known statically about a shape, not the data.

    ``tensor<2x3xf64> to tensor<?x?xf64>`` forgets the sizes (passing a matrix to a ``?``
    parameter); ``tensor<?x3xf64> to tensor<2x3xf64>`` claims them, which is checked at run
    time.
    """

    name = "mg.cast"
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute, messages: Sequence[str] | None = None):
        super().__init__(input, result_type)
        if messages is not None:
            self.attributes[CHECK_MESSAGES] = ArrayAttr([StringAttr(m) for m in messages])

    def verify_(self) -> None:
        self.check_elementwise(self.input, self.result)
        messages = self.attributes.get(CHECK_MESSAGES)
        if messages is not None and not (
            isinstance(messages, ArrayAttr)
            and len(messages) == len(shape_of(self.result.type))
            and all(isinstance(m, StringAttr) for m in messages)
        ):
            raise self.fail(f"{CHECK_MESSAGES} must be an array of one string per dimension of the result")

    def check_message(self, dim: int) -> str:
        """The message of the run-time check that dimension ``dim`` has its static size."""
        messages = self.attributes.get(CHECK_MESSAGES)
        message = messages.data[dim] if isinstance(messages, ArrayAttr) else None
        if isinstance(message, StringAttr) and message.data:  # (the verifier: one string per dimension)
            return message.data
        return f"{self.name}: dimension {dim} differs at runtime from the static size {shape_of(self.result.type)[dim]}"

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [d.like(g, self.input)]


@irdl_op_definition
class ReshapeOp(UnaryOp, Differentiable):
    """The same elements in the same (row-major) order in another shape: dimensions of size
    1 dropped or added (a reduction's result without its kept dimensions, ``?`` sizes
    allowed): ``mg.reshape %x : tensor<?x1xf64> to tensor<?xf64>``; or any shape of the same
    element count, both static: ``tensor<3x4xf64> to tensor<2x6xf64>``."""

    name = "mg.reshape"
    traits = MOVES
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        if self.unit_dims_only():
            return
        shape, result = shape_of(self.input.type), shape_of(self.result.type)
        if None in shape or None in result or shapes.element_count(shape) != shapes.element_count(result):
            raise self.fail(
                f"cannot reshape {fmt_shape(shape)} to {fmt_shape(result)}: only dimensions of "
                "size 1 may be dropped or added, or the shapes must be static with one element count"
            )

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Adjoints:
        return [d.reshape(g, self.input.type)]

    def unit_dims_only(self) -> bool:
        """Whether the shapes differ only in dimensions of size 1 (``shapes.unit_dims_map``)."""
        try:
            shapes.unit_dims_map(shape_of(self.input.type), shape_of(self.result.type))
        except ShapeError:
            return False
        return True
