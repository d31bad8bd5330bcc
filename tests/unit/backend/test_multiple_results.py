"""Functions of several results (``return a, b``) through the back end: the lowerings,
buffer-deallocation (each result owns its own buffer, even where one buffer is returned
twice), convert-func-to-llvm's C interface (several results in one struct stored through
the first pointer, as upstream MLIR does), the JIT and the Python API (a tuple of arrays; one
result stays a bare array), ``mgc build`` executables and ``mgc lib``'s C++ header (a struct
of the results, usable with structured bindings), also against upstream's lowering
(``--backend mlir``).

The front end cannot write such a def yet, so the programs are mg-dialect IR written by hand
(from ``mg-opt`` of one-result defs) with their ``Signature``s, handed to ``Compilation`` in
place of the front end's ``Program``."""

import os
import platform
import shutil
import subprocess
import types

import numpy as np
import pytest
from conftest import ADDRESS
from xdsl.parser import Parser

from mg_xdsl import driver
from mg_xdsl.api import Library, RuntimeCheckFailed
from mg_xdsl.backend.cpp_header import header, result_struct
from mg_xdsl.core import element_types
from mg_xdsl.language.checker_types import Signature
from mg_xdsl.language.syntax_tree import TensorType
from mg_xdsl.pipeline import stages as pipeline

DEFS = """
  func.func @pair(%x: tensor<?x3xf64>, %y: tensor<3xi32>) -> (tensor<?x3xf64>, tensor<i32>, tensor<?x3xf64>) attributes {llvm.emit_c_interface} {
    %0 = mg.relu %x : tensor<?x3xf64> -> tensor<?x3xf64>
    %1 = mg.reduce %y {axis = 0 : i64, kind = "sum"} : tensor<3xi32> -> tensor<1xi32>
    %2 = mg.reshape %1 : tensor<1xi32> to tensor<i32>
    func.return %0, %2, %x : tensor<?x3xf64>, tensor<i32>, tensor<?x3xf64>
  }
  func.func @same(%x: tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) attributes {llvm.emit_c_interface} {
    %0 = mg.relu %x : tensor<?x3xf64> -> tensor<?x3xf64>
    func.return %0, %0 : tensor<?x3xf64>, tensor<?x3xf64>
  }
  func.func @mixed(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>) attributes {llvm.emit_c_interface} {
    %0 = mg.transpose %a : tensor<2x3xf32> to tensor<3x2xf32>
    %1 = mg.relu %a : tensor<2x3xf32> -> tensor<2x3xf32>
    %2 = mg.reshape %1 : tensor<2x3xf32> to tensor<6xf32>
    func.return %0, %2, %1 : tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>
  }
  func.func @checked(%a: tensor<?xf64>, %b: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) attributes {llvm.emit_c_interface} {
    %0 = mg.add %a, %b : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
    %1 = mg.relu %a : tensor<?xf64> -> tensor<?xf64>
    func.return %1, %0 : tensor<?xf64>, tensor<?xf64>
  }
  func.func @one(%x: tensor<?x3xf64>) -> tensor<?x3xf64> attributes {llvm.emit_c_interface} {
    %0 = mg.relu %x : tensor<?x3xf64> -> tensor<?x3xf64>
    func.return %0 : tensor<?x3xf64>
  }
"""

MAIN = """
  func.func @main() {
    %0 = mg.constant dense<[[1.000000e+00, -2.000000e+00, 3.000000e+00]]> : tensor<1x3xf64>
    %1 = mg.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>
    %2 = mg.convert %1 : tensor<3xf64> to tensor<3xi32>
    %3 = mg.cast %0 : tensor<1x3xf64> to tensor<?x3xf64>
    %4:3 = func.call @pair(%3, %2) : (tensor<?x3xf64>, tensor<3xi32>) -> (tensor<?x3xf64>, tensor<i32>, tensor<?x3xf64>)
    mg.print %4#0 : tensor<?x3xf64>
    mg.print %4#1 : tensor<i32>
    mg.print %4#2 : tensor<?x3xf64>
    %5:2 = func.call @same(%3) : (tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>)
    mg.print %5#1 : tensor<?x3xf64>
    func.return
  }
"""

# What MAIN prints (base@ addresses aside; the header lines end in a space, left out here).
PRINTED = """\
Unranked Memref base@ = 0x0 rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
[[1,   0,   3]]
Unranked Memref base@ = 0x0 rank = 0 offset = 0 sizes = [] strides = [] data =
[6]
Unranked Memref base@ = 0x0 rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
[[1,   -2,   3]]
Unranked Memref base@ = 0x0 rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
[[1,   0,   3]]
"""


def tensor(shape, element=element_types.F64) -> TensorType:
    return TensorType(tuple(shape), element)


def signature(names, types_, results) -> Signature:
    return Signature(names, types_, results[0], results=results)


