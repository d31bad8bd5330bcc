"""``finalize-memref-to-llvm``: memref ops become LLVM-dialect code on descriptors, as upstream.

- ``memref.alloc`` (static and dynamic sizes) -> ``llvm.call @malloc(bytes)`` (with the option
  ``use-generic-functions=true``, as upstream: ``@_mlir_memref_to_llvm_alloc``, which the
  run-time library defines to give large buffers huge pages) and a descriptor
  with allocated = aligned pointer (rounded up when ``alignment`` is given), offset 0 and
  row-major strides, computed at run time from the sizes where they are dynamic;
  ``@malloc``/``@free`` are declared once per module;
- ``memref.alloca`` -> ``llvm.alloca`` of the element count, in a descriptor alike;
- ``memref.dealloc`` -> ``llvm.call @free`` (or ``@_mlir_memref_to_llvm_free``) of the
  *allocated* pointer;
- ``memref.load``/``memref.store`` -> ``llvm.getelementptr`` on the aligned pointer at
  ``offset + sum(index_k * stride_k)`` (static strides and offset folded into the arithmetic,
  the terms of constant indices summed into one constant) + ``llvm.load``/``llvm.store``;
- ``memref.prefetch`` -> the ``llvm.prefetch.p0`` intrinsic on the element's address (its
  read/write, locality and cache as constants, as upstream's ``llvm.intr.prefetch``);
- ``memref.dim`` -> a constant for a static size, else the size read from the descriptor;
- ``memref.cast``: ranked -> unranked stores the descriptor in an ``llvm.alloca`` and builds
  ``{rank, ptr}``; unranked -> ranked loads it back; ranked -> ranked keeps the descriptor;
- ``memref.copy`` of identity-layout (contiguous) memrefs -> one ``llvm.memcpy``;
- ``memref.global`` -> ``llvm.mlir.global`` of a *flat* ``!llvm.array<N x T>`` with a flat
  dense initializer (xDSL's LLVM backend cannot translate nested-array initializers; the bytes
  are the same), an uninitialized global being zero-filled;
- ``memref.get_global`` -> ``llvm.mlir.addressof`` and a descriptor whose aligned pointer is the
  global and whose allocated pointer is upstream's ``0xdeadbeef`` sentinel (freeing a global is
  an error, and the sentinel makes it show).

- ``memref.subview`` -> a descriptor on the same buffer with the offset, sizes and strides of
  the view, without the unit dimensions a rank-reducing one drops (upstream gets the same
  from ``expand-strided-metadata`` first);
- ``memref.collapse_shape`` of a contiguous (identity-layout) memref into one dimension -> a
  descriptor on the same buffer and offset, its size the product of the sizes, stride 1;
- ``memref.reinterpret_cast`` (a transposed or reshaped view) -> a descriptor on the same
  buffer with the op's offset, sizes and strides.

Layouts: the identity (no layout, or an identity ``affine_map``) everywhere, a strided one for
loads, stores, dims, subviews and reinterpret casts. Before changing anything the pass declines, with a
``PassFailedException`` naming the op, the type and the reason, a memref op whose types have no
LLVM form here (a memory space, a non-strided layout, an element type LLVM lacks, a static
shape whose byte size does not fit in i64) or a rank-reducing subview::

    finalize-memref-to-llvm: memref.alloc on memref<4000000000x4000000000xf64> is not
    supported: its size in bytes does not fit in i64

Other memref ops (``view``, ``expand_shape``, other collapses, ...) are left as they are,
as upstream leaves ``subview``: the casts around them keep the IR valid.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import llvm, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    TensorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from mg_xdsl.conversions.to_llvm.type_conversion import (
    PTR,
    Conversion,
    I64Constants,
    MemRefDescriptor,
    UnrankedDescriptor,
    alloca,
    apply_conversions,
    byte_size,
    check_convertible,
    constant,
    constant_int_value,
    convert_type,
    element_address,
    element_type,
    ensure_declared,
    replace_with_llvm,
    to_llvm,
)
from mg_xdsl.dialects.memref_prefetch import PrefetchOp
from mg_xdsl.support.buffers import static_strides_and_offset
from mg_xdsl.support.op_builders import llvm_binary, llvm_call, llvm_load, llvm_store

DEADBEEF = 0xDEADBEEF
"""The allocated pointer of a global's descriptor: never allocated, so never to be freed."""

