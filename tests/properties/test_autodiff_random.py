"""Random differentiable programs: mg's gradients (``grad``, ``value_and_grad``) agree with
``jax.grad``'s.

The generator (``helpers/gradient_programs.py``) writes each program twice, as mg text and as a
JAX function over ``jax.numpy``: random trees over the differentiable operations (the
elementwise ones broadcasting, reductions over random axes with and without ``keepdims``,
``@`` of vectors, matrices and batches, the shape operations, subscripts with static and
run-time indices, ``cumsum``, ``linear_scan``, ``index``/``gather`` and their adds, calls of
generated defs with block bodies, a ``grad`` inside the loss), shapes of rank 0 to 4, a
scalar loss, 1 to 3 variables, the gradient taken in main, of a ``loss`` def, inside a def
that returns it, or at each step of a training loop (whose variables are then compared).
Every value stays in the domain and clear of the kinks (``relu``/``abs`` at 0, ties of
``maximum``, ``max``, ``where`` and ``argmax``), so that mg and JAX, ``f64`` and ``f32``,
take the same branches. Some parameters of the defs (and of the loss def, the gradient def,
main's loaded inputs) declare ``?`` sizes, so that the sweep runs through dynamically-sized
code; a share of the programs are ``bf16`` programs (smooth operations only), run in
``bf16`` and ``f64``.

A fixed set of programs (the same on every run), each in ``f64`` (within 1e-10 of JAX's
``f64`` gradients, relative to the largest) and ``f32`` (within 5e-4, plus how far JAX's own
``f32`` is from its ``f64``), or ``bf16`` (within a few roundings of bf16's epsilon of the
``f64`` gradient, plus how far JAX's own ``bf16`` is from it: ``bf16_tolerance``), in both
pipelines, compiled as ``mgc run --no-cache`` compiles and run in a process of their own;
the optimised pipeline at 1 and 2 threads (``MG_NUM_THREADS``), which must agree bit for
bit. Only a large program (tens of thousands of elements) has loops big enough to be split
between threads: one is in the set. A few programs also go through ``mgc run --no-cache``
itself. About a minute and a half on two cores (``MG_GRADIENT_PROGRAMS=N``: seeds 0 to
N - 1 instead of 0 to 13; the bf16 seeds 56 and 64 are added either way).

Larger budgets, new seeds: ``python -m tests.properties.fuzz.gradient_campaign --help``;
one program again: ``python -m tests.properties.fuzz.gradient_campaign --check SEED``.
"""

import importlib.util
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from conftest import mgc

# (found, not imported: this process must never import JAX, see the fixture jax)
if importlib.util.find_spec("jax") is None:
    pytest.skip("the reference gradients come from JAX: pip install -e '.[test]'", allow_module_level=True)

from helpers.gradient_programs import (  # noqa: E402  (after the skip: JAX is needed)
    MODES,
    Runner,
    checked,
    coverage,
    difference,
    prepared,
    sources,
)

# The programs: about 4 s each (2 types, 2 pipelines, 2 thread counts) on two cores. A large
# program takes about 12 s.
PROGRAMS = int(os.environ.get("MG_GRADIENT_PROGRAMS", "14"))
# 0 to 13: '?' parameters in 0, 2, 5, 7, 8, 11, 13; bf16 programs 13 (a training loop, a
# '?' loss def), 56 (a '?' gradient def: gather, division) and 64 (a '?' loss def: @, concat).
SEEDS = [*range(PROGRAMS), 56, 64]
LARGE_SEEDS = [10_008]  # (a training loop: products, concat, cumsum, a broadcast; '?' sizes)
PIPELINES = {"optimised": True, "reference": False}
CASES = [(seed, False) for seed in SEEDS] + [(seed, True) for seed in LARGE_SEEDS]


@pytest.fixture(scope="module")
def runner():
    """The process that compiles and runs the programs (one per worker of a parallel run),
    two at a time."""
    with Runner(parallel=2) as r:
        yield r


