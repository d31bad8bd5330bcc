"""The project's *-to-llvm passes, end to end: lower small programs to the LLVM dialect,
translate them with xDSL's LLVM backend, JIT them with llvmlite and run them through ctypes.

The programs are written at the level the passes receive (cf, arith, memref, func), except the
first, which starts from affine code in generic form and runs the whole pipeline.
"""

import ctypes
import functools
import math
import re

import llvmlite.binding as llvm
import numpy as np
import pytest
from xdsl.backend.llvm.convert import convert_module
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from mg_xdsl.pipeline.registry import get_pass

TO_LLVM = [
    "convert-arith-to-llvm",
    "convert-func-to-llvm",
    "convert-cf-to-llvm",
    "finalize-memref-to-llvm",
    "reconcile-unrealized-casts",
]
FULL = ["lower-affine", "convert-scf-to-cf", *TO_LLVM]

F64P = ctypes.POINTER(ctypes.c_double)


@functools.cache
def descriptor_type(rank: int) -> type[ctypes.Structure]:
    """The C layout of a ranked memref descriptor (what ``_mlir_ciface_`` functions take)."""
    fields = [("allocated", F64P), ("aligned", F64P), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"Descriptor{rank}", (ctypes.Structure,), {"_fields_": fields})


D1, D2 = descriptor_type(1), descriptor_type(2)


class Unranked(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int64), ("descriptor", ctypes.c_void_p)]


def describe(a: np.ndarray) -> ctypes.Structure:
    """A descriptor viewing a NumPy float64 array (kept alive by the caller)."""
    assert a.dtype == np.float64
    ptr = a.ctypes.data_as(F64P)
    desc = descriptor_type(a.ndim)(ptr, ptr, 0)
    if a.ndim:
        desc.sizes[:] = list(a.shape)
        desc.strides[:] = [s // a.itemsize for s in a.strides]
    return desc


def to_numpy(desc: ctypes.Structure) -> np.ndarray:
    sizes, strides = list(desc.sizes), list(desc.strides)
    n = max((s - 1) * t for s, t in zip(sizes, strides)) + 1 + desc.offset
    flat = np.ctypeslib.as_array(desc.aligned, shape=(n,))
    return np.lib.stride_tricks.as_strided(flat[desc.offset :], shape=sizes, strides=[8 * t for t in strides]).copy()


_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


@pytest.fixture(scope="module", autouse=True)
def native_target():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


class Jit:
    """A program lowered through ``passes``, translated and compiled with MCJIT."""

    def __init__(self, ctx: Context, source: str, passes=TO_LLVM, symbols=None):
        self.module: ModuleOp = Parser(ctx, source).parse_module()
        for name in passes:
            get_pass(name)().apply(ctx, self.module)
        self.module.verify()
        # Every external symbol must resolve: MCJIT silently leaves unresolved ones null.
        self._keep = dict(symbols or {})
        for name, fn in self._keep.items():
            llvm.add_symbol(name, ctypes.cast(fn, ctypes.c_void_p).value)
        ir = convert_module(self.module, fallback_target_triple=None)
        self._llvm_module = llvm.parse_assembly(str(ir))
        self._llvm_module.verify()
        target = llvm.Target.from_default_triple().create_target_machine()
        self.engine = llvm.create_mcjit_compiler(self._llvm_module, target)
        self.engine.finalize_object()
        # The symbol table is the process's: give the names back to the compiler's own run
        # time, or later JITs in this process would call this test's (soon freed) callbacks.
        from mg_xdsl.backend import runtime

        for name, address in runtime.symbols().items():
            llvm.add_symbol(name, address)

    def function(self, name: str, restype, *argtypes):
        address = self.engine.get_function_address(name)
        assert address, f"no function {name}"
        return ctypes.CFUNCTYPE(restype, *argtypes)(address)


def test_affine_layer_through_the_whole_pipeline(ctx: Context):
    """relu(x + b) over a 2x3 memref, from affine code; called through its C wrapper."""
    source = """
    #id = affine_map<(d0, d1) -> (d0, d1)>
    #zero = affine_map<() -> (0)>
    #two = affine_map<() -> (2)>
    #three = affine_map<() -> (3)>
    "builtin.module"() ({
      "func.func"() <{function_type = (memref<2x3xf64>, memref<1x3xf64>) -> memref<2x3xf64>, sym_name = "layer"}> ({
      ^bb0(%x: memref<2x3xf64>, %b: memref<1x3xf64>):
        %alloc = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x3xf64>
        %zero = "arith.constant"() <{value = 0.0 : f64}> : () -> f64
        "affine.for"() <{lowerBoundMap = #zero, operandSegmentSizes = array<i32: 0, 0, 0>, step = 1 : index, upperBoundMap = #two}> ({
        ^bb1(%i: index):
          "affine.for"() <{lowerBoundMap = #zero, operandSegmentSizes = array<i32: 0, 0, 0>, step = 1 : index, upperBoundMap = #three}> ({
          ^bb2(%j: index):
            %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
            %v = "affine.load"(%x, %i, %j) <{map = #id}> : (memref<2x3xf64>, index, index) -> f64
            %w = "affine.load"(%b, %c0, %j) <{map = #id}> : (memref<1x3xf64>, index, index) -> f64
            %s = "arith.addf"(%v, %w) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
            %r = "arith.maximumf"(%s, %zero) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
            "affine.store"(%r, %alloc, %i, %j) <{map = #id}> : (f64, memref<2x3xf64>, index, index) -> ()
            "affine.yield"() : () -> ()
          }) : () -> ()
          "affine.yield"() : () -> ()
        }) : () -> ()
        "func.return"(%alloc) : (memref<2x3xf64>) -> ()
      }) {llvm.emit_c_interface} : () -> ()
    }) : () -> ()
    """
    jit = Jit(ctx, source, FULL)
    layer = jit.function("_mlir_ciface_layer", None, ctypes.POINTER(D2), ctypes.POINTER(D2), ctypes.POINTER(D2))
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, math.nan]])
    b = np.array([[0.5, 0.5, -10.0]])
    out, dx, db = D2(), describe(x), describe(b)
    layer(ctypes.byref(out), ctypes.byref(dx), ctypes.byref(db))
    assert list(out.sizes) == [2, 3] and list(out.strides) == [3, 1] and out.offset == 0
    assert ctypes.addressof(out.allocated.contents) == ctypes.addressof(out.aligned.contents)
    np.testing.assert_array_equal(to_numpy(out), np.maximum(x + b, 0.0))  # NaN propagates
    _libc.free(ctypes.cast(out.allocated, ctypes.c_void_p))


