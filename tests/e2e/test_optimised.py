"""The optimised pipeline against NumPy and against the chapter's reference pipeline, at sizes
where its transformations matter: tiled matrix products with edge blocks (alone and for
each matrix of a batch), fused epilogues
written in place, vectorised reductions with tails, and loops split across threads.

Each case runs with MG_NUM_THREADS=1 and =2 (the run time reads it at every parallel loop),
and the results must not depend on the thread count at all."""

import numpy as np
import pytest
from helpers.threads import at_one_and_two_threads

import mg_xdsl

PROGRAM = """
def mm(a: tensor[?x?], b: tensor[?x?]) = a @ b
def layer(x: tensor[?x?], w: tensor[?x?], b: tensor[?x?]) = relu(x @ w + b)
def bias(x: tensor[300x200], w: tensor[200x130], b: tensor[1x130]) = relu(x @ w + b) * 2 - 1
def rows(a: tensor[?x?]) = row_sum(a) + row_max(a)
def cols(a: tensor[?x?]) = col_sum(a) - col_max(a)
def fused(a: tensor[?x?], b: tensor[?x?]) = relu(a - b) * (a + 1) / (2 - b)
def centred(a: tensor[700x90]) = a - col_mean(a) + row_mean(a)
def chain(a: tensor[?x?], b: tensor[?x?], c: tensor[?x?]) = row_max((a @ b) @ c)
def streamed(a: tensor[1x699051], b: tensor[1x699051]) = relu(a - b) * 2
def streamed_static(a: tensor[1001x997], b: tensor[1001x997]) = a + b
def sized_at_run_time(a: tensor[?x?], b: tensor[?x?]) = relu(a - b) * 2
def batched(a: tensor[?x?x?], b: tensor[?x?x?]) = a @ b
def batched4(a: tensor[2x1x70x?], b: tensor[3x?x90]) = a @ b + 1
"""


def reference(name, *args):
    if name == "mm":
        return args[0] @ args[1]
    if name == "layer":
        x, w, b = args
        return np.maximum(x @ w + b, 0)
    if name == "bias":
        x, w, b = args
        return np.maximum(x @ w + b, 0) * 2 - 1
    if name == "rows":
        (a,) = args
        return a.sum(1, keepdims=True) + a.max(1, keepdims=True)
    if name == "cols":
        (a,) = args
        return a.sum(0, keepdims=True) - a.max(0, keepdims=True)
    if name == "fused":
        a, b = args
        return np.maximum(a - b, 0) * (a + 1) / (2 - b)
    if name == "centred":
        (a,) = args
        return a - a.mean(0, keepdims=True) + a.mean(1, keepdims=True)
    if name == "chain":
        a, b, c = args
        return ((a @ b) @ c).max(1, keepdims=True)
    if name in ("streamed", "sized_at_run_time"):
        a, b = args
        return np.maximum(a - b, 0) * 2
    if name == "streamed_static":
        return args[0] + args[1]
    if name == "batched":
        return args[0] @ args[1]
    if name == "batched4":
        return args[0] @ args[1] + 1
    raise KeyError(name)


def cases():
    rng = np.random.default_rng(7)
    r = rng.normal
    # (K = 0: C is all zeros, though the kernel, which stores C, has no sums to store.)
    for m, k, n in [(1, 1, 1), (7, 3, 5), (8, 16, 16), (129, 257, 33), (300, 40, 1030), (513, 64, 17), (9, 0, 6)]:
        yield "mm", (r(size=(m, k)), r(size=(k, n)))
    yield "layer", (r(size=(200, 300)), r(size=(300, 150)), r(size=(200, 150)))
    yield "bias", (r(size=(300, 200)), r(size=(200, 130)), r(size=(1, 130)))
    for shape in [(1, 1), (3, 31), (5, 33), (600, 129), (2, 5000)]:
        yield "rows", (r(size=shape),)
        yield "cols", (r(size=shape),)
    yield "cols", (r(size=(1000, 70)),)
    yield "fused", (r(size=(700, 300)), r(size=(700, 300)))
    yield "centred", (r(size=(700, 90)),)
    yield "chain", (r(size=(150, 60)), r(size=(60, 200)), r(size=(200, 40)))
    # stream-large-results: written with streaming stores (static sizes, from 16 MiB
    # streamed), with tails of vectors and of blocks; the same sizes at run time are not.
    yield "streamed", (r(size=(1, 699051)), r(size=(1, 699051)))
    for shape in [(1, 1), (3, 7), (1, 699051), (1001, 999)]:
        yield "sized_at_run_time", (r(size=shape), r(size=shape))
    yield "streamed_static", (r(size=(1001, 997)), r(size=(1001, 997)))
    # Batched products: the tiled kernel on each matrix of the batch (a subview), with edge
    # blocks; a batch of one; broadcast batch axes (rank 4 against rank 3).
    for nb, m, k, n in [(3, 129, 40, 33), (1, 64, 300, 20), (5, 8, 8, 8), (0, 30, 30, 30), (2, 17, 0, 9)]:
        yield "batched", (r(size=(nb, m, k)), r(size=(nb, k, n)))
    yield "batched4", (r(size=(2, 1, 70, 33)), r(size=(3, 33, 90)))


CASES = list(cases())


