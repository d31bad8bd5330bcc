#!/usr/bin/env python3
"""The mg-xdsl benchmark suite: compiled mg against NumPy, JAX and Numba, and `mgc run` start-up time.

    python benchmarks/run.py                  # everything, at 1 and 2 threads
    python benchmarks/run.py --quick          # tiny sizes, one repetition: a correctness run (CI)
    python benchmarks/run.py --only matmul --threads 1 --reps 10 --json /tmp/mm.json
    python benchmarks/run.py --list           # the workload ids --only matches against
    python benchmarks/run.py --cpu x86-64-v3  # mg's code for another CPU this host can run
    pip install -e '.[bench]'                 # JAX and Numba, for their columns

Method
------
For each workload (see ``benchmarks/workloads.py``) the mg program is compiled once
through the Python API (``mg_xdsl.compile``), inputs are drawn once from
``np.random.default_rng`` (the same arrays in every process), and the result of every other
side is checked against the NumPy expression with ``np.testing.assert_allclose``
(``rtol=1e-9`` in f64, ``1e-5`` in f32, and an ``atol`` scaled to the magnitude of the sums
for reductions and matrix products: the workloads module's docstring derives it). That
checking call of each side is also its warm-up (and JAX's and Numba's compile). Then the
sides are timed **alternately** on the same input arrays (mg, NumPy, JAX, Numba, mg, NumPy,
...), so that a drift in the machine's state (another job, the clock, the memory system)
hits all alike; each timed call follows an untimed call of the same side, so that it meets
its own side's steady state rather than the buffer and cache lines another side left
(malloc hands each call the block the call before it freed); the garbage collector is off
while timing and each result is dropped outside the timed region. Repetitions are adaptive:
at least ``--min-reps`` (3) rounds, and more until the slowest side has run ``--budget``
seconds (2) in all or ``--max-reps`` (100) is reached; ``--reps N`` fixes the count.
Reported are the **medians** (robust against the odd interrupted run), the **ratios** of
each other side's median to mg's (NumPy / mg, JAX / mg, Numba / mg: above 1, mg is faster)
and mg's rate from its median: GFLOP/s for matrix products (2*m*n*k flops), GB/s otherwise
(the bytes of the inputs read plus the output written, per call). A side whose check fails
is not timed and fails the run; when mg's fails, nothing of that workload is timed.

NumPy's form is the natural allocating expression (``np.maximum(a + b, 0)``,
``a.sum(axis=1, keepdims=True)``, ``x @ w``), because mg allocates its result too.

JAX (where installed; ``--no-jax`` leaves it out): ``jax.jit`` of the same expression over
``jax.numpy``, on the CPU (``JAX_PLATFORMS=cpu``), f64 with ``jax_enable_x64``; the inputs are
put on the device once (``jax.device_put``) outside the timing and every timed call ends
with ``block_until_ready``. Numba (where installed; ``--no-numba`` leaves it out, and
``--quick`` unless ``--numba``): ``numba.njit`` of the plain loops a user writes (a ``prange``
over the rows, Numba's default options: no ``fastmath``), where the workload has them
(elementwise, broadcasts, row reductions, softmax, layer norm; not matrix products or column
reductions): ``parallel=False`` at one thread, ``parallel=True`` at more. A side that is not
installed says so in its column, and the run goes on without it.

``mgc run`` is timed as a whole process (interpreter start, import, compile, run) on every
chapter example in ``examples/*.mg`` with the ``mgc`` script next to ``sys.executable``:
once with the on-disk compile cache as it is by default (after a warm-up run that fills
it) and once bypassing it (``MGC_NO_CACHE=1``), alternately, medians of ``--mgc-reps``
runs; every run's output is checked against the example's ``.expected``/``.status``. The
target is 0.5 s.

``--quick`` (CI) uses tiny, uneven sizes (64x64, 100x37, matmuls n = 24, 32, 37), one timed
round, one ``mgc run`` per example (with the cache, which it fills; no ``MGC_NO_CACHE=1``
run) and JAX (and Numba, with ``--numba``) at the first
thread count only, and no warm-up run: its times mean nothing, it proves that every
workload compiles, runs and is right, on every side.

Target: mg compiles for this host unless ``--cpu NAME`` names another CPU (as LLVM names
it) that the host can run: on an AVX-512 machine ``x86-64-v3`` runs the AVX2 code and
``x86-64``/``x86-64-v2`` the SSE code, with the kernels shaped for that CPU
(``mg_xdsl.core.target``). The report names the CPU, its vector unit and the kernel each figure
used; NumPy runs whatever kernel OpenBLAS picks (set ``OPENBLAS_CORETYPE``, e.g. ``Haswell``,
to match; the report shows which ran). ``mgc run`` on the examples always compiles for the
host.

Threads: the measuring is done in a child process per thread count T (this script run
again with ``--child T``), bound with ``taskset`` to the first T cores this process may use
(unbound, and the report says so, where there is no ``taskset`` or fewer cores), so that
XLA's and Numba's thread pools, which size themselves from the cores they see, get T. Its
environment sets ``MG_NUM_THREADS=T`` (read by the mg runtime), ``OMP/OPENBLAS/MKL_NUM_THREADS``
and ``NUMBA_NUM_THREADS`` to T, and at T=1 ``XLA_FLAGS=--xla_cpu_multi_thread_eigen=false``
(``intra_op_parallelism_threads`` is a TensorFlow option, not an XLA flag); NumPy's BLAS is
limited to T threads with ``threadpoolctl.threadpool_limits``. Each child writes JSON; this
process merges them, prints a markdown report with the machine's context (the CPU by name,
the BLAS, JAX's and Numba's versions and how they ran) and writes the JSON (``--json``,
default ``benchmarks/results.json``).

Compile time (``benchmarks/compile_time.py``, also alone): cold ``mgc run --no-cache`` of
generated programs of 10, 30, 100 and 300 statements in both pipelines, medians of three
processes, with the per-pass split of the largest and the ratio of the project's lowering
from the affine stage to the LLVM dialect to mlir-opt-22's on the same IR. Then
(``benchmarks/compile_vs_jax.py``, also alone) the JAX/Numba issue's seven functions compiled
cold in a fresh process by mg (``mg_xdsl.compile``, ``MGC_NO_CACHE=1``) and by JAX
(``jit(f).lower(...).compile()``), medians of three processes. Part of a full run; ``--quick``
leaves both out unless ``--compile-time`` is given (then at 3 and 6 statements and the quick
sizes), ``--no-compile-time`` leaves them out of a full run.

Training step (``benchmarks/training_step.py``, also alone): one step of gradient descent
(``value_and_grad`` of a softmax cross-entropy and the SGD updates) of the digits example's
network and of a 784-512-10 one, in mg, JAX (``jit``) and NumPy (backpropagation by hand),
results checked equal, at each thread count; ``--quick`` leaves it out unless
``--training-step`` is given, ``--no-training-step`` leaves it out of a full run.

Exit status: 0 when every check passed, 1 when any result was wrong (on any side) or any
measurement failed (``--self-test-wrong`` deliberately corrupts every expected result, to
prove it), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks import machine  # noqa: E402
from benchmarks.workloads import NAMES, RTOL, Workload, workloads  # noqa: E402

EXAMPLES = ROOT / "examples"
MGC = Path(sys.executable).parent / "mgc"
MGC_TARGET_S = 0.5
MGC_NAME = "mgc_run"
ADDRESS = re.compile(r"base@ = 0x[0-9a-fA-F]+")
NOTES = [
    "Times are medians of alternating runs (mg, NumPy, JAX, Numba, mg, NumPy, ...) on the same "
    "inputs, after a checked warm-up call of each side; each timed call follows an untimed one "
    "of the same side, so that none meets the cache state another left. Ratios are the other "
    "side's median over mg's (NumPy / mg, JAX / mg, Numba / mg): above 1 means mg is faster.",
    "Every side's result is checked against NumPy's (np.testing.assert_allclose; rtol 1e-9 in "
    "f64, 1e-5 in f32, an atol from the length of the sums: benchmarks/workloads.py) before it "
    "is timed; a side that fails is not timed and fails the run.",
    "JAX: jax.jit of the same expression over jax.numpy, inputs put on the device once "
    "(jax.device_put) outside the timing, each call ended by block_until_ready; f64 with "
    "jax_enable_x64; JAX_PLATFORMS=cpu. Numba: numba.njit of plain loops (a prange over the "
    "rows, no fastmath), parallel=False at 1 thread and parallel=True with NUMBA_NUM_THREADS=T "
    "at T threads; its first call (the compile) is the check. '-': the workload has no such "
    "form; 'not installed': the package is missing (pip install -e '.[bench]').",
    "Threads: each thread count T runs in its own process, bound with taskset to T cores where "
    "the machine has them (so XLA's and Numba's pools see T cores), with MG_NUM_THREADS, "
    "OMP/OPENBLAS/MKL_NUM_THREADS and NUMBA_NUM_THREADS set to T; at T=1 also "
    "XLA_FLAGS=--xla_cpu_multi_thread_eigen=false.",
    "GFLOP/s counts 2*m*n*k per matrix product (epilogue additions and relus, attention's "
    "softmax, not counted); GB/s counts the bytes of the inputs read plus the output written, "
    "once, per call.",
    "NumPy's forms allocate their result, as mg does (np.maximum(a + b, 0) even makes a "
    "temporary). NumPy's elementwise operations, broadcasts and reductions are "
    "single-threaded whatever the thread count; only its matrix products (OpenBLAS) use T "
    "threads. mg's threads are MG_NUM_THREADS=T.",
    "two_layers is examples/08_two_layers.mg with its size-2 dimensions scaled to n and its "
    "size-1 dimensions kept: row_max(relu(relu(x @ w1 + b1) @ w2 + b2) @ w3) with x, w1 nxn, "
    "b1 1xn, w2 nx1, b2 1x1, w3 1xn.",
    "OpenBLAS runs with OPENBLAS_THREAD_TIMEOUT=4 and OpenMP (Numba's threading layer) with "
    "OMP_WAIT_POLICY=PASSIVE unless set: their idle threads otherwise spin after each call "
    "(OpenBLAS's for ~75 ms), taking the cores from whatever runs next (here: mg's threads, "
    "in the alternation). mg's idle threads run as by default: they watch for the next loop "
    "some 40 microseconds after each, then sleep (MG_WAIT_POLICY).",
    f"mgc run: wall time of the whole process (Python start, import, compile, run), median "
    f"of several runs; 'cached' uses the on-disk compile cache as by default (warmed by one "
    f"run first), 'no cache' sets MGC_NO_CACHE=1. The target is <= {MGC_TARGET_S} s.",
]

#: The sides, in the order they alternate and appear in the table; the last two are optional.
SIDES = ("mg", "numpy", "jax", "numba")
LABELS = {"mg": "mg", "numpy": "NumPy", "jax": "JAX", "numba": "Numba"}
OPTIONAL = ("jax", "numba")


# --- measuring (in the child process) ---------------------------------------------------


def check_result(got, expected: np.ndarray, atol: float, rtol: float = RTOL) -> dict:
    """np.testing.assert_allclose, recorded: passed, tolerances, the largest error."""
    got = np.asarray(got)
    check = {
        "passed": False,
        "rtol": rtol,
        "atol": atol,
        "shape": list(np.shape(got)),
        "expected_shape": list(np.shape(expected)),
    }
    if np.shape(got) != np.shape(expected):
        check["error"] = f"shape {np.shape(got)} != expected {np.shape(expected)}"
        return check
    if got.dtype != expected.dtype:
        check["error"] = f"dtype {got.dtype} != expected {expected.dtype}"
        return check
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    diff = diff[~np.isnan(diff)]  # NaN against NaN is right; against a number,
    check["max_abs_err"] = float(diff.max()) if diff.size else 0.0  # assert_allclose says so
    try:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    except AssertionError as e:
        check["error"] = " ".join(str(e).split())[:500]
        return check
    check["passed"] = True
    return check


def corrupt(expected: np.ndarray) -> np.ndarray:
    """For --self-test-wrong: an expectation off by one part in a million (f32: a thousand,
    past its tolerance; integers: by one)."""
    if expected.dtype.kind == "i":
        return expected + 1
    scale = 1e-6 if expected.dtype == np.float64 else 1e-3
    return (expected + scale * (1.0 + np.abs(expected))).astype(expected.dtype)


def alternate(calls: dict, reps: tuple[int, int], budget: float) -> dict[str, list[float]]:
    """Time each of ``calls`` (side name -> a call without arguments) in turn, round after
    round: at least reps[0] rounds, then more until the slowest side has run ``budget``
    seconds in all, at most reps[1] rounds.

    Each timed call follows an untimed call of the same side, so that it meets its own
    side's steady state: malloc hands a call the buffer that the call before it freed, and
    whether that buffer's lines are still in the cache (written by ordinary stores) or not
    (written past the caches with streaming stores) would otherwise count for another
    side."""
    least, most = reps
    times: dict[str, list[float]] = {name: [] for name in calls}
    rounds = 0
    gc.collect()
    gc.disable()
    try:
        while rounds < most:
            for name, call in calls.items():
                call()  # (its result is freed at once)
                t0 = time.perf_counter()
                result = call()
                t1 = time.perf_counter()
                del result
                times[name].append(t1 - t0)
            rounds += 1
            if rounds >= least and max(sum(t) for t in times.values()) >= budget:
                break
    finally:
        gc.enable()
    return times


def side(times: list[float], work: float, unit: str) -> dict:
    median = statistics.median(times)
    return {
        "median_s": median,
        "min_s": min(times),
        "times_s": times,
        "rate": work / median / 1e9 if median > 0 else None,
        "unit": unit,
    }


def optional_sides(args, threads: int) -> dict[str, dict]:
    """JAX and Numba in this process: for each, ``status`` ("ok", "not installed", "off
    (--no-jax)", "import failed: ..."), the version and how it runs; ``module`` where ok."""
    found: dict[str, dict] = {}
    for name in OPTIONAL:
        if not getattr(args, name):
            found[name] = {"status": f"off (--no-{name})"}
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            found[name] = {"status": "not installed"}
            continue
        except Exception as e:  # noqa: BLE001 - a broken install is reported, not fatal
            found[name] = {"status": f"import failed: {type(e).__name__}: {e}"[:300]}
            continue
        info = {"status": "ok", "module": module, "version": module.__version__}
        if name == "jax":
            module.config.update("jax_enable_x64", True)
            info["backend"] = module.default_backend()
            info["devices"] = [str(d) for d in module.devices()]
            info["xla_flags"] = os.environ.get("XLA_FLAGS", "")
        else:
            info["parallel"] = threads > 1
            info["num_threads"] = module.config.NUMBA_NUM_THREADS
        found[name] = info
    return found


def prepare_jax(w: Workload, jax, inputs: list) -> tuple:
    """The jitted form and its first call (the compile): a call without arguments that
    returns a finished result, its result as a NumPy array, and the first call's seconds."""
    assert w.jax is not None
    fn = jax.jit(w.jax(jax.numpy))
    on_device = [jax.device_put(a) for a in inputs]
    for a in on_device:
        a.block_until_ready()

    def call():
        return fn(*on_device).block_until_ready()

    t0 = time.perf_counter()
    got = np.asarray(call())
    return call, got, time.perf_counter() - t0


def prepare_numba(w: Workload, numba, inputs: list, parallel: bool) -> tuple:
    """``njit`` of the workload's loops, as ``prepare_jax``."""
    assert w.numba is not None
    fn = numba.njit(parallel=parallel)(w.numba(numba.prange))

    def call():
        return fn(*inputs)

    t0 = time.perf_counter()
    got = np.asarray(call())
    return call, got, time.perf_counter() - t0


def measure_workload(w: Workload, args, threads: int, log, others: dict[str, dict]) -> dict:
    """Check every side of one workload against NumPy, then time those that passed, if mg's
    did. ``others``: ``optional_sides``."""
    rec = {
        "kind": "kernel",
        "name": w.name,
        "size": w.size,
        "id": w.id,
        "threads": threads,
        "unit": w.unit,
        "work_per_call": w.work(),
        "source": w.source,
        "mg_kernel": kernel_of(w, args.cpu),
        "status": {},
        "checks": {},
        "first_call_s": {},
    }
    try:
        check_and_time(w, args, others, rec)
    except Exception as e:  # noqa: BLE001 - the inputs, NumPy's form or a timed call broke: the row fails
        rec["check"] = {"passed": False, "error": f"{type(e).__name__}: {e}"[:500]}
    gc.collect()  # (the inputs and results went with check_and_time's frame)
    log(rec)
    return rec


def check_and_time(w: Workload, args, others: dict[str, dict], rec: dict) -> None:
    """``measure_workload``'s work, into ``rec``."""
    import mg_xdsl

    inputs = w.inputs([args.seed, zlib.crc32(w.id.encode())])
    expected = np.asarray(w.reference(*inputs))
    if args.self_test_wrong:
        expected = corrupt(expected)
    atol = w.atol(inputs)
    calls = {}
    try:
        t0 = time.perf_counter()
        f = mg_xdsl.compile(w.source, cpu=args.cpu).f
        rec["compile_s"] = time.perf_counter() - t0
        rec["check"] = check_result(f(*inputs), expected, atol, w.rtol)
        calls["mg"] = lambda: f(*inputs)
    except Exception as e:  # noqa: BLE001 - a broken compiler must not stop the other workloads
        rec["check"] = {"passed": False, "error": f"{type(e).__name__}: {e}"[:500]}
    calls["numpy"] = lambda: w.reference(*inputs)
    for name in OPTIONAL:
        info, form = others[name], getattr(w, name)
        if info["status"] != "ok":
            rec["status"][name] = info["status"].split(":")[0].split(" (")[0]  # not installed, off, import failed
            continue
        if form is None:
            rec["status"][name] = "no form"
            continue
        try:
            if name == "jax":
                call, got, first = prepare_jax(w, info["module"], inputs)
            else:
                call, got, first = prepare_numba(w, info["module"], inputs, info["parallel"])
                if info["parallel"] and "threading_layer" not in info:
                    info["threading_layer"] = info["module"].threading_layer()
            rec["first_call_s"][name] = first
            rec["checks"][name] = check_result(got, expected, atol, w.rtol)
            if rec["checks"][name]["passed"]:
                calls[name] = call
        except Exception as e:  # noqa: BLE001 - recorded as this side's failure
            rec["checks"][name] = {"passed": False, "error": f"{type(e).__name__}: {e}"[:500]}
        rec["status"][name] = "timed" if name in calls else "failed"
    del expected
    if not rec["check"]["passed"]:
        for name in OPTIONAL:
            if rec["status"].get(name) == "timed":
                rec["status"][name] = "not timed (mg failed)"
        return
    times = alternate({name: calls[name] for name in SIDES if name in calls}, reps_of(args), args.budget)
    for name, t in times.items():
        rec[name] = side(t, w.work(), w.unit)
    rec["ratio"] = rec["numpy"]["median_s"] / rec["mg"]["median_s"]
    rec["ratios"] = {name: rec[name]["median_s"] / rec["mg"]["median_s"] for name in times if name != "mg"}
    rec["reps"] = len(times["mg"])


def passed(rec: dict) -> bool:
    """Whether every check of a record passed: mg's (or `mgc run`'s) and the other sides'."""
    return rec["check"]["passed"] and all(c["passed"] for c in rec.get("checks", {}).values())


def target_info(cpu: str | None) -> dict:
    """The CPU mg compiles for and the kernel shapes it gets there (``mg_xdsl.core.target``)."""
    from mg_xdsl.core import target
    from mg_xdsl.core.target import host

    t = target.target(cpu)
    unit = t.unit
    mm, red = target.matmul_blocks(unit, 64, t.caches), target.reduction_vectors(unit, 64)
    return {
        "cpu": cpu or f"{host()[1]} (this host)",
        "vector_bits": unit.bits,
        "vector_registers": unit.registers,
        "fma": unit.fma,
        "caches": {
            "l1": t.caches.l1,
            "l2": t.caches.l2,
            "l3": t.caches.l3,
            "read": cpu is None and target.caches_from_sysfs(target.HOST_CACHES_SYSFS) is not None,
        },
        "matmul": f"{mm.mr}x{mm.nr} f64 block, {mm.lanes} lanes" + ("" if mm.fma else ", no FMA"),
        "matmul_f32": (lambda m: f"{m.mr}x{m.nr} f32 block, {m.lanes} lanes" + ("" if m.fma else ", no FMA"))(
            target.matmul_blocks(unit, 32, t.caches)
        ),
        "matmul_blocks": f"KC {mm.kc}, MC {mm.mc}, NC {mm.nc}",
        "reduction": f"{red.accumulators} x vector<{red.lanes}xf64>",
        "stream_lanes": unit.lanes(64, unit.stream_bits),
    }


def kernel_of(w: Workload, cpu: str | None) -> str:
    """The kernel shape a workload's mg code uses on ``cpu``, for the report."""
    from mg_xdsl.kernels.reductions import ROWS_AT_ONCE

    info = target_info(cpu)
    if w.name in ("matmul", "layer", "two_layers"):
        return info["matmul"]
    if w.name in ("matmul_f32", "layer_f32"):
        return info["matmul_f32"]
    if w.name.startswith(("batched_matmul", "attention")):  # (each in f64 and f32)
        block = info["matmul_f32"] if w.dtype == "float32" else info["matmul"]
        return block + ", per matrix" + ("; softmax: rows fused" if w.name.startswith("attention") else "")
    if w.name.startswith("row_"):
        return info["reduction"] + f", {ROWS_AT_ONCE} rows side by side"
    if w.name.startswith("col_"):
        return info["reduction"]
    if w.name.startswith("softmax") or w.name == "layer_norm":
        return "rows fused (linalg-fuse-rows)"
    if w.name in ("add", "relu_add", "relu_chain", "relu_add_f32", "exp_f32") and streams(w, cpu):
        lanes = info["stream_lanes"] * (2 if w.dtype == "float32" else 1)
        return f"streaming stores, vector<{lanes}x{'f32' if w.dtype == 'float32' else 'f64'}>"
    return "LLVM's loop vectoriser"


def streams(w: Workload, cpu: str | None) -> bool:
    """Whether ``stream-large-results`` writes this elementwise workload's result past the
    caches on ``cpu`` (its rule: ``mg_xdsl.core.target.streaming_min_bytes``)."""
    from mg_xdsl.core import target

    t = target.target(cpu)
    result = np.dtype(w.dtype).itemsize * int(np.prod(w.out_shape or ()))
    return t.nontemporal and target.worth_streaming(result, len(w.shapes), target.streaming_min_bytes(t.caches))


def reps_of(args) -> tuple[int, int]:
    if args.reps:
        return args.reps, args.reps
    return args.min_reps, max(args.min_reps, args.max_reps)


def example_expectation(path: Path) -> tuple[str, int]:
    base = path.with_suffix("")
    return base.with_suffix(".expected").read_text(), int(base.with_suffix(".status").read_text())


def check_example(p: subprocess.CompletedProcess, expected: str, status: int) -> str | None:
    """The test suite's conventions (tests/e2e/test_examples.py); None if right, else why not.
    Status 1: a compile error, its first stderr line listed; 134: an abort after a failed
    run-time check (the message on stderr); 0: stdout as listed (addresses masked)."""
    out = ADDRESS.sub("base@ = 0x…", p.stdout.decode(errors="replace"))
    err = p.stderr.decode(errors="replace")
    if "Traceback" in err:
        return "Python traceback on stderr: " + err.strip().splitlines()[-1]
    if status == 1:
        ok = p.returncode == 1 and out == "" and err.splitlines()[:1] == [expected.strip()]
    elif status == 134:
        lines = expected.rstrip("\n").split("\n")
        messages = [line for line in lines if line.startswith("mg.")]
        # the report on stderr: the chapter's line, then where it failed ("  at PATH:LINE: ...")
        stdout = [line for line in lines if not line.startswith(("mg.", "  at ")) and line != "Aborted"]
        ok = p.returncode in (134, -6) and out == "\n".join(stdout) + "\n" and all(m in err for m in messages)
    else:
        ok = p.returncode == 0 and out == expected and err == ""
    if ok:
        return None
    return f"exit {p.returncode} (want {status}); stdout {out[:200]!r}; stderr {err[:200]!r}"


def measure_example(path: Path, args, threads: int, log) -> dict:
    """Wall time of `mgc run` on one example, cached and with MGC_NO_CACHE=1, alternately."""
    rel = path.relative_to(ROOT)
    rec = {
        "kind": MGC_NAME,
        "name": MGC_NAME,
        "example": path.name,
        "id": f"{MGC_NAME} {path.stem}",
        "threads": threads,
        "target_s": MGC_TARGET_S,
    }
    expected, status = example_expectation(path)
    if args.self_test_wrong:
        expected += "(self-test: a deliberately wrong expectation)\n"

    def run(no_cache: bool) -> float:
        env = dict(os.environ)
        env.pop("MGC_NO_CACHE", None)
        if no_cache:
            env["MGC_NO_CACHE"] = "1"
        t0 = time.perf_counter()
        p = subprocess.run([str(MGC), "run", str(rel)], cwd=ROOT, env=env, capture_output=True, timeout=300)
        elapsed = time.perf_counter() - t0
        why = check_example(p, expected, status)
        if why:
            raise AssertionError(f"mgc run {rel}{' (MGC_NO_CACHE=1)' if no_cache else ''}: {why}")
        return elapsed

    try:
        if not args.quick:
            run(no_cache=False)  # warm-up: fills the on-disk cache
        # (--quick: one run, which compiles, stores and runs: a check of the output; the
        # bypass, MGC_NO_CACHE=1, has tests of its own: tests/unit/backend/test_compile_cache.py)
        modes = {"cached": False} if args.quick else {"cached": False, "no_cache": True}
        times: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(args.mgc_reps):
            for mode, no_cache in modes.items():
                times[mode].append(run(no_cache=no_cache))
        rec["check"] = {"passed": True, "runs_checked": sum(map(len, times.values())) + (not args.quick)}
        for mode, seconds in times.items():
            rec[mode] = {"median_s": statistics.median(seconds), "times_s": seconds}
        rec["meets_target"] = {mode: rec[mode]["median_s"] <= MGC_TARGET_S for mode in modes}
        rec["reps"] = args.mgc_reps
    except (AssertionError, OSError, subprocess.SubprocessError) as e:
        rec["check"] = {"passed": False, "error": str(e)[:500]}
    log(rec)
    return rec


def examples() -> list[Path]:
    """The chapter's examples (examples/errors/ is not globbed)."""
    return sorted(EXAMPLES.glob("*.mg"))


def selected(args) -> tuple[list[Workload], list[Path]]:
    def keep(ident: str) -> bool:
        return not args.only or any(re.search(p, ident) for p in args.only)

    return ([w for w in workloads(args.quick) if keep(w.id)], [p for p in examples() if keep(f"{MGC_NAME} {p.stem}")])


def child_main(args) -> int:
    """Measure everything selected at args.child threads; write JSON after every step, so
    that the parent can name the workload if this process dies (a crash in compiled code)."""
    from threadpoolctl import threadpool_limits

    threads = args.child
    out = {
        "threads": threads,
        "pid": os.getpid(),
        "kernels": [],
        "mgc_run": [],
        "current": None,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }

    def save():
        tmp = Path(args.child_out + ".tmp")
        tmp.write_text(json.dumps(out))
        tmp.replace(args.child_out)

    def log(rec):
        if rec["kind"] == "kernel" and "reps" in rec:
            msg = ", ".join(
                f"{LABELS[name]} {fmt_time(rec[name]['median_s'])}" for name in SIDES if name in rec
            ) + "".join(f", {LABELS[name]}/mg {r:.2f}" for name, r in rec["ratios"].items())
            msg += f", {rec['reps']} reps"
        elif rec["kind"] == MGC_NAME and rec["check"]["passed"]:
            msg = f"cached {fmt_time(rec['cached']['median_s'])}, no cache {fmt_time(rec.get('no_cache', {}).get('median_s'))}"
        else:
            msg = ""
        errors = [("mg", rec["check"])] + list(rec.get("checks", {}).items())
        msg += "".join(f" FAILED ({LABELS[n]}): {c['error']}" for n, c in errors if not c["passed"])
        print(f"[T={threads}] {rec['id']}: {msg.strip()}", file=sys.stderr, flush=True)

    works, paths = selected(args)
    if args.skip_mgc:
        paths = []
    # (JAX and Numba imported before the BLAS is limited, so that the limit covers any
    # thread pool they load.)
    others = optional_sides(args, threads) if works else {}
    try:
        out["affinity"] = sorted(os.sched_getaffinity(0))
    except AttributeError:
        out["affinity"] = None
    with threadpool_limits(limits=threads):
        out["blas"] = machine.blas_info()
        for w in works:
            out["current"] = w.id
            out["others"] = {name: {k: v for k, v in info.items() if k != "module"} for name, info in others.items()}
            save()
            out["kernels"].append(measure_workload(w, args, threads, log, others))
        out["others"] = {name: {k: v for k, v in info.items() if k != "module"} for name, info in others.items()}
        for p in paths:
            out["current"] = f"{MGC_NAME} {p.stem}"
            save()
            out["mgc_run"].append(measure_example(p, args, threads, log))
    out["current"] = None
    out["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    save()
    return 0


# --- orchestrating and reporting (in the parent process) ----------------------------------


def binding(threads: int) -> list[int] | None:
    """The cores a T-thread child is bound to (the first T this process may use), or None
    where it cannot be (no taskset, or fewer cores than T): then it runs unbound."""
    try:
        cores = sorted(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return None
    if shutil.which("taskset") is None or len(cores) < threads:
        return None
    return cores[:threads]


def run_child(args, threads: int, with_mgc: bool, with_others: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="mg-bench-") as tmp:
        out_path = Path(tmp) / f"threads{threads}.json"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            str(threads),
            "--child-out",
            str(out_path),
            "--seed",
            str(args.seed),
            "--budget",
            str(args.budget),
            "--min-reps",
            str(args.min_reps),
            "--max-reps",
            str(args.max_reps),
            "--mgc-reps",
            str(args.mgc_reps),
        ]
        cmd += ["--cpu", args.cpu] if args.cpu else []
        cmd += ["--reps", str(args.reps)] if args.reps else []
        cmd += ["--quick"] if args.quick else []
        cmd += ["--self-test-wrong"] if args.self_test_wrong else []
        cmd += [] if with_mgc else ["--skip-mgc"]
        cmd += [f"--{'' if getattr(args, name) and with_others else 'no-'}{name}" for name in OPTIONAL]
        for pattern in args.only or []:
            cmd += ["--only", pattern]
        cores = binding(threads)
        if cores is not None:
            cmd = ["taskset", "-c", ",".join(map(str, cores)), *cmd]
        p = subprocess.run(cmd, env=machine.child_env(threads))
        try:
            data = json.loads(out_path.read_text())
        except (OSError, ValueError):
            data = {"threads": threads, "kernels": [], "mgc_run": [], "current": None}
    data["exit_code"] = p.returncode
    data["bound_cores"] = cores
    if p.returncode != 0:
        # The child died; record the workload it was measuring as failed.
        current = data.get("current") or "(before the first workload)"
        failure = {"passed": False, "error": f"the measuring process died (exit {p.returncode})"}
        bucket = "mgc_run" if current.startswith(MGC_NAME) else "kernels"
        name, _, size = current.partition(" ")
        data[bucket].append(
            {
                "kind": "kernel" if bucket == "kernels" else MGC_NAME,
                "name": name,
                "size": size,
                "example": size,
                "id": current,
                "threads": threads,
                "check": failure,
            }
        )
    return data


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def fmt_rate(side: dict | None) -> str:
    if not side or side.get("rate") is None:
        return "-"
    r = side["rate"]
    return f"{r:.2f} {side['unit']}" if r < 10 else f"{r:.1f} {side['unit']}"


def check_cell(rec: dict) -> str:
    """ "ok", or which side's check failed and why."""
    errors = [("mg" if rec["kind"] == "kernel" else "", rec["check"])] + list(rec.get("checks", {}).items())
    failed = [(name, c) for name, c in errors if not c["passed"]]
    if not failed:
        return "ok"
    return "FAIL: " + "; ".join(
        (f"{LABELS[name]}: " if name else "") + c.get("error", "").replace("|", "/")[:120] for name, c in failed
    )


def side_cell(rec: dict, name: str) -> str:
    """A side's median, or why there is none: '-' (no such form), 'not installed', 'off',
    'FAIL' (its check failed), 'not timed' (mg's check failed)."""
    if name in rec:
        return fmt_time(rec[name]["median_s"])
    status = rec.get("status", {}).get(name)
    return {"no form": "-", "failed": "FAIL", None: "-"}.get(status, status.split(" (")[0] if status else "-")


def ratio_cell(rec: dict, name: str) -> str:
    r = rec.get("ratios", {}).get(name)
    if r is None and name == "numpy":
        r = rec.get("ratio")
    return "-" if r is None else f"{r:.2f}"


def describe_others(child: dict) -> str:
    """How JAX and Numba ran in one child, for the report's context lines."""
    parts = []
    for name, info in child.get("others", {}).items():
        if info.get("status") != "ok":
            parts.append(f"{LABELS[name]} {info.get('status')}")
        elif name == "jax":
            flags = info.get("xla_flags")
            parts.append(f"JAX {info['version']} on {info.get('backend')}" + (f" (XLA_FLAGS {flags})" if flags else ""))
        else:
            how = f"parallel=True, {info.get('num_threads')} threads" if info.get("parallel") else "parallel=False"
            layer = info.get("threading_layer")
            parts.append(f"Numba {info['version']} ({how}" + (f", threading layer {layer})" if layer else ")"))
    return "; ".join(parts)


def markdown(report: dict) -> str:
    quick = (
        " (--quick: tiny sizes, correctness only, times meaningless; `mgc run`, JAX and Numba at the "
        "first thread count only)"
    )
    lines = ["# mg-xdsl benchmarks" + (quick if report["settings"]["quick"] else ""), ""]
    lines += machine.describe(report["context"])
    t = report["target"]
    lines.append(
        f"- mg compiled for: {t['cpu']}: {t['vector_bits']}-bit vectors, "
        f"{t['vector_registers']} registers, {'FMA' if t['fma'] else 'no FMA'}; "
        f"matmul kernel {t['matmul']}; row reductions {t['reduction']}"
    )
    if "caches" in t:
        c = t["caches"]
        lines.append(
            f"- caches per core: L1 {c['l1'] // 1024} KiB, L2 {c['l2'] // 1024} KiB, L3 share "
            f"{c['l3'] // 1024} KiB ({'read from Linux' if c['read'] else 'typical: not read'}); "
            f"matmul cache blocks {t['matmul_blocks']}"
        )
    for child in report["children"]:
        blas = ", ".join(f"{b['internal_api']} {b['num_threads']} threads" for b in child.get("blas", []))
        load = " -> ".join(
            ", ".join(map(str, child[k])) for k in ("load_average_at_start", "load_average_at_end") if child.get(k)
        )
        cores = child.get("bound_cores")
        others = describe_others(child)
        lines.append(
            f"- measured at T={child['threads']}: "
            + (
                f"bound to core(s) {','.join(map(str, cores))}; "
                if cores
                else "not bound to cores (no taskset, or too few cores); "
            )
            + f"BLAS pools {blas or 'unknown'}; "
            + (f"{others}; " if others else "")
            + f"load average {load or 'unknown'}"
            + (f"; the measuring process FAILED (exit {child['exit_code']})" if child["exit_code"] else "")
        )
    order = {name: i for i, name in enumerate(NAMES)}
    kernels = sorted(
        report["kernels"], key=lambda r: (order.get(r["name"], len(order)), r.get("work_per_call", 0), r["threads"])
    )
    if kernels:
        lines += [
            "",
            "## Kernels through the Python API (ratios = other side / mg; > 1: mg faster)",
            "",
            "| workload | size | threads | mg | NumPy | JAX | Numba | NumPy / mg | JAX / mg | Numba / mg "
            "| mg rate | reps | mg kernel | check |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for r in kernels:
            lines.append(
                f"| {r['name']} | {r['size']} | {r['threads']} | "
                + " | ".join(side_cell(r, name) for name in SIDES)
                + " | "
                + " | ".join(ratio_cell(r, name) for name in SIDES[1:])
                + f" | {fmt_rate(r.get('mg'))} | {r.get('reps', '-')} | {r.get('mg_kernel', '-')} | {check_cell(r)} |"
            )
    runs = sorted(report["mgc_run"], key=lambda r: (r["example"], r["threads"]))
    if runs:

        def target(r, key):
            met = r.get("meets_target", {}).get(key)
            return "-" if met is None else ("yes" if met else "**no**")

        lines += [
            "",
            f"## `mgc run` on the examples: whole-process wall time (target <= {MGC_TARGET_S} s)",
            "",
            f"| example | threads | cached median | <= {MGC_TARGET_S} s | no-cache median "
            f"| <= {MGC_TARGET_S} s | runs | check |",
            "| --- | ---: | ---: | :---: | ---: | :---: | ---: | --- |",
        ]
        for r in runs:
            lines.append(
                f"| {r['example']} | {r['threads']} | "
                f"{fmt_time(r.get('cached', {}).get('median_s'))} | {target(r, 'cached')} | "
                f"{fmt_time(r.get('no_cache', {}).get('median_s'))} | {target(r, 'no_cache')} | "
                f"{r.get('reps', '-')} | {check_cell(r)} |"
            )
    lines += ["", "Notes:", ""] + [f"- {n}" for n in report["notes"]]
    failed = [r["id"] + f" (T={r['threads']})" for r in report["kernels"] + report["mgc_run"] if not passed(r)]
    lines += [
        "",
        "**Every result checked correct.**"
        if report["ok"]
        else f"**FAILED: {len(failed)} check(s): {', '.join(failed)}**",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes, one repetition, one mgc run per example (with the cache) at the "
        "first thread count only: a correctness run for CI",
    )
    ap.add_argument(
        "--only",
        action="append",
        metavar="PATTERN",
        help="measure only workloads whose id (see --list) matches this regular expression (re.search); repeatable",
    )
    ap.add_argument("--list", action="store_true", help="list the workload ids and exit")
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    ap.add_argument(
        "--reps",
        type=int,
        default=0,
        metavar="N",
        help="exactly N timed pairs per workload (default: adaptive, see --budget)",
    )
    ap.add_argument("--min-reps", type=int, default=3, metavar="N", help="adaptive: at least N pairs")
    ap.add_argument("--max-reps", type=int, default=100, metavar="N", help="adaptive: at most N pairs")
    ap.add_argument(
        "--budget",
        type=float,
        default=2.0,
        metavar="S",
        help="adaptive: stop once the slower side has run S seconds in all (default 2)",
    )
    ap.add_argument(
        "--mgc-reps",
        type=int,
        default=None,
        metavar="N",
        help="mgc runs per example and mode (default 5; 1 with --quick)",
    )
    ap.add_argument(
        "--cpu",
        metavar="NAME",
        help="compile mg's code for this CPU (as LLVM names it, e.g. x86-64-v3) "
        "instead of this host's; the host must be able to run it",
    )
    ap.add_argument("--seed", type=int, default=20261202, help="seed of the input arrays")
    ap.add_argument(
        "--json",
        default=str(ROOT / "benchmarks" / "results.json"),
        metavar="PATH",
        help="where to write the JSON (default benchmarks/results.json)",
    )
    ap.add_argument(
        "--compile-time",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure compile time too, and against JAX's (default: yes, except with --quick)",
    )
    ap.add_argument(
        "--training-step",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="time one training step against JAX and NumPy too (default: yes, except with --quick)",
    )
    ap.add_argument(
        "--jax",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time JAX (jit) too where it is installed (default: yes)",
    )
    ap.add_argument(
        "--numba",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="time Numba (njit) too where it is installed (default: yes, except with --quick: "
        "each function takes Numba ~1 s to compile)",
    )
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--skip-mgc", action="store_true", help=argparse.SUPPRESS)
    # Corrupt every expected result, to prove that a wrong result fails the run (tests).
    ap.add_argument("--self-test-wrong", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick and not args.reps:
        args.reps = 1
    if args.numba is None:
        args.numba = not args.quick
    if args.mgc_reps is None:
        args.mgc_reps = 1 if args.quick else 5
    try:
        args.thread_counts = [int(t) for t in args.threads.split(",") if t.strip()]
    except ValueError:
        ap.error(f"--threads: not a comma-separated list of numbers: {args.threads!r}")
    if not args.thread_counts or min(args.thread_counts) < 1:
        ap.error("--threads: give thread counts of at least 1")
    if min(args.reps or 1, args.min_reps, args.max_reps, args.mgc_reps) < 1:
        ap.error("repetition counts must be at least 1")
    for pattern in args.only or []:
        try:
            re.compile(pattern)
        except re.error as e:
            ap.error(f"--only {pattern!r}: {e}")
    if args.cpu is not None:
        from mg_xdsl.core.target import check_cpu

        try:
            check_cpu(args.cpu)
        except ValueError as e:
            ap.error(f"--cpu: {e}")
    return args


def add_section(report: dict, key: str, title: str, measure, markdown) -> None:
    """A section of the report after the workloads' table: ``measure()``'s data under
    ``key``, ``markdown(data)`` under the heading ``title``; a ``RuntimeError`` from either
    is the section's failure (and the run's)."""
    print(f"run.py: measuring {title[0].lower()}{title[1:]}...", file=sys.stderr, flush=True)
    try:
        report[key] = measure()
        report["markdown"] += f"\n\n## {title}\n\n" + markdown(report[key])
    except RuntimeError as e:
        report["ok"] = False
        report["markdown"] += f"\n\n## {title}\n\n**FAILED: {e}**"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        return child_main(args)
    works, paths = selected(args)
    if args.list:
        print("\n".join([w.id for w in works] + [f"{MGC_NAME} {p.stem}" for p in paths]))
        return 0
    if not works and not paths:
        print(f"run.py: no workload matches --only {args.only}", file=sys.stderr)
        return 2
    if not MGC.exists() and paths:
        print(f"run.py: {MGC} not found (pip install -e .)", file=sys.stderr)
        return 2

    report = {
        "context": machine.context(args.thread_counts),
        "target": target_info(args.cpu),
        "notes": NOTES,
        "settings": {
            "quick": args.quick,
            "only": args.only,
            "reps": args.reps or None,
            "min_reps": args.min_reps,
            "max_reps": args.max_reps,
            "budget_s": args.budget,
            "mgc_reps": args.mgc_reps,
            "seed": args.seed,
            "rtol": RTOL,
            "self_test_wrong": args.self_test_wrong,
            "jax": args.jax,
            "numba": args.numba,
        },
        "children": [],
        "kernels": [],
        "mgc_run": [],
    }
    for i, threads in enumerate(args.thread_counts):
        print(f"run.py: measuring at {threads} thread(s)...", file=sys.stderr, flush=True)
        # --quick checks `mgc run` at the first thread count only (it is ~0.5 s a process),
        # and JAX and Numba too (~0.15 s and ~1 s to compile a function).
        data = run_child(args, threads, with_mgc=not (args.quick and i), with_others=not (args.quick and i))
        report["children"].append(
            {
                k: data.get(k)
                for k in (
                    "threads",
                    "pid",
                    "blas",
                    "others",
                    "bound_cores",
                    "affinity",
                    "exit_code",
                    "load_average_at_start",
                    "load_average_at_end",
                )
            }
        )
        report["kernels"] += data["kernels"]
        report["mgc_run"] += data["mgc_run"]
    report["ok"] = all(c["exit_code"] == 0 for c in report["children"]) and all(
        passed(r) for r in report["kernels"] + report["mgc_run"]
    )

    report["markdown"] = markdown(report)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.compile_time if args.compile_time is not None else not args.quick:
        from benchmarks import compile_time

        sizes, reps = ([3, 6], 1) if args.quick else ([10, 30, 100, 300], 3)
        add_section(
            report,
            "compile_time",
            "Compile time",
            lambda: compile_time.measure(sizes, reps, log=log),
            compile_time.markdown,
        )
        from benchmarks import compile_vs_jax

        add_section(
            report,
            "compile_vs_jax",
            "Compile time against JAX",
            lambda: compile_vs_jax.measure(args.quick, 1 if args.quick else 3, log=log),
            compile_vs_jax.markdown,
        )
    if args.training_step if args.training_step is not None else not args.quick:
        from benchmarks import training_step

        step_reps = args.reps or 31
        add_section(
            report,
            "training_step",
            "Training step",
            lambda: training_step.measure(args.thread_counts, step_reps, log=log),
            lambda rows: training_step.markdown(rows, step_reps),
        )
    print(report["markdown"])
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n(JSON written to {path})")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
