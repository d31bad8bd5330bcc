"""What the mg lowerings share: the base of their patterns, the sizes and copies they both
compute, and the patterns of the ops they both lower the same way. No pass of its own:
``lower-mg-to-affine`` (the reference pipeline's lowering) and ``convert-mg-to-linalg`` (the
optimised pipeline's) import it, and ``convert-linalg-to-affine-loops`` builds on
``MgLowering`` too.

- ``MgLowering``: a pattern that builds an op's replacement with an implicit builder and
  gives it the op's source location;
- the sizes of a result, after the run-time checks (``cf.assert``) that a ``?`` size agrees
  where sizes must (``elementwise_sizes``, ``broadcast_sizes``, ``matmul_sizes``,
  ``reshape_sizes``, ``check_slice_stop``), and the copying nests that both lowerings use
  where a structured op cannot say the copy (``reshape_copy``, ``slice_copy``);
- the patterns of ops that build no structured op: ``mg.iota``, ``mg.random``,
  ``mg.linear_scan``, ``mg.index``, ``mg.index_add``, ``mg.gather``, ``mg.scatter_add``,
  ``mg.concat``, ``mg.cast``, ``mg.extract``, ``mg.constant``, ``mg.print``, ``mg.item`` and
  ``mg.from_item``, and the function signatures and calls, whose tensor types become memref
  types, and the ``scf.for``/``scf.if`` ops that carry tensors (``lower_control_flow``).

What each of them builds is in ``lower_mg_to_affine``'s docstring.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, cf, func, memref, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedMemRefType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions.lower_affine import lower_nests_upstream_rejects
from mg_xdsl.conversions.lower_arguments import argument_patterns
from mg_xdsl.conversions.lower_files import file_patterns
from mg_xdsl.conversions.lower_println import PrintlnLowering
from mg_xdsl.core import element_types, shapes
from mg_xdsl.dialects import mg
from mg_xdsl.dialects.mg import shape_of
from mg_xdsl.support import op_builders
from mg_xdsl.support.buffers import (
    alloc,
    as_index,
    check_same_size,
    element_constant,
    element_type_of,
    extents,
    index_constant,
    load,
    memref_type_of,
    module_prologue,
    nest,
    store,
    to_memref,
)
from mg_xdsl.support.op_builders import INDEX

OpT = TypeVar("OpT", bound=Operation)


class MgLowering(RewritePattern, Generic[OpT]):
    """Base of the op lowerings (of mg ops in the mg lowerings, of linalg ops in
    ``convert-linalg-to-affine-loops``): ``build`` creates the replacement code (through an
    implicit builder placed before the op) and returns the buffer that replaces the op's
    result (``None`` for an op without one). Every created op keeps the source location of
    the op it came from.

    A pattern names the op it lowers twice, as ``MgLowering[OpT]`` for the type checker
    (``build`` takes an ``OpT``) and as ``op_type`` for the match at run time (the classes
    of ``OpT``)."""

    op_type: type[OpT] | tuple[type[OpT], ...]
    # The block of the op being lowered, while ``build`` runs: where the values it makes will
    # be (``build`` makes them in a block of its own), so that a table of values made for
    # earlier ops (``convert-mg-to-linalg``'s sizes) hands out only those that dominate it.
    current_block: ClassVar[Block | None] = None

    def build(self, op: OpT) -> SSAValue | None:
        raise NotImplementedError

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.op_type):
            return
        MgLowering.current_block = op.parent_block()
        block = Block()
        with ImplicitBuilder(block):
            result = self.build(op)
        for new_op in block.walk():
            new_op.location = op.location
        new_ops = list(block.ops)
        for new_op in new_ops:
            new_op.detach()
        rewriter.replace(op, new_ops, [result] if result is not None else [])


# ---------------------------------------------------------------------------------------
# The sizes of a result, with their run-time checks, and the copies both lowerings make
# ---------------------------------------------------------------------------------------


def check_same_shape(lhs_sizes: Sequence[int | SSAValue], rhs_sizes: Sequence[int | SSAValue], op_name: str) -> None:
    """The run-time checks that an elementwise op's operands have the same sizes."""
    for d, (a, b) in enumerate(zip(lhs_sizes, rhs_sizes)):
        check_same_size(a, b, mg.operands_differ(op_name, d))


