"""The LLVM type converter and the helpers that every ``*-to-llvm`` pass of the project shares.

The conversions follow upstream MLIR's ``LLVMTypeConverter``:

- ``index`` becomes ``i64``;
- a ranked ``memref<AxBxT>`` (static or dynamic sizes) becomes its descriptor
  ``!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>``: allocated pointer,
  aligned pointer, offset, sizes, strides; rank 0 has no arrays: ``!llvm.struct<(ptr, ptr, i64)>``;
- an unranked ``memref<*xT>`` becomes ``!llvm.struct<(i64, ptr)>``: the rank and a pointer to a
  ranked descriptor;
- every other type is kept.

xDSL has no dialect-conversion driver, so the passes do what upstream's driver does by hand:
an operand is used in its converted type through ``builtin.unrealized_conversion_cast``
(``to_llvm``), and a converted result is cast back to its original type for users that are
not converted yet (``replace_with_llvm``). ``reconcile-unrealized-casts`` removes the pairs once
every pass has run.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    UnrankedMemRefType,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.traits import SymbolTable
from xdsl.rewriter import InsertPoint, Rewriter

PTR = llvm.LLVMPointerType()
INDEX_TYPE = i64
"""What ``index`` becomes: the host's pointer width, 64 bits on every target this project has."""

UNRANKED_DESCRIPTOR = llvm.LLVMStructType.from_type_list([i64, PTR])

# Field positions in a ranked descriptor.
ALLOCATED_PTR, ALIGNED_PTR, OFFSET, SIZES, STRIDES = range(5)


# ----------------------------------------------------------------------------- types


def memref_descriptor_type(rank: int) -> llvm.LLVMStructType:
    if rank == 0:
        return llvm.LLVMStructType.from_type_list([PTR, PTR, i64])
    array = llvm.LLVMArrayType(rank, i64)
    return llvm.LLVMStructType.from_type_list([PTR, PTR, i64, array, array])


def convert_type(t: Attribute) -> Attribute:
    """The LLVM-dialect type that values of type ``t`` have after conversion."""
    if isinstance(t, IndexType):
        return INDEX_TYPE
    if isinstance(t, MemRefType):
        return memref_descriptor_type(t.get_num_dims())
    if isinstance(t, UnrankedMemRefType):
        return UNRANKED_DESCRIPTOR
    return t


def is_memref(t: Attribute) -> bool:
    return isinstance(t, MemRefType | UnrankedMemRefType)


def expanded_types(t: Attribute) -> list[Attribute]:
    """The types a value of type ``t`` is passed as, in upstream's calling convention.

    A memref is passed as the scalar fields of its descriptor, in order; anything else as its
    converted type.
    """
    if isinstance(t, MemRefType):
        rank = t.get_num_dims()
        return [PTR, PTR, i64, *([i64] * rank), *([i64] * rank)]
    if isinstance(t, UnrankedMemRefType):
        return [i64, PTR]
    return [convert_type(t)]


def element_type(t: MemRefType) -> Attribute:
    return convert_type(t.get_element_type())


def static_strides_and_offset(t: MemRefType) -> tuple[list[int | None], int | None]:
    """Strides and offset of ``t`` where they are known at compile time (``None`` if not).

    The identity layout is row-major with offset 0; a stride is static when every size to its
    right is.
    """
    if isinstance(t.layout, StridedLayoutAttr):
        strides = [
            None if s is None or s == DYNAMIC_INDEX else s
            for s in t.layout.get_strides()
        ]
        offset = t.layout.get_offset()
        return strides, None if offset is None or offset == DYNAMIC_INDEX else offset
    assert isinstance(t.layout, NoneAttr), f"unsupported memref layout {t.layout}"
    strides: list[int | None] = []
    running: int | None = 1
    for size in reversed(t.get_shape()):
        strides.append(running)
        running = None if running is None or size == DYNAMIC_INDEX else running * size
    return list(reversed(strides)), 0


# ----------------------------------------------------------------------------- materialisation