ROWS3, I32 = tensor([None, 3]), element_types.NAMES["i32"]
SIGNATURES = {
    "pair": signature(["x", "y"], [ROWS3, tensor([3], I32)], [ROWS3, tensor([], I32), ROWS3]),
    "same": signature(["x"], [ROWS3], [ROWS3, ROWS3]),
    "mixed": signature(
        ["a"],
        [tensor([2, 3], element_types.F32)],
        [tensor([3, 2], element_types.F32), tensor([6], element_types.F32), tensor([2, 3], element_types.F32)],
    ),
    "checked": signature(["a", "b"], [tensor([None]), tensor([None])], [tensor([None]), tensor([None])]),
    "one": Signature(["x"], [ROWS3], ROWS3),
}


@pytest.fixture
def hand_written(monkeypatch):
    """``Compilation`` reads the hand-written module (with ``@main`` unless a library) and
    ``SIGNATURES`` instead of running the front end."""

    def parse_program(source, path, with_main=True):
        text = f"builtin.module {{{DEFS}{MAIN if with_main else ''}}}"
        module = Parser(pipeline.context(), text).parse_module()
        return types.SimpleNamespace(module=module, functions=dict(SIGNATURES), warnings=[])

    monkeypatch.setattr(driver, "parse_program", parse_program)


@pytest.mark.parametrize("optimise", [True, False])
def test_llvm_ir_printer(hand_written, optimise):
    """The LLVM IR printer writes the struct of several results itself (no fallback), the
    module LLVM reads from xDSL's translation."""
    import llvmlite.binding as llvm
    from test_llvm_ir import canonical, without_loop_hints

    from mg_xdsl.backend import jit
    from mg_xdsl.backend.llvm_ir import print_module

    # (optimised, a library: in a program, the optimised pipeline inlines a def called once)
    module = driver.Compilation("multiple results", "multi.mg", optimise=optimise, lib=optimise).mlir(
        "llvm", verify=False
    )
    ours = print_module(module, llvm.get_default_triple())
    assert "define void @_mlir_ciface_pair(ptr %" in ours
    assert canonical(without_loop_hints(ours)) == canonical(jit.translate_with_xdsl(module))


def test_signature_of_one_result_is_unchanged():
    sig = Signature(["x"], [ROWS3], ROWS3)
    assert sig.results == [ROWS3] and sig.result == (None, 3)


