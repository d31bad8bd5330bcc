"""The run-time library's core, shared by the Python API's programs (``jit.process_runtime``,
``kernel_library.ensure_process_code``): loaded once per process, its functions and globals
registered for every program, which links only the allocator and, where it prints, the
println section; a program that is one object (``mgc run``) still links the whole library."""

import os
import re
import subprocess
import sys

import llvmlite.binding as llvm

from mg_xdsl.api import _guards
from mg_xdsl.backend import jit
from mg_xdsl.backend.runtime_ir import RUNTIME_CORE_IR
from mg_xdsl.driver import Compilation

SOURCE = "def f(a: tensor[?]) = a + a\n"


def defined(module: llvm.ModuleRef) -> set[str]:
    return {f.name for f in module.functions if not f.is_declaration}


def library_ir() -> tuple[str, tuple[str, ...]]:
    comp = Compilation(SOURCE, "<string>", lib=True, kernels_apart=True)
    return comp.llvm_ir(verify=False), _guards(comp.signatures)


def test_a_library_links_the_allocator_but_not_the_core():
    ir, guards = library_ir()
    jit.process_runtime()
    module = jit.link(ir, *guards, thread_pool=False, runtime=False)
    functions = defined(module)
    assert "_mlir_memref_to_llvm_alloc" in functions  # (inlined where it is called)
    assert not functions & {"mgrt_set_guard", "mgrt_fail", "mgrt_check_failed", "mgrt_out_of_memory"}
    assert not any(name.startswith("mgrt_println_") for name in functions)  # (it prints nothing)


def test_a_program_that_is_one_object_links_the_whole_library():
    ir, guards = library_ir()
    functions = defined(jit.link(ir, *guards, thread_pool=False))
    assert {"_mlir_memref_to_llvm_alloc", "mgrt_set_guard", "mgrt_fail"} <= functions


def test_every_function_and_global_of_the_core_is_registered():
    jit.process_runtime()
    names = re.findall(r"^define [^@]*@([\w.]+)\(", RUNTIME_CORE_IR, re.M)
    names += re.findall(r"^@([\w.]+) = (?!linkonce_odr constant)", RUNTIME_CORE_IR, re.M)
    assert "mgrt_guard_key" in names and "mgrt_check_failed" in names
    missing = [name for name in names if not llvm.address_of_symbol(name)]
    assert missing == []


# Two libraries in one process, each failing a check of its own, then computing.
_TWO_LIBRARIES = """
import mg_xdsl, numpy as np
first = mg_xdsl.compile("def f(a: tensor[?], b: tensor[?]) = a + b")
second = mg_xdsl.compile("def g(a: tensor[?], b: tensor[?]) = a * b")
x, y = np.arange(3.0), np.arange(2.0)
for call in (first.f, second.g):
    try:
        call(x, y)
    except mg_xdsl.RuntimeCheckFailed as e:
        print("raised", str(e).splitlines()[0])
print(second.g(x, x).tolist())
"""


def test_libraries_share_the_core_and_each_fails_on_its_own():
    """The first library of a process sets the guard key in the core that the libraries
    share: a failed check in either raises (in a process of its own, so that an abort fails
    this test, not the test run), and the process goes on."""
    env = {**os.environ, "MGC_NO_CACHE": "1"}
    p = subprocess.run([sys.executable, "-c", _TWO_LIBRARIES], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.splitlines() == [
        "raised mg.add: operand shapes differ at runtime in dimension 0",
        "raised mg.mul: operand shapes differ at runtime in dimension 0",
        "[0.0, 1.0, 4.0]",
    ]