def elementwise_sizes(op: Operation, operand_sizes: Sequence[Sequence[int | SSAValue]]) -> list[int | SSAValue]:
    """The sizes of an elementwise op's result, after the run-time checks that its operands'
    sizes (``operand_sizes``, in operand order) agree: static where its type says."""
    first, *others = operand_sizes
    for sizes in others:
        check_same_shape(first, sizes, op.name)
    return [r if r is not None else a for r, a in zip(shape_of(op.results[0].type), first)]


def reshape_sizes(
    op: mg.ReshapeOp, in_sizes: Sequence[int | SSAValue]
) -> tuple[list[int | None], list[int | SSAValue]]:
    """Where each dimension of the input is in the result (``shapes.unit_dims_map``), and the
    result's sizes: the input's, 1 in each added dimension."""
    mapping = shapes.unit_dims_map(shape_of(op.input.type), shape_of(op.result.type))
    sizes: list[int | SSAValue] = [1] * len(shape_of(op.result.type))
    for d, t in enumerate(mapping):
        if t is not None:
            sizes[t] = in_sizes[d]
    return mapping, sizes


def broadcast_sizes(
    op: mg.BroadcastOp, sizes_of: Callable[[SSAValue], Sequence[int | SSAValue]]
) -> list[int | SSAValue]:
    """The sizes of a broadcast's result: static where its type says, else (a ``?``, which
    is never broadcast) the input's size of that dimension, or for a dimension added in
    front or grown from a static 1 the size of the ``like`` operand that gives it
    (``mg.size_source``).
    ``sizes_of(v)`` gives a value's sizes."""
    out_shape = shape_of(op.result.type)
    in_sizes = sizes_of(op.input)
    lead = len(out_shape) - len(in_sizes)
    # A broadcast that takes its shape from its like operand (broadcast_to(m, shape(x)), and
    # any that grows a static 1 to a '?'): a '?' it keeps must be the like operand's size too.
    to_like = mg.LIKE_SHAPE in op.attributes or any(
        mg.grows(op, i) and out_shape[i] is None for i in range(lead, len(out_shape))
    )

    def size(i: int) -> int | SSAValue:
        if not mg.grows(op, i):
            if to_like and (found := mg.size_source(op, i)) is not None:
                source, pos = found
                check_same_size(
                    in_sizes[i - lead],
                    sizes_of(source)[pos],
                    f"mg.broadcast: dimension {i} differs at runtime from the shape broadcast to",
                )
            return in_sizes[i - lead]
        found = mg.size_source(op, i)
        assert found is not None  # (the verifier made sure: a ``like`` operand gives the size)
        source, pos = found
        return sizes_of(source)[pos]

    return [d if d is not None else size(i) for i, d in enumerate(out_shape)]


def matmul_sizes(lhs: Sequence[int | SSAValue], rhs: Sequence[int | SSAValue]) -> list[int | SSAValue]:
    """The result's sizes ``batch + [M, N]`` of a product of operands of these sizes, after
    the run-time checks that the inner sizes, and the batch sizes, agree."""
    check_same_size(
        lhs[-1],
        rhs[-2],
        "mg.matmul: inner dimensions differ at runtime (columns of the left operand, rows of the right)",
    )
    for d, (a, b) in enumerate(zip(lhs[:-2], rhs[:-2])):
        check_same_size(a, b, mg.batch_differs(d))
    batch = [b if isinstance(a, SSAValue) else a for a, b in zip(lhs[:-2], rhs[:-2])]
    return [*batch, lhs[-2], rhs[-1]]


def static_shape(t: Attribute) -> list[int]:
    """The sizes of ``t``, a type of static shape (the op's verifier made sure)."""
    shape = shape_of(t)
    sizes = [d for d in shape if d is not None]
    assert len(sizes) == len(shape), f"{t} has a ? size"
    return sizes


def row_major_position(ivs: list[SSAValue], shape: Sequence[int]) -> SSAValue:
    """The row-major position of the element at ``ivs`` in a static ``shape``."""
    position = ivs[0] if ivs else index_constant(0)
    for iv, size in zip(ivs[1:], shape[1:]):
        position = arith.AddiOp(arith.MuliOp(position, index_constant(size)).result, iv).result
    return position


def add_sizes(a: int | SSAValue, b: int | SSAValue) -> int | SSAValue:
    """``a + b``, folded where both are known."""
    return a + b if isinstance(a, int) and isinstance(b, int) else arith.AddiOp(as_index(a), as_index(b)).result


