"""The Python API compiles a library's matrix-product and reduction kernels apart
(``mg_xdsl.backend.kernel_library``): once per process and CPU, kept in the disk cache, and
called by every library that needs them. Checked here: the program only declares the
kernels it calls, each compiled alone; the results (against NumPy); a second library reuses
the kernels without compiling them; a new process finds them in the disk cache; a library
whose kernels left the cache is compiled again; ``MGC_NO_CACHE`` keeps them off the disk."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from mg_xdsl.api import Library
from mg_xdsl.backend import kernel_library
from mg_xdsl.driver import Compilation

LAYER = "def f(x: tensor[?x200], w: tensor[200x96]) = relu(x @ w)\n"
ROWS = "def f(x: tensor[?x200], w: tensor[200x96]) = row_sum(x @ w) * 2.0\n"

rng = np.random.default_rng(5)
X, W = rng.standard_normal((130, 200)), rng.standard_normal((200, 96))


def check(lib: Library, source: str) -> None:
    want = np.maximum(X @ W, 0) if "relu" in source else (X @ W).sum(axis=1, keepdims=True) * 2
    np.testing.assert_allclose(lib.f(X, W), want, rtol=1e-12, atol=1e-12)


def test_the_program_declares_the_kernels_and_each_is_compiled_alone():
    comp = Compilation(ROWS, "<k>", lib=True, kernels_apart=True)
    program = comp.llvm_ir(verify=False)
    symbols = re.findall(r"^declare void @(mg_\w+)\(", program, re.M)
    assert sorted(s.rsplit("_", 1)[0] for s in symbols) == ["mg_matmul_set_f64", "mg_row_sum_f64"]
    assert all(re.fullmatch(r"mg_\w+_[0-9a-f]{16}", s) for s in symbols), symbols
    assert not re.search(r"^define .*@mg_", program, re.M)  # (no kernel code in the program)
    for symbol in symbols:
        assert f"call void @{symbol}(" in program
        kernel = comp.kernel_ir(symbol)
        assert f"define void @{symbol}(" in kernel and f"define void @{symbol}_parallel_0(" in kernel
    # Another CPU, another kernel: the digest covers it.
    other = Compilation(ROWS, "<k>", lib=True, kernels_apart=True, cpu="x86-64-v3").llvm_ir(verify=False)
    assert not set(symbols) & set(re.findall(r"^declare void @(mg_\w+)\(", other, re.M))


def test_a_second_library_calls_the_kernels_the_first_compiled(monkeypatch, tmp_path):
    monkeypatch.setenv("MGC_CACHE_DIR", str(tmp_path))
    compiled = len(kernel_library.COMPILED)
    first = Library(LAYER + "# one\n")
    check(first, LAYER)
    after_first = len(kernel_library.COMPILED)
    second = Library(LAYER.replace("96", "?") + "# two\n")  # (another program, the same kernel)
    check(second, LAYER)
    assert len(kernel_library.COMPILED) == after_first  # (none compiled for the second)
    assert after_first - compiled <= 1  # (the f64 product's, unless an earlier test compiled it)


_PROCESS = """
import json, sys
import numpy as np
from mg_xdsl.api import Library
from mg_xdsl.backend import kernel_library
lib = Library(sys.argv[1])
x = np.random.default_rng(5).standard_normal((130, 200))
w = np.random.default_rng(6).standard_normal((200, 96))
print(json.dumps({"error": float(np.abs(lib.f(x, w) - np.maximum(x @ w, 0)).max()),
                  "compiled": len(kernel_library.COMPILED), "cache": lib._cache_outcome}))
