"""The pattern of ``mg.arg``: a call of the run-time library's lookup
(``backend/runtime_arguments_ir``), which both mg lowerings share
(``mg_lowering_common.shared_patterns``).

``%lr = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>`` becomes::

    %name = memref.get_global @__mg_arg_name_0 : memref<3xi8>     // "lr" and a NUL
    %v = func.call @mgrt_arg_f64(%name_unranked, %default) : (memref<*xi8>, f64) -> f64
    %lr = memref.alloc() : memref<f64>
    memref.store %v, %lr[]

(``mgrt_arg_i64`` for an ``i64`` argument). The first ``mg.arg`` lowered also gives the module
the table of every argument it has, ``@__mg_arg_table`` (each argument's name, type and default
as text, NUL-terminated, an empty name last: ``lr\\0f64\\00.1\\0steps\\0i64\\0100\\0\\0``), and
``@main`` (the top-level statements, where there is one) a first call
``mgrt_arg_check(%table)``: it checks the arguments the program was given against the table
before anything else runs, and answers ``--help``. A library (no ``@main``) checks nothing:
nothing gives its defs arguments, so each reads its default.
"""

from dataclasses import dataclass, field

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedMemRefType,
    i8,
    i64,
)
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from mg_xdsl.conversions.lower_files import replace
from mg_xdsl.dialects import mg
from mg_xdsl.support import op_builders
from mg_xdsl.support.buffers import alloc, module_prologue

TEXT_TYPE = UnrankedMemRefType.from_type(i8)
TABLE = "__mg_arg_table"


def default_text(op: mg.ArgOp) -> str:
    """The default as ``--help`` and the messages show it: ``0.1``, ``100``."""
    if isinstance(op.default, FloatAttr):
        return repr(op.default.value.data)
    return str(op.default.value.data)


def type_name(op: mg.ArgOp) -> str:
    return "i64" if op.default.type == i64 else "f64"


@dataclass
class ArgumentCalls:
    """What the pattern adds to the module, once each: the names' globals, the table and its
    check in ``@main``, the functions' declarations."""

    module: ModuleOp
    names: dict[str, str] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)
    checked: bool = False

    def text(self, global_name: str, text: str) -> None:
        """A private constant global of ``text``'s bytes and a NUL."""
        data = text.encode() + b"\0"
        value = DenseIntOrFPElementsAttr.from_list(
            TensorType(i8, [len(data)]), [b - 256 if b > 127 else b for b in data]
        )
        with ImplicitBuilder(module_prologue(self.module)):
            memref.GlobalOp.get(StringAttr(global_name), MemRefType(i8, [len(data)]), value, constant=UnitAttr())

    def reference(self, global_name: str, text: str) -> SSAValue:
        """The global of ``text`` as a ``memref<*xi8>``."""
        data_ref = memref.GetGlobalOp(global_name, MemRefType(i8, [len(text.encode()) + 1])).memref
        return memref.CastOp.get(data_ref, TEXT_TYPE).dest

    def name(self, name: str) -> SSAValue:
        if name not in self.names:
            self.names[name] = f"__mg_arg_name_{len(self.names)}"
            self.text(self.names[name], name)
        return self.reference(self.names[name], name)

    def declare(self, callee: str, args: list[Attribute], results: list[Attribute]) -> None:
        if callee not in self.declared:
            with ImplicitBuilder(module_prologue(self.module)):
                func.FuncOp(callee, FunctionType.from_lists(args, results), Region(), visibility="private")
            self.declared.add(callee)

    def check_in_main(self) -> None:
        """The table of every ``mg.arg`` of the module (each name once, in order of first
        use: one name must have one type and one default, the table's) and its check at the
        start of ``@main``, once."""
        if self.checked:
            return
        self.checked = True
        entries: dict[str, str] = {}
        for op in self.module.walk():
            if isinstance(op, mg.ArgOp):
                entry = f"{op.arg_name.data}\0{type_name(op)}\0{default_text(op)}\0"
                if entries.setdefault(op.arg_name.data, entry) != entry:
                    first = entries[op.arg_name.data].split("\0")
                    raise DiagnosticException(
                        f"mg.arg: argument {op.arg_name.data!r} is read as {first[1]} with default {first[2]}, "
                        f"and as {type_name(op)} with default {default_text(op)}: one argument has one of each"
                    )
        main = next(
            (op for op in self.module.body.block.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"),
            None,
        )
        if main is None or not main.body.blocks:
            return
        table = "".join(entries.values())  # (the text's own NUL ends it: an empty name)
        self.text(TABLE, table)
        self.declare("mgrt_arg_check", [TEXT_TYPE], [])
        with ImplicitBuilder(Builder(InsertPoint.at_start(main.body.blocks[0]))):
            func.CallOp("mgrt_arg_check", [self.reference(TABLE, table)], [])


@dataclass
class ArgLowering(RewritePattern):
    """``mg.arg``: ``mgrt_arg_T`` of the name and the default, stored into a new rank-0 buffer."""

    calls: ArgumentCalls

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mg.ArgOp, rewriter: PatternRewriter) -> None:
        self.calls.check_in_main()
        replace(op, rewriter, lambda: self.build(op))

    def build(self, op: mg.ArgOp) -> SSAValue:
        t = op.default.type
        callee = f"mgrt_arg_{type_name(op)}"
        self.calls.declare(callee, [TEXT_TYPE, t], [t])
        default = op_builders.arith_constant(op.default, t).result
        value = func.CallOp(callee, [self.calls.name(op.arg_name.data), default], [t]).res[0]
        out = alloc(op.result.type, [])
        op_builders.memref_store(value, out, [])
        return out


def argument_patterns(module: ModuleOp) -> list[RewritePattern]:
    """The pattern of ``mg.arg``, sharing the module's names, table and declarations."""
    return [ArgLowering(ArgumentCalls(module))]
