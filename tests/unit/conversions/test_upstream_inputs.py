"""The LLVM-layer passes on inputs shaped like upstream MLIR's own conversion tests.

Each input either converts to IR that mlir-opt-22 verifies, with nothing of the converted
dialect left, or is declined with one clear line naming the pass, the op, the type and why:
never a traceback, never IR that upstream rejects. (xDSL's verifier does not check that every
value is defined, so the outputs go through mlir-opt-22.)

The inputs are written for this project, one for each kind of problem that running the passes
on upstream's `mlir/test/Conversion/*ToLLVM` tests turned up.
"""

import re
import shutil
import subprocess

import llvmlite.binding as llvm
import pytest
from conftest import tool
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from mg_xdsl.conversions.to_llvm.type_conversion import byte_size
from mg_xdsl.pipeline.registry import get_pass

MLIR_OPT = shutil.which("mlir-opt-22")
needs_mlir_opt = pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-22 is not installed (CI installs it)")

# (name, passes, input, the dialect that must be gone afterwards)
CONVERTS = [
    (
        "identity affine-map layout is the default layout",
        "finalize-memref-to-llvm",
        """
        func.func @f(%m: memref<32xf32, affine_map<(d0) -> (d0)>>, %i: index) -> f32 {
          %a = memref.alloc() : memref<32xf32, affine_map<(d0) -> (d0)>>
          %v = memref.load %m[%i] : memref<32xf32, affine_map<(d0) -> (d0)>>
          memref.store %v, %a[%i] {nontemporal = true} : memref<32xf32, affine_map<(d0) -> (d0)>>
          return %v : f32
        }""",
        "memref",
    ),
    (
        "strided subview with static and dynamic offsets, sizes and steps",
        "finalize-memref-to-llvm",
        """
        func.func @f(%m: memref<?x8xf32>, %o: index, %n: index, %s: index, %i: index) -> f32 {
          %v = memref.subview %m[%o, 2] [%n, 3] [%s, 2]
              : memref<?x8xf32> to memref<?x3xf32, strided<[?, 2], offset: ?>>
          %w = memref.subview %v[1, 0] [2, 2] [1, 1]
              : memref<?x3xf32, strided<[?, 2], offset: ?>> to memref<2x2xf32, strided<[?, 2], offset: ?>>
          %x = memref.load %w[%i, %i] : memref<2x2xf32, strided<[?, 2], offset: ?>>
          return %x : f32
        }""",
        "memref",
    ),
    (
        "memref of vectors and of odd-width integers",
        "finalize-memref-to-llvm",
        """
        func.func @f(%n: index) {
          %a = memref.alloc(%n) : memref<?xvector<3xf32>>
          %b = memref.alloca() : memref<5xi24>
          return
        }""",
        "memref",
    ),
    (
        "bf16 min/max and float-to-int casts",
        "convert-arith-to-llvm",
        """
        func.func @f(%a: bf16, %b: bf16) -> i32 {
          %m = arith.maximumf %a, %b : bf16
          %x = arith.fptosi %m : bf16 to i32
          return %x : i32
        }""",
        "arith",
    ),
    (
        "a block that branches to itself with its own argument",
        "convert-cf-to-llvm",
        """
        func.func @f() {
          return
        ^bb1(%arg0: index):
          cf.br ^bb1(%arg0 : index)
        }""",
        "cf",
    ),
    (
        "a loop carrying memrefs and an index, swapped each turn, through every pass",
        "convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts",
        """
        func.func @f(%lb: index, %ub: index, %a: memref<64xi32>, %b: memref<64xi32>) -> memref<64xi32> {
          cf.br ^head(%lb, %a, %b : index, memref<64xi32>, memref<64xi32>)
        ^head(%i: index, %x: memref<64xi32>, %y: memref<64xi32>):
          %c = arith.cmpi slt, %i, %ub : index
          cf.cond_br %c, ^body, ^exit
        ^body:
          %one = arith.constant 1 : index
          %j = arith.addi %i, %one : index
          cf.br ^head(%j, %y, %x : index, memref<64xi32>, memref<64xi32>)
        ^exit:
          return %x : memref<64xi32>
        }""",
        "builtin.unrealized_conversion_cast|cf|arith|func",
    ),
]

