"""The LLVM dialect printed as LLVM IR text, directly.

``print_module`` writes the text that LLVM's assembly parser reads, one line per op, for
the LLVM-dialect ops that this project's pipelines make. It does what ``mlir-translate
--mlir-to-llvmir`` does for them, and what xDSL's ``convert_module`` does (which builds
the same module with llvmlite's IR builder, object by object, then prints it: a fifth of a
large program's compile time). Where a module holds something this printer does not know
(an op, a type, an attribute it would have to drop), it raises ``Unsupported`` and
``jit.translate`` falls back to xDSL's translation, so that nothing is silently lost.

The rules, in LLVM's terms:

* block arguments become ``phi`` nodes, their incoming values read from the branches;
* ``llvm.mlir.constant``, ``undef``, ``zero`` and ``addressof`` are operands written in
  place (LLVM has no instruction for a constant); a floating-point constant is written as
  the hexadecimal of its IEEE bits (LLVM's exact form: a decimal could round);
* ``llvm.call_intrinsic`` and ``llvm.intr.fma`` call an intrinsic that the module declares
  once; fast-math, overflow, ``exact`` and ``disjoint`` flags are kept;
* ``passthrough`` strings on a function (``noinline``, ``optnone``) become its attributes;
  a function's linkage is not written (the definitions stay external, as in xDSL's
  translation, so that a library's symbols are there to link against).
"""

from __future__ import annotations

import math
import re
import struct
from functools import cache
from typing import Callable, TypeVar, cast

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.type import get_element_type_or_self

from mg_xdsl.conversions.to_llvm.type_conversion import float_suffix
from mg_xdsl.dialects.llvm_loop_annotation import LOOP_ANNOTATION, PARALLEL_ACCESSES, LoopAnnotationAttr


class Unsupported(Exception):
    """Something in the module that this printer does not translate."""


_PLAIN_NAME = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*")


def global_name(name: str) -> str:
    """``@name``, quoted where LLVM's lexer needs it."""
    return f"@{name}" if _PLAIN_NAME.fullmatch(name) else f'@"{name}"'


# --- types ---------------------------------------------------------------------------

BF16_BITS = "i16"
"""What LLVM gets for a ``bf16``: its 16 bits. The language's ``bf16`` is only ever stored,
loaded, moved and bit-cast (every operation on it is computed in ``f32``:
``mg.ScalarComputation.compute``). As ``bfloat``, LLVM's x86 back end promotes a value it loads and
stores again (a broadcast, a copy) to ``float`` and rounds it back with a call to
compiler-rt's ``__truncsfbf2``, which neither the JIT's process nor an executable has."""

# Keyed by identity: hashing a struct type hashes all its members, each time. The entry
# keeps the type alive, so that its id is not reused while the entry exists.
_type_text: dict[int, tuple[Attribute, str]] = {}


def type_text(t: Attribute) -> str:
    """LLVM's spelling of a type: ``i64``, ``double``, ``ptr``, ``<8 x double>``,
    ``{ptr, ptr, i64, [2 x i64], [2 x i64]}``."""
    entry = _type_text.get(id(t))
    if entry is None:
        entry = _type_text[id(t)] = (t, _spell_type(t))
    return entry[1]


def _spell_type(t: Attribute) -> str:
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, BFloat16Type):
        return BF16_BITS
    if isinstance(t, llvm.LLVMPointerType):
        space = t.addr_space.data if isinstance(t.addr_space, IntAttr) else 0
        return "ptr" if not space else f"ptr addrspace({space})"
    if isinstance(t, llvm.LLVMVoidType):
        return "void"
    if isinstance(t, llvm.LLVMArrayType):
        return f"[{t.size.data} x {type_text(t.type)}]"
    if isinstance(t, llvm.LLVMStructType):
        return "{" + ", ".join(type_text(m) for m in t.types.data) + "}"
    if isinstance(t, VectorType) and t.get_num_dims() == 1 and not t.get_num_scalable_dims():
        return f"<{t.get_shape()[0]} x {type_text(t.element_type)}>"
    raise Unsupported(f"type {t}")


# --- constants -----------------------------------------------------------------------


