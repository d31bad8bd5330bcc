"""The patterns of ``mg.load`` and ``mg.save``: calls of the run-time library's ``.npy``
functions (``backend/runtime_files_ir``), which both mg lowerings share
(``mg_lowering_common.shared_patterns``).

Each path becomes a private constant ``memref.global`` of its NUL-terminated bytes (one per
distinct path, ``__mg_path_N``), passed as ``memref<*xi8>``; each function is declared once,
for the element type ``T`` it takes. ``mg.load {path = P} : tensor<?x64xf32>`` becomes::

    %sizes = memref.alloc() : memref<2xi64>               // the declared sizes, -1 for '?'
    memref.store %c-1, %sizes[%c0] ...  memref.store %c64, %sizes[%c1]
    %h = func.call @mgrt_npy_load_f32(%path, %rank, %sizes_unranked)   // checks; the file's sizes
    %n = memref.load %sizes[%c0]  (as an index)
    %x = memref.alloc(%n) : memref<?x64xf32>
    func.call @mgrt_npy_read_f32(%h, %x_unranked)            // the data, into %x

so the buffer comes from the compiled code's own allocator and is freed as every other
(``buffer-deallocation``, which frees ``%sizes`` too). ``mg.save %w {path = P}`` becomes
``func.call @mgrt_npy_save_f32(%path, %w_unranked)``. (An unranked memref, as ``mg.print``
passes one, gives each function one signature for every rank; a strided view is fine too.)
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedMemRefType,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mg_xdsl.core import element_types
from mg_xdsl.dialects import mg
from mg_xdsl.dialects.mg import shape_of
from mg_xdsl.support import op_builders
from mg_xdsl.support.buffers import alloc, element_type_of, index_constant, module_prologue
from mg_xdsl.support.op_builders import INDEX

PATH_TYPE = UnrankedMemRefType.from_type(i8)
SIZES_TYPE = UnrankedMemRefType.from_type(i64)


@dataclass
class FileCalls:
    """What the two patterns add to the module, once each: the paths' globals, the
    functions' declarations."""

    module: ModuleOp
    paths: dict[str, str] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)

    def path(self, path: str) -> SSAValue:
        """``path`` as a ``memref<*xi8>`` of its bytes and a NUL."""
        data = path.encode() + b"\0"
        t = MemRefType(i8, [len(data)])
        if path not in self.paths:
            name = f"__mg_path_{len(self.paths)}"
            self.paths[path] = name
            # (i8 is signed: a UTF-8 byte above 127 is its negative twin)
            value = DenseIntOrFPElementsAttr.from_list(
                TensorType(i8, [len(data)]), [b - 256 if b > 127 else b for b in data]
            )
            with ImplicitBuilder(module_prologue(self.module)):
                memref.GlobalOp.get(StringAttr(name), t, value, constant=UnitAttr())
        data_ref = memref.GetGlobalOp(self.paths[path], t).memref
        return memref.CastOp.get(data_ref, PATH_TYPE).dest

    def call(self, callee: str, args: list[SSAValue], results: list[Attribute]) -> func.CallOp:
        if callee not in self.declared:
            with ImplicitBuilder(module_prologue(self.module)):
                func.FuncOp(
                    callee, FunctionType.from_lists([a.type for a in args], results), Region(), visibility="private"
                )
            self.declared.add(callee)
        return func.CallOp(callee, args, results)


def type_name(value: SSAValue) -> str:
    """The name of the run-time functions' element type: ``f32``."""
    return element_types.NAME_OF[element_type_of(value)]


def replace(op: Operation, rewriter: PatternRewriter, build: Callable[[], SSAValue | None]) -> None:
    """Replace ``op`` with what ``build`` builds (through an implicit builder), each new op at
    ``op``'s location, as ``mg_lowering_common.MgLowering`` does (which this module, imported
    by that one, cannot import)."""
    block = Block()
    with ImplicitBuilder(block):
        result = build()
    new_ops = list(block.ops)
    for new_op in new_ops:
        for nested in new_op.walk():
            nested.location = op.location
        new_op.detach()
    rewriter.replace(op, new_ops, [result] if result is not None else [])


@dataclass
class LoadLowering(RewritePattern):
    """``mg.load``: the sizes checked and read (``mgrt_npy_load_T``), a buffer of them
    allocated, the data read into it (``mgrt_npy_read_T``)."""

    calls: FileCalls

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mg.LoadOp, rewriter: PatternRewriter) -> None:
        replace(op, rewriter, lambda: self.build(op))

    def build(self, op: mg.LoadOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        shape, name = shape_of(t), type_name(op.result)
        path = self.calls.path(op.path.data)
        sizes = op_builders.memref_alloc([], MemRefType(i64, [max(len(shape), 1)])).memref
        for d, size in enumerate(shape):
            declared = op_builders.arith_constant(IntegerAttr(-1 if size is None else size, i64), i64).result
            op_builders.memref_store(declared, sizes, [index_constant(d)])
        rank = op_builders.arith_constant(IntegerAttr(len(shape), i64), i64).result
        unranked_sizes = memref.CastOp.get(sizes, SIZES_TYPE).dest
        handle = self.calls.call(f"mgrt_npy_load_{name}", [path, rank, unranked_sizes], [i64]).res[0]
        dynamic: list[int | SSAValue] = []
        for d, size in enumerate(shape):
            if size is None:
                found = op_builders.memref_load(sizes, [index_constant(d)]).res
                dynamic.append(arith.IndexCastOp(found, INDEX).result)
            else:
                dynamic.append(size)
        out = alloc(t, dynamic)
        buffer = memref.CastOp.get(out, UnrankedMemRefType.from_type(t.element_type)).dest
        self.calls.call(f"mgrt_npy_read_{name}", [handle, buffer], [])
        return out


@dataclass
class SaveLowering(RewritePattern):
    """``mg.save``: ``mgrt_npy_save_T`` of the path and the tensor's buffer."""

    calls: FileCalls

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mg.SaveOp, rewriter: PatternRewriter) -> None:
        replace(op, rewriter, lambda: self.build(op))

    def build(self, op: mg.SaveOp) -> None:
        path = self.calls.path(op.path.data)
        buffer = memref.CastOp.get(op.input, UnrankedMemRefType.from_type(element_type_of(op.input))).dest
        self.calls.call(f"mgrt_npy_save_{type_name(op.input)}", [path, buffer], [])
        return None


def file_patterns(module: ModuleOp) -> list[RewritePattern]:
    """The patterns of ``mg.load`` and ``mg.save``, sharing the module's paths and declarations."""
    calls = FileCalls(module)
    return [LoadLowering(calls), SaveLowering(calls)]