def reshape_copy(op: mg.ReshapeOp) -> SSAValue:
    """A reshape between static shapes: each element of the result read at the input's
    indices of the same row-major position (its digits in the input's sizes)."""
    in_shape = static_shape(op.input.type)

    def value_at(ivs: list[SSAValue]) -> SSAValue:
        position = row_major_position(ivs, static_shape(op.result.type))
        at = []
        for size in reversed(in_shape[1:]):
            at.append(arith.RemUIOp(position, index_constant(size)).result)
            position = arith.DivUIOp(position, index_constant(size)).result
        return op_builders.memref_load(op.input, [position, *reversed(at)]).res

    return filled(op.result.type, value_at)


def filled(result_type: Attribute, value_at: Callable[[list[SSAValue]], SSAValue]) -> SSAValue:
    """A new buffer of ``result_type``'s static shape, each element stored ``value_at`` its
    indices."""
    sizes = static_shape(result_type)
    out = alloc(result_type, sizes)
    nest(sizes, lambda ivs: store(value_at(ivs), out, ivs))
    return out


def check_slice_stop(op: mg.SliceOp, in_sizes: Sequence[int | SSAValue]) -> None:
    """A run-time check that a slice's ``stop`` is within a ``?`` size (a static one the
    verifier checked)."""
    axis, stop = op.axis.value.data, op.stop.value.data
    size = in_sizes[axis]
    if not isinstance(size, int):
        inside = arith.CmpiOp(index_constant(stop), size, "ule")
        cf.AssertOp(inside.result, f"mg.slice: stop {stop} is beyond the size of dimension {axis}")


def slice_copy(op: mg.SliceOp, in_sizes: Sequence[int | SSAValue]) -> SSAValue:
    """A copy of the slice, each element read ``start`` further along the axis."""
    axis, start, stop = (a.value.data for a in (op.axis, op.start, op.stop))
    sizes = [stop - start if d == axis else s for d, s in enumerate(in_sizes)]
    out = alloc(op.result.type, sizes)

    def body(ivs: list[SSAValue]) -> None:
        at = list(ivs)
        at[axis] = arith.AddiOp(ivs[axis], index_constant(start)).result
        store(op_builders.memref_load(op.input, at).res, out, ivs)

    nest(sizes, body)
    return out


# ---------------------------------------------------------------------------------------
# The ops both lowerings write as loops (or calls, or a global) the same way
# ---------------------------------------------------------------------------------------


class IotaLowering(MgLowering[mg.IotaOp]):
    """``mg.iota``: each element stored its index along the axis, cast to the element type."""

    op_type = mg.IotaOp

    def build(self, op: mg.IotaOp) -> SSAValue:
        element, axis = op.result.type.element_type, op.axis.value.data
        return filled(op.result.type, lambda ivs: arith.IndexCastOp(ivs[axis], element).result)


class LinearScanLowering(MgLowering[mg.LinearScanOp]):
    """``mg.linear_scan``: a nest over every dimension but the axis, and inside it an
    ``scf.for`` along the axis that carries ``h`` (``h = a[t] * h + b[t]``, stored at each
    ``t``; ``t = n - 1 - k`` when reversed). ``h`` is carried in the type its element type is
    computed in (``bf16`` in ``f32``), rounded at each store."""

    op_type = mg.LinearScanOp

    def build(self, op: mg.LinearScanOp) -> SSAValue:
        axis, reverse = op.axis.value.data, op.reverse.value.data
        sizes = elementwise_sizes(op, [extents(x, shape_of(x.type)) for x in (op.a, op.b)])
        out = alloc(op.result.type, sizes)
        element = element_type_of(out)
        carried = element_types.computed_in(element)
        length = as_index(sizes[axis])

        def across(ivs: list[SSAValue]) -> None:
            block = Block(arg_types=[INDEX, carried])
            k, h = block.args
            with ImplicitBuilder(block):
                last = arith.SubiOp(length, index_constant(1)).result
                t = arith.SubiOp(last, k).result if reverse else k
                at = [*ivs[:axis], t, *ivs[axis:]]
                a, b = (mg.widened(op_builders.memref_load(x, at).res) for x in (op.a, op.b))
                h = op.step(a, b, h)
                op_builders.memref_store(mg.narrowed(h, element), out, at)
                scf.YieldOp(h)
            scf.ForOp(index_constant(0), length, index_constant(1), [element_constant(0.0, carried)], block)

        nest([s for d, s in enumerate(sizes) if d != axis], across)
        return out