def _float_text(value: float, t: Attribute) -> str:
    # LLVM reads a float or double constant exactly from the bits of the double that holds
    # its value; a float is widened first.
    if isinstance(t, BFloat16Type):  # (its bits, as BF16_BITS says)
        return str(bfloat16_bits(value))
    if isinstance(t, Float32Type):
        value = struct.unpack("<f", struct.pack("<f", value))[0]
    elif not isinstance(t, Float64Type):
        raise Unsupported(f"constant of type {t}")
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]


def bfloat16_bits(value: float) -> int:
    """The bits of ``value`` rounded to bfloat16, to nearest even (through f32, as the
    language's ``bf16`` literals are rounded; a NaN stays a quiet NaN)."""
    if math.isnan(value):
        return 0x7FC0
    try:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:  # beyond f32: infinity
        bits = 0xFF800000 if value < 0 else 0x7F800000
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _scalar_text(value: int | float, t: Attribute) -> str:
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            return "true" if value else "false"
        return str(int(value))
    return _float_text(float(value), t)


def constant_text(value: Attribute, t: Attribute) -> str:
    """An LLVM constant of type ``t`` (without the type) for an ``llvm.mlir.constant`` or a
    global's initialiser."""
    if isinstance(value, IntegerAttr):
        return _scalar_text(value.value.data, t)
    if isinstance(value, FloatAttr):
        return _scalar_text(value.value.data, t)
    if isinstance(value, DenseIntOrFPElementsAttr):
        if isinstance(t, VectorType):
            element, opening, closing = t.element_type, "<", ">"
        elif isinstance(t, llvm.LLVMArrayType):
            element, opening, closing = t.type, "[", "]"
        else:
            raise Unsupported(f"dense constant of type {t}")
        values = value.get_values()
        count = t.get_shape()[0] if isinstance(t, VectorType) else t.size.data
        if len(values) == 1 and count != 1:
            values = values * count  # a splat
        element_type = type_text(element)
        return opening + ", ".join(f"{element_type} {_scalar_text(v, element)}" for v in values) + closing
    raise Unsupported(f"constant {value}")


def _string_text(data: str) -> str:
    return 'c"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data.encode()) + '"'


# --- properties and flags ----------------------------------------------------------------

# The printers take any op and read its properties by name: each read says which kind of
# attribute the op's definition gives that property.
_AttributeT = TypeVar("_AttributeT", bound=Attribute)


def _property(op: Operation, name: str, kind: type[_AttributeT]) -> _AttributeT:
    value = op.properties[name]
    assert isinstance(value, kind), f"{op.name}: {name} = {value}"
    return value


def _optional_property(op: Operation, name: str, kind: type[_AttributeT]) -> _AttributeT | None:
    value = op.properties.get(name)
    assert value is None or isinstance(value, kind), f"{op.name}: {name} = {value}"
    return value


def _integer_values(array: DenseArrayBase) -> tuple[int, ...]:
    assert isinstance(array.elt_type, IntegerType), array
    # (isinstance cannot narrow DenseArrayBase's element type parameter: xDSL's own code casts too)
    return cast(DenseArrayBase[IntegerType], array).get_values()


def _fast_math(op: Operation) -> str:
    flags = _optional_property(op, "fastmathFlags", llvm.FastMathAttr)
    if flags is None or not flags.data:
        return ""
    return " ".join(sorted(f.value for f in flags.data)) + " "


_overflow_text: dict[int, str] = {}


def _overflow(op: Operation) -> str:
    attr = _optional_property(op, "overflowFlags", IntegerAttr)
    bits = attr.value.data if attr is not None else 0
    text = _overflow_text.get(bits)
    if text is None:
        flags = llvm.OverflowAttr.from_int(bits).data if bits else ()
        text = _overflow_text[bits] = "".join(f"{f.value} " for f in sorted(flags, key=str))
    return text


def _unit(op: Operation, name: str, word: str) -> str:
    return f"{word} " if name in op.properties else ""


# --- instructions ----------------------------------------------------------------------