GLOBALS_ADD = """
func.func @add() -> memref<2x3xf64> attributes {llvm.emit_c_interface} {
  %a = memref.get_global @a : memref<2x3xf64>
  %b = memref.get_global @b : memref<2x3xf64>
  %r = memref.alloc() : memref<2x3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  cf.br ^rows(%c0 : index)
^rows(%i: index):
  %more_rows = arith.cmpi slt, %i, %c2 : index
  cf.cond_br %more_rows, ^row(%c0 : index), ^done
^row(%j: index):
  %more_cols = arith.cmpi slt, %j, %c3 : index
  cf.cond_br %more_cols, ^body, ^next_row
^body:
  %x = memref.load %a[%i, %j] : memref<2x3xf64>
  %y = memref.load %b[%i, %j] : memref<2x3xf64>
  %s = arith.addf %x, %y : f64
  memref.store %s, %r[%i, %j] : memref<2x3xf64>
  %j1 = arith.addi %j, %c1 : index
  cf.br ^row(%j1 : index)
^next_row:
  %i1 = arith.addi %i, %c1 : index
  cf.br ^rows(%i1 : index)
^done:
  return %r : memref<2x3xf64>
}
func.func private @printMemrefF64(memref<*xf64>)
func.func @main() {
  %g = memref.get_global @a : memref<2x3xf64>
  %u = "memref.cast"(%g) : (memref<2x3xf64>) -> memref<*xf64>
  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  return
}
"memref.global"() <{sym_name = "a", sym_visibility = "private", type = memref<2x3xf64>, initial_value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>, constant}> : () -> ()
"memref.global"() <{sym_name = "b", sym_visibility = "private", type = memref<2x3xf64>, initial_value = dense<0.5> : tensor<2x3xf64>, constant}> : () -> ()
"""


def test_add_two_globals_into_a_malloced_result(ctx: Context):
    seen = []

    @ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)
    def print_memref(rank, ptr):
        desc = ctypes.cast(ptr, ctypes.POINTER(D2)).contents
        seen.append((rank, desc.allocated and ctypes.cast(desc.allocated, ctypes.c_void_p).value, to_numpy(desc)))

    jit = Jit(ctx, GLOBALS_ADD, symbols={"printMemrefF64": print_memref})
    add = jit.function("_mlir_ciface_add", None, ctypes.POINTER(D2))
    out = D2()
    add(ctypes.byref(out))
    expected = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(to_numpy(out), expected + 0.5)
    _libc.free(ctypes.cast(out.allocated, ctypes.c_void_p))

    # main passes the global, as an unranked memref, to the external printMemrefF64.
    jit.function("main", None)()
    ((rank, allocated, data),) = seen
    assert rank == 2 and allocated == 0xDEADBEEF
    np.testing.assert_array_equal(data, expected)