class RandomLowering(MgLowering[mg.RandomOp]):
    """``mg.random``: each element stored the number of its row-major position
    (``mg.RandomOp.value_at``: Philox, then the distribution)."""

    op_type = mg.RandomOp

    def build(self, op: mg.RandomOp) -> SSAValue:
        shape = static_shape(op.result.type)

        def value_at(ivs: list[SSAValue]) -> SSAValue:
            return op.value_at(arith.IndexCastOp(row_major_position(ivs, shape), i64).result)

        return filled(op.result.type, value_at)


def checked_position(
    op: mg.IndexingOp, positions: SSAValue, at: Sequence[SSAValue], size: int | SSAValue, what: str, of: str
) -> SSAValue:
    """The position held in ``positions`` at ``at`` (an id or an index), as an ``index``,
    after the run-time check that it is one of ``size``: one unsigned compare, so a negative
    one fails too. The message (``mg.index: id 7 is out of range for 5 rows (0 to 4)``) is a
    format of the position, the size and the last position, which ``lower-assert-to-stderr``
    fills in when the check fails."""
    position = arith.IndexCastOp(load(positions, at), INDEX).result
    inside = arith.CmpiOp(position, as_index(size), "ult")
    cf.AssertOp(inside.result, f"{op.name}: {what} %ld is out of range for %ld {of} (0 to %ld)")
    return position


def copied(buffer: SSAValue, sizes: Sequence[int | SSAValue], result_type: Attribute) -> SSAValue:
    """A new buffer of ``result_type`` holding a copy of ``buffer`` (of ``sizes``)."""
    out = alloc(result_type, sizes)
    nest(sizes, lambda ivs: store(load(buffer, ivs), out, ivs))
    return out


def accumulate(op: mg.IndexingAddOp, value: SSAValue, out: SSAValue, at: Sequence[SSAValue]) -> None:
    """``out[at] += value``, ``at`` read from a tensor (so no affine access)."""
    total = op.add(op_builders.memref_load(out, at).res, value)
    op_builders.memref_store(total, out, at)


def result_sizes(result_type: Attribute, sizes: Sequence[int | SSAValue]) -> list[int | SSAValue]:
    """A result's sizes: static where its type says, else ``sizes``'."""
    return [d if d is not None else s for d, s in zip(shape_of(result_type), sizes)]


class IndexLowering(MgLowering[mg.IndexOp]):
    """``mg.index``: a nest over the ids, each id loaded, checked and cast to an ``index``,
    around a nest copying the row it names (``out[i, :] = table[ids[i], :]``)."""

    op_type = mg.IndexOp

    def build(self, op: mg.IndexOp) -> SSAValue:
        table_sizes, id_sizes = (extents(v, shape_of(v.type)) for v in (op.table, op.ids))
        out = alloc(op.result.type, result_sizes(op.result.type, [*id_sizes, *table_sizes[1:]]))

        def row(ivs: list[SSAValue]) -> None:
            r = checked_position(op, op.ids, ivs, table_sizes[0], "id", "rows")
            nest(
                table_sizes[1:],
                lambda rest: store(op_builders.memref_load(op.table, [r, *rest]).res, out, [*ivs, *rest]),
            )

        nest(id_sizes, row)
        return out


class IndexAddLowering(MgLowering[mg.IndexAddOp]):
    """``mg.index_add``: a copy of ``base``, then a nest over the ids in order, each id
    checked and its row of ``values`` added to the row it names (``out[ids[i], :] +=
    values[i, :]``): repeated ids accumulate, so these loops carry a dependence and stay
    sequential."""

    op_type = mg.IndexAddOp

    def build(self, op: mg.IndexAddOp) -> SSAValue:
        base_sizes, id_sizes, value_sizes = (extents(v, shape_of(v.type)) for v in (op.base, op.ids, op.values))
        for d, (a, b) in enumerate(zip(value_sizes, [*id_sizes, *base_sizes[1:]])):
            check_same_size(
                a, b, f"mg.index_add: values differ at runtime in dimension {d} from the ids' shape then a row's"
            )
        out = copied(op.base, base_sizes, op.result.type)

        def row(ivs: list[SSAValue]) -> None:
            r = checked_position(op, op.ids, ivs, base_sizes[0], "id", "rows")
            nest(base_sizes[1:], lambda rest: accumulate(op, load(op.values, [*ivs, *rest]), out, [r, *rest]))

        nest(id_sizes, row)
        return out