MALLOC_TYPE = llvm.LLVMFunctionType([i64], PTR)
FREE_TYPE = llvm.LLVMFunctionType([PTR])


def _byte_size(t: Attribute) -> int:
    size = byte_size(t)
    assert size is not None, f"{t} was not declined by check_convertible"
    return size


def _mul(rewriter: PatternRewriter, a: SSAValue, b: SSAValue) -> SSAValue:
    return rewriter.insert(llvm_binary(llvm.MulOp, a, b)).results[0]


def _add(rewriter: PatternRewriter, a: SSAValue, b: SSAValue) -> SSAValue:
    return rewriter.insert(llvm_binary(llvm.AddOp, a, b)).results[0]


def _sizes_and_strides(
    rewriter: PatternRewriter, t: MemRefType, dynamic_sizes, const: I64Constants
) -> tuple[list[SSAValue], list[SSAValue], int | SSAValue]:
    """Sizes, row-major strides and element count of a fresh buffer of type ``t``.

    What is static is a constant (the count as a plain int, for the caller to fold); the rest
    is multiplied out from the dynamic sizes.
    """
    dynamic = iter(to_llvm(rewriter, v) for v in dynamic_sizes)
    shape = t.get_shape()
    sizes = [const(s) if s != DYNAMIC_INDEX else next(dynamic) for s in shape]
    strides: list[SSAValue] = []
    static_part = 1  # product of the sizes seen so far, while all are static
    running: SSAValue | None = None  # that product at run time, once one is dynamic
    for size, static in zip(reversed(sizes), reversed(shape)):
        strides.append(const(static_part) if running is None else running)
        if running is None and static != DYNAMIC_INDEX:
            static_part *= static
        elif running is None:
            running = size if static_part == 1 else _mul(rewriter, const(static_part), size)
        else:
            running = _mul(rewriter, running, size)
    return sizes, list(reversed(strides)), static_part if running is None else running


def _allocation(
    rewriter: PatternRewriter, op: memref.AllocOp | memref.AllocaOp
) -> tuple[list[SSAValue], list[SSAValue], int | SSAValue, I64Constants]:
    t = op.memref.type
    assert isinstance(t, MemRefType)
    const = I64Constants(rewriter)
    sizes, strides, count = _sizes_and_strides(rewriter, t, op.dynamic_sizes, const)
    return sizes, strides, count, const


def element_ptr(rewriter: PatternRewriter, t: MemRefType, desc: MemRefDescriptor, indices) -> SSAValue:
    """Address of an element: the aligned pointer advanced by offset + sum(index_k * stride_k).
    The terms known here (a static offset, a constant index times a static stride) are summed
    here, into one constant: the loops' code indexes a row of a view at a constant 0, which
    would be an op for LLVM to fold each time."""
    strides, offset = static_strides_and_offset(t)
    const = I64Constants(rewriter)
    aligned = desc.aligned_ptr(rewriter)
    linear: SSAValue | None = None
    known = 0  # (the sum of the terms known here)
    if offset is None:
        linear = desc.offset(rewriter)
    else:
        known = offset
    for k, (index, stride) in enumerate(zip(indices, strides)):
        if stride == 0:
            continue
        value = constant_int_value(index)
        if value is not None and stride is not None:
            known += value * stride
            continue
        index = to_llvm(rewriter, index)
        if stride is None:
            term = _mul(rewriter, index, desc.stride(rewriter, k))
        elif stride == 1:
            term = index
        else:
            term = _mul(rewriter, index, const(stride))
        linear = term if linear is None else _add(rewriter, linear, term)
    known = (known + 2**63) % 2**64 - 2**63  # (i64 arithmetic wraps, as the ops would have)
    if known:
        linear = const(known) if linear is None else _add(rewriter, linear, const(known))
    if linear is None:
        return aligned
    return element_address(rewriter, aligned, linear, element_type(t))


@dataclass(frozen=True)
class Allocator:
    """The functions that allocate and free heap buffers."""

    alloc: str = "malloc"
    free: str = "free"


GENERIC_ALLOCATOR = Allocator("_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_free")