ROW_SUMS = """
func.func @row_sums(%x: memref<?x?xf64, strided<[?, ?], offset: ?>>, %out: memref<?xf64>) -> index attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %m = memref.dim %x, %c0 : memref<?x?xf64, strided<[?, ?], offset: ?>>
  %n = memref.dim %x, %c1 : memref<?x?xf64, strided<[?, ?], offset: ?>>
  cf.br ^rows(%c0 : index)
^rows(%i: index):
  %more_rows = arith.cmpi slt, %i, %m : index
  cf.cond_br %more_rows, ^row(%c0, %zero : index, f64), ^done
^row(%j: index, %acc: f64):
  %more_cols = arith.cmpi slt, %j, %n : index
  cf.cond_br %more_cols, ^body, ^store
^body:
  %v = memref.load %x[%i, %j] : memref<?x?xf64, strided<[?, ?], offset: ?>>
  %acc1 = arith.addf %acc, %v : f64
  %j1 = arith.addi %j, %c1 : index
  cf.br ^row(%j1, %acc1 : index, f64)
^store:
  memref.store %acc, %out[%i] : memref<?xf64>
  %i1 = arith.addi %i, %c1 : index
  cf.br ^rows(%i1 : index)
^done:
  %cells = arith.muli %m, %n : index
  return %cells : index
}
"""


def test_row_sums_of_a_dynamic_strided_view(ctx: Context):
    """The strided layout reads offset and strides from the descriptor (identity: 0 and 1)."""
    jit = Jit(ctx, ROW_SUMS)
    row_sums = jit.function("_mlir_ciface_row_sums", ctypes.c_int64, ctypes.POINTER(D2), ctypes.POINTER(D1))
    base = np.arange(1.0, 41.0).reshape(5, 8)
    x = base[1:4, ::2]  # strides (8, 2) and a non-zero offset from base
    desc = describe(base)
    desc.offset, desc.sizes[:], desc.strides[:] = 8, [3, 4], [8, 2]
    out = np.zeros(3)
    dout = describe(out)
    assert row_sums(ctypes.byref(desc), ctypes.byref(dout)) == 12
    np.testing.assert_array_equal(out, x.sum(axis=1))


DYNAMIC_ALLOC = """
func.func @table(%m: index, %n: index) -> memref<?x?xf64> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ten = arith.constant 10.0 : f64
  %t = memref.alloc(%m, %n) : memref<?x?xf64>
  %rows = memref.dim %t, %c0 : memref<?x?xf64>
  %cols = memref.dim %t, %c1 : memref<?x?xf64>
  cf.br ^rows(%c0 : index)
^rows(%i: index):
  %more_rows = arith.cmpi slt, %i, %rows : index
  cf.cond_br %more_rows, ^row(%c0 : index), ^done
^row(%j: index):
  %more_cols = arith.cmpi slt, %j, %cols : index
  cf.cond_br %more_cols, ^body, ^next_row
^body:
  %ii = arith.index_cast %i : index to i64
  %jj = arith.index_cast %j : index to i64
  %fi = arith.sitofp %ii : i64 to f64
  %fj = arith.sitofp %jj : i64 to f64
  %hi = arith.mulf %fi, %ten : f64
  %v = arith.addf %hi, %fj : f64
  memref.store %v, %t[%i, %j] : memref<?x?xf64>
  %j1 = arith.addi %j, %c1 : index
  cf.br ^row(%j1 : index)
^next_row:
  %i1 = arith.addi %i, %c1 : index
  cf.br ^rows(%i1 : index)
^done:
  return %t : memref<?x?xf64>
}
"""


def test_dynamic_alloc_and_dim(ctx: Context):
    jit = Jit(ctx, DYNAMIC_ALLOC)
    table = jit.function("_mlir_ciface_table", None, ctypes.POINTER(D2), ctypes.c_int64, ctypes.c_int64)
    out = D2()
    table(ctypes.byref(out), 3, 5)
    assert list(out.sizes) == [3, 5] and list(out.strides) == [5, 1] and out.offset == 0
    i, j = np.indices((3, 5))
    np.testing.assert_array_equal(to_numpy(out), 10.0 * i + j)
    _libc.free(ctypes.cast(out.allocated, ctypes.c_void_p))


