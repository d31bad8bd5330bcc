#!/usr/bin/env python3
"""The mg-xdsl benchmark suite: compiled mg against NumPy, and `mgc run` start-up time.

    python benchmarks/run.py                  # everything, at 1 and 2 threads
    python benchmarks/run.py --quick          # tiny sizes, one repetition: a correctness run (CI)
    python benchmarks/run.py --only matmul --threads 1 --reps 10 --json /tmp/mm.json
    python benchmarks/run.py --list           # the workload ids --only matches against
    python benchmarks/run.py --cpu x86-64-v3  # mg's code for another CPU this host can run

Method
------
For each workload (see ``benchmarks/workloads.py``) the mg program is compiled once
through the Python API (``mg_xdsl.compile``), inputs are drawn once from
``np.random.default_rng`` (the same arrays in every process), and mg's result is checked
against the NumPy expression with ``np.testing.assert_allclose`` (``rtol=1e-9``, and an
``atol`` scaled to the magnitude of the sums for reductions and matrix products). That
checking call of each side is also the warm-up. Then mg and NumPy are timed
**alternately** on the same input arrays (mg, NumPy, mg, NumPy, ...), so that a drift in
the machine's state (another job, the clock, the memory system) hits both sides alike;
each timed call follows an untimed call of the same side, so that it meets its own side's
steady state rather than the buffer and cache lines the other side left (malloc hands
each call the block the call before it freed); the garbage collector is off while timing and each result is dropped outside the timed
region. Repetitions are adaptive: at least ``--min-reps`` (3) pairs, and more until the
slower side has run ``--budget`` seconds (2) in all or ``--max-reps`` (100) is reached;
``--reps N`` fixes the count. Reported are the **medians** (robust against the odd
interrupted run), the **ratio NumPy median / mg median** (above 1: mg is faster) and
rates from the medians: GFLOP/s for matrix products (2*m*n*k flops), GB/s otherwise (the
bytes of the inputs read plus the output written, per call).

NumPy's form is the natural allocating expression (``np.maximum(a + b, 0)``,
``a.sum(axis=1, keepdims=True)``, ``x @ w``), because mg allocates its result too.

``mgc run`` is timed as a whole process (interpreter start, import, compile, run) on every
chapter example in ``examples/*.mg`` with the ``mgc`` script next to ``sys.executable``:
once with the on-disk compile cache as it is by default (after a warm-up run that fills
it) and once bypassing it (``MGC_NO_CACHE=1``), alternately, medians of ``--mgc-reps``
runs; every run's output is checked against the example's ``.expected``/``.status``. The
target is 0.5 s.

``--quick`` (CI) uses tiny, uneven sizes (64x64, 100x37, matmuls n = 24, 32, 37), one timed
pair, one ``mgc run`` per example and mode at the first thread count only, and no warm-up
run: its times mean nothing, it proves that every workload compiles, runs and is right.

Target: mg compiles for this host unless ``--cpu NAME`` names another CPU (as LLVM names
it) that the host can run: on an AVX-512 machine ``x86-64-v3`` runs the AVX2 code and
``x86-64``/``x86-64-v2`` the SSE code, with the kernels shaped for that CPU
(``mg_xdsl.core.target``). The report names the CPU, its vector unit and the kernel each figure
used; NumPy runs whatever kernel OpenBLAS picks (set ``OPENBLAS_CORETYPE``, e.g. ``Haswell``,
to match; the report shows which ran). ``mgc run`` on the examples always compiles for the
host.

Threads: the measuring is done in a child process per thread count T (this script run
again with ``--child T``), with ``MG_NUM_THREADS=T`` (read by the mg runtime),
``OMP/OPENBLAS/MKL_NUM_THREADS=T`` in its environment and NumPy's BLAS limited to T
threads with ``threadpoolctl.threadpool_limits``. Each child writes JSON; this process
merges them, prints a markdown report with the machine's context and writes the JSON
(``--json``, default ``benchmarks/results.json``).

Compile time (``benchmarks/compile_time.py``, also alone): cold ``mgc run --no-cache`` of
generated programs of 10, 30, 100 and 300 statements in both pipelines, medians of three
processes, with the per-pass split of the largest and the ratio of the project's lowering
from the affine stage to the LLVM dialect to mlir-opt-22's on the same IR. Part of a full
run; ``--quick`` leaves it out unless ``--compile-time`` is given (then at 3 and 6
statements), ``--no-compile-time`` leaves it out of a full run.

Training step (``benchmarks/training_step.py``, also alone): one step of gradient descent
(``value_and_grad`` of a softmax cross-entropy and the SGD updates) of the digits example's
network and of a 784-512-10 one, in mg, JAX (``jit``) and NumPy (backpropagation by hand),
results checked equal, at each thread count; ``--quick`` leaves it out unless
``--training-step`` is given, ``--no-training-step`` leaves it out of a full run.

Exit status: 0 when every check passed, 1 when any result was wrong or any measurement
failed (``--self-test-wrong`` deliberately corrupts every expected result, to prove it),
2 for bad arguments.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
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
THREAD_VARS = ("MG_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# OpenBLAS's idle workers spin for 2^28 cycles (~75 ms) after each call before they sleep;
# alternating with NumPy, they would occupy the cores while mg's threads run. A timeout of
# 2^4 cycles makes them sleep at once (NumPy's own times do not suffer: they wake at the
# next call). Set only if the caller has not chosen a value.
QUIET_BLAS = {"OPENBLAS_THREAD_TIMEOUT": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4")}

NOTES = [
    "Times are medians of alternating runs (mg, NumPy, mg, NumPy, ...) on the same inputs, "
    "after a checked warm-up call of each; each timed call follows an untimed one of the same "
    "side, so that neither meets the cache state the other left; ratio = NumPy median / mg median, so above 1 "
    "means mg is faster.",
    "GFLOP/s counts 2*m*n*k per matrix product (epilogue additions and relus not counted); "
    "GB/s counts the bytes of the inputs read plus the output written, once, per call.",
    "NumPy's forms allocate their result, as mg does (np.maximum(a + b, 0) even makes a "
    "temporary). NumPy's elementwise operations, broadcasts and reductions are "
    "single-threaded whatever the thread count; only its matrix products (OpenBLAS) use T "
    "threads. mg's threads are MG_NUM_THREADS=T.",
    "two_layers is examples/08_two_layers.mg with its size-2 dimensions scaled to n and its "
    "size-1 dimensions kept: row_max(relu(relu(x @ w1 + b1) @ w2 + b2) @ w3) with x, w1 nxn, "
    "b1 1xn, w2 nx1, b2 1x1, w3 1xn.",
    "OpenBLAS runs with OPENBLAS_THREAD_TIMEOUT=4 unless set: its idle threads otherwise spin "
    "for ~75 ms after each call, taking the cores from whatever runs next (here: mg's "
    "threads, in the alternation).",
    f"mgc run: wall time of the whole process (Python start, import, compile, run), median "
    f"of several runs; 'cached' uses the on-disk compile cache as by default (warmed by one "
    f"run first), 'no cache' sets MGC_NO_CACHE=1. The target is <= {MGC_TARGET_S} s.",
]


# --- measuring (in the child process) ---------------------------------------------------


def check_result(got: np.ndarray, expected: np.ndarray, atol: float, rtol: float = RTOL) -> dict:
    """np.testing.assert_allclose, recorded: passed, tolerances, the largest error."""
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


def alternate(mg, ref, inputs: list, reps: tuple[int, int], budget: float) -> tuple[list, list]:
    """Time mg(*inputs) and ref(*inputs) alternately; at least reps[0] pairs, then more until
    the slower side has run `budget` seconds in all, at most reps[1] pairs.

    Each timed call follows an untimed call of the same side, so that it meets its own
    side's steady state: malloc hands a call the buffer that the call before it freed, and
    whether that buffer's lines are still in the cache (written by ordinary stores) or not
    (written past the caches with streaming stores) would otherwise count for the other
    side."""
    least, most = reps
    mg_times, np_times = [], []
    gc.collect()
    gc.disable()
    try:
        while len(mg_times) < most:
            mg(*inputs)  # (its result is freed at once)
            t0 = time.perf_counter()
            result = mg(*inputs)
            t1 = time.perf_counter()
            del result
            ref(*inputs)
            t2 = time.perf_counter()
            result = ref(*inputs)
            t3 = time.perf_counter()
            del result
            mg_times.append(t1 - t0)
            np_times.append(t3 - t2)
            if len(mg_times) >= least and max(sum(mg_times), sum(np_times)) >= budget:
                break
    finally:
        gc.enable()
    return mg_times, np_times


def side(times: list[float], work: float, unit: str) -> dict:
    median = statistics.median(times)
    return {
        "median_s": median,
        "min_s": min(times),
        "times_s": times,
        "rate": work / median / 1e9 if median > 0 else None,
        "unit": unit,
    }


def measure_workload(w: Workload, args, threads: int, log) -> dict:
    import mg_xdsl

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
    }
    try:
        t0 = time.perf_counter()
        f = mg_xdsl.compile(w.source, cpu=args.cpu).f
        rec["compile_s"] = time.perf_counter() - t0
        inputs = w.inputs([args.seed, zlib.crc32(w.id.encode())])
        expected = w.reference(*inputs)
        if args.self_test_wrong:
            expected = corrupt(expected)
        rec["check"] = check_result(f(*inputs), expected, w.atol(inputs), w.rtol)
        del expected
        if rec["check"]["passed"]:
            mg_times, np_times = alternate(f, w.reference, inputs, reps_of(args), args.budget)
            rec["mg"] = side(mg_times, w.work(), w.unit)
            rec["numpy"] = side(np_times, w.work(), w.unit)
            rec["ratio"] = rec["numpy"]["median_s"] / rec["mg"]["median_s"]
            rec["reps"] = len(mg_times)
    except Exception as e:  # noqa: BLE001 - a broken compiler must not stop the other workloads
        rec["check"] = {"passed": False, "error": f"{type(e).__name__}: {e}"[:500]}
    finally:
        inputs = None
        gc.collect()
    log(rec)
    return rec


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
    info = target_info(cpu)
    if w.name in ("matmul", "layer", "two_layers"):
        return info["matmul"]
    if w.name == "matmul_f32":
        return info["matmul_f32"]
    if w.name == "batched_matmul":
        return info["matmul_f32"] + ", per matrix"
    if w.name.startswith(("row_", "col_")):
        return info["reduction"]
    if w.name in ("add", "relu_add") and streams(w, cpu):
        return f"streaming stores, vector<{info['stream_lanes']}xf64>"
    if w.name == "relu_add_f32" and streams(w, cpu):
        return f"streaming stores, vector<{2 * info['stream_lanes']}xf32>"
    return "LLVM's loop vectoriser"


def streams(w: Workload, cpu: str | None) -> bool:
    """Whether ``stream-large-results`` writes this elementwise workload's result past the
    caches on ``cpu`` (its rule: ``mg_xdsl.core.target.streaming_min_bytes``)."""
    from mg_xdsl.core import target

    t = target.target(cpu)
    result = np.dtype(w.dtype).itemsize * int(np.prod(w.out_shape))
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
        cached, uncached = [], []
        for _ in range(args.mgc_reps):
            cached.append(run(no_cache=False))
            uncached.append(run(no_cache=True))
        rec["check"] = {"passed": True, "runs_checked": len(cached) + len(uncached) + (not args.quick)}
        rec["cached"] = {"median_s": statistics.median(cached), "times_s": cached}
        rec["no_cache"] = {"median_s": statistics.median(uncached), "times_s": uncached}
        rec["meets_target"] = {
            "cached": rec["cached"]["median_s"] <= MGC_TARGET_S,
            "no_cache": rec["no_cache"]["median_s"] <= MGC_TARGET_S,
        }
        rec["reps"] = len(cached)
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
        if rec["check"]["passed"] and rec["kind"] == "kernel":
            msg = (
                f"mg {fmt_time(rec['mg']['median_s'])}, NumPy {fmt_time(rec['numpy']['median_s'])}"
                f", ratio {rec['ratio']:.2f}, {rec['reps']} reps"
            )
        elif rec["check"]["passed"]:
            msg = f"cached {fmt_time(rec['cached']['median_s'])}, no cache {fmt_time(rec['no_cache']['median_s'])}"
        else:
            msg = "FAILED: " + rec["check"]["error"]
        print(f"[T={threads}] {rec['id']}: {msg}", file=sys.stderr, flush=True)

    works, paths = selected(args)
    if args.skip_mgc:
        paths = []
    with threadpool_limits(limits=threads):
        out["blas"] = machine.blas_info()
        for w in works:
            out["current"] = w.id
            save()
            out["kernels"].append(measure_workload(w, args, threads, log))
        for p in paths:
            out["current"] = f"{MGC_NAME} {p.stem}"
            save()
            out["mgc_run"].append(measure_example(p, args, threads, log))
    out["current"] = None
    out["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    save()
    return 0


# --- orchestrating and reporting (in the parent process) ----------------------------------


def run_child(args, threads: int, with_mgc: bool) -> dict:
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
        for pattern in args.only or []:
            cmd += ["--only", pattern]
        env = {**os.environ, **{var: str(threads) for var in THREAD_VARS}, **QUIET_BLAS}
        p = subprocess.run(cmd, env=env)
        try:
            data = json.loads(out_path.read_text())
        except (OSError, ValueError):
            data = {"threads": threads, "kernels": [], "mgc_run": [], "current": None}
    data["exit_code"] = p.returncode
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
    c = rec["check"]
    if c["passed"]:
        return "ok"
    return "FAIL: " + c.get("error", "").replace("|", "/")[:120]


def markdown(report: dict) -> str:
    quick = " (--quick: tiny sizes, correctness only, times meaningless; `mgc run` at the first thread count only)"
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
        lines.append(
            f"- measured at T={child['threads']}: BLAS pools {blas or 'unknown'}; "
            f"load average {load or 'unknown'}"
            + (f"; the measuring process FAILED (exit {child['exit_code']})" if child["exit_code"] else "")
        )
    order = {name: i for i, name in enumerate(NAMES)}
    kernels = sorted(
        report["kernels"], key=lambda r: (order.get(r["name"], len(order)), r.get("work_per_call", 0), r["threads"])
    )
    if kernels:
        lines += [
            "",
            "## Kernels through the Python API (ratio = NumPy / mg; > 1: mg faster)",
            "",
            "| workload | size | threads | mg median | NumPy median | ratio | mg rate "
            "| NumPy rate | reps | mg kernel | check |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for r in kernels:
            mg, npy = r.get("mg"), r.get("numpy")
            lines.append(
                f"| {r['name']} | {r['size']} | {r['threads']} | "
                f"{fmt_time(mg and mg['median_s'])} | {fmt_time(npy and npy['median_s'])} | "
                f"{format(r['ratio'], '.2f') if 'ratio' in r else '-'} | {fmt_rate(mg)} | "
                f"{fmt_rate(npy)} | {r.get('reps', '-')} | {r.get('mg_kernel', '-')} | "
                f"{check_cell(r)} |"
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
    failed = [
        r["id"] + f" (T={r['threads']})" for r in report["kernels"] + report["mgc_run"] if not r["check"]["passed"]
    ]
    lines += [
        "",
        "**Every result checked correct.**"
        if report["ok"]
        else f"**FAILED: {len(failed)} check(s): {', '.join(failed)}**",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes, one repetition, one mgc run per example and mode at the "
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
        help="measure compile time too (default: yes, except with --quick)",
    )
    ap.add_argument(
        "--training-step",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="time one training step against JAX and NumPy too (default: yes, except with --quick)",
    )
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--skip-mgc", action="store_true", help=argparse.SUPPRESS)
    # Corrupt every expected result, to prove that a wrong result fails the run (tests).
    ap.add_argument("--self-test-wrong", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick and not args.reps:
        args.reps = 1
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
        },
        "children": [],
        "kernels": [],
        "mgc_run": [],
    }
    for i, threads in enumerate(args.thread_counts):
        print(f"run.py: measuring at {threads} thread(s)...", file=sys.stderr, flush=True)
        # --quick checks `mgc run` at the first thread count only (it is ~0.5 s a process).
        data = run_child(args, threads, with_mgc=not (args.quick and i))
        report["children"].append(
            {
                k: data.get(k)
                for k in ("threads", "pid", "blas", "exit_code", "load_average_at_start", "load_average_at_end")
            }
        )
        report["kernels"] += data["kernels"]
        report["mgc_run"] += data["mgc_run"]
    report["ok"] = all(c["exit_code"] == 0 for c in report["children"]) and all(
        r["check"]["passed"] for r in report["kernels"] + report["mgc_run"]
    )

    report["markdown"] = markdown(report)
    if args.compile_time if args.compile_time is not None else not args.quick:
        from benchmarks import compile_time

        print("run.py: measuring compile time...", file=sys.stderr, flush=True)
        sizes, reps = ([3, 6], 1) if args.quick else ([10, 30, 100, 300], 3)
        try:
            report["compile_time"] = compile_time.measure(
                sizes, reps, log=lambda m: print(m, file=sys.stderr, flush=True)
            )
            report["markdown"] += "\n\n## Compile time\n\n" + compile_time.markdown(report["compile_time"])
        except RuntimeError as e:
            report["ok"] = False
            report["markdown"] += f"\n\n## Compile time\n\n**FAILED: {e}**"
    if args.training_step if args.training_step is not None else not args.quick:
        from benchmarks import training_step

        print("run.py: timing the training step...", file=sys.stderr, flush=True)
        reps = args.reps or 31
        try:
            report["training_step"] = training_step.measure(
                args.thread_counts, reps, log=lambda m: print(m, file=sys.stderr, flush=True)
            )
            report["markdown"] += "\n\n## Training step\n\n" + training_step.markdown(report["training_step"], reps)
        except RuntimeError as e:
            report["ok"] = False
            report["markdown"] += f"\n\n## Training step\n\n**FAILED: {e}**"
    print(report["markdown"])
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n(JSON written to {path})")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