@pytest.mark.parametrize("optimise", [True, False])
def test_python_api_returns_a_tuple(hand_written, optimise):
    lib = Library("multiple results", "multi.mg", optimise=optimise)
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    r, s, same_x = lib.pair(x, np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(r, np.maximum(x, 0))
    assert s.shape == () and s.dtype == np.int32 and s == 6
    np.testing.assert_array_equal(same_x, x)
    assert not np.shares_memory(same_x, x)  # (a parameter returned is a copy the caller owns)
    assert lib.pair.result_count == 3 and lib.one.result_count == 1
    assert lib.pair.__doc__ == "pair(x: ?x3, y: 3xi32) -> (?x3, i32, ?x3)"
    assert lib.one.__doc__ == "one(x: ?x3) -> ?x3"
    assert lib.pair.signature.results == SIGNATURES["pair"].results
    one = lib.one(x)  # one result: a bare array
    assert isinstance(one, np.ndarray)
    np.testing.assert_array_equal(one, np.maximum(x, 0))


def test_each_result_owns_its_buffer(hand_written):
    """A buffer returned twice comes back as two buffers, each freed with its own array."""
    lib = Library("multiple results", "multi.mg")
    x = np.arange(12.0).reshape(4, 3) - 6
    for _ in range(200):  # (a double free would abort here; the executables run under valgrind)
        lib.same(x)
    a, b = lib.same(x)
    assert not np.shares_memory(a, b)
    a[0, 0] = 100
    assert b[0, 0] == 0
    assert getattr(a.base, "_allocated") != getattr(b.base, "_allocated")  # (the _Buffer each array frees)
    del a
    np.testing.assert_array_equal(b, np.maximum(x, 0))
    t, flat, relu = lib.mixed(np.array([[1, -2, 3], [4, -5, 6]], np.float32))
    assert t.dtype == flat.dtype == relu.dtype == np.float32
    np.testing.assert_array_equal(t, [[1, 4], [-2, -5], [3, 6]])
    np.testing.assert_array_equal(flat, [1, 0, 3, 4, 0, 6])
    np.testing.assert_array_equal(relu, [[1, 0, 3], [4, 0, 6]])
    assert not np.shares_memory(flat, relu)


def test_empty_results_and_failures(hand_written):
    lib = Library("multiple results", "multi.mg")
    a, b = lib.same(np.empty((0, 3)))
    assert a.shape == b.shape == (0, 3)
    relu, total = lib.checked(np.array([-1.0, 2.0]), np.array([3.0, 4.0]))
    np.testing.assert_array_equal(relu, [0, 2])
    np.testing.assert_array_equal(total, [2, 6])
    with pytest.raises(RuntimeCheckFailed, match="operand shapes differ at runtime"):
        lib.checked(np.array([1.0, 2.0]), np.array([1.0]))


def valgrind_cpu() -> str | None:
    """A CPU whose instructions valgrind decodes (3.19 cannot decode AVX-512), on x86-64."""
    return "x86-64-v2" if platform.machine() in ("x86_64", "AMD64") else None


def assert_frees_each_buffer_once(exe) -> None:
    """Under valgrind, ``exe`` frees no buffer twice and loses none (where valgrind is)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return
    v = subprocess.run(
        [valgrind, "--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite", str(exe)],
        env={**os.environ, "MG_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert v.returncode == 0, v.stderr[-4000:]
    assert "All heap blocks were freed" in v.stderr or "definitely lost: 0 bytes" in v.stderr, v.stderr[-4000:]


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
def test_executable(hand_written, tmp_path, backend):
    """``mgc build``'s executable calls the functions and frees each result once."""
    if backend == "mlir" and not shutil.which("mlir-opt-22"):
        pytest.skip("no mlir-opt-22")
    exe = tmp_path / "multi"
    driver.Compilation("multiple results", "multi.mg", backend=backend, cpu=valgrind_cpu()).build(str(exe))
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert [line.rstrip() for line in ADDRESS.sub("base@ = 0x0", p.stdout).splitlines()] == PRINTED.splitlines()
    if backend == "xdsl":
        assert_frees_each_buffer_once(exe)


def test_header_struct_names():
    taken = {"f", "f_result", "int_"}
    assert result_struct("f", taken) == "f_result_" and result_struct("g", taken) == "g_result"
    assert result_struct("int", taken) == "int_result"
    text = header("multi.mg", "multi", SIGNATURES.items())
    assert "struct pair_result {\n  Matrix r0;\n  Tensor<int32_t, 0> r1;\n  Matrix r2;\n};" in text
    assert "inline pair_result pair(const Matrix &x, const Tensor<int32_t, 1> &y) {" in text
    assert "// pair(x: tensor[?x3], y: tensor[3xi32]) -> (tensor[?x3], tensor[i32], tensor[?x3])" in text
    assert "inline Matrix one(const Matrix &x) {" in text


CPP = r"""
#include "multi.h"
#include <cstdio>

int main() {
  mg::Matrix x(2, 3, {1, -2, 3, -4, 5, -6});
  mg::Tensor<int32_t, 1> y({3}, {1, 2, 3});
  auto [r, s, same_x] = mg::pair(x, y);
  std::printf("%g %g %g %g | %d | %g %g\n", r(0, 0), r(0, 1), r(1, 1), r(1, 2), s(), same_x(1, 0), same_x(0, 1));
  mg::pair_result all = mg::pair(x, y);
  std::printf("%lld %lld\n", static_cast<long long>(all.r0.rows), static_cast<long long>(all.r2.cols));
  auto [a, b] = mg::same(x);
  a(0, 0) = 100;
  std::printf("%g %g\n", a(0, 0), b(0, 0));
  mg::Tensor<float, 2> m({2, 3}, {1, -2, 3, 4, -5, 6});
  auto [t, flat, relu] = mg::mixed(m);
  std::printf("%g %g %g %g\n", t(0, 1), t(2, 1), flat(1), relu(1, 2));
  mg::Matrix one = mg::one(x);
  std::printf("%g\n", one(1, 1));
  try {
    mg::mixed(mg::Tensor<float, 2>({3, 2}, {1, 2, 3, 4, 5, 6}));
  } catch (const std::invalid_argument &e) {
    std::printf("%s\n", e.what());
  }
}
"""

CPP_PRINTS = """\
1 0 5 0 | 6 | -4 -2
2 3
100 1
4 6 0 6
5
mixed: argument 1 (a) must be 2x3, got 3x2
"""


@pytest.mark.parametrize("backend", ["xdsl", "mlir"])
def test_cpp_structured_bindings(hand_written, tmp_path, backend):
    """A C++17 program (-Wall -Werror) takes the results apart with structured bindings,
    against our lowering and upstream's (the same C interface); valgrind finds each result
    freed once and nothing leaked."""
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    if backend == "mlir" and not shutil.which("mlir-opt-22"):
        pytest.skip("no mlir-opt-22")
    driver.Compilation("multiple results", "multi.mg", lib=True, backend=backend, cpu=valgrind_cpu()).library(
        str(tmp_path)
    )
    (tmp_path / "app.cpp").write_text(CPP)
    exe = tmp_path / "app"
    c = subprocess.run(
        [cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}", str(tmp_path / "app.cpp")]
        + [str(tmp_path / "multi.o"), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert c.returncode == 0, c.stderr
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout) == (0, CPP_PRINTS), p.stderr
    if backend == "xdsl":
        assert_frees_each_buffer_once(exe)