_BINARY = {
    llvm.AddOp: ("add", _overflow),
    llvm.SubOp: ("sub", _overflow),
    llvm.MulOp: ("mul", _overflow),
    llvm.ShlOp: ("shl", _overflow),
    llvm.SDivOp: ("sdiv", lambda op: _unit(op, "isExact", "exact")),
    llvm.UDivOp: ("udiv", lambda op: _unit(op, "isExact", "exact")),
    llvm.LShrOp: ("lshr", lambda op: _unit(op, "isExact", "exact")),
    llvm.AShrOp: ("ashr", lambda op: _unit(op, "isExact", "exact")),
    llvm.OrOp: ("or", lambda op: _unit(op, "isDisjoint", "disjoint")),
    llvm.SRemOp: ("srem", None),
    llvm.URemOp: ("urem", None),
    llvm.AndOp: ("and", None),
    llvm.XOrOp: ("xor", None),
    llvm.FAddOp: ("fadd", _fast_math),
    llvm.FSubOp: ("fsub", _fast_math),
    llvm.FMulOp: ("fmul", _fast_math),
    llvm.FDivOp: ("fdiv", _fast_math),
    llvm.FRemOp: ("frem", _fast_math),
    llvm.FRemOp: ("frem", _fast_math),
}

_CASTS = {
    llvm.TruncOp: "trunc",
    llvm.ZExtOp: "zext",
    llvm.SExtOp: "sext",
    llvm.PtrToIntOp: "ptrtoint",
    llvm.IntToPtrOp: "inttoptr",
    llvm.BitcastOp: "bitcast",
    llvm.FPExtOp: "fpext",
    llvm.FPTruncOp: "fptrunc",
    llvm.SIToFPOp: "sitofp",
}

# Properties that every op of a kind carries and that change nothing here (their default),
# and those that the printer writes; anything else on an op is something it would drop.
_IGNORED = frozenset(
    {
        "CConv",
        "TailCallKind",
        "op_bundle_sizes",
        "operandSegmentSizes",
        "ordering",
        "noWrapFlags",
        "elem_type",
        "rawConstantIndices",
        "callee",
        "intrin",
        "position",
        "predicate",
        "value",
        "mask",
        "fastmathFlags",
        "overflowFlags",
        "isExact",
        "isDisjoint",
        "alignment",
        "inbounds",
        "global_name",
        "nontemporal",
    }
)


class _FunctionPrinter:
    """The body of one ``llvm.func``: names its values and blocks, then writes each block,
    its phis first."""

    def __init__(self, module: "_ModulePrinter", func: llvm.FuncOp):
        self.module = module
        self.names: dict[SSAValue, str] = {}
        self.counter = 0
        self.blocks: dict[Block, str] = {}
        self.incoming: dict[Block, list[tuple[list[SSAValue], str]]] = {}
        self.func = func

    def value(self, v: SSAValue) -> str:
        name = self.names.get(v)
        if name is None:
            raise Unsupported(f"a use of {v} before its definition is printed")
        return name

    def typed(self, v: SSAValue) -> str:
        return f"{type_text(v.type)} {self.value(v)}"

    def define(self, v: SSAValue) -> str:
        name = self.names[v] = f"%v{self.counter}"
        self.counter += 1
        return name

    def print(self, out: list[str]) -> None:
        func = self.func
        body = func.body.blocks
        for i, block in enumerate(body):
            self.blocks[block] = f"bb{i}"
        params = []
        assert body.first is not None, "only a function with a body gets a _FunctionPrinter"
        for i, arg in enumerate(body.first.args):
            name = self.names[arg] = f"%a{i}"
            params.append(f"{type_text(arg.type)} {name}")
        # Phi operands may be defined in later blocks: name every result first.
        for block in body:
            if block is not body.first:
                for arg in block.args:
                    self.define(arg)
            for op in block.ops:
                self._record_branches(op, block)
                kind = type(op)
                if kind in _INLINE:
                    self.names[op.results[0]] = _INLINE[kind](self, op)
                else:
                    for result in op.results:
                        self.define(result)
        out.append(
            f"define {type_text(func.function_type.output)} {global_name(func.sym_name.data)}"
            f"({', '.join(params)}){self.module.function_attributes(func)} {{"
        )
        for block in body:
            if block is not body.first:
                out.append("")
            out.append(f"{self.blocks[block]}:")
            for arg in block.args if block is not body.first else ():
                sources = self.incoming.get(block)
                if not sources:
                    raise Unsupported("a block with arguments that no branch reaches")
                index = arg.index
                pairs = ", ".join(f"[ {self.value(values[index])}, %{label} ]" for values, label in sources)
                out.append(f"  {self.names[arg]} = phi {type_text(arg.type)} {pairs}")
            # The loads and stores of a loop body that ends in a branch back marked
            # PARALLEL_ACCESSES: in an access group that the branch's loop metadata names.
            last = block.last_op
            group = (
                self.module.access_group()
                if isinstance(last, llvm.BrOp) and PARALLEL_ACCESSES in last.attributes
                else None
            )
            for op in block.ops:
                kind = type(op)
                if kind in _INLINE:
                    continue
                printer = _PRINTERS.get(kind)
                if printer is None:
                    raise Unsupported(f"op {op.name}")
                extra = op.properties.keys() - _IGNORED
                loop = ""
                if extra or op.attributes:
                    loop = self._loop_metadata(op, extra, group)
                elif group and kind in (llvm.LoadOp, llvm.StoreOp):
                    loop = f", !llvm.access.group {group}"
                out.append("  " + printer(self, op) + loop)
        out.append("}")

    def _loop_metadata(self, op: Operation, extra: set[str], group: str | None) -> str:
        """``, !llvm.loop !N`` for a branch back to a loop's start that carries the loop's
        hints (``group``: the access group of its ``PARALLEL_ACCESSES``); ``Unsupported``
        for any other property or attribute."""
        annotation = op.attributes.get(LOOP_ANNOTATION)
        if (
            extra
            or not op.attributes.keys() <= {LOOP_ANNOTATION, PARALLEL_ACCESSES}
            or not isinstance(op, (llvm.BrOp, llvm.CondBrOp))
            or not isinstance(annotation, LoopAnnotationAttr | None)
            or (PARALLEL_ACCESSES in op.attributes and group is None)
        ):
            raise Unsupported(f"{op.name} with {sorted(extra | op.attributes.keys())}")
        node = self.module.loop_node(annotation, group)
        return f", !llvm.loop {node}" if node else ""

    def _record_branches(self, op: Operation, block: Block) -> None:
        if isinstance(op, (llvm.BrOp, llvm.CondBrOp)):
            label = self.blocks[block]
            operands = op.operands
            # ``llvm.br``'s operands go to its one successor; ``llvm.cond_br``'s after the
            # condition are the first successor's, then the second's.
            start = 1 if isinstance(op, llvm.CondBrOp) else 0
            for successor in op.successors:
                count = len(successor.args)
                self.incoming.setdefault(successor, []).append((list(operands[start : start + count]), label))
                start += count