def along_axis_checks(
    op: mg.GatherOp | mg.ScatterAddOp, x_sizes: Sequence[int | SSAValue], idx_sizes: Sequence[int | SSAValue]
) -> None:
    """The run-time checks that the indices' sizes off the axis are ``x``'s."""
    axis = op.axis.value.data
    for d, (a, b) in enumerate(zip(x_sizes, idx_sizes)):
        if d != axis:
            check_same_size(a, b, f"{op.name}: the indices' size differs at runtime in dimension {d}")


def along_axis(ivs: list[SSAValue], axis: int, position: SSAValue) -> list[SSAValue]:
    """``ivs`` with ``position`` along ``axis``."""
    return [position if d == axis else iv for d, iv in enumerate(ivs)]


class GatherLowering(MgLowering[mg.GatherOp]):
    """``mg.gather``: a nest over the indices, each checked and cast to an ``index`` and
    the element of ``x`` at it along the axis stored (``out[i, j] = x[i, idx[i, j]]``)."""

    op_type = mg.GatherOp

    def build(self, op: mg.GatherOp) -> SSAValue:
        axis = op.axis.value.data
        x_sizes, idx_sizes = (extents(v, shape_of(v.type)) for v in (op.x, op.idx))
        along_axis_checks(op, x_sizes, idx_sizes)
        out = alloc(op.result.type, result_sizes(op.result.type, idx_sizes))

        def body(ivs: list[SSAValue]) -> None:
            p = checked_position(op, op.idx, ivs, x_sizes[axis], "index", f"positions along axis {axis}")
            store(op_builders.memref_load(op.x, along_axis(ivs, axis, p)).res, out, ivs)

        nest(idx_sizes, body)
        return out


class ScatterAddLowering(MgLowering[mg.ScatterAddOp]):
    """``mg.scatter_add``: a copy of ``base``, then a nest over the indices in order, each
    checked and its element of ``values`` added at it along the axis (``out[i, idx[i, j]] +=
    values[i, j]``): repeated positions accumulate, so these loops stay sequential."""

    op_type = mg.ScatterAddOp

    def build(self, op: mg.ScatterAddOp) -> SSAValue:
        axis = op.axis.value.data
        base_sizes, idx_sizes, value_sizes = (extents(v, shape_of(v.type)) for v in (op.base, op.idx, op.values))
        along_axis_checks(op, base_sizes, idx_sizes)
        for d, (a, b) in enumerate(zip(idx_sizes, value_sizes)):
            check_same_size(a, b, f"mg.scatter_add: the indices and values differ at runtime in dimension {d}")
        out = copied(op.base, base_sizes, op.result.type)

        def body(ivs: list[SSAValue]) -> None:
            p = checked_position(op, op.idx, ivs, base_sizes[axis], "index", f"positions along axis {axis}")
            accumulate(op, load(op.values, ivs), out, along_axis(ivs, axis, p))

        nest(idx_sizes, body)
        return out


class ConcatLowering(MgLowering[mg.ConcatOp]):
    """``mg.concat``: one copying nest per input, each stored further along the axis by the
    sizes before it; the other sizes checked equal to the first input's where one is ``?``."""

    op_type = mg.ConcatOp

    def build(self, op: mg.ConcatOp) -> SSAValue:
        axis = op.axis.value.data
        all_sizes = [extents(v, shape_of(v.type)) for v in op.inputs]
        for sizes in all_sizes[1:]:
            for d, (a, b) in enumerate(zip(all_sizes[0], sizes)):
                if d != axis:
                    check_same_size(a, b, f"mg.concat: the inputs' sizes differ at runtime in dimension {d}")
        total: int | SSAValue = 0
        for sizes in all_sizes:
            total = add_sizes(total, sizes[axis])
        result = [
            r if r is not None else (total if d == axis else all_sizes[0][d])
            for d, r in enumerate(shape_of(op.result.type))
        ]
        out = alloc(op.result.type, result)
        offset: int | SSAValue = 0
        for v, sizes in zip(op.inputs, all_sizes):

            def body(ivs: list[SSAValue], v: SSAValue = v, offset: int | SSAValue = offset) -> None:
                at = list(ivs)
                at[axis] = arith.AddiOp(ivs[axis], as_index(offset)).result
                op_builders.memref_store(load(v, ivs), out, at)

            nest(sizes, body)
            offset = add_sizes(offset, sizes[axis])
        return out


