"""C++ interoperability: `mgc lib` writes an object and a header that a C++17 program,
compiled with -Wall -Werror, uses on matrices larger than any example and through `?`
parameters, matching plain loops; a `?` size that does not match aborts with the message."""

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import mgc

HERE = Path(__file__).resolve().parent / "cpp"
CXX = shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")


def build(tmp_path: Path, mg_file: Path, cpp_file: Path) -> Path:
    p = mgc("lib", str(mg_file), "-o", str(tmp_path))
    assert p.returncode == 0, p.stderr.decode()
    exe = tmp_path / "app"
    c = subprocess.run([CXX, "-std=c++17", "-Wall", "-Werror", f"-I{tmp_path}", str(cpp_file),
                        str(tmp_path / f"{mg_file.stem}.o"), "-o", str(exe)],
                       capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    return exe


def test_header_and_object(tmp_path):
    p = mgc("lib", str(HERE / "ops.mg"), "-o", str(tmp_path))
    assert p.returncode == 0
    header = (tmp_path / "ops.h").read_text()
    assert "struct Matrix" in header and "inline Matrix layer(const Matrix &x, const Matrix &w, const Matrix &bias)" in header
    symbols = subprocess.run(["nm", str(tmp_path / "ops.o")], capture_output=True, text=True).stdout
    assert " T _mlir_ciface_layer" in symbols and " T main" not in symbols


def test_cpp_program_matches_plain_loops(tmp_path):
    exe = build(tmp_path, HERE / "ops.mg", HERE / "app.cpp")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("matches") == 8 and "DIFFERS" not in p.stdout
    assert "wrong shape rejected: layer: argument 1 (x) must be 16x24, got 24x12" in p.stdout


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
        "}\n")
    exe = build(tmp_path, tmp_path / "m.mg", tmp_path / "main.cpp")
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode in (134, -6)
    assert p.stdout == "8\n"
    assert p.stderr == "mg.add: operand shapes differ at runtime in dimension 0\n"
