"""The lowering of ``mg.println`` that both mg lowerings share (``mg_lowering_common.shared_patterns``):
one line becomes calls into the run-time library's println section
(``mg_xdsl/backend/runtime_ir.py``), which builds the line in a buffer and writes it at once::

    mg.println ["epoch ", ": loss ", ""] ["", ".4f"] %e, %l : tensor<i64>, tensor<f64>

becomes (``%e``, ``%l`` now rank-0 memrefs)

::

    %t0 = llvm.mlir.addressof @mgrt_println_text_0 : !llvm.ptr        // "epoch "
    func.call @mgrt_println_text(%t0) : (!llvm.ptr) -> ()
    %ev = affine.load %e[] : memref<i64>
    %f0 = llvm.mlir.addressof @mgrt_println_format_0 : !llvm.ptr      // "%ld"
    func.call @mgrt_println_long(%f0, %ev) : (!llvm.ptr, i64) -> ()
    %t1 = llvm.mlir.addressof @mgrt_println_text_1 : !llvm.ptr        // ": loss "
    func.call @mgrt_println_text(%t1) : (!llvm.ptr) -> ()
    %lv = affine.load %l[] : memref<f64>
    %f1 = llvm.mlir.addressof @mgrt_println_format_1 : !llvm.ptr      // "%.4f"
    %no = arith.constant 0 : i32
    func.call @mgrt_println_double(%f1, %lv, %no) : (!llvm.ptr, f64, i32) -> ()
    func.call @mgrt_println_end() : () -> ()

How each value is printed is ``format_spec.plan``'s: an integer (``i32`` widened to ``i64``;
an ``i1`` with a spec as 0 or 1) with a ``printf`` format through ``mgrt_println_long``; a
float (``f32``/``bf16`` widened to ``f64``, exactly) with a ``printf`` format through
``mgrt_println_double`` (its last argument: ``%``, times 100 first), or, with no type, as
Python's ``str``/``.{p}`` lays it out through ``mgrt_println_python(x, mode, precision,
sign)`` (mode 0: an ``f64``'s shortest repr, 1: an ``f32``'s as NumPy, 2: ``p`` significant
digits); an ``i1`` without a spec as ``True``/``False`` (``mgrt_println_bool``). A spec with a
width or ``z`` brackets the value with ``%s = mgrt_println_mark()`` and
``mgrt_println_field(%s, z_sign, width, fill, align)``, which the library applies as Python
does. A value of rank 1 or more (it has no spec) is passed whole, as an unranked memref (a
view too), to ``mgrt_println_array_T`` for its element type ``T``, which lays it out as
NumPy's ``str`` does (``backend/runtime_print_array_ir``)::

    %u = memref.cast %w : memref<2x3xf32> to memref<*xf32>
    func.call @mgrt_println_array_f32(%u) : (memref<*xf32>) -> ()
 The texts and formats are private constant strings (``llvm.mlir.global``), one per
distinct text; the callees are declared once. Empty pieces make no call.
"""

from dataclasses import dataclass, field

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    Float64Type,
    IntegerAttr,
    ModuleOp,
    ShapedType,
    StringAttr,
    UnrankedMemRefType,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mg_xdsl.core import element_types, format_spec
from mg_xdsl.dialects import mg
from mg_xdsl.support.buffers import element_type_of, load, module_prologue

PTR = llvm.LLVMPointerType()
F64 = Float64Type()

# The run-time library's println functions: name -> (inputs, results).
CALLEES: dict[str, tuple[tuple[Attribute, ...], tuple[Attribute, ...]]] = {
    "mgrt_println_text": ((PTR,), ()),
    "mgrt_println_bool": ((i32,), ()),
    "mgrt_println_long": ((PTR, i64), ()),
    "mgrt_println_double": ((PTR, F64, i32), ()),
    "mgrt_println_python": ((F64, i32, i32, i32), ()),
    "mgrt_println_mark": ((), (i64,)),
    "mgrt_println_field": ((i64, i32, i64, i32, i32), ()),
    "mgrt_println_end": ((), ()),
}
REPR_F64, REPR_F32, GENERAL = 0, 1, 2  # mgrt_println_python's modes


def _i32(value: int) -> SSAValue:
    return arith.ConstantOp(IntegerAttr(value, i32), i32).result