class CastLowering(MgLowering[mg.CastOp]):
    """``mg.cast`` -> ``memref.cast``; each ``?`` that becomes a static size is checked."""

    op_type = mg.CastOp

    def build(self, op: mg.CastOp) -> SSAValue:
        in_sizes = extents(op.input, shape_of(op.input.type))
        for d, (size, want) in enumerate(zip(in_sizes, shape_of(op.result.type))):
            if want is not None:
                check_same_size(size, want, op.check_message(d))
        return memref.CastOp.get(op.input, memref_type_of(op.result.type)).dest


class ExtractLowering(MgLowering[mg.ExtractOp]):
    """``mg.extract``: the element loaded (``memref.load``) and stored into a new rank-0
    buffer. A negative index counts from the end; an index into a ``?`` dimension is checked
    first (one unsigned compare: a negative position is a huge one)."""

    op_type = mg.ExtractOp

    def build(self, op: mg.ExtractOp) -> SSAValue:
        sizes = extents(op.input, shape_of(op.input.type))
        at = []
        for d, (index, size) in enumerate(zip(op.indices.get_values(), sizes)):
            if isinstance(size, int):
                at.append(index_constant(index % size))
                continue
            position = arith.AddiOp(size, index_constant(index)).result if index < 0 else index_constant(index)
            inside = arith.CmpiOp(position, size, "ult")
            cf.AssertOp(inside.result, f"mg.extract: index {index} is out of range for dimension {d}")
            at.append(position)
        out = alloc(op.result.type, [])
        op_builders.memref_store(op_builders.memref_load(op.input, at).res, out, [])
        return out


@dataclass
class ConstantLowering(MgLowering[mg.ConstantOp]):
    """A literal becomes a private constant ``memref.global``, one per distinct value."""

    module: ModuleOp
    op_type = mg.ConstantOp
    names: dict[DenseIntOrFPElementsAttr, str] = field(default_factory=dict)

    def global_for(self, value: DenseIntOrFPElementsAttr) -> str:
        if value not in self.names:
            t = memref_type_of(value.type)
            shape = "x".join(str(d) for d in t.get_shape())
            name = f"__constant_{shape}x{t.element_type}_{len(self.names)}"
            self.names[value] = name
            with ImplicitBuilder(module_prologue(self.module)):
                memref.GlobalOp.get(StringAttr(name), t, value, constant=UnitAttr())
        return self.names[value]

    def build(self, op: mg.ConstantOp) -> SSAValue:
        return memref.GetGlobalOp(self.global_for(op.value), memref_type_of(op.result.type)).memref


@dataclass
class PrintLowering(MgLowering[mg.PrintOp]):
    """``mg.print %m`` -> ``func.call @printMemrefF64(memref.cast %m to memref<*xf64>)``
    (the printer of ``%m``'s element type, declared once)."""

    module: ModuleOp
    op_type = mg.PrintOp
    declared: set[str] = field(default_factory=set)

    def build(self, op: mg.PrintOp) -> None:
        element = element_type_of(op.input)
        unranked, printer = UnrankedMemRefType.from_type(element), element_types.PRINTERS[element]
        if printer not in self.declared:
            with ImplicitBuilder(module_prologue(self.module)):
                func.FuncOp(printer, ((unranked,), ()), Region(), visibility="private")
            self.declared.add(printer)
        cast = memref.CastOp.get(op.input, unranked)
        func.CallOp(printer, [cast.dest], [])
        return None


class ItemLowering(MgLowering[mg.ItemOp | mg.FromItemOp]):
    """``mg.item %t`` -> ``memref.load %t[]`` (the element of the rank-0 buffer);
    ``mg.from_item %s`` -> a new rank-0 buffer and ``memref.store %s``."""

    op_type = (mg.ItemOp, mg.FromItemOp)

    def build(self, op: mg.ItemOp | mg.FromItemOp) -> SSAValue:
        if isinstance(op, mg.ItemOp):
            return op_builders.memref_load(op.input, []).res
        out = alloc(op.result.type, [])
        op_builders.memref_store(op.input, out, [])
        return out


