"""C++ interoperability: `mgc lib` writes an object and a header that a C++17 program,
compiled with -Wall -Werror, uses on matrices larger than any example and through `?`
parameters, matching plain loops; an argument that misses a static size throws
std::invalid_argument; a `?` size that does not match, or an allocation that fails, aborts
with the message. The header declares each def in the C++ type of its rank and element type."""

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, mgc

HERE = ROOT / "tests" / "cpp"  # the C++ programs and their .mg files
CXX = shutil.which("g++") or shutil.which("clang++")
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler")


def build(tmp_path: Path, mg_file: Path, cpp_file: Path, *flags: str) -> Path:
    p = mgc("lib", str(mg_file), "-o", str(tmp_path))
    assert p.returncode == 0, p.stderr.decode()
    exe = tmp_path / "app"
    c = subprocess.run(
        [
            CXX,
            "-std=c++17",
            "-Wall",
            "-Werror",
            *flags,
            f"-I{tmp_path}",
            str(cpp_file),
            str(tmp_path / f"{mg_file.stem}.o"),
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
    )
    assert c.returncode == 0, c.stderr
    return exe


@needs_cxx
def test_header_and_object(tmp_path):
    p = mgc("lib", str(HERE / "ops.mg"), "-o", str(tmp_path))
    assert p.returncode == 0
    header = (tmp_path / "ops.h").read_text()
    assert (
        "struct Matrix" in header
        and "inline Matrix layer(const Matrix &x, const Matrix &w, const Matrix &bias)" in header
    )
    symbols = subprocess.run(["nm", str(tmp_path / "ops.o")], capture_output=True, text=True).stdout
    assert " T _mlir_ciface_layer" in symbols and " T main" not in symbols


@needs_cxx
def test_cpp_program_matches_plain_loops(tmp_path):
    exe = build(tmp_path, HERE / "ops.mg", HERE / "app.cpp")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("matches") == 8 and "DIFFERS" not in p.stdout
    assert "wrong shape rejected: layer: argument 1 (x) must be 16x24, got 24x12" in p.stdout


@needs_cxx
def test_tensors_of_every_element_type_and_rank(tmp_path):
    """mg::Tensor<T, N> for f32, bf16, i32, i64, i1 (uint8_t) and ranks 0-3, next to
    mg::Matrix; every result against plain loops; a shape that misses throws; an integer
    division by zero aborts with the check's message."""
    exe = build(tmp_path, HERE / "tensors.mg", HERE / "tensors.cpp", "-Wextra", "-pedantic")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode in (134, -6), p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 12 and all(line.endswith(" matches") for line in lines[:10]), p.stdout
    assert lines[10:] == ["affine3: argument 1 (a) must be ?x5x1, got 2x5x3", "mg::Tensor: 2x3 needs 6 values, got 1"]
    assert p.stderr.startswith("mg.div: integer division by zero\n"), p.stderr
    header = (tmp_path / "tensors.h").read_text()
    assert "inline Tensor<float, 3> affine3(const Tensor<float, 3> &a, const Tensor<float, 3> &b)" in header
    assert "inline Matrix layer(const Matrix &x, const Matrix &w)" in header


@needs_cxx
def test_runtime_mismatch_aborts_with_the_message(tmp_path):
    (tmp_path / "m.mg").write_text("def add(a: tensor[?x?], b: tensor[?x?]) = a + b\n")
    (tmp_path / "main.cpp").write_text(
        '#include <cstdio>\n#include "m.h"\n'
        "int main() {\n"
        "  mg::Matrix a(2, 2, {1, 2, 3, 4}), b(3, 2, {1, 2, 3, 4, 5, 6});\n"
        '  std::printf("%g\\n", mg::add(a, a)(1, 1));\n'
        "  std::fflush(stdout);\n"
        "  mg::add(a, b);\n"
        '  std::printf("not reached\\n");\n'
        "}\n"
    )
    exe = build(tmp_path, tmp_path / "m.mg", tmp_path / "main.cpp")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode in (134, -6)
    assert p.stdout == "8\n"
    assert p.stderr == (
        f"mg.add: operand shapes differ at runtime in dimension 0\n  at {tmp_path / 'm.mg'}:1: sizes 2 and 3\n"
    )  # the path given to mgc


# Every way an argument can miss a static size (larger, smaller, transposed, either
# dimension or both), for static and half-`?` parameters, and sizes that fit. The header
# must throw before the compiled code reads a matrix of the wrong size.
SIZES = """\
def s23(a: tensor[2x3]) = 2 * a
def q3(a: tensor[?x3]) = 2 * a
def p2(a: tensor[2x?]) = 2 * a
"""
MISSES = [
    ("s23", 3, 3),
    ("s23", 1, 3),
    ("s23", 2, 4),
    ("s23", 2, 2),
    ("s23", 3, 2),
    ("s23", 3, 4),
    ("s23", 0, 3),
    ("q3", 2, 4),
    ("q3", 2, 2),
    ("q3", 3, 2),
    ("q3", 5, 1),
    ("p2", 3, 2),
    ("p2", 1, 2),
    ("p2", 3, 5),
]
FITS = [("s23", 2, 3), ("q3", 1, 3), ("q3", 7, 3), ("p2", 2, 1), ("p2", 2, 9)]
WANT = {"s23": "2x3", "q3": "?x3", "p2": "2x?"}


@needs_cxx
def test_header_rejects_every_size_that_misses(tmp_path):
    (tmp_path / "sizes.mg").write_text(SIZES)
    calls = "".join(
        f"  attempt([] {{ return mg::{name}(counting({r}, {c})); }}, {r}, {c});\n" for name, r, c in MISSES + FITS
    )
    (tmp_path / "main.cpp").write_text(
        '#include <cstdio>\n#include <functional>\n#include "sizes.h"\n'
        "static mg::Matrix counting(int64_t r, int64_t c) {\n"
        "  std::vector<double> v(static_cast<size_t>(r * c));\n"
        "  for (size_t i = 0; i < v.size(); i++) v[i] = double(i);\n"
        "  return mg::Matrix(r, c, v);\n}\n"
        "static void attempt(const std::function<mg::Matrix()> &f, int64_t r, int64_t c) {\n"
        "  try {\n"
        "    mg::Matrix m = f();\n"
        "    bool doubled = m.rows == r && m.cols == c;\n"
        "    for (int64_t i = 0; doubled && i < r * c; i++) doubled = m.data[i] == 2.0 * double(i);\n"
        '    std::printf(doubled ? "ok\\n" : "WRONG\\n");\n'
        "  } catch (const std::invalid_argument &e) {\n"
        '    std::printf("%s\\n", e.what());\n'
        "  }\n}\n"
        f"int main() {{\n{calls}}}\n"
    )
    exe = build(tmp_path, tmp_path / "sizes.mg", tmp_path / "main.cpp")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    want = [f"{name}: argument 1 (a) must be {WANT[name]}, got {r}x{c}" for name, r, c in MISSES]
    assert p.stdout.splitlines() == want + ["ok"] * len(FITS)


@needs_cxx
def test_failed_allocation_aborts_with_the_message(tmp_path):
    """A result too large for any machine (6e6 x 6e6 doubles): the compiled code's allocator
    reports it and aborts, rather than returning a null pointer to write through."""
    (tmp_path / "o.mg").write_text("def outer(a: tensor[?x1], b: tensor[1x?]) = a @ b\n")
    (tmp_path / "main.cpp").write_text(
        '#include <cstdio>\n#include "o.h"\n'
        "int main() {\n"
        "  const int64_t n = 6000000;\n"
        "  mg::Matrix a(n, 1, std::vector<double>(n, 1.0)), b(1, n, std::vector<double>(n, 1.0));\n"
        '  std::printf("calling\\n");\n'
        "  std::fflush(stdout);\n"
        "  mg::outer(a, b);\n"
        '  std::printf("not reached\\n");\n'
        "}\n"
    )
    exe = build(tmp_path, tmp_path / "o.mg", tmp_path / "main.cpp")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout) in (((134, "calling\n")), (-6, "calling\n"))
    assert p.stderr == "mg: out of memory allocating 288000000000000 bytes\n"


# -- the header's types for every rank and element type (mgc lib alone, no C++ compiler) ---


def test_the_cpp_interface_declares_other_ranks(tmp_path):
    prog = tmp_path / "cube.mg"
    prog.write_text("def f(x: tensor[2x2x2]) = x * 2\n")
    out = mgc("lib", str(prog), "-o", str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr.decode()
    assert "inline Tensor<double, 3> f(const Tensor<double, 3> &x)" in (tmp_path / "out" / "cube.h").read_text()


def test_the_cpp_interface_declares_other_element_types(tmp_path):
    prog = tmp_path / "ints.mg"
    prog.write_text("def f(x: tensor[2x2xi32]) = x * 2\n")
    out = mgc("lib", str(prog), "-o", str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr.decode()
    assert "inline Tensor<int32_t, 2> f(const Tensor<int32_t, 2> &x)" in (tmp_path / "out" / "ints.h").read_text()