def to_llvm(b: Builder, value: SSAValue) -> SSAValue:
    """``value`` in its converted type, cast there if it is not yet.

    Like upstream's adaptor, a value that is itself a cast from the converted type is looked
    through, so that chains of casts are not built in the first place.
    """
    target = convert_type(value.type)
    if target == value.type:
        return value
    owner = value.owner
    if (
        isinstance(owner, UnrealizedConversionCastOp)
        and len(owner.inputs) == 1
        and owner.inputs[0].type == target
    ):
        return owner.inputs[0]
    cast, result = UnrealizedConversionCastOp.cast_one(value, target)
    b.insert(cast)
    return result


def from_llvm(b: Builder, value: SSAValue, original_type: Attribute) -> SSAValue:
    """``value`` (converted) cast back to ``original_type`` for users not converted yet."""
    if value.type == original_type:
        return value
    cast, result = UnrealizedConversionCastOp.cast_one(value, original_type)
    b.insert(cast)
    return result


def replace_with_llvm(
    rewriter: PatternRewriter, op: Operation, new_results: Sequence[SSAValue]
) -> None:
    """Replace ``op`` (whose LLVM ops are already inserted) by values in converted types."""
    for new, old in zip(new_results, op.results):
        if new.name_hint is None and old.name_hint is not None:
            new.name_hint = old.name_hint
    results = [
        from_llvm(rewriter, new, old.type) for new, old in zip(new_results, op.results)
    ]
    rewriter.replace(op, [], results)


def erase_dead_casts(module: ModuleOp) -> None:
    """Erase casts nobody uses, as upstream's driver never leaves them behind."""

    def dead(op: Operation) -> bool:
        return isinstance(op, UnrealizedConversionCastOp) and all(
            not r.uses for r in op.results
        )

    worklist = [op for op in module.walk() if dead(op)]
    while worklist:
        op = worklist.pop()
        if op.parent is None:
            continue  # erased already, through another path
        inputs = [v.owner for v in op.operands]
        Rewriter.erase_op(op)
        # Erasing a cast can leave the cast feeding it unused.
        worklist.extend(o for o in inputs if isinstance(o, Operation) and dead(o))


def constant_int_value(value: SSAValue) -> int | None:
    """The integer a value is known to hold, looking through casts; ``None`` if unknown."""
    owner = value.owner
    while isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
        owner = owner.inputs[0].owner
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp) and isinstance(
        owner.value, IntegerAttr
    ):
        return owner.value.value.data
    return None


# ----------------------------------------------------------------------------- small builders


def constant(b: Builder, value: int, type: Attribute = i64) -> SSAValue:
    return b.insert(llvm.ConstantOp(IntegerAttr(value, type), type)).result


@dataclass
class I64Constants:
    """Creates each i64 constant once per rewrite, so static sizes and strides share them."""

    b: Builder
    _made: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])

    def __call__(self, value: int) -> SSAValue:
        if value not in self._made:
            self._made[value] = constant(self.b, value)
        return self._made[value]


def extract(b: Builder, container: SSAValue, position: Sequence[int], type: Attribute):
    op = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, position), container, type)
    return b.insert(op).res


def insert(b: Builder, container: SSAValue, value: SSAValue, position: Sequence[int]):
    op = llvm.InsertValueOp(DenseArrayBase.from_list(i64, position), container, value)
    return b.insert(op).res


def build_struct(b: Builder, type: Attribute, values: Sequence[SSAValue]) -> SSAValue:
    """``llvm.mlir.undef`` filled field by field (xDSL's LLVM backend has no ``poison``)."""
    struct = b.insert(llvm.UndefOp(type)).res
    for i, value in enumerate(values):
        struct = insert(b, struct, value, [i])
    return struct


def alloca(
    b: Builder, elem_type: Attribute, count: SSAValue, alignment: int | None = None
) -> SSAValue:
    op = llvm.AllocaOp(count, elem_type)
    # xDSL's constructor always sets an alignment; upstream leaves it to the type's.
    if alignment is None:
        del op.properties["alignment"]
    else:
        op.properties["alignment"] = IntegerAttr(alignment, 64)
    return b.insert(op).res


def ensure_declared(
    rewriter: PatternRewriter, anchor: Operation, name: str, type: llvm.LLVMFunctionType
) -> None:
    """Declare ``llvm.func @name`` at the top of the module around ``anchor`` unless present."""
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp), "expected the op to be inside a module"
    if SymbolTable.lookup_symbol(module, name) is not None:
        return
    decl = llvm.FuncOp(name, type, linkage=llvm.LinkageAttr("external"))
    rewriter.insert(decl, InsertPoint.at_start(module.body.block))