class DynamicSliceLowering(MgLowering[mg.DynamicSliceOp]):
    """``mg.dynamic_slice``: the start (``memref.load``) checked to be one of the ``dim - size
    + 1`` starts that fit (one unsigned compare: a negative start fails too; a dimension
    shorter than the slice has none), then a copy of the ``size`` elements from it along the
    axis (a mini-batch is read once, by the copy, and is then contiguous)."""

    op_type = mg.DynamicSliceOp

    def build(self, op: mg.DynamicSliceOp) -> SSAValue:
        axis, size = op.axis.value.data, op.size.value.data
        in_sizes = extents(op.input, shape_of(op.input.type))
        start = arith.IndexCastOp(load(op.start, []), INDEX).result
        dim = in_sizes[axis]
        if isinstance(dim, int):
            starts = index_constant(max(dim - size + 1, 0))
        else:
            fitting = arith.SubiOp(dim, index_constant(size - 1)).result
            starts = arith.MaxSIOp(fitting, index_constant(0)).result
        inside = arith.CmpiOp(start, starts, "ult")
        cf.AssertOp(
            inside.result,
            f"{op.name}: start %ld is out of range for axis {axis}: a slice of {size} has %ld starts (0 to %ld)",
        )
        sizes = [size if d == axis else s for d, s in enumerate(in_sizes)]
        out = alloc(op.result.type, sizes)

        def body(ivs: list[SSAValue]) -> None:
            at = list(ivs)
            at[axis] = arith.AddiOp(ivs[axis], start).result
            store(op_builders.memref_load(op.input, at).res, out, ivs)

        nest(sizes, body)
        return out


class ArgReduceLowering(MgLowering[mg.ArgReduceOp]):
    """``mg.arg_reduce``: per element of the result, an ``scf.for`` along the axis carrying
    the best element so far and its position, replaced only by a strictly better one (the
    first of equal ones wins) or by the first NaN (which then stays: NumPy's rule)."""

    op_type = mg.ArgReduceOp

    def build(self, op: mg.ArgReduceOp) -> SSAValue:
        axis, largest = op.axis.value.data, op.kind.data == "max"
        in_sizes = extents(op.input, shape_of(op.input.type))
        sizes = [s for d, s in enumerate(in_sizes) if d != axis]
        out = alloc(op.result.type, sizes)

        def at(ivs: list[SSAValue], k: SSAValue) -> list[SSAValue]:
            return [*ivs[:axis], k, *ivs[axis:]]

        def body(ivs: list[SSAValue]) -> None:
            first = mg.widened(load(op.input, at(ivs, index_constant(0))))
            step = Block(arg_types=[INDEX, first.type, INDEX])
            k, best, where = step.args
            with ImplicitBuilder(step):
                x = mg.widened(load(op.input, at(ivs, k)))
                better = mg.compare("gt" if largest else "lt", x, best)
                if element_types.is_float(x.type):  # (the first NaN is taken and kept)
                    first_nan = arith.AndIOp(
                        arith.CmpfOp(x, x, "uno").result, arith.CmpfOp(best, best, "ord").result
                    ).result
                    better = arith.OrIOp(better, first_nan).result
                scf.YieldOp(arith.SelectOp(better, x, best).result, arith.SelectOp(better, k, where).result)
            loop = scf.ForOp(
                index_constant(1), as_index(in_sizes[axis]), index_constant(1), [first, index_constant(0)], step
            )
            store(arith.IndexCastOp(loop.results[1], i64).result, out, ivs)

        nest(sizes, body)
        return out


class SizeLowering(MgLowering[mg.SizeOp]):
    """``mg.size %x {axes}`` -> the product of ``memref.dim`` of those axes (a static size
    as a constant), as ``i64``, stored into a new rank-0 buffer."""

    op_type = mg.SizeOp

    def build(self, op: mg.SizeOp) -> SSAValue:
        sizes = [extents(op.input, shape_of(op.input.type))[axis] for axis in op.axes.get_values()]
        static = math.prod(size for size in sizes if isinstance(size, int))
        count: SSAValue | None = None
        for size in [size for size in sizes if not isinstance(size, int)] + ([static] if static != 1 else []):
            count = as_index(size) if count is None else arith.MuliOp(count, as_index(size)).result
        count = count or index_constant(1)
        out = alloc(op.result.type, [])
        op_builders.memref_store(arith.IndexCastOp(count, i64).result, out, [])
        return out


# ---------------------------------------------------------------------------------------
# Function signatures and calls, and the loops and conditionals that carry tensors, last
# ---------------------------------------------------------------------------------------


