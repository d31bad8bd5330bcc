"""The LLVM type converter and the helpers that every ``*-to-llvm`` pass of the project shares.

The conversions follow upstream MLIR's ``LLVMTypeConverter``:

- ``index`` becomes ``i64``;
- a ranked ``memref<AxBxT>`` (static or dynamic sizes) becomes its descriptor
  ``!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>``: allocated pointer,
  aligned pointer, offset, sizes, strides; rank 0 has no arrays: ``!llvm.struct<(ptr, ptr, i64)>``;
- an unranked ``memref<*xT>`` becomes ``!llvm.struct<(i64, ptr)>``: the rank and a pointer to a
  ranked descriptor;
- every other type is kept.

xDSL has no dialect-conversion driver, so ``apply_conversions`` does what upstream's does. Each
pass describes its share as a ``Conversion``: which ops it converts, a check that it can,
and its patterns. The patterns take each operand in its converted type through ``to_llvm``
and hand their results over with ``replace_with_llvm``. Like upstream's driver, the driver
remembers the replacements rather than making them at once: a later op's pattern still sees
its operands in their original types (a ``memref<2x3xf64>``, not a descriptor struct),
and ``to_llvm`` gives it the converted value. Once every op is converted the old ops go, and
a value still used by an op no pass converted is cast back to its original type
(``builtin.unrealized_conversion_cast``), as is an operand defined by an op converted later.
``reconcile-unrealized-casts`` removes such casts in pairs once every pass has run.

``convert-to-llvm`` runs every conversion in one walk, as upstream's pass of that name does:
a value then goes straight from the op that makes it to the ops that use it, where one pass
after another would cast it back and forth (half of the ops the passes made, one by one,
were such casts).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from math import prod
from weakref import WeakKeyDictionary

from xdsl.builder import Builder
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    UnrankedMemRefType,
    UnrealizedConversionCastOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from mg_xdsl.support.buffers import is_identity_layout
from mg_xdsl.support.op_builders import (
    conversion_cast,
    llvm_constant,
    llvm_extractvalue,
    llvm_gep,
    llvm_insertvalue,
    llvm_undef,
)
from mg_xdsl.support.rewrite_each import rewrite_each

PTR = llvm.LLVMPointerType()
INDEX_TYPE = i64
"""What ``index`` becomes: the host's pointer width, 64 bits on every target this project has."""

UNRANKED_DESCRIPTOR = llvm.LLVMStructType.from_type_list([i64, PTR])

# Field positions in a ranked descriptor.
ALLOCATED_PTR, ALIGNED_PTR, OFFSET, SIZES, STRIDES = range(5)


# ----------------------------------------------------------------------------- types


@cache  # a struct type takes longer to build than a dict takes to look up
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


LLVM_FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type, Float80Type, Float128Type)
"""The builtin float types LLVM has a type for; ``tf32``, the 8-, 6- and 4-bit formats it has not."""


def float_suffix(t: Attribute) -> str:
    """The suffix by which LLVM names an intrinsic's overload for a float type or a 1-D
    vector of one: ``f64``, ``v8f64`` (``llvm.maximum.v8f64``): the float type as MLIR writes
    it, for every float type LLVM has."""
    if isinstance(t, VectorType):
        return f"v{t.get_shape()[0]}{float_suffix(t.get_element_type())}"
    assert isinstance(t, LLVM_FLOAT_TYPES), f"LLVM has no {t} type"
    return str(t)


I64_MAX = 2**63 - 1


def _next_power_of_two(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def _bits(t: Attribute) -> int | None:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, LLVM_FLOAT_TYPES):
        return t.bitwidth
    return None