"""


def in_a_new_process(source: str, directory: Path, **env: str) -> dict:
    p = subprocess.run(
        [sys.executable, "-c", _PROCESS, source],
        capture_output=True,
        text=True,
        env={**os.environ, "MGC_CACHE_DIR": str(directory), **env},
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def entries(directory: Path) -> list[Path]:
    """The entries but those of the code every library calls (``kernel_library.PROCESS_CODE``)."""
    shared = {directory / name for name in kernel_library.process_code_entries()}
    return sorted(set(directory.glob("*.mgo")) - shared)


def test_a_new_process_finds_the_kernels_in_the_disk_cache(tmp_path):
    first = in_a_new_process(LAYER, tmp_path)
    assert first["compiled"] == 1 and first["error"] < 1e-12
    assert len(entries(tmp_path)) == 2  # (the library, the kernels)
    other = in_a_new_process(LAYER.replace("200x96", "200x?") + "# other\n", tmp_path)
    assert other["cache"].startswith("miss") and other["compiled"] == 0  # (the kernels: from the cache)


def test_a_library_whose_kernels_left_the_cache_is_compiled_again(tmp_path):
    first = in_a_new_process(LAYER, tmp_path)
    library_entry = Path(first["cache"].split("stored in ", 1)[1])
    [kernels_entry] = [e for e in entries(tmp_path) if e != library_entry]
    kernels_entry.unlink()
    again = in_a_new_process(LAYER, tmp_path)
    assert again["cache"].startswith("miss: the entry did not load") and again["compiled"] == 1
    assert again["error"] < 1e-12
    assert len(entries(tmp_path)) == 2  # (both stored again)


def test_no_cache_keeps_the_kernels_off_the_disk(tmp_path):
    run = in_a_new_process(LAYER, tmp_path, MGC_NO_CACHE="1")
    assert run["compiled"] == 1 and run["error"] < 1e-12 and entries(tmp_path) == []


# (broadcast_to: a `?` of columns is never broadcast implicitly, static 1 or not)
SOFTMAX = """def f(x: tensor[?xNxT]) -> tensor[?xNxT]:
    let e = exp(x - broadcast_to(max(x, axes=[1], keepdims=true), shape(x)))
    return e / broadcast_to(sum(e, axes=[1], keepdims=true), shape(x))
"""
CENTRED = "def f(x: tensor[?xNxT]) = x - broadcast_to(max(x, axes=[1], keepdims=true), shape(x))\n"


def test_a_row_in_a_loop_calls_the_one_row_kernel():
    comp = Compilation(SOFTMAX.replace("N", "?").replace("xT", ""), "<k>", lib=True, kernels_apart=True)
    program = comp.llvm_ir(verify=False)
    symbols = re.findall(r"^declare void @(mg_\w+)\(", program, re.M)
    assert sorted(s.rsplit("_", 1)[0] for s in symbols) == ["mg_one_row_max_f64", "mg_one_row_sum_f64"]
    assert "<4 x double>" not in program  # (the rows' vector code is the kernels')
    for symbol in symbols:
        assert f"define void @{symbol}(" in comp.kernel_ir(symbol)


def test_the_one_row_kernels_against_numpy():
    """Rows of every length class (shorter than a vector step, a tail of whole vectors and
    of single elements, static and ``?``), f32 and f64; the maximum's zeros keep their sign
    (-0 against +0: ``x - max`` is -0 where the maximum is +0)."""
    rng = np.random.default_rng(7)
    for dtype, t in ((np.float64, ""), (np.float32, "xf32")):
        for n in (3, 64, 1000, 1037):
            x = rng.standard_normal((37, n)).astype(dtype)
            x[5], x[6, :] = -0.0, 0.0
            x[6, n // 2] = -0.0
            e = np.exp(x - x.max(axis=1, keepdims=True))
            tol = 1e-6 if dtype == np.float32 else 1e-13
            for cols in (str(n), "?"):
                softmax = Library(SOFTMAX.replace("N", cols).replace("xT", t))
                np.testing.assert_allclose(softmax.f(x), e / e.sum(axis=1, keepdims=True), rtol=tol, atol=tol)
                centred = Library(CENTRED.replace("N", cols).replace("xT", t)).f(x)
                want = x - x.max(axis=1, keepdims=True)
                np.testing.assert_array_equal(centred, want)
                np.testing.assert_array_equal(np.signbit(centred), np.signbit(want))