@dataclass
class AllocLowering(RewritePattern):
    allocator: Allocator = Allocator()

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter):
        t = op.memref.type
        ensure_declared(rewriter, op, self.allocator.alloc, MALLOC_TYPE)
        sizes, strides, count, const = _allocation(rewriter, op)
        element_bytes = _byte_size(t.get_element_type())
        if isinstance(count, int):
            nbytes = const(count * element_bytes)
        else:
            nbytes = _mul(rewriter, count, const(element_bytes))
        align = op.alignment.value.data if op.alignment is not None else None
        if align is not None:
            # Over-allocate, then round the pointer up: malloc only promises its own alignment.
            nbytes = _add(rewriter, nbytes, const(align))
        allocated = rewriter.insert(llvm_call(self.allocator.alloc, [nbytes], PTR)).returned
        assert allocated is not None
        aligned = allocated
        if align is not None:
            address = rewriter.insert(llvm.PtrToIntOp(allocated)).results[0]
            bumped = _add(rewriter, address, const(align - 1))
            rounded = rewriter.insert(llvm.AndOp(bumped, const(~(align - 1)))).res
            aligned = rewriter.insert(llvm.IntToPtrOp(rounded)).output
        desc = MemRefDescriptor.pack(rewriter, allocated, aligned, const(0), sizes, strides)
        replace_with_llvm(rewriter, op, [desc.value])


class AllocaLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter):
        t = op.memref.type
        sizes, strides, count, const = _allocation(rewriter, op)
        align = op.alignment.value.data if op.alignment is not None else None
        count = const(count) if isinstance(count, int) else count
        ptr = alloca(rewriter, element_type(t), count, align)
        desc = MemRefDescriptor.pack(rewriter, ptr, ptr, const(0), sizes, strides)
        replace_with_llvm(rewriter, op, [desc.value])


@dataclass
class DeallocLowering(RewritePattern):
    allocator: Allocator = Allocator()

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DeallocOp, rewriter: PatternRewriter):
        t = op.memref.type
        if not isinstance(t, MemRefType):
            return
        ensure_declared(rewriter, op, self.allocator.free, FREE_TYPE)
        desc = MemRefDescriptor(to_llvm(rewriter, op.memref), t.get_num_dims())
        # The allocated pointer is what malloc returned; the aligned one may be past it.
        rewriter.insert(llvm_call(self.allocator.free, [desc.allocated_ptr(rewriter)]))
        rewriter.erase(op)


class LoadLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter):
        t = op.memref.type
        assert isinstance(t, MemRefType)
        desc = MemRefDescriptor(to_llvm(rewriter, op.memref), t.get_num_dims())
        ptr = element_ptr(rewriter, t, desc, op.indices)
        value = rewriter.insert(llvm_load(ptr, element_type(t))).dereferenced_value
        replace_with_llvm(rewriter, op, [value])


class StoreLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter):
        t = op.memref.type
        assert isinstance(t, MemRefType)
        desc = MemRefDescriptor(to_llvm(rewriter, op.memref), t.get_num_dims())
        ptr = element_ptr(rewriter, t, desc, op.indices)
        rewriter.insert(llvm_store(to_llvm(rewriter, op.value), ptr))
        rewriter.erase(op)


class PrefetchLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrefetchOp, rewriter: PatternRewriter):
        t = op.memref.type
        assert isinstance(t, MemRefType)
        desc = MemRefDescriptor(to_llvm(rewriter, op.memref), t.get_num_dims())
        ptr = element_ptr(rewriter, t, desc, op.indices)
        # (an i1 BoolAttr holds true as -1: the intrinsic wants 0 or 1)
        hints = [int(bool(op.isWrite.value.data)), op.localityHint.value.data, int(bool(op.isDataCache.value.data))]
        flags = [constant(rewriter, h, i32) for h in hints]
        rewriter.insert(llvm.CallIntrinsicOp("llvm.prefetch.p0", [ptr, *flags], []))
        rewriter.erase(op)


class DimLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter):
        t = op.source.type
        if not isinstance(t, MemRefType):
            return
        rank = t.get_num_dims()
        k = constant_int_value(op.index)
        desc = MemRefDescriptor(to_llvm(rewriter, op.source), rank)
        if k is not None and 0 <= k < rank:
            static = t.get_shape()[k]
            if static != DYNAMIC_INDEX:
                size = constant(rewriter, static)
            else:
                size = desc.size(rewriter, k)
        else:
            # A size chosen at run time: spill the sizes array and index it.
            sizes_type = llvm.LLVMArrayType(rank, i64)
            slot = alloca(rewriter, sizes_type, constant(rewriter, 1))
            rewriter.insert(llvm.StoreOp(desc.sizes_array(rewriter), slot))
            index = to_llvm(rewriter, op.index)
            gep = llvm.GEPOp.from_mixed_indices(slot, [0, index], sizes_type)
            ptr = rewriter.insert(gep).result
            size = rewriter.insert(llvm.LoadOp(ptr, i64)).dereferenced_value
        replace_with_llvm(rewriter, op, [size])


class CastLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CastOp, rewriter: PatternRewriter):
        source, target = op.source.type, op.dest.type
        value = to_llvm(rewriter, op.source)
        if isinstance(source, MemRefType) and isinstance(target, MemRefType):
            # Same rank, same descriptor: only the static knowledge about it changes.
            result = value
        elif isinstance(source, MemRefType):
            # The unranked descriptor points at a copy of the ranked one on the stack.
            slot = alloca(rewriter, value.type, constant(rewriter, 1))
            rewriter.insert(llvm.StoreOp(value, slot))
            rank = constant(rewriter, source.get_num_dims())
            result = UnrankedDescriptor.pack(rewriter, rank, slot).value
        elif isinstance(target, MemRefType):
            ptr = UnrankedDescriptor(value).ptr(rewriter)
            result = rewriter.insert(llvm.LoadOp(ptr, convert_type(target))).dereferenced_value
        else:
            result = value
        replace_with_llvm(rewriter, op, [result])


class CopyLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CopyOp, rewriter: PatternRewriter):
        source, target = op.source.type, op.destination.type
        assert isinstance(source, MemRefType) and isinstance(target, MemRefType)
        if not all(isinstance(t.layout, NoneAttr) for t in (source, target)):
            return  # one memcpy is right only for contiguous buffers
        src = MemRefDescriptor(to_llvm(rewriter, op.source), source.get_num_dims())
        dst = MemRefDescriptor(to_llvm(rewriter, op.destination), target.get_num_dims())
        count: SSAValue = constant(rewriter, 1)
        for k in range(source.get_num_dims()):
            count = _mul(rewriter, count, src.size(rewriter, k))
        nbytes = _mul(rewriter, count, constant(rewriter, _byte_size(source.element_type)))
        # With no indices, the element pointer is the start of the data: aligned + offset.
        src_ptr = element_ptr(rewriter, source, src, [])
        dst_ptr = element_ptr(rewriter, target, dst, [])
        volatile = constant(rewriter, 0, i1)
        rewriter.insert(llvm.CallIntrinsicOp("llvm.memcpy.p0.p0.i64", [dst_ptr, src_ptr, nbytes, volatile], []))
        rewriter.erase(op)


Index = int | SSAValue
"""A quantity known at compile time (an int) or only at run time (an i64 value)."""


def _as_value(const: I64Constants, x: Index) -> SSAValue:
    return const(x) if isinstance(x, int) else x


def _mul_index(rewriter: PatternRewriter, const: I64Constants, a: Index, b: Index) -> Index:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 1 or b == 1:
        return b if a == 1 else a
    return _mul(rewriter, _as_value(const, a), _as_value(const, b))


def _add_index(rewriter: PatternRewriter, const: I64Constants, a: Index, b: Index) -> Index:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0 or b == 0:
        return b if a == 0 else a
    return _add(rewriter, _as_value(const, a), _as_value(const, b))