def byte_size(t: Attribute) -> int | None:
    """The bytes one element of type ``t`` takes in memory (LLVM's alloc size on x86-64 and
    AArch64), or ``None`` if the project has no LLVM type for it.

    LLVM aligns an integer or float to its size rounded up to a power of two, at most 16 bytes,
    and pads it to that alignment: ``i24`` takes 4 bytes, ``f80`` 16. A vector is aligned to
    its whole size rounded up to a power of two: ``vector<3xf32>`` takes 16 bytes.
    """
    t = convert_type(t)
    if isinstance(t, VectorType):
        element_bits = _bits(convert_type(t.get_element_type()))
        if t.get_num_dims() != 1 or t.get_num_scalable_dims() or element_bits is None:
            return None
        return _next_power_of_two(max(1, (t.get_shape()[0] * element_bits + 7) // 8))
    bits = _bits(t)
    if bits is None:
        return None
    stored = max(1, (bits + 7) // 8)
    align = min(_next_power_of_two(stored), 16)
    return -(-stored // align) * align


@cache  # asked of every operand and result; a module has few distinct types
def why_not_convertible(t: Attribute) -> str | None:
    """Why values of type ``t`` have no LLVM form in the project's conversions; ``None`` if
    they have one (or are not converted at all, as tensors)."""
    if isinstance(t, AnyFloat) and not isinstance(t, LLVM_FLOAT_TYPES):
        return f"LLVM has no {t} type"
    if isinstance(t, VectorType):
        return why_not_convertible(t.get_element_type())
    if not isinstance(t, MemRefType | UnrankedMemRefType):
        return None
    space = t.memory_space
    if not (isinstance(space, NoneAttr) or space == IntegerAttr(0, 64)):
        return "memory spaces (LLVM address spaces) are not supported"
    element = t.get_element_type()
    element_bytes = byte_size(element)
    if element_bytes is None:
        return f"element type {element} has no LLVM form here"
    if isinstance(t, UnrankedMemRefType):
        return None
    if not isinstance(t.layout, StridedLayoutAttr) and not is_identity_layout(t.layout):
        return f"layout {t.layout} is not supported (only identity and strided layouts are)"
    # Dynamic sizes aside, the static ones alone fix the strides, which must fit too.
    static_sizes = [s for s in t.get_shape() if s != DYNAMIC_INDEX]
    if prod(static_sizes) * element_bytes > I64_MAX:
        return "its size in bytes does not fit in i64"
    return None


def check_convertible(pass_name: str, op: Operation, extra_types: Sequence[Attribute] = ()) -> None:
    """Decline ``op`` with a clear error if a type it uses has no LLVM form.

    The passes call this on every op they would convert before changing anything, so a
    declined module is left as it was.
    """
    for t in (*(v.type for v in (*op.operands, *op.results)), *extra_types):
        if (why := why_not_convertible(t)) is not None:
            raise PassFailedException(f"{pass_name}: {op.name} on {t} is not supported: {why}")


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


# ----------------------------------------------------------------------------- materialisation


@dataclass
class _Replacements:
    """A conversion's replacements, made when it ends: each converted op (in the order they
    were converted) and the converted value of each of its results."""

    ops: list[Operation] = field(default_factory=list[Operation])
    values: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])


_replacements: _Replacements | None = None
"""Set while ``apply_conversions`` runs: the conversions' patterns are called from it and
only from it."""


def to_llvm(b: Builder, value: SSAValue) -> SSAValue:
    """``value`` in its converted type, cast there if it is not yet.

    Like upstream's adaptor, the value that replaces an op's result is used for it, and a
    value that is itself a cast from the converted type is looked through, so that chains of
    casts are not built in the first place.
    """
    if _replacements is not None and (new := _replacements.values.get(value)) is not None:
        return new
    target = convert_type(value.type)
    if target == value.type:
        return value
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1 and owner.inputs[0].type == target:
        return owner.inputs[0]
    return b.insert(conversion_cast(value, target)).results[0]


def from_llvm(b: Builder, value: SSAValue, original_type: Attribute) -> SSAValue:
    """``value`` (converted) cast back to ``original_type`` for users not converted yet."""
    if value.type == original_type:
        return value
    return b.insert(conversion_cast(value, original_type)).results[0]


def replace_with_llvm(rewriter: PatternRewriter, op: Operation, new_results: Sequence[SSAValue]) -> None:
    """Replace ``op`` (whose LLVM ops are already inserted) by values in converted types,
    when the conversion ends (``apply_conversions``)."""
    assert _replacements is not None, "a conversion pattern runs outside apply_conversions"
    for new, old in zip(new_results, op.results):
        if new.name_hint is None and old.name_hint is not None:
            new.name_hint = old.name_hint
    _replacements.ops.append(op)
    _replacements.values.update(zip(op.results, new_results))


class Conversion:
    """One ``*-to-llvm`` pass's share of a conversion to the LLVM dialect."""

    name: str  # the pass's, for its error messages

    def converts(self, op: Operation) -> bool:
        """Whether ``op`` is one that this conversion rewrites."""
        raise NotImplementedError

    def check(self, op: Operation) -> None:
        """Decline, before anything changes, an op this conversion cannot rewrite."""
        check_convertible(self.name, op)

    def prepare(self, ops: Sequence[Operation]) -> list[Operation]:
        """Work that must be done for all of ``ops`` before any is rewritten; returns the
        casts it made."""
        return []

    def patterns(self) -> list[RewritePattern]:
        """The patterns, tried in order on each op (after ``prepare``)."""
        raise NotImplementedError


def apply_conversions(module: ModuleOp, conversions: Sequence[Conversion]) -> None:
    """Rewrite every op of ``module`` that one of ``conversions`` converts, once, with the
    first of its patterns that matches, in one walk; then make the replacements (see the
    module's docstring) and erase the casts left unused, as upstream's driver never leaves
    them behind."""
    global _replacements
    ops: list[Operation] = []
    owner: dict[Operation, int] = {}
    each: list[list[Operation]] = [[] for _ in conversions]  # the ops of each conversion
    for op in module.walk():
        for k, conversion in enumerate(conversions):
            if conversion.converts(op):
                conversion.check(op)
                ops.append(op)
                owner[op] = k
                each[k].append(op)
                break
    casts = [cast for conversion, its in zip(conversions, each) for cast in conversion.prepare(its)]
    # A cast can only become unused here if it fed one of ``ops`` (whose rewrite looked
    # through it) or was made by this conversion, so only those are looked at.
    casts += [v.owner for op in ops for v in op.operands if isinstance(v.owner, UnrealizedConversionCastOp)]

    def inserted(op: Operation) -> None:
        if isinstance(op, UnrealizedConversionCastOp):
            casts.append(op)

    # A conversion keeps dead code, as upstream's does.
    appliers: list[RewritePattern] = [GreedyRewritePatternApplier(c.patterns(), dce_enabled=False) for c in conversions]
    _replacements = replacements = _Replacements()
    try:
        rewrite_each(ops, _ByOwner(owner, appliers), inserted)
    finally:
        _replacements = None
    # Users come after the ops they use (but for branches back to a loop's head), so the
    # last converted op goes first and is, as a rule, unused by then.
    for op in reversed(replacements.ops):
        for old in op.results:
            if old.uses:
                back = from_llvm(Builder(InsertPoint.before(op)), replacements.values[old], old.type)
                if isinstance(back.owner, UnrealizedConversionCastOp):
                    casts.append(back.owner)
                old.replace_all_uses_with(back)
        Rewriter.erase_op(op)
    erase_dead_casts(casts)


@dataclass
class _ByOwner(RewritePattern):
    """Each op to the patterns of the conversion it belongs to."""

    owner: dict[Operation, int]
    appliers: list[RewritePattern]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.appliers[self.owner[op]].match_and_rewrite(op, rewriter)


def _unused_cast(op: Operation) -> bool:
    return isinstance(op, UnrealizedConversionCastOp) and all(not r.uses for r in op.results)


def erase_dead_casts(candidates: Iterable[Operation]) -> None:
    """Erase those of ``candidates`` that are casts nobody uses, and the casts feeding them
    that this leaves unused."""
    worklist = [op for op in candidates if _unused_cast(op)]
    while worklist:
        op = worklist.pop()
        if op.parent is None:
            continue  # erased already, through another path
        inputs = [v.owner for v in op.operands]
        Rewriter.erase_op(op)
        # Erasing a cast can leave the cast feeding it unused.
        worklist.extend(o for o in inputs if isinstance(o, Operation) and _unused_cast(o))


def constant_int_value(value: SSAValue) -> int | None:
    """The integer a value is known to hold, looking through casts; ``None`` if unknown."""
    owner = value.owner
    while isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
        owner = owner.inputs[0].owner
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


# ----------------------------------------------------------------------------- small builders


def constant(b: Builder, value: int, type: Attribute = i64) -> SSAValue:
    return b.insert(llvm_constant(value, type)).result


def element_address(b: Builder, ptr: SSAValue, index: SSAValue, element: Attribute) -> SSAValue:
    """``llvm.getelementptr inbounds ptr[index]`` over elements of type ``element``."""
    return b.insert(llvm_gep(ptr, index, element)).result


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
    return b.insert(llvm_extractvalue(container, position, type)).res


def insert(b: Builder, container: SSAValue, value: SSAValue, position: Sequence[int]):
    return b.insert(llvm_insertvalue(container, value, position)).res


def build_struct(b: Builder, type: Attribute, values: Sequence[SSAValue]) -> SSAValue:
    """``llvm.mlir.undef`` filled field by field (xDSL's LLVM backend has no ``poison``)."""
    struct = b.insert(llvm_undef(type)).res
    for i, value in enumerate(values):
        struct = insert(b, struct, value, [i])
    return struct


def alloca(b: Builder, elem_type: Attribute, count: SSAValue, alignment: int | None = None) -> SSAValue:
    op = llvm.AllocaOp(count, elem_type)
    # xDSL's constructor always sets an alignment; upstream leaves it to the type's.
    if alignment is None:
        del op.properties["alignment"]
    else:
        op.properties["alignment"] = IntegerAttr(alignment, 64)
    return b.insert(op).res


def ensure_declared(rewriter: PatternRewriter, anchor: Operation, name: str, type: llvm.LLVMFunctionType) -> None:
    """Declare ``llvm.func @name`` at the top of the module around ``anchor`` unless present."""
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp), "expected the op to be inside a module"
    known = _found_symbols.setdefault(module, {})
    found = known.get(name)
    if found is not None and found.parent is module.body.block:
        return  # still there (an erased op has no parent)
    found = SymbolTable.lookup_symbol(module, name)
    if found is None:
        found = llvm.FuncOp(name, type, linkage=llvm.LinkageAttr("external"))
        rewriter.insert(found, InsertPoint.at_start(module.body.block))
    known[name] = found


# The functions ``ensure_declared`` found in each module, by name: a conversion asks for
# ``malloc`` at every allocation, and looking it up walks the module.
_found_symbols: WeakKeyDictionary[ModuleOp, dict[str, Operation]] = WeakKeyDictionary()


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
        desc = b.insert(llvm_undef(memref_descriptor_type(rank))).res
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
        return MemRefDescriptor.pack(b, fields[0], fields[1], fields[2], fields[3 : 3 + rank], fields[3 + rank :])

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


def pack_value(b: Builder, fields: Sequence[SSAValue], original_type: Attribute) -> SSAValue:
    """The converted value of ``original_type`` rebuilt from its calling-convention fields."""
    if isinstance(original_type, MemRefType):
        return MemRefDescriptor.from_fields(b, fields).value
    if isinstance(original_type, UnrankedMemRefType):
        return UnrankedDescriptor.pack(b, fields[0], fields[1]).value
    (value,) = fields
    return value