# ----------------------------------------------------------------------------- descriptors


@dataclass
class MemRefDescriptor:
    """A ranked memref descriptor value, with accessors that emit ``llvm.extractvalue``."""

    value: SSAValue
    rank: int

    @staticmethod
    def pack(
        b: Builder,
        allocated: SSAValue,
        aligned: SSAValue,
        offset: SSAValue,
        sizes: Sequence[SSAValue],
        strides: Sequence[SSAValue],
    ) -> "MemRefDescriptor":
        rank = len(sizes)
        desc = b.insert(llvm.UndefOp(memref_descriptor_type(rank))).res
        desc = insert(b, desc, allocated, [ALLOCATED_PTR])
        desc = insert(b, desc, aligned, [ALIGNED_PTR])
        desc = insert(b, desc, offset, [OFFSET])
        for k, size in enumerate(sizes):
            desc = insert(b, desc, size, [SIZES, k])
        for k, stride in enumerate(strides):
            desc = insert(b, desc, stride, [STRIDES, k])
        return MemRefDescriptor(desc, rank)

    @staticmethod
    def from_fields(b: Builder, fields: Sequence[SSAValue]) -> "MemRefDescriptor":
        """Repack the scalar fields of the calling convention (see ``expanded_types``)."""
        rank = (len(fields) - 3) // 2
        return MemRefDescriptor.pack(
            b, fields[0], fields[1], fields[2], fields[3 : 3 + rank], fields[3 + rank :]
        )

    def fields(self, b: Builder) -> list[SSAValue]:
        """The scalar fields, in calling-convention order."""
        return [
            self.allocated_ptr(b),
            self.aligned_ptr(b),
            self.offset(b),
            *(self.size(b, k) for k in range(self.rank)),
            *(self.stride(b, k) for k in range(self.rank)),
        ]

    def allocated_ptr(self, b: Builder) -> SSAValue:
        return extract(b, self.value, [ALLOCATED_PTR], PTR)

    def aligned_ptr(self, b: Builder) -> SSAValue:
        return extract(b, self.value, [ALIGNED_PTR], PTR)

    def offset(self, b: Builder) -> SSAValue:
        return extract(b, self.value, [OFFSET], i64)

    def size(self, b: Builder, k: int) -> SSAValue:
        return extract(b, self.value, [SIZES, k], i64)

    def stride(self, b: Builder, k: int) -> SSAValue:
        return extract(b, self.value, [STRIDES, k], i64)

    def sizes_array(self, b: Builder) -> SSAValue:
        return extract(b, self.value, [SIZES], llvm.LLVMArrayType(self.rank, i64))


@dataclass
class UnrankedDescriptor:
    """An unranked memref descriptor ``{rank, pointer to a ranked descriptor}``."""

    value: SSAValue

    @staticmethod
    def pack(b: Builder, rank: SSAValue, ptr: SSAValue) -> "UnrankedDescriptor":
        return UnrankedDescriptor(build_struct(b, UNRANKED_DESCRIPTOR, [rank, ptr]))

    def fields(self, b: Builder) -> list[SSAValue]:
        return [self.rank(b), self.ptr(b)]

    def rank(self, b: Builder) -> SSAValue:
        return extract(b, self.value, [0], i64)

    def ptr(self, b: Builder) -> SSAValue:
        return extract(b, self.value, [1], PTR)


def unpack_value(b: Builder, value: SSAValue, original_type: Attribute) -> list[SSAValue]:
    """The calling-convention fields of ``value`` (already converted) of ``original_type``."""
    if isinstance(original_type, MemRefType):
        return MemRefDescriptor(value, original_type.get_num_dims()).fields(b)
    if isinstance(original_type, UnrankedMemRefType):
        return UnrankedDescriptor(value).fields(b)
    return [value]


def pack_value(
    b: Builder, fields: Sequence[SSAValue], original_type: Attribute
) -> SSAValue:
    """The converted value of ``original_type`` rebuilt from its calling-convention fields."""
    if isinstance(original_type, MemRefType):
        return MemRefDescriptor.from_fields(b, fields).value
    if isinstance(original_type, UnrankedMemRefType):
        return UnrankedDescriptor.pack(b, fields[0], fields[1]).value
    (value,) = fields
    return value
