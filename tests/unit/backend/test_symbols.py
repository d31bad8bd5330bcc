"""Every function the generated code calls is provided: by the run-time library (the
printers, the thread pool, the failure reports), the C library or the C math library.

LLVM's back end may call helpers of its own that no IR names (compiler-rt's ``__truncsfbf2``
for a ``bfloat`` it stores, ``__floatundidf`` for an unsigned conversion at ``-O0``); MCJIT
would resolve one that nothing provides to address 0, and the program would crash where it
calls it. So this lists the undefined symbols of the object code of every op in every
element type, in both pipelines, through both backends and at both code-generation levels,
and checks that each is one this project provides or the C libraries have; and that the
JIT refuses code that calls something else, before it runs.
"""

import functools

import llvmlite.binding as llvm
import pytest
from conftest import run_forked
from helpers.upstream import MLIR_OPT

import mg_xdsl
from mg_xdsl.backend import jit, runtime
from mg_xdsl.driver import Compilation

# What an mg program's code may call besides the run-time library's own functions: the C
# library's allocation, output, failure and threads, and the C math library's functions.
C_LIBRARY = {
    "malloc",
    "free",
    "posix_memalign",
    "madvise",
    "snprintf",
    "strlen",
    "write",
    "abort",
    "longjmp",
    "_setjmp",
    "setjmp",
    "pthread_getspecific",
    "pthread_setspecific",
    "pthread_create",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_cond_wait",
    "pthread_cond_broadcast",
    "pthread_cond_signal",
    "pthread_join",
    "sysconf",
    "getenv",
    "strtol",
    "memcpy",
    "memset",
    "memmove",
    "sched_getaffinity",
    "__sched_cpucount",
    "atoi",
    "get_nprocs",
    "getpid",
    "pthread_mutex_trylock",
    # run-time arguments (mg.arg: runtime_arguments_ir.C_FUNCTIONS; tests/e2e/test_arguments_ir.py)
    "strcmp",
    "strncmp",
    "memcmp",
    "strchr",
    "strtod",
    "strtoll",
    "__errno_location",
    "dprintf",
    "fflush",
    "_exit",
}
MATH_LIBRARY = {
    f"{name}{suffix}"
    for name in (
        "exp",
        "log",
        "sin",
        "cos",
        "tanh",
        "acos",
        "asin",
        "atan2",
        "pow",
        "sqrt",
        "fmod",
        "exp2",
        "log2",
        "log10",
        "atan",
        "sincos",
    )
    for suffix in ("", "f")
}
RUNTIME = set(runtime.PRINTERS) | {"mgrt_parallel_for", "mgrt_num_threads"}

FLOATS, INTEGERS = ("f64", "f32", "bf16"), ("i32", "i64")


def program(t: str) -> str:
    """Defs that use every op the language has for element type ``t``, on ``?`` sizes, and
    top-level statements that print each kind of value."""
    defs = [
        f"def views(x: tensor[?x?x{t}]) = slice(transpose(x), 0, 0, 1)",
        f"def shapes(x: tensor[2x3x{t}]) = concat(0, [reshape(x, [3, 2]), transpose(x)])",
        f"def grown(x: tensor[?x3x{t}]) = broadcast_to(x[0, 1], [2, 3])",
        f"def picked(x: tensor[?x3x{t}], ids: tensor[?xi64]) = index(x, ids)",
        f"def taken(x: tensor[?x3x{t}], idx: tensor[?x3xi32]) = gather(x, idx, axis=0)",
        f"def compared(x: tensor[?x{t}], y: tensor[?x{t}]) = where(x < y, x, y)",
        f"def created(x: tensor[?x{t}]) = zeros_like(x)",
    ]
    if t != "i1":
        defs += [
            f"def arith(x: tensor[?x?x{t}], y: tensor[?x?x{t}]) = -x + y * x - y / x",
            f"def product(x: tensor[?x?x{t}], y: tensor[?x?x{t}]) = x @ y",
            f"def batched(x: tensor[2x?x?x{t}], y: tensor[?x?x{t}]) = x @ y",
            f"def reduced(x: tensor[?x?x{t}]) = sum(x, axes=[1]) + prod(x, axes=[0]) + max(x) + min(x, axes=[0, 1])",
            f"def kept(x: tensor[?x?x{t}]) = sum(x, axes=[-1], keepdims=true) * abs(x)",
            f"def scanned(x: tensor[?x?x{t}]) = cumsum(x, axis=1)",
            f"def added(x: tensor[?x3x{t}], ids: tensor[?xi32], v: tensor[?x3x{t}]) = index_add(x, ids, v)",
            f"def scattered(x: tensor[?x3x{t}], idx: tensor[?x3xi64], v: tensor[?x3x{t}]) = scatter_add(x, idx, v, axis=1)",
            f"def extremes(x: tensor[?x{t}], y: tensor[?x{t}]) = maximum(x, y) - minimum(x, y)",
            f"def made(x: tensor[?x{t}]) = x + ones([3], dtype={t}) + full([3], 2, dtype={t})",
        ]
    if t in FLOATS:
        defs += [
            f"def math(x: tensor[?x{t}]) = sqrt(x) + rsqrt(x) + exp(x) + log(x) + sin(x) + cos(x) + tanh(x)"
            f" + acos(x) + asin(x) + pow(x, x) + atan2(x, x) + relu(x)",
            f"def means(x: tensor[3x4x{t}]) = mean(x, axes=[1]) + row_mean(x[0, 0] + zeros([2, 2], dtype={t}))",
            f"def scan(a: tensor[?x{t}], b: tensor[?x{t}]) = linear_scan(a, b, axis=0, reverse=true)",
            f"def rand(x: tensor[{t}]) = normal([3], seed=1, dtype={t}) + uniform([3], seed=2, dtype={t}) + x",
        ]
    if t in INTEGERS:
        defs += [f"def counted(x: tensor[?x{t}]) = iota([3], axis=0, dtype={t}) + x"]
    casts = [f"def to_{u}(x: tensor[?x{t}]) = cast(x, {u})" for u in (*FLOATS, *INTEGERS, "i1") if u != t]
    main = [
        f"let x: tensor[2x3x{t}] = {'[[true, false, true], [false, true, true]]' if t == 'i1' else '[[1, 2, 3], [4, 5, 6]]'}",
        "print x",
        "print views(x)",
        "print x[1, 2]",
        "var v = x",
        "v = transpose(transpose(v))",
        "print v",
    ]
    return "\n".join(defs + casts + main) + "\n"