SCALARS = """
func.func @ints(%a: i64, %b: i64) -> (i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface} {
  %ai = arith.index_cast %a : i64 to index
  %bi = arith.index_cast %b : i64 to index
  %f = arith.floordivsi %ai, %bi : index
  %c = arith.ceildivsi %ai, %bi : index
  %r = arith.remsi %ai, %bi : index
  %mx = arith.maxsi %ai, %bi : index
  %fo = arith.index_cast %f : index to i64
  %co = arith.index_cast %c : index to i64
  %ro = arith.index_cast %r : index to i64
  %mo = arith.index_cast %mx : index to i64
  %ci = arith.ceildivui %a, %b : i64
  return %fo, %co, %ro, %mo, %ci : i64, i64, i64, i64, i64
}
func.func @floats(%x: f64, %y: f64) -> (f64, f64, f64, i1) attributes {llvm.emit_c_interface} {
  %mx = arith.maximumf %x, %y : f64
  %mn = arith.minimumf %x, %y : f64
  %k = arith.constant 4294967295 : i32
  %u = arith.uitofp %k : i32 to f64
  %lt = arith.cmpf ult, %x, %y : f64
  return %mx, %mn, %u, %lt : f64, f64, f64, i1
}
"""


class Ints(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int64) for n in ("floor", "ceil", "rem", "max", "ceilu")]


class Floats(ctypes.Structure):
    _fields_ = [("max", ctypes.c_double), ("min", ctypes.c_double), ("u", ctypes.c_double), ("lt", ctypes.c_bool)]


@pytest.fixture(scope="module")
def scalars(ctx: Context) -> Jit:
    return Jit(ctx, SCALARS)


