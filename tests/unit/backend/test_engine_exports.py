"""``Engine(exports=...)``: the Python API's libraries export only their guards, so that LLVM
drops each function it has inlined everywhere (a def's C interface, inlined into its guard);
without ``exports`` (``Compilation.engine``, the tests' programs) every function stays."""

import numpy as np

from mg_xdsl.api import Library
from mg_xdsl.backend.jit import Engine
from mg_xdsl.driver import Compilation

SOURCE = "def f(a: tensor[?]) = a + a\n"


def defined(engine) -> set[str]:
    return {f.name for f in engine.module.functions if not f.is_declaration}


def test_a_library_keeps_only_what_its_guards_call(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")  # (compiled here, so that its module is there)
    lib = Library(SOURCE)
    functions = defined(lib._engines[0])
    assert "mgrt_guarded_f" in functions
    assert "_mlir_ciface_f" not in functions  # (inlined into the guard, then dropped)
    np.testing.assert_array_equal(lib.f(np.arange(3.0)), [0.0, 2.0, 4.0])


def test_an_engine_without_exports_keeps_every_function():
    ir = Compilation(SOURCE, "<string>", lib=True, kernels_apart=True).llvm_ir(verify=False)
    assert {"f", "_mlir_ciface_f"} <= defined(Engine(ir))