@pytest.fixture(scope="module")
def libraries():
    return mg_xdsl.compile(PROGRAM), mg_xdsl.compile(PROGRAM, optimise=False)


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{n}-{'x'.join(map(str, a[0].shape))}" for n, a in CASES])
def test_agrees_with_numpy_and_the_reference_at_any_thread_count(case, libraries, monkeypatch):
    name, args = CASES[case]
    fast, ref = libraries
    results = at_one_and_two_threads(getattr(fast, name), args, monkeypatch)
    want = reference(name, *args)
    scale = np.abs(want).max() if want.size else 1.0
    np.testing.assert_allclose(results[0], want, rtol=1e-10, atol=1e-10 * scale)
    np.testing.assert_allclose(getattr(ref, name)(*args), results[0], rtol=1e-10, atol=1e-10 * scale)
    # Every split of the work computes each element the same way.
    np.testing.assert_array_equal(results[0], results[1])


def test_runtime_checks_survive_fusion(libraries):
    fast, _ = libraries
    with pytest.raises(mg_xdsl.api.RuntimeCheckFailed, match="mg.sub: operand shapes differ at runtime in dimension 1"):
        fast.fused(np.ones((4, 3)), np.ones((4, 2)))
    with pytest.raises(mg_xdsl.api.RuntimeCheckFailed, match="mg.matmul: inner dimensions differ at runtime"):
        fast.mm(np.ones((4, 3)), np.ones((2, 4)))


SCRIPT = """
import os, sys, numpy as np, mg_xdsl
lib = mg_xdsl.compile(sys.argv[1])
small, big = np.ones((4, 4)), np.ones((2000, 2000))
tasks = lambda: len(os.listdir("/proc/self/task"))
large = lib.functions.get("g", lib.f)
before = tasks(); lib.f(small); after_small = tasks(); large(big); after_big = tasks()
print(before, after_small, after_big)
"""


@pytest.mark.parametrize("threads,extra", [("1", 0), ("2", 1), ("3", 2)])
@pytest.mark.parametrize(
    "program",
    [
        "def f(a: tensor[?x?]) = relu(a) * 3",
        # static: the large one written with streaming stores
        "def f(a: tensor[?x?]) = relu(a) * 3\ndef g(a: tensor[2000x2000]) = relu(a) * 3",
    ],
)
def test_large_loops_start_workers_small_ones_do_not(threads, extra, program):
    """In a fresh process: a 4x4 loop starts no thread; a 2000x2000 one starts the pool's
    workers, MG_NUM_THREADS - 1 of them (the caller is the other thread)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "MG_NUM_THREADS": threads}
    out = subprocess.run([sys.executable, "-c", SCRIPT, program], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    before, after_small, after_big = map(int, out.stdout.split())
    assert after_small == before
    assert after_big == before + extra


@pytest.mark.skipif(
    __import__("shutil").which("mlir-opt-22") is None,
    reason="mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)",
)
def test_upstream_accepts_every_stage_of_the_optimised_pipeline():
    """mlir-opt-22 parses and verifies the IR after every optimised stage: linalg ops on
    memrefs, then vector ops, scf.parallel, outlined llvm.funcs, the LLVM dialect."""
    from helpers.upstream import upstream_accepts

    from mg_xdsl.language.frontend import compile_source
    from mg_xdsl.pipeline import stages as pipeline

    module = compile_source(PROGRAM, "prog.mg")
    ctx = pipeline.context()
    for stage in pipeline.OPTIMISED_STAGES[1:]:
        pipeline.run_stage(module, stage, ctx)
        upstream_accepts(str(module))


VALGRIND_PROGRAM = """
def f(a: tensor[?x?], b: tensor[?x?]) = row_sum(relu(a @ b - 1)) + row_max(b @ a)
let x = [[1, 2, 3], [3, 4, 5], [-1, 0, 2]]
print f(x, x)
"""


@pytest.mark.skipif(__import__("shutil").which("valgrind") is None, reason="valgrind is not installed")
def test_executable_for_a_generic_cpu_runs_clean_under_valgrind(tmp_path):
    """The tiled matrix product and vector reductions, built with --cpu x86-64-v3 (AVX2: what
    valgrind 3.19 can decode), run leak- and error-free and print NumPy's values."""
    import subprocess

    from conftest import mgc

    src = tmp_path / "prog.mg"
    src.write_text(VALGRIND_PROGRAM)
    exe = tmp_path / "prog"
    p = mgc("build", str(src), "-o", str(exe), "--cpu", "x86-64-v3")
    assert p.returncode == 0, p.stderr
    run = subprocess.run(
        ["valgrind", "--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q", str(exe)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    x = np.array([[1, 2, 3], [3, 4, 5], [-1, 0, 2]], dtype=float)
    want = np.maximum(x @ x - 1, 0).sum(1, keepdims=True) + (x @ x).max(1, keepdims=True)
    values = [
        float(v) for v in __import__("re").findall(r"-?\d+(?:\.\d+)?(?:e[-+]\d+)?", run.stdout.split("data =")[1])
    ]
    assert values == want.ravel().tolist()


def test_unknown_cpu_is_a_clear_error(tmp_path):
    from conftest import mgc

    src = tmp_path / "prog.mg"
    src.write_text("print [[1]]\n")
    p = mgc("build", str(src), "-o", str(tmp_path / "prog"), "--cpu", "no-such-cpu")
    assert p.returncode == 2 and b"LLVM does not know the CPU 'no-such-cpu'" in p.stderr
    assert b"Traceback" not in p.stderr