def _result(p: _FunctionPrinter, op: Operation) -> str:
    return p.names[op.results[0]]


def _binary(p: _FunctionPrinter, op: Operation) -> str:
    opcode, flags = _BINARY[type(op)]
    lhs, rhs = op.operands
    return (
        f"{_result(p, op)} = {opcode} {flags(op) if flags else ''}{type_text(lhs.type)} {p.value(lhs)}, {p.value(rhs)}"
    )


def _cast(p: _FunctionPrinter, op: Operation) -> str:
    flags = {k: v for k, v in op.properties.items() if k in ("nonNeg", "overflowFlags")}
    if any(getattr(v, "data", v) for v in flags.values()):  # (an empty set of flags is none)
        raise Unsupported(f"{op.name} with flags")
    return f"{_result(p, op)} = {_CASTS[type(op)]} {p.typed(op.operands[0])} to {type_text(op.results[0].type)}"


def _compare(p: _FunctionPrinter, op: Operation) -> str:
    """``icmp``/``fcmp``: the predicate's name from its number (``_false`` is ``false``)."""
    opcode, flags = (
        ("icmp", llvm.ICmpPredicateFlag) if isinstance(op, llvm.ICmpOp) else ("fcmp", llvm.FCmpPredicateFlag)
    )
    predicate = flags.from_int(_property(op, "predicate", IntegerAttr).value.data).value.lstrip("_")
    lhs, rhs = op.operands
    return f"{_result(p, op)} = {opcode} {_fast_math(op)}{predicate} {p.typed(lhs)}, {p.value(rhs)}"


@cache
def _position_text(position: DenseArrayBase) -> str:
    return "".join(f", {i}" for i in _integer_values(position))