@dataclass
class PrintlnLowering(RewritePattern):
    """``mg.println`` -> calls of the run-time library's println functions (see the module's
    docstring), each with the op's source location. (Built as ``MgLowering`` builds: that
    base lives in ``mg_lowering_common``, which imports this module.)"""

    module: ModuleOp
    declared: set[str] = field(default_factory=set)
    strings: dict[tuple[str, str], str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # strings of each kind so far
    # Where the module's definitions go, found once: finding it scans the definitions made so
    # far, which for a string per println would be quadratic in the program's length.
    prologue: Builder | None = None

    def definitions(self) -> Builder:
        if self.prologue is None:
            self.prologue = module_prologue(self.module)
        return self.prologue

    def string(self, kind: str, text: str) -> SSAValue:
        """The address of a private constant NUL-terminated string (``mgrt_println_KIND_N``)."""
        if (kind, text) not in self.strings:
            count = self.counts.get(kind, 0)
            self.counts[kind] = count + 1
            name = f"mgrt_println_{kind}_{count}"
            self.strings[(kind, text)] = name
            data = text.encode() + b"\0"
            with ImplicitBuilder(self.definitions()):
                llvm.GlobalOp(
                    llvm.LLVMArrayType(len(data), i8), name, "private", constant=True, value=StringAttr(text + "\0")
                )
        return llvm.AddressOfOp(self.strings[(kind, text)], PTR).result

    def call(self, name: str, *arguments: SSAValue) -> SSAValue | None:
        # (an array printer, mgrt_println_array_T, takes the one unranked memref it is given)
        inputs, results = CALLEES[name] if name in CALLEES else ((arguments[0].type,), ())
        if name not in self.declared:
            with ImplicitBuilder(self.definitions()):
                func.FuncOp(name, (inputs, results), Region(), visibility="private")
            self.declared.add(name)
        call = func.CallOp(name, list(arguments), list(results))
        return call.res[0] if results else None

    def value(self, buffer: SSAValue, spec: str) -> None:
        """One value's text appended to the line."""
        element = element_type_of(buffer)
        name = element_types.NAME_OF[element]
        # (a loop's carried value is still a tensor here: the loop's pattern retypes it later)
        assert isinstance(buffer.type, ShapedType)
        if buffer.type.get_shape():
            whole = memref.CastOp.get(buffer, UnrankedMemRefType.from_type(element)).dest
            self.call(f"mgrt_println_array_{name}", whole)
            return
        plan = format_spec.plan(spec, name)
        x = load(buffer, [])
        start = self.call("mgrt_println_mark") if plan.width or plan.z else None
        if plan.kind == "bool":
            self.call("mgrt_println_bool", mg.convert_element(x, i32))
        elif plan.kind == "integer":
            self.call("mgrt_println_long", self.string("format", plan.printf), mg.convert_element(x, i64))
        elif plan.kind == "float":
            number = mg.convert_element(x, F64)
            self.call("mgrt_println_double", self.string("format", plan.printf), number, _i32(int(plan.percent)))
        else:
            # An f32 with a spec is formatted as the Python float it converts to, as
            # np.float32.__format__ does: format(np.float32(0.1), "+") is '+0.10000000149011612'.
            shortest32 = spec == "" and name in ("f32", "bf16")
            mode = GENERAL if plan.kind == "general" else REPR_F32 if shortest32 else REPR_F64
            sign = ord(plan.sign) if plan.sign else 0
            number = mg.convert_element(x, F64)
            self.call("mgrt_println_python", number, _i32(mode), _i32(plan.precision), _i32(sign))
        if start is not None:
            z_sign = (ord(plan.sign) if plan.sign else 0) if plan.z else -1
            width = arith.ConstantOp(IntegerAttr(plan.width, i64), i64).result
            self.call("mgrt_println_field", start, _i32(z_sign), width, _i32(ord(plan.fill)), _i32(ord(plan.align)))

    def build(self, op: mg.PrintlnOp) -> None:
        pieces = [p.data for p in op.pieces]
        for i, piece in enumerate(pieces):
            if piece:
                self.call("mgrt_println_text", self.string("text", piece))
            if i < len(op.values):
                self.value(op.values[i], op.specs.data[i].data)
        self.call("mgrt_println_end")

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mg.PrintlnOp, rewriter: PatternRewriter) -> None:
        block = Block()
        with ImplicitBuilder(block):
            self.build(op)
        new_ops = list(block.ops)
        for new_op in new_ops:
            new_op.location = op.location
            new_op.detach()
        rewriter.replace(op, new_ops, [])