@pytest.mark.parametrize("a,b", [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, 5)])
def test_integer_division_and_several_results(scalars: Jit, a: int, b: int):
    ints = scalars.function("_mlir_ciface_ints", None, ctypes.POINTER(Ints), ctypes.c_int64, ctypes.c_int64)
    r = Ints()
    ints(ctypes.byref(r), a, b)
    assert (r.floor, r.ceil, r.rem, r.max) == (a // b, -(-a // b), int(math.fmod(a, b)), max(a, b))
    if a >= 0 and b > 0:
        assert r.ceilu == -(-a // b)


@pytest.mark.parametrize("x,y", [(1.0, 2.0), (-0.0, 0.0), (math.nan, 1.0), (3.0, math.nan)])
def test_float_min_max_propagate_nan(scalars: Jit, x: float, y: float):
    floats = scalars.function("_mlir_ciface_floats", None, ctypes.POINTER(Floats), ctypes.c_double, ctypes.c_double)
    r = Floats()
    floats(ctypes.byref(r), x, y)
    np.testing.assert_array_equal([r.max, r.min], [np.maximum(x, y), np.minimum(x, y)])
    if x == 0.0 and y == 0.0:
        assert math.copysign(1, r.max) == 1 and math.copysign(1, r.min) == -1
    assert r.u == 4294967295.0
    assert r.lt == (not x >= y)  # unordered or less


EXTERNAL_C = """
func.func private @norm(memref<?xf64>, f64) -> f64 attributes {llvm.emit_c_interface}
func.func @scaled_norm(%v: memref<?xf64>) -> f64 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f64
  %n = memref.dim %v, %c0 : memref<?xf64>
  %tmp = memref.alloca(%n) : memref<?xf64>
  "memref.copy"(%v, %tmp) : (memref<?xf64>, memref<?xf64>) -> ()
  %r = func.call @norm(%tmp, %two) : (memref<?xf64>, f64) -> f64
  return %r : f64
}
"""


def test_external_c_interface_function_gets_a_descriptor_pointer(ctx: Context):
    """@norm is a C function: the generated thunk hands it a pointer to the descriptor."""

    @ctypes.CFUNCTYPE(ctypes.c_double, ctypes.POINTER(D1), ctypes.c_double)
    def norm(desc_ptr, scale):
        return scale * float(np.linalg.norm(to_numpy(desc_ptr.contents)))

    jit = Jit(ctx, EXTERNAL_C, symbols={"_mlir_ciface_norm": norm})
    scaled_norm = jit.function("_mlir_ciface_scaled_norm", ctypes.c_double, ctypes.POINTER(D1))
    v = np.array([3.0, 4.0, 12.0])
    dv = describe(v)
    assert scaled_norm(ctypes.byref(dv)) == pytest.approx(26.0)


SUBVIEWS = (
    ROW_SUMS
    + """
func.func @view_row_sums(%m: memref<?x?xf64>, %o0: index, %o1: index, %n0: index, %n1: index,
                         %s0: index, %s1: index, %k: index, %out: memref<?xf64>) -> index
    attributes {llvm.emit_c_interface} {
  %v = memref.subview %m[%o0, %o1] [%n0, %n1] [%s0, %s1]
      : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
  %w = memref.subview %v[1, 1] [%k, %k] [1, 2]
      : memref<?x?xf64, strided<[?, ?], offset: ?>> to memref<?x?xf64, strided<[?, ?], offset: ?>>
  %cells = func.call @row_sums(%w, %out)
      : (memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?xf64>) -> index
  return %cells : index
}
"""
)


def test_subview_of_a_subview_reads_the_right_elements(ctx: Context):
    """Offsets add up through strides, steps multiply the strides, sizes are the view's."""
    jit = Jit(ctx, SUBVIEWS)
    i64 = ctypes.c_int64
    view_row_sums = jit.function("_mlir_ciface_view_row_sums", i64, ctypes.POINTER(D2), *[i64] * 7, ctypes.POINTER(D1))
    base = np.arange(54.0).reshape(6, 9)
    expected = base[1:5, 0:8:2][1:3, 1:5:2].sum(axis=1)
    out = np.zeros(2)
    db, dout = describe(base), describe(out)
    assert view_row_sums(ctypes.byref(db), 1, 0, 4, 4, 1, 2, 2, ctypes.byref(dout)) == 4
    np.testing.assert_array_equal(out, expected)


SWAP_LOOP = """
func.func @swap(%a: i64, %b: i64, %n: index) -> i64 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^loop(%a, %b, %n : i64, i64, index)
^loop(%x: i64, %y: i64, %k: index):
  %more = arith.cmpi sgt, %k, %c0 : index
  %k1 = arith.subi %k, %c1 : index
  cf.cond_br %more, ^loop(%y, %x, %k1 : i64, i64, index), ^exit(%x : i64)
^exit(%r: i64):
  return %r : i64
}
"""


def test_a_block_that_branches_to_itself_with_its_arguments_swapped(ctx: Context):
    jit = Jit(ctx, SWAP_LOOP)  # kept alive while its code runs
    swap = jit.function("_mlir_ciface_swap", ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)
    assert [swap(10, 20, n) for n in range(5)] == [10, 20, 10, 20, 10]


def test_rewrite_each_offers_each_op_once_and_skips_the_erased(ctx: Context):
    """The conversions' driver: ops in the order given, one offer each; an op that an earlier
    rewrite erased (here, with the op whose region holds it) is not offered."""
    from xdsl.dialects import arith, scf
    from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

    from mg_xdsl.support.rewrite_each import rewrite_each

    module = Parser(
        ctx,
        """
    func.func @f(%c: i1) {
      %x = arith.constant 1 : i64
      scf.if %c {
        %y = arith.constant 2 : i64
      }
      %z = arith.constant 3 : i64
      func.return
    }""",
    ).parse_module()
    offered = []

    class EraseIfs(RewritePattern):
        def match_and_rewrite(self, op, rewriter: PatternRewriter):
            offered.append(op.name if not isinstance(op, arith.ConstantOp) else op.value.value.data)
            if isinstance(op, scf.IfOp):
                rewriter.erase(op)

    class Nothing(RewritePattern):
        def match_and_rewrite(self, op, rewriter: PatternRewriter):
            pass

    ops = [op for op in module.walk() if isinstance(op, arith.ConstantOp | scf.IfOp)]
    assert rewrite_each(ops, EraseIfs())
    assert offered == [1, "scf.if", 3]
    assert not rewrite_each([op for op in module.walk() if isinstance(op, arith.ConstantOp)], Nothing())


@pytest.mark.parametrize(
    "op, message",
    [
        (
            "memref.prefetch %c[%i], read, locality<3>, data : memref<?x?xf64>",
            "memref.prefetch needs one index per dimension of memref<?x?xf64> (2), not 1",
        ),
        (
            "memref.prefetch %c[%i, %i], write, locality<4>, data : memref<?x?xf64>",
            "memref.prefetch's locality must be 0 to 3, not 4",
        ),
    ],
)
def test_memref_prefetch_states_its_rules(op, message):
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import VerifyException

    from mg_xdsl.pipeline import stages as pipeline

    source = f"func.func @g(%c: memref<?x?xf64>, %i: index) {{\n  {op}\n  func.return\n}}"
    module = Parser(pipeline.context(), source).parse_module()
    with pytest.raises(VerifyException, match=re.escape(message)):
        module.verify()