def _typed_operands(
    opcode: str, flags: Callable[[Operation], str] | None = None, position: bool = False
) -> Callable[[_FunctionPrinter, Operation], str]:
    """The printer of an instruction written as its opcode, flags and typed operands
    (``select``, ``fneg``, ``insertelement``), and for ``extractvalue``/``insertvalue`` the
    field's position after them."""

    def print_op(p: _FunctionPrinter, op: Operation) -> str:
        operands = ", ".join([p.typed(v) for v in op.operands])
        where = _position_text(_property(op, "position", DenseArrayBase)) if position else ""
        return f"{_result(p, op)} = {opcode} {flags(op) if flags else ''}{operands}{where}"

    return print_op


def _alignment(op: Operation) -> str:
    align = _optional_property(op, "alignment", IntegerAttr)
    return f", align {align.value.data}" if align is not None else ""


def _load(p: _FunctionPrinter, op: Operation) -> str:
    if _property(op, "ordering", IntegerAttr).value.data:
        raise Unsupported("atomic llvm.load")
    return f"{_result(p, op)} = load {type_text(op.results[0].type)}, {p.typed(op.operands[0])}{_alignment(op)}"


def _store(p: _FunctionPrinter, op: Operation) -> str:
    ordering = _optional_property(op, "ordering", IntegerAttr)
    if ordering is not None and ordering.value.data:
        raise Unsupported("atomic llvm.store")
    value, ptr = op.operands
    streaming = f", !nontemporal {p.module.node('!{i32 1}')}" if "nontemporal" in op.properties else ""
    return f"store {p.typed(value)}, {p.typed(ptr)}{_alignment(op)}{streaming}"


def _alloca(p: _FunctionPrinter, op: Operation) -> str:
    element = type_text(op.properties["elem_type"])
    return f"{_result(p, op)} = alloca {element}, {p.typed(op.operands[0])}{_alignment(op)}"


def _gep(p: _FunctionPrinter, op: Operation) -> str:
    ptr, *dynamic = op.operands
    dynamic_indices = iter(dynamic)
    indices = [
        p.typed(next(dynamic_indices)) if index == llvm.GEP_USE_SSA_VAL else f"i32 {index}"
        for index in _integer_values(_property(op, "rawConstantIndices", DenseArrayBase))
    ]
    flags = _property(op, "noWrapFlags", IntegerAttr).value.data
    if flags:
        raise Unsupported("llvm.getelementptr with no-wrap flags")
    inbounds = "inbounds " if "inbounds" in op.properties else ""
    return (
        f"{_result(p, op)} = getelementptr {inbounds}{type_text(op.properties['elem_type'])}, "
        f"{p.typed(ptr)}, {', '.join(indices)}"
    )


def _shufflevector(p: _FunctionPrinter, op: Operation) -> str:
    v1, v2 = op.operands
    indices = _integer_values(_property(op, "mask", DenseArrayBase))
    mask = ", ".join(f"i32 {i}" for i in indices)
    return f"{_result(p, op)} = shufflevector {p.typed(v1)}, {p.typed(v2)}, <{len(indices)} x i32> <{mask}>"


def _call_text(p: _FunctionPrinter, op: Operation, callee: str, result: Attribute | None) -> str:
    """``call`` of ``callee`` returning ``result`` (None: ``void``)."""
    args = ", ".join(p.typed(a) for a in op.operands)
    # Fast-math flags are allowed only on a call that returns floating point (LLVM's rule);
    # xDSL's translation drops them elsewhere too.
    floats = result is not None and isinstance(get_element_type_or_self(result), AnyFloat)
    flags = _fast_math(op) if floats else ""
    call = f"call {flags}{'void' if result is None else type_text(result)} {global_name(callee)}({args})"
    return f"{_result(p, op)} = {call}" if op.results else call


def _call(p: _FunctionPrinter, op: Operation) -> str:
    callee = _optional_property(op, "callee", SymbolRefAttr)
    conv = _property(op, "CConv", llvm.CallingConventionAttr)
    if callee is None or conv.cconv_name != "ccc" or "var_callee_type" in op.properties:
        raise Unsupported("an indirect, variadic or non-C call")
    if _property(op, "TailCallKind", llvm.TailCallKindAttr).data != "none":
        raise Unsupported("a tail call")
    result = op.results[0].type if op.results else None
    return _call_text(p, op, callee.string_value(), result)


def _call_intrinsic(p: _FunctionPrinter, op: Operation) -> str:
    name = _property(op, "intrin", StringAttr).data
    result = op.results[0].type if op.results else None
    p.module.declare(name, "void" if result is None else type_text(result), [a.type for a in op.operands])
    return _call_text(p, op, name, result)