def _mixed(rewriter: PatternRewriter, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[Index]:
    """An op's static list with its ``?`` entries taken, in order, from its operands."""
    operands = iter(to_llvm(rewriter, v) for v in dynamic)
    return [next(operands) if s == DYNAMIC_INDEX else s for s in static]


def dropped_unit_dims(sizes: Sequence[int], result_shape: Sequence[int]) -> set[int]:
    """The dimensions a rank-reducing subview of ``sizes`` drops to give ``result_shape``: as
    upstream's ``computeRankReductionMask``, each size is matched to the result's next
    dimension, and a static 1 that does not match is dropped."""
    dropped, j = set(), 0
    for k, size in enumerate(sizes):
        if j < len(result_shape) and result_shape[j] == size:
            j += 1
        elif size == 1:
            dropped.add(k)
        else:
            raise AssertionError(f"subview sizes {list(sizes)} do not reduce to {list(result_shape)}")
    assert j == len(result_shape), f"subview sizes {list(sizes)} do not reduce to {list(result_shape)}"
    return dropped


class SubviewLowering(RewritePattern):
    """``memref.subview`` -> a descriptor of the same buffer, as upstream gets it from
    ``expand-strided-metadata`` followed by this pass::

        offset'   = offset + sum(offsets[k] * strides[k])
        sizes'[k] = sizes[k] of the subview
        strides'[k] = strides[k] * subview strides[k]

    What is static in the source type and the subview is folded. A rank-reducing subview
    (``A[b, 0, 0] [1, M, K]`` to a matrix: one matrix of a batch) leaves out the sizes and
    strides of the unit dimensions its result type drops (``dropped_unit_dims``).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.SubviewOp, rewriter: PatternRewriter):
        source = op.source.type
        assert isinstance(source, MemRefType)
        rank = source.get_num_dims()
        const = I64Constants(rewriter)
        desc = MemRefDescriptor(to_llvm(rewriter, op.source), rank)
        static_strides, static_offset = static_strides_and_offset(source)
        strides: list[Index] = [desc.stride(rewriter, k) if s is None else s for k, s in enumerate(static_strides)]
        offset: Index = desc.offset(rewriter) if static_offset is None else static_offset
        offsets = _mixed(rewriter, op.static_offsets.get_values(), op.offsets)
        sizes = _mixed(rewriter, op.static_sizes.get_values(), op.sizes)
        steps = _mixed(rewriter, op.static_strides.get_values(), op.strides)
        for k in range(rank):
            offset = _add_index(rewriter, const, offset, _mul_index(rewriter, const, offsets[k], strides[k]))
        new_strides = [_mul_index(rewriter, const, strides[k], steps[k]) for k in range(rank)]
        assert isinstance(op.result.type, MemRefType)
        dropped = dropped_unit_dims(op.static_sizes.get_values(), op.result.type.get_shape())
        kept = [k for k in range(rank) if k not in dropped]
        result = MemRefDescriptor.pack(
            rewriter,
            desc.allocated_ptr(rewriter),
            desc.aligned_ptr(rewriter),
            _as_value(const, offset),
            [_as_value(const, sizes[k]) for k in kept],
            [_as_value(const, new_strides[k]) for k in kept],
        )
        replace_with_llvm(rewriter, op, [result.value])


class ReinterpretCastLowering(RewritePattern):
    """``memref.reinterpret_cast`` -> a descriptor of the same buffer with the op's offset,
    sizes and strides (as upstream's ``MemRefReinterpretCastOpLowering``: the offset counts
    from the aligned pointer, whatever the source's was)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.ReinterpretCastOp, rewriter: PatternRewriter):
        source = op.source.type
        assert isinstance(source, MemRefType)
        const = I64Constants(rewriter)
        desc = MemRefDescriptor(to_llvm(rewriter, op.source), source.get_num_dims())
        (offset,) = _mixed(rewriter, op.static_offsets.get_values(), op.offsets)
        sizes = _mixed(rewriter, op.static_sizes.get_values(), op.sizes)
        strides = _mixed(rewriter, op.static_strides.get_values(), op.strides)
        result = MemRefDescriptor.pack(
            rewriter,
            desc.allocated_ptr(rewriter),
            desc.aligned_ptr(rewriter),
            _as_value(const, offset),
            [_as_value(const, x) for x in sizes],
            [_as_value(const, x) for x in strides],
        )
        replace_with_llvm(rewriter, op, [result.value])


class CollapseShapeLowering(RewritePattern):
    """``memref.collapse_shape`` of every dimension of a contiguous memref: the same buffer
    seen as one row of all its elements."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CollapseShapeOp, rewriter: PatternRewriter):
        source = op.src.type  # contiguous, into one dimension: others are declined first
        assert isinstance(source, MemRefType)
        const = I64Constants(rewriter)
        desc = MemRefDescriptor(to_llvm(rewriter, op.src), source.get_num_dims())
        shape = source.get_shape()
        count: Index = prod(s for s in shape if s != DYNAMIC_INDEX)
        for k in (k for k, s in enumerate(shape) if s == DYNAMIC_INDEX):
            count = _mul_index(rewriter, const, desc.size(rewriter, k), count)
        flat = MemRefDescriptor.pack(
            rewriter,
            desc.allocated_ptr(rewriter),
            desc.aligned_ptr(rewriter),
            desc.offset(rewriter),
            [_as_value(const, count)],
            [const(1)],
        )
        replace_with_llvm(rewriter, op, [flat.value])


def _check_supported(pass_name: str, op: Operation) -> None:
    """Decline, before anything changes, a memref op this pass cannot lower correctly."""
    if isinstance(op, memref.GlobalOp):
        check_convertible(pass_name, op, [op.type])
        return
    check_convertible(pass_name, op)
    if isinstance(op, memref.CollapseShapeOp):
        source, result = op.src.type, op.result.type
        if (
            isinstance(source, MemRefType)
            and isinstance(result, MemRefType)
            and (result.get_num_dims() != 1 or not isinstance(source.layout, NoneAttr))
        ):
            raise PassFailedException(
                f"{pass_name}: memref.collapse_shape from {source} to {result} is not supported: "
                "only a contiguous memref collapsed into one dimension is"
            )


def _flat_initializer(op: memref.GlobalOp) -> Attribute:
    t = op.type
    elem = element_type(t)
    n = prod(t.get_shape())
    if isinstance(op.initial_value, DenseIntOrFPElementsAttr):
        values = list(op.initial_value.get_values())
    else:  # uninitialized: any contents will do, and zeros keep the global defined
        values = [0.0 if isinstance(elem, AnyFloat) else 0]
    if t.get_num_dims() == 0:
        value = values[0]
        assert not isinstance(value, tuple), "a complex number"  # (no mg type is one)
        if isinstance(elem, AnyFloat):
            return FloatAttr(float(value), elem)
        assert isinstance(elem, IntegerType)  # (an index is an i64 now)
        return IntegerAttr(int(value), elem)
    return DenseIntOrFPElementsAttr.from_list(TensorType(elem, [n]), values)  # pyright: ignore[reportCallIssue, reportArgumentType]  # xDSL: from_list's overloads take only an element type whose class is known statically; its body takes any integer or float type


class GlobalLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GlobalOp, rewriter: PatternRewriter):
        t = op.type
        elem = element_type(t)
        global_type = elem if t.get_num_dims() == 0 else llvm.LLVMArrayType(prod(t.get_shape()), elem)
        private = op.sym_visibility.data == "private"
        new = llvm.GlobalOp(
            global_type,
            op.sym_name,
            "private" if private else "external",
            constant=op.constant is not None,
            value=_flat_initializer(op),
            alignment=op.alignment.value.data if op.alignment is not None else None,
        )
        rewriter.replace(op, new)


class GetGlobalLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GetGlobalOp, rewriter: PatternRewriter):
        t = op.memref.type
        const = I64Constants(rewriter)
        sizes, strides, _ = _sizes_and_strides(rewriter, t, [], const)
        address = rewriter.insert(llvm.AddressOfOp(op.name_, PTR)).result
        sentinel = rewriter.insert(llvm.IntToPtrOp(const(DEADBEEF))).output
        desc = MemRefDescriptor.pack(rewriter, sentinel, address, const(0), sizes, strides)
        replace_with_llvm(rewriter, op, [desc.value])


class MemRefConversion(Conversion):
    name = "finalize-memref-to-llvm"

    def __init__(self, use_generic_functions: bool = False) -> None:
        self.allocator = GENERIC_ALLOCATOR if use_generic_functions else Allocator()

    def converts(self, op: Operation) -> bool:
        return op.name.startswith("memref.")

    def check(self, op: Operation) -> None:
        _check_supported(self.name, op)

    def patterns(self) -> list[RewritePattern]:
        return [
            AllocLowering(self.allocator),
            AllocaLowering(),
            DeallocLowering(self.allocator),
            LoadLowering(),
            StoreLowering(),
            PrefetchLowering(),
            DimLowering(),
            CastLowering(),
            CopyLowering(),
            GlobalLowering(),
            GetGlobalLowering(),
            SubviewLowering(),
            CollapseShapeLowering(),
            ReinterpretCastLowering(),
        ]


@dataclass(frozen=True)
class FinalizeMemRefToLLVMPass(ModulePass):
    name = "finalize-memref-to-llvm"

    use_generic_functions: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(op, [MemRefConversion(self.use_generic_functions)])