# (name, passes, input, the whole error line after "mg-opt: error: ")
DECLINED = [
    (
        "memory space",
        "finalize-memref-to-llvm",
        """
        func.func @f() {
          %a = memref.alloc() : memref<32xf32, affine_map<(d0) -> (d0)>, 5>
          return
        }""",
        "finalize-memref-to-llvm: memref.alloc on memref<32xf32, affine_map<(d0) -> (d0)>, 5 : i64>"
        " is not supported: memory spaces (LLVM address spaces) are not supported",
    ),
    (
        "memory space in a signature",
        "convert-func-to-llvm",
        "func.func private @f(memref<4xf32, 1>)",
        "convert-func-to-llvm: func.func on memref<4xf32, 1 : i64> is not supported:"
        " memory spaces (LLVM address spaces) are not supported",
    ),
    (
        "a float type LLVM lacks in a comparison",
        "convert-arith-to-llvm",
        """
        func.func @f(%a: f4E2M1FN, %b: f4E2M1FN) -> i1 {
          %c = arith.cmpf oeq, %a, %b : f4E2M1FN
          return %c : i1
        }""",
        "convert-arith-to-llvm: arith.cmpf on f4E2M1FN is not supported: LLVM has no f4E2M1FN type",
    ),
    (
        "a float type LLVM lacks in a constant",
        "convert-arith-to-llvm",
        """
        func.func @f() {
          %c = arith.constant 2.0 : tf32
          return
        }""",
        "convert-arith-to-llvm: arith.constant on tf32 is not supported: LLVM has no tf32 type",
    ),
    (
        "a float type LLVM lacks in a vector",
        "convert-arith-to-llvm",
        """
        func.func @f(%a: vector<4xf8E4M3FN>) {
          %c = arith.addf %a, %a : vector<4xf8E4M3FN>
          return
        }""",
        "convert-arith-to-llvm: arith.addf on vector<4xf8E4M3FN> is not supported: LLVM has no f8E4M3FN type",
    ),
    (
        "a branch carrying a float type LLVM lacks",
        "convert-cf-to-llvm",
        """
        func.func @f(%a: f4E2M1FN) {
          cf.br ^b(%a : f4E2M1FN)
        ^b(%x: f4E2M1FN):
          return
        }""",
        "convert-cf-to-llvm: cf.br on f4E2M1FN is not supported: LLVM has no f4E2M1FN type",
    ),
    (
        "a static shape whose byte size overflows i64",
        "finalize-memref-to-llvm",
        """
        func.func @f() {
          %a = memref.alloc() : memref<4000000000x4000000000xf64>
          return
        }""",
        "finalize-memref-to-llvm: memref.alloc on memref<4000000000x4000000000xf64>"
        " is not supported: its size in bytes does not fit in i64",
    ),
    (
        "static sizes beside a dynamic one whose strides overflow i64",
        "finalize-memref-to-llvm",
        """
        func.func @f(%m: memref<?x4000000000x4000000000xf32>, %i: index) -> f32 {
          %v = memref.load %m[%i, %i, %i] : memref<?x4000000000x4000000000xf32>
          return %v : f32
        }""",
        "finalize-memref-to-llvm: memref.load on memref<?x4000000000x4000000000xf32>"
        " is not supported: its size in bytes does not fit in i64",
    ),
    (
        "a layout that is not strided",
        "finalize-memref-to-llvm",
        """
        func.func @f(%m: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %i: index) -> f32 {
          %v = memref.load %m[%i, %i] : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>
          return %v : f32
        }""",
        "finalize-memref-to-llvm: memref.load on memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>"
        " is not supported: layout affine_map<(d0, d1) -> (d1, d0)> is not supported"
        " (only identity and strided layouts are)",
    ),
    (
        "an element type with no LLVM form",
        "finalize-memref-to-llvm",
        """
        func.func @f() {
          %a = memref.alloc() : memref<4xcomplex<f32>>
          return
        }""",
        "finalize-memref-to-llvm: memref.alloc on memref<4xcomplex<f32>> is not supported:"
        " element type complex<f32> has no LLVM form here",
    ),
]


def mg_opt(passes: str, source: str) -> subprocess.CompletedProcess:
    return subprocess.run([tool("mg-opt"), "-p", passes], input=source, capture_output=True, text=True)


def ops_left(text: str, dialects: str) -> set[str]:
    """Op names of ``dialects`` (a regex alternation) used in ``text``."""
    return set(re.findall(rf"(?:^\s*|= |\")((?:{dialects})\.[a-z_]+)", text, re.M))


@needs_mlir_opt
@pytest.mark.parametrize("name,passes,source,gone", CONVERTS, ids=[c[0] for c in CONVERTS])
def test_converts_to_ir_upstream_verifies(name, passes, source, gone):
    p = mg_opt(passes, source)
    assert p.returncode == 0, p.stderr
    assert ops_left(p.stdout, gone) == set(), p.stdout
    check = subprocess.run([MLIR_OPT], input=p.stdout, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr + p.stdout


@pytest.mark.parametrize("name,passes,source,message", DECLINED, ids=[c[0] for c in DECLINED])
def test_declined_with_one_clear_line(name, passes, source, message):
    p = mg_opt(passes, source)
    assert p.stdout == ""
    assert p.stderr == f"mg-opt: error: {message}\n"
    assert p.returncode == 1


@pytest.mark.parametrize("name,passes,source,message", DECLINED, ids=[c[0] for c in DECLINED])
def test_declined_through_the_python_api_leaves_the_module_unchanged(ctx, name, passes, source, message):
    module = Parser(ctx, source).parse_module()
    before = str(module)
    with pytest.raises(PassFailedException) as failure:
        get_pass(passes)().apply(ctx, module)
    assert str(failure.value) == message
    assert str(module) == before


LLVM_TYPES = {
    "i1": "i1",
    "i8": "i8",
    "i24": "i24",
    "i48": "i48",
    "i64": "i64",
    "i96": "i96",
    "i128": "i128",
    "i200": "i200",
    "index": "i64",
    "f16": "half",
    "bf16": "bfloat",
    "f32": "float",
    "f64": "double",
    "f80": "x86_fp80",
    "f128": "fp128",
    "vector<3xf32>": "<3 x float>",
    "vector<4xi1>": "<4 x i1>",
    "vector<8xf64>": "<8 x double>",
    "vector<3xi24>": "<3 x i24>",
    "vector<5xi8>": "<5 x i8>",
}


def test_element_byte_sizes_are_llvms(ctx):
    """Buffer sizes are computed at compile time: they must be what LLVM steps by."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    data = llvm.Target.from_default_triple().create_target_machine().target_data
    names = list(LLVM_TYPES)
    module = llvm.parse_assembly(
        "\n".join(f"@g{i} = global {LLVM_TYPES[n]} zeroinitializer" for i, n in enumerate(names))
    )
    for i, name in enumerate(names):
        llvm_size = data.get_abi_size(module.get_global_variable(f"g{i}").global_value_type)
        assert byte_size(Parser(ctx, name).parse_type()) == llvm_size, name