def _fma(p: _FunctionPrinter, op: Operation) -> str:
    t = op.results[0].type
    name = f"llvm.fma.{float_suffix(t)}"
    p.module.declare(name, type_text(t), [t, t, t])
    return _call_text(p, op, name, t)


def _br(p: _FunctionPrinter, op: Operation) -> str:
    return f"br label %{p.blocks[op.successors[0]]}"


def _cond_br(p: _FunctionPrinter, op: Operation) -> str:
    then, otherwise = op.successors
    return f"br {p.typed(op.operands[0])}, label %{p.blocks[then]}, label %{p.blocks[otherwise]}"


def _return(p: _FunctionPrinter, op: Operation) -> str:
    return f"ret {p.typed(op.operands[0])}" if op.operands else "ret void"


_PRINTERS: dict[type[Operation], Callable[[_FunctionPrinter, Operation], str]] = {
    **{kind: _binary for kind in _BINARY},
    **{kind: _cast for kind in _CASTS},
    llvm.ICmpOp: _compare,
    llvm.FCmpOp: _compare,
    llvm.SelectOp: _typed_operands("select", _fast_math),
    llvm.FNegOp: _typed_operands("fneg", _fast_math),
    llvm.LoadOp: _load,
    llvm.StoreOp: _store,
    llvm.AllocaOp: _alloca,
    llvm.GEPOp: _gep,
    llvm.ExtractValueOp: _typed_operands("extractvalue", position=True),
    llvm.InsertValueOp: _typed_operands("insertvalue", position=True),
    llvm.InsertElementOp: _typed_operands("insertelement"),
    llvm.ShuffleVectorOp: _shufflevector,
    llvm.CallOp: _call,
    llvm.CallIntrinsicOp: _call_intrinsic,
    llvm.FMAOp: _fma,
    llvm.BrOp: _br,
    llvm.CondBrOp: _cond_br,
    llvm.ReturnOp: _return,
    llvm.UnreachableOp: lambda p, op: "unreachable",
}

# Ops that are LLVM constants: written where they are used.
_INLINE: dict[type[Operation], Callable[[_FunctionPrinter, Operation], str]] = {
    llvm.ConstantOp: lambda p, op: constant_text(op.properties["value"], op.results[0].type),
    llvm.UndefOp: lambda p, op: "undef",
    llvm.ZeroOp: lambda p, op: "null" if isinstance(op.results[0].type, llvm.LLVMPointerType) else "zeroinitializer",
    llvm.AddressOfOp: lambda p, op: global_name(_property(op, "global_name", SymbolRefAttr).root_reference.data),
}


# LLVM's metadata for the hints of ``#llvm.loop_annotation`` that this project uses.
_LOOP_HINTS = {
    "vectorize": '!{!"llvm.loop.vectorize.enable", i1 false}',
    "unroll": '!{!"llvm.loop.unroll.disable"}',
}