class FuncSignatureLowering(RewritePattern):
    """A function's tensor parameters and results become memrefs, in its type and in the
    arguments of its entry block."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        t = op.function_type
        new_type = FunctionType.from_lists([to_memref(x) for x in t.inputs], [to_memref(x) for x in t.outputs])
        if new_type == t:
            return
        op.function_type = new_type
        if op.body.blocks:
            for arg in op.body.block.args:
                if isinstance(arg.type, TensorType):
                    rewriter.replace_value_with_new_type(arg, to_memref(arg.type))
        rewriter.notify_op_modified(op)


class CallLowering(RewritePattern):
    """A call to a function returning tensors now returns memrefs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        if not any(isinstance(r.type, TensorType) for r in op.results):
            return
        new = func.CallOp(op.callee, op.arguments, [to_memref(r.type) for r in op.results])
        new.location = op.location
        rewriter.replace(op, new)


def copy_into(value: SSAValue, result_type: Attribute, before: Operation) -> SSAValue:
    """A new buffer of ``result_type`` (a memref of identity layout) holding a copy of
    ``value`` (a view of a strided layout), made by a copying nest just before ``before``.
    (A nest of loads reads the view through its layout, as ``convert-mg-to-linalg``'s
    ``copy_at_boundaries`` expects of the ops that read a view.)"""
    block = Block()
    with ImplicitBuilder(block):
        out = copied(value, extents(value, shape_of(value.type)), result_type)
    for new_op in block.walk():
        new_op.location = before.location
    for new_op in list(block.ops):
        new_op.detach()
        Rewriter.insert_op(new_op, InsertPoint.before(before))
    return out


def lower_control_flow(module: ModuleOp) -> None:
    """The ``scf.for`` and ``scf.if`` ops that carry tensors (the front end's loops and
    conditionals, whose bodies hold mg ops) carry memrefs: each tensor result, iteration
    argument and body argument takes the memref type of its tensor type. A value that an
    ``scf.yield`` yields (or that a loop starts from) whose memref type differs from the
    result's (a view of a strided layout: a slice, a transpose) is first copied into a new
    buffer of identity layout, so that every iteration carries the same type."""
    ops = [op for op in module.walk() if isinstance(op, (scf.ForOp, scf.IfOp))]
    for op in ops:
        values = [*op.results, *(op.body.block.args[1:] if isinstance(op, scf.ForOp) else ())]
        for value in values:
            if isinstance(value.type, TensorType):
                Rewriter.replace_value_with_new_type(value, to_memref(value.type))
    for op in ops:
        if isinstance(op, scf.ForOp):
            for i, (init, result) in enumerate(zip(op.iter_args, op.results)):
                if init.type != result.type:
                    op.operands[3 + i] = copy_into(init, result.type, op)
        for region in op.regions:
            for block in region.blocks:
                yield_op = block.last_op
                if not isinstance(yield_op, scf.YieldOp):
                    continue
                for i, (value, result) in enumerate(zip(yield_op.operands, op.results)):
                    if value.type != result.type:
                        yield_op.operands[i] = copy_into(value, result.type, yield_op)


def shared_patterns(module: ModuleOp) -> list[RewritePattern]:
    """The patterns of the ops both lowerings lower alike (none of them builds a structured
    op), after each pass's own."""
    return [
        IotaLowering(),
        RandomLowering(),
        LinearScanLowering(),
        IndexLowering(),
        IndexAddLowering(),
        GatherLowering(),
        ScatterAddLowering(),
        ConcatLowering(),
        CastLowering(),
        ExtractLowering(),
        PrintLowering(module),
        PrintlnLowering(module),
        ItemLowering(),
        SizeLowering(),
        ArgReduceLowering(),
        DynamicSliceLowering(),
        *file_patterns(module),
        *argument_patterns(module),
    ]


def lower_module(module: ModuleOp, patterns: list[RewritePattern]) -> None:
    """Lower the mg ops of ``module`` with ``patterns``, each op once (no pattern rewrites
    what another built), then the function signatures and calls: a signature's tensor types
    become memref types only after the ops of its body are lowered, as both passes need;
    last the loops and conditionals that carry tensors (``lower_control_flow``). A nest in
    their bodies that upstream MLIR would reject (``lower_affine.lower_nests_upstream_rejects``)
    becomes ``scf`` loops."""
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(module)
    signatures = GreedyRewritePatternApplier([FuncSignatureLowering(), CallLowering()])
    PatternRewriteWalker(signatures, apply_recursively=False).rewrite_module(module)
    lower_control_flow(module)
    lower_nests_upstream_rejects(module)