@pytest.fixture(scope="module")
def jax():
    """Calls of the generator and of JAX (``gradient_programs.prepared``, ``coverage``,
    ``sources``) in a process of their own, spawned: JAX is multithreaded, and a process that
    has imported it must never fork, as other tests of this worker do (``conftest.run_forked``)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield lambda function, *args: pool.submit(function, *args).result(timeout=600)


def describe(program, run=None) -> str:
    text = (
        f"seed {program.seed} ({program.dtype}): python -m tests.properties.fuzz.gradient_campaign "
        f"--check {program.seed}\n--- the program\n{program.source}--- as JAX code\n{program.reference}"
    )
    return text + (f"--- the run: {run.phase}\n{run.message}" if run else "")


@pytest.mark.parametrize("seed, large", CASES, ids=[f"{'large-' if large else ''}{seed}" for seed, large in CASES])
def test_gradients_of_a_random_program_are_jax_gradients(runner, jax, tmp_path, seed, large):
    """In f64 and f32 (a bf16 program: bf16 and f64), in both pipelines, at each thread
    count (bit-identical)."""
    programs, references, _, _ = jax(prepared, seed, large)
    tickets = {}
    for dtype, program in programs.items():
        for pipeline, optimise in PIPELINES.items():
            threads = (1, 2) if optimise else (1,)
            folder = tmp_path / f"{dtype}-{pipeline}"
            tickets[(dtype, pipeline)] = runner.submit(program, folder, optimise, threads, timeout=300)
    for (dtype, pipeline), ticket in tickets.items():
        program, run = programs[dtype], runner.wait(ticket)
        assert run.phase == "ran", describe(program, run)
        outputs = {}
        for threads, (status, printed, got) in run.runs.items():
            assert status == 0, f"{threads} threads: exit status {status}\n{printed}\n" + describe(program, run)
            problem = difference(program, got, references[dtype], references["f64"])
            assert problem is None, f"{pipeline}, {threads} threads: {problem}\n" + describe(program, run)
            outputs[threads] = got
        if len(outputs) > 1:  # bit-identical at any thread count (docs/pipeline.md)
            for name, one, two in zip(program.outputs, outputs[1], outputs[2], strict=True):
                assert np.array_equal(one, two), f"{name}: 1 and 2 threads differ\n" + describe(program, run)


def test_the_loss_jax_computes_is_the_generators(jax):
    """The JAX code is the program the generator evaluated: the same loss (in f64; within
    1e-7, as a nested grad's values come from differences)."""
    for seed, large in CASES:
        programs, references, loss_value, comparable = jax(prepared, seed, large)
        if comparable:  # (a training loop's is its last step's)
            value = references["f64"][0]
            assert np.isclose(float(value), loss_value, rtol=1e-7, atol=1e-7), describe(programs["f64"])


@pytest.mark.parametrize("seed", [5, 13])
def test_mgc_run_gives_the_gradients(jax, tmp_path, seed):
    """``mgc run --no-cache`` itself (and ``--reference``), at 2 threads."""
    programs, references, _, _ = jax(prepared, seed, False)
    for dtype, program in programs.items():
        folder = tmp_path / dtype
        program.write(folder)
        want = references[dtype]
        for flags in ([], ["--reference"]):
            out = mgc("run", "--no-cache", *flags, "prog.mg", cwd=folder, env={"MG_NUM_THREADS": "2"})
            assert out.returncode == 0, out.stderr.decode()
            got = [np.load(folder / name) for name in program.outputs]
            problem = difference(program, got, want, references["f64"])
            assert problem is None, f"mgc run {' '.join(flags)}: {problem}\n" + describe(program)


def test_the_generator_covers_the_differentiable_operations(jax):
    """Over a fixed set of programs (made, not run): every operation of the table, each way
    of taking a gradient, calls (of defs that call defs), names used twice, loaded inputs."""
    ops, features = jax(coverage, range(200))
    common = {*"+-*/", "number", "exp", "tanh", "sin", "cos", "abs", "relu", "maximum", "minimum", "where"}
    common |= {"sum", "mean", "@ vector", "cast", "reshape", "concat", "broadcast_to", "transpose", "call"}
    rare = {"neg", "log", "sqrt", "rsqrt", "asin", "acos", "atan2", "pow", "x ** n", "n ** x", "max", "min"}
    rare |= {"@ 2-D", "@ batched", "x[a:b]", "x[index]", "x[i, j] (element)", "slice()", "cumsum"}
    rare |= {"linear_scan", "index", "gather", "index_add", "scatter_add", "x[argmax(v)]", "x[i * k : i * k + k]"}
    rare |= {"grad (nested)", "cast to an integer"}
    for op in common:
        assert ops[op] >= 20, (op, ops[op])
    for op in rare:
        assert ops[op] >= 4, (op, ops[op])
    assert ops["prod"] >= 3  # (a sixth of the reductions, of at most 4 elements; none in bf16 programs)
    assert any(op.startswith("row_") for op in ops) and any(op.startswith("col_") for op in ops)
    assert {("mode", mode) for mode in MODES} <= set(features)
    assert {("wrt", 1), ("wrt", 2), ("wrt", 3), ("inputs", "load"), ("inputs", "literals")} <= set(features)
    assert features[("a name used twice",)] >= 50 and features[("a def calls a def",)] >= 3
    assert features[("lets before the loss",)] >= 10
    # bf16 programs, and '?' sizes: in each kind of scope, every axis or some, through the ops
    assert features[("dtypes", "bf16", "f64")] >= 20
    scopes = ("a def", "the loss def", "the gradient def", "main's inputs")
    for what in [*scopes, "a def's result"]:
        assert features[("?", what)] >= 4, what
    assert features[("? axes", "every")] >= 20 and features[("? axes", "some")] >= 20
    dynamic = {op for (kind, *rest), n in features.items() if kind == "? op" for op in rest}
    assert {*"+-*/", "sum", "mean", "call", "@ vector", "@ 2-D", "concat", "broadcast_to"} <= dynamic, dynamic
    assert {"x[a:b]", "slice()", "transpose", "cumsum", "linear_scan", "index", "gather"} <= dynamic, dynamic
    assert {"scatter_add", "index_add", "grad (nested)", "x[argmax(v)]", "max"} <= dynamic, dynamic


def test_the_declared_types_are_the_ones_mg_infers(jax):
    """The ``?`` sizes the generator declares (and the result types it infers from them, by
    ``gradient_programs.dims``) are mg's: each program's text, in each of its types, passes
    the checker with no error and no warning (a '?' against a static 1 would warn)."""
    problems = jax(checked, range(40))
    assert not problems, "\n\n".join(problems)


def test_the_programs_are_the_same_on_every_run(jax):
    first, again, other = jax(sources, [(5, False, "f32"), (5, False, "f32"), (6, False, "f64")])
    assert first == again and first != other


def test_a_large_program_has_loops_for_the_threads(jax):
    """The large program's loops are split between threads (``mgrt_parallel_for``): its
    runs at 1 and 2 threads differ in how they run."""
    from mg_xdsl.driver import Compilation

    (source,) = jax(sources, [(LARGE_SEEDS[0], True, "f64")])
    ir = str(Compilation(source, "prog.mg", keep_dir=None).llvm_ir(verify=False))
    assert "mgrt_parallel_for" in ir