class _ModulePrinter:
    def __init__(self, module: ModuleOp) -> None:
        self.declared: dict[str, str] = {}
        self.functions = {op.sym_name.data for op in module.body.block.ops if isinstance(op, llvm.FuncOp)}
        self.metadata: list[str] = []  # "!N = ..." lines, N their index
        self.hint_nodes: dict[str, str] = {}

    def loop_node(self, annotation: LoopAnnotationAttr | None, group: str | None = None) -> str | None:
        """A new loop's metadata node (LLVM tells loops apart by their distinct nodes), its
        hints shared by all loops, as ``mlir-translate`` writes them, and the access group
        ``group`` of its parallel accesses; ``None`` where it says nothing."""
        hints = [self.node(_LOOP_HINTS[hint]) for hint in annotation.disabled()] if annotation else []
        if group:
            hints.append(self.node(f'!{{!"llvm.loop.parallel_accesses", {group}}}'))
        if not hints:
            return None
        node = f"!{len(self.metadata)}"
        self.metadata.append(f"{node} = distinct !{{{', '.join([node, *hints])}}}")
        return node

    def access_group(self) -> str:
        """A new access group: ``distinct !{}``, a node of its own."""
        node = f"!{len(self.metadata)}"
        self.metadata.append(f"{node} = distinct !{{}}")
        return node

    def node(self, text: str) -> str:
        """The metadata node ``text`` (``!{i32 1}``), one per module however often used."""
        node = self.hint_nodes.get(text)
        if node is None:
            node = self.hint_nodes[text] = f"!{len(self.metadata)}"
            self.metadata.append(f"{node} = {text}")
        return node

    def declare(self, name: str, result: str, operand_types: list[Attribute]) -> None:
        """Declare the intrinsic ``name`` once, unless the module declares it itself."""
        if name not in self.declared and name not in self.functions:
            params = ", ".join(type_text(t) for t in operand_types)
            self.declared[name] = f"declare {result} {global_name(name)}({params})"

    @staticmethod
    def function_attributes(func: llvm.FuncOp) -> str:
        passthrough = func.properties.get("passthrough") or func.attributes.get("passthrough")
        words = []
        assert passthrough is None or isinstance(passthrough, ArrayAttr), passthrough
        for attribute in passthrough.data if passthrough is not None else ():
            if not isinstance(attribute, StringAttr):
                raise Unsupported(f"passthrough attribute {attribute}")
            words.append(" " + attribute.data)
        return "".join(words)

    @staticmethod
    def check_function(func: llvm.FuncOp) -> None:
        known = {"sym_name", "function_type", "CConv", "linkage", "sym_visibility", "visibility_", "passthrough"}
        extra = func.properties.keys() - known
        unnamed = _optional_property(func, "unnamed_addr", IntegerAttr)
        if unnamed is not None and not unnamed.value.data:
            extra.discard("unnamed_addr")  # the parser's default: none
        # (mg.gpu_*: what the GPU runtime reads of a kernel's launcher; nothing for LLVM)
        if extra or set(func.attributes) - {"llvm.emit_c_interface", "passthrough", "mg.gpu_kernel", "mg.gpu_written"}:
            raise Unsupported(f"llvm.func with {sorted(extra | func.attributes.keys())}")
        if func.CConv.cconv_name != "ccc" or func.function_type.is_variadic:
            raise Unsupported("a variadic or non-C function")

    @staticmethod
    def global_text(op: llvm.GlobalOp) -> str:
        extra = op.properties.keys() - {
            "global_type",
            "constant",
            "sym_name",
            "linkage",
            "addr_space",
            "value",
            "visibility_",
        }
        if extra or op.addr_space.value.data or op.body.blocks:
            raise Unsupported(f"llvm.mlir.global with {sorted(extra)} or an initialiser region")
        kind = "constant" if op.constant is not None else "global"
        t = op.global_type
        if isinstance(op.value, StringAttr):
            initialiser = _string_text(op.value.data)
        elif op.value is None:
            initialiser = "zeroinitializer"
        else:
            initialiser = constant_text(op.value, t)
        return f"{global_name(op.sym_name.data)} = {op.linkage.linkage.data} {kind} {type_text(t)} {initialiser}"


def print_module(module: ModuleOp, triple: str) -> str:
    """LLVM IR text of ``module`` (only ``llvm.mlir.global`` and ``llvm.func`` at its top
    level); ``Unsupported`` where it holds something this printer does not translate."""
    try:
        return _print_module(module, triple)
    finally:
        _type_text.clear()


def _print_module(module: ModuleOp, triple: str) -> str:
    if module.attributes:
        raise Unsupported(f"module attributes {sorted(module.attributes)}")
    printer = _ModulePrinter(module)
    globals_, declarations, definitions = [], [], []
    for op in module.body.block.ops:
        if isinstance(op, llvm.GlobalOp):
            globals_.append(printer.global_text(op))
        elif isinstance(op, llvm.FuncOp):
            printer.check_function(op)
            if op.body.blocks:
                _FunctionPrinter(printer, op).print(definitions)
                definitions.append("")
            else:
                params = ", ".join(type_text(t) for t in op.function_type.inputs.data)
                declarations.append(
                    f"declare {type_text(op.function_type.output)} "
                    f"{global_name(op.sym_name.data)}({params}){printer.function_attributes(op)}"
                )
        else:
            raise Unsupported(f"top-level op {op.name}")
    return "\n".join(
        [
            f'target triple = "{triple}"',
            "",
            *globals_,
            *declarations,
            *printer.declared.values(),
            "",
            *definitions,
            *printer.metadata,
        ]
    )
