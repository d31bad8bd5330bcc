"""The Python API compiles a library's thread-pool bodies on a second thread
(``mg_xdsl.backend.parallel_codegen``): where the LLVM IR is cut and where it is not, the
results against NumPy's, the two objects through the disk cache, and several compilations
from several Python threads at once."""

import os
import subprocess
import sys
import threading
import time

import llvmlite.binding as llvm
import numpy as np
import pytest

import mg_xdsl
from mg_xdsl.api import Library
from mg_xdsl.backend import cache, jit, parallel_codegen
from mg_xdsl.driver import Compilation

SOFTMAX = """def softmax(s: tensor[?x40]) -> tensor[?x40]:
    let e = exp(s - max(s, axes=[1], keepdims=true))
    return e / sum(e, axes=[1], keepdims=true)
"""
ROWS = [1, 3, 513, 64]


def numpy_softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def llvm_ir(source: str) -> str:
    return Compilation(source, "<string>", lib=True, kernels_apart=True).llvm_ir(verify=False)


def parses(text: str) -> None:
    jit.initialise_llvm()
    llvm.parse_assembly(text).verify()


def test_the_bodies_are_cut_out_and_declared_in_their_place():
    ir = llvm_ir(SOFTMAX)
    parts = parallel_codegen.split(ir)
    assert parts is not None
    rest, bodies, names = parts
    assert names == ["softmax_parallel_0"]
    assert "define void @softmax_parallel_0(ptr %a0, i64 %a1, i64 %a2) {" in bodies
    assert "declare void @softmax_parallel_0(ptr, i64, i64)" in rest
    assert "define void @softmax_parallel_0" not in rest
    assert "define void @_mlir_ciface_softmax" in rest and "@_mlir_ciface_softmax" not in bodies
    parses(rest)
    parses(bodies)


# A body of the printer's form, passed to the pool by the function below it; USE is what
# the body does, DEFINITIONS what else the module holds.
MODULE = """target triple = "x86_64-unknown-linux-gnu"
{globals}
declare void @mgrt_parallel_for(ptr, ptr, i64, i64, i64)

define void @f_parallel_0(ptr %a0, i64 %a1, i64 %a2) {{
bb0:
{use}
  ret void
}}

define void @f(ptr %p) {{
bb0:
  call void @mgrt_parallel_for(ptr {address}, ptr %p, i64 0, i64 1, i64 1)
  ret void
}}
{definitions}"""


def module(use: str = "", globals_: str = "", definitions: str = "", address: str = "@f_parallel_0") -> str:
    return MODULE.format(use=use, globals=globals_, definitions=definitions, address=address)


def test_a_private_constant_goes_with_the_body_that_reads_it():
    text = module("  %v = load i64, ptr @k", "@k = private constant i64 7")
    parses(text)
    parts = parallel_codegen.split(text)
    assert parts is not None
    assert "@k = private constant i64 7" in parts[1]
    parses(parts[0])
    parses(parts[1])


@pytest.mark.parametrize(
    "why, text",
    [
        ("a variable", module("  store i64 1, ptr @g", "@g = internal global i64 0")),
        ("a call of a def", module("  call void @h()", definitions="define void @h() {\nbb0:\n  ret void\n}\n")),
        ("not passed to the pool", module(address="null")),
        ("another printer's form", module().replace("@f_parallel_0(ptr %a0", '@"f_parallel_0"(ptr %a0')),
    ],
)
def test_a_cut_that_is_not_safe_is_not_made(why, text):
    parses(text)
    assert parallel_codegen.split(text) is None, why


@pytest.mark.parametrize("element", ["f64", "f32"])
def test_a_library_of_two_objects_computes_what_numpy_does(monkeypatch, element):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    lib = Library(SOFTMAX.replace("tensor[?x40]", f"tensor[?x40x{element}]"))
    assert len(lib._engines[0].objects) == 2
    rng = np.random.default_rng(7)
    for rows in ROWS:
        s = (rng.standard_normal((rows, 40)) * 5).astype(element.replace("f", "float"))
        np.testing.assert_allclose(lib.softmax(s), numpy_softmax(s), rtol=2e-6 if element == "f32" else 1e-13)


def test_the_two_objects_are_stored_and_loaded_again_in_another_process(tmp_path):
    env = {"MGC_CACHE_DIR": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    child = f"""
import numpy as np, mg_xdsl
lib = mg_xdsl.compile({SOFTMAX!r})
s = np.arange(120.0).reshape(3, 40) / 7
e = np.exp(s - s.max(axis=1, keepdims=True))
np.testing.assert_allclose(lib.softmax(s), e / e.sum(axis=1, keepdims=True), rtol=1e-13)
print(lib._cache_outcome.split(" ")[0].rstrip(",:"))
"""
    said = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", child], env={**os.environ, **env}, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        said.append(p.stdout.strip())
    assert said == ["miss", "hit"]
    store = cache.ObjectCache(tmp_path)
    libraries = [store.load_library(bytes.fromhex(path.stem)) for path in tmp_path.glob("*.mgo")]
    assert sorted(len(objects) for objects, *_ in libraries if objects is not None)[-1] == 2


def test_compilations_from_several_threads_at_once(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    results: dict[int, object] = {}

    def compile_and_run(i: int) -> None:
        try:
            lib = mg_xdsl.compile(SOFTMAX + f"\n# thread {i} {time.time_ns()}\n")
            s = np.linspace(-3, 3, 40 * (i + 1)).reshape(i + 1, 40)
            results[i] = (len(lib._engines[0].objects), np.allclose(lib.softmax(s), numpy_softmax(s), rtol=1e-13))
        except BaseException as e:  # (reported below, in the test's thread)
            results[i] = e

    threads = [threading.Thread(target=compile_and_run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: (2, True) for i in range(4)}
