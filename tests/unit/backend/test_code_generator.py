"""``jit.code_generator``: one target machine per process optimises every module and makes
its object code. Sharing it must not change the code: each compilation's object is the same,
byte for byte, as a fresh target machine's for the same IR, whatever was compiled before."""

import llvmlite.binding as llvm

from mg_xdsl.backend import jit
from mg_xdsl.driver import Compilation

SOURCES = (
    "def f(a: tensor[?]) = a + a\n",
    "def g(x: tensor[?x?], w: tensor[?x?]) = relu(x @ w)\n",
    "def h(s: tensor[64x32xf32]) = exp(s - max(s, axes=[1], keepdims=true))\n",
)


def object_code(ir: str, machine: llvm.TargetMachine) -> bytes:
    jit.initialise_for(ir)
    module = jit.optimise(jit.link(ir, thread_pool=False, runtime=False), 2, machine)
    return machine.emit_object(module)


def test_there_is_one_code_generator_per_kind():
    assert jit.code_generator() is jit.code_generator()
    assert jit.code_generator(None, 3) is not jit.code_generator(None, 0)
    assert jit.code_generator("x86-64-v3") is not jit.code_generator()


def test_the_shared_machine_makes_what_a_fresh_one_makes():
    irs = [Compilation(source, "<string>", lib=True, kernels_apart=True).llvm_ir(verify=False) for source in SOURCES]
    shared = [object_code(ir, jit.code_generator()) for ir in irs]
    # Again in the other order, after every other module: the same objects.
    again = [object_code(ir, jit.code_generator()) for ir in reversed(irs)][::-1]
    fresh = [object_code(ir, jit.target_machine()) for ir in irs]
    assert shared == again == fresh
    assert len(set(shared)) == len(SOURCES)