ELEMENT_TYPES = [*FLOATS, *INTEGERS, "i1"]


def allowed(name: str) -> bool:
    return name in C_LIBRARY or name in MATH_LIBRARY or name in RUNTIME or name.startswith("llvm.")


@functools.cache
def llvm_ir(t: str, optimise: bool, backend: str) -> str:
    """The program's LLVM IR, made once for both code-generation levels."""
    compilation = Compilation(program(t), "symbols.mg", keep_dir=None, optimise=optimise, backend=backend)
    return compilation.llvm_ir(verify=False)


# (LLVM's code generator is the same for both backends: one level is enough for upstream's)
@pytest.mark.parametrize("backend, level", [("xdsl", 0), ("xdsl", 2), ("mlir", 2)], ids=["O0", "O2", "mlir"])
@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("t", ELEMENT_TYPES)
def test_the_generated_code_calls_only_what_is_provided(t, optimise, backend, level):
    if backend == "mlir" and MLIR_OPT is None:
        pytest.skip("mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)")
    _, code = jit.jit_object_code(llvm_ir(t, optimise, backend), level)  # (what Compilation.jit_object does)
    names = set(jit.undefined_symbols(code))
    assert not {n for n in names if not allowed(n)}, f"{t}: calls {sorted(names)}"
    # (making an engine opens the process's own symbols to address_of_symbol, as to MCJIT)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), jit.target_machine())
    assert all(llvm.address_of_symbol(n) for n in names), [n for n in names if not llvm.address_of_symbol(n)]
    engine.close()


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("t", ELEMENT_TYPES)
def test_every_op_program_runs(t, optimise):
    """The programs above load (nothing unresolved) and run to the end."""
    out, err, status = run_forked(program(t), optimise=optimise)
    assert status == 0, err
    assert out.count("Unranked Memref") == 4


def test_the_jit_refuses_code_that_calls_what_nothing_provides():
    """A call to a function nothing defines is an error when the code is loaded, naming it."""
    ir = (
        "declare double @mgrt_no_such_helper(double)\n"
        "define double @f(double %x) {\n  %y = call double @mgrt_no_such_helper(double %x)\n  ret double %y\n}\n"
    )
    with pytest.raises(jit.UnresolvedSymbols, match="mgrt_no_such_helper"):
        jit.Engine(ir)


def test_bf16_reaches_llvm_as_its_bits():
    """LLVM never sees a ``bfloat`` (its x86 back end would convert one it stores through
    compiler-rt): the LLVM IR of a bf16 program moves 16-bit integers."""
    ir = Compilation("def f(a: tensor[?xbf16]) = a[1] * a\n", "f.mg", keep_dir=None, optimise=False).llvm_ir()
    assert "bfloat" not in ir
    assert "load i16" in ir and "store i16" in ir


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_a_bf16_element_access_broadcast_against_a_dynamic_tensor(optimise):
    """Once a segfault in the reference pipeline (a call of ``__truncsfbf2`` at address 0)."""
    import ml_dtypes
    import numpy as np

    source = "def f(a: tensor[?xbf16]) = a[1] * a\n"
    x = np.array([1, 2], dtype=ml_dtypes.bfloat16)
    np.testing.assert_array_equal(mg_xdsl.compile(source, optimise=optimise).f(x), x[1] * x)
    out, err, status = run_forked(source + "let x: tensor[2xbf16] = [1, 2]\nprint f(x)\n", optimise=optimise)
    assert status == 0, err
    assert out.splitlines()[1] == "[2,  4]"


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_a_program_that_only_defines_a_bf16_scatter_add(optimise):
    """Once a segfault in the optimised pipeline: the def's code called ``__truncsfbf2``."""
    source = (
        "def f(p: tensor[?xbf16]) = where(cast(scatter_add(p, cast([3, 0, 1, 1], i64), "
        "cast([1, 1, -2.5, 0], bf16), axis=0), i1), [1, 2, 3, 4], [5, 6, 7, 8])\nprint 1\n"
    )
    out, err, status = run_forked(source, optimise=optimise)
    assert (status, out.splitlines()[1]) == (0, "[1]"), err


def test_the_argument_functions_are_allowed():
    """The C library's functions that a program with run-time arguments calls are listed above."""
    from mg_xdsl.backend.runtime_arguments_ir import C_FUNCTIONS

    assert set(C_FUNCTIONS) <= C_LIBRARY
