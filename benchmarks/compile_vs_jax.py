"""Compile time against JAX: the JAX/Numba issue's seven functions compiled cold by mg and
by JAX, in one fresh process per repetition.

    python benchmarks/compile_vs_jax.py              # the issue's sizes, medians of 3 processes
    python benchmarks/compile_vs_jax.py --quick --reps 1

mg: ``mg_xdsl.compile`` of the function's source through the Python API, which parses,
checks, runs the optimised pipeline and has LLVM make machine code for ``f`` before it
returns (a def that ``f`` calls, the attention's ``softmax``, is traced into it as JAX
traces a Python function: compiled alone only when called alone), with ``MGC_NO_CACHE=1``
so that no disk cache serves it; and again with the matrix-product and reduction kernels in
the disk cache (``mg_xdsl.backend.kernel_library``: compiled once per machine, as after any
earlier program that used them) but no library of the source. JAX:
``jax.jit(f).lower(*shapes).compile()``, the work of a jitted function's first call
(tracing, lowering to StableHLO, XLA's compile) without running it, on
``ShapeDtypeStruct``s of the same shapes, with JAX's persistent compilation cache off. The
functions are the workloads of ``benchmarks/workloads.py`` (``relu(x @ w + b)`` in f64 and
f32, softmax, attention, ``row_sum``, ``relu(a + b) * c - 0.5 * a``, layer norm), in that
order, each compiled once per process. Each side's time is also given in two parts: for mg,
LLVM's for the program (linking, optimising, code generation, loading:
``Library._compile_times``) and the rest (the front end, xDSL's passes, the LLVM IR text,
the disk cache's store and, cold, the kernels the program is the first to use); for JAX,
tracing and lowering, and XLA's compile. Before them each side compiles one trivial
function (``a + a`` on 2 elements), whose time, the process's one-time set-up (xDSL's and
LLVM's, XLA's client), is reported on its own line. Every figure is the median over
``reps`` processes. A benchmark: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The issue's seven functions, by workload name (the largest size of each name is taken).
FUNCTIONS = ("layer", "layer_f32", "softmax", "attention", "row_sum", "relu_chain", "layer_norm")
FIRST = "first compile in the process (a + a, 2 elements)"


def functions(quick: bool) -> list:
    from benchmarks.workloads import workloads

    chosen = {}
    for w in workloads(quick):
        if w.name in FUNCTIONS and (w.name not in chosen or w.work() > chosen[w.name].work()):
            chosen[w.name] = w
    return [chosen[name] for name in FUNCTIONS]


def child(quick: bool, kernels_cached: bool) -> dict:
    """Compile each function on each side in this (fresh) process; seconds per function.
    ``kernels_cached``: mg's disk cache holds the kernels (``backend.kernel_library``) but
    no library of these sources (each made new by a comment)."""
    import numpy as np

    import mg_xdsl
    from mg_xdsl.driver import LLVM_STEP

    def mg_compile(name: str, source: str) -> None:
        if kernels_cached:
            source += f"\n# {time.time_ns()}\n"
        t0 = time.perf_counter()
        lib = mg_xdsl.compile(source)
        elapsed = time.perf_counter() - t0
        outcome = getattr(lib, "_cache_outcome", "")
        if not outcome.startswith("miss" if kernels_cached else "off"):
            raise RuntimeError(f"mg's compile was not what was asked: its disk cache says {outcome!r}")
        llvm = lib._compile_times[LLVM_STEP]
        out["mg"][name] = elapsed
        out["mg_split"][name] = (elapsed - llvm, llvm)

    out: dict = {"mg": {}, "mg_split": {}, "jax": {}, "jax_split": {}}
    try:
        import jax
    except ModuleNotFoundError:
        jax = None
        out["jax_status"] = "not installed"
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        try:
            jax.config.update("jax_enable_compilation_cache", False)
        except (AttributeError, KeyError):  # (an older JAX: off unless a directory is set)
            pass
        out["jax_status"] = "ok"
        out["jax_version"] = jax.__version__

    def jax_compile(fn, specs) -> tuple[float, float]:
        assert jax is not None
        t0 = time.perf_counter()
        lowered = jax.jit(fn).lower(*specs)
        t1 = time.perf_counter()
        lowered.compile()
        return t1 - t0, time.perf_counter() - t1

    mg_compile(FIRST, "def f(a: tensor[2]) = a + a")
    if jax is not None:
        out["jax_split"][FIRST] = jax_compile(lambda a: a + a, [jax.ShapeDtypeStruct((2,), np.float64)])
    for w in functions(quick):
        mg_compile(w.id, w.source)
        if jax is not None:
            assert w.jax is not None
            specs = [jax.ShapeDtypeStruct(shape, np.dtype(w.dtype)) for shape in w.shapes]
            out["jax_split"][w.id] = jax_compile(w.jax(jax.numpy), specs)
    out["jax"] = {name: sum(split) for name, split in out["jax_split"].items()}
    return out


def measure(quick: bool = False, reps: int = 3, log=lambda message: None) -> dict:
    """``reps`` fresh processes (``MGC_NO_CACHE=1``, ``JAX_PLATFORMS=cpu``), then ``reps``
    with the kernels in a disk cache of their own (filled by one process first); the median
    seconds per function and side. ``RuntimeError`` if a process fails."""

    def run(kernels_cached: bool, env: dict) -> dict:
        command = [sys.executable, str(Path(__file__).resolve()), "--child"] + (["--quick"] if quick else [])
        command += ["--kernels-cached"] if kernels_cached else []
        p = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(f"the compiling process failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
        return json.loads(p.stdout.splitlines()[-1])

    runs, warm = [], []
    env = {**os.environ, "MGC_NO_CACHE": "1", "JAX_PLATFORMS": "cpu"}
    for i in range(reps):
        log(f"compile_vs_jax: process {i + 1} of {reps}...")
        runs.append(run(False, env))
    with tempfile.TemporaryDirectory() as directory:
        env = {**env, "MGC_NO_CACHE": "", "MGC_CACHE_DIR": directory}
        run(True, env)  # (compiles the kernels into the cache)
        for i in range(reps):
            log(f"compile_vs_jax: process {i + 1} of {reps}, the kernels cached...")
            warm.append(run(True, env))
    rows = []
    for name in runs[0]["mg"]:
        row = {"function": name}
        for key, processes in (("mg", runs), ("mg_kernels_cached", warm)):
            row[f"{key}_s"] = statistics.median(r["mg"][name] for r in processes)
            row[f"{key}_passes_s"] = statistics.median(r["mg_split"][name][0] for r in processes)
            row[f"{key}_llvm_s"] = statistics.median(r["mg_split"][name][1] for r in processes)
        if runs[0]["jax_status"] == "ok":
            row["jax_s"] = statistics.median(r["jax"][name] for r in runs)
            row["jax_lower_s"] = statistics.median(r["jax_split"][name][0] for r in runs)
            row["jax_compile_s"] = statistics.median(r["jax_split"][name][1] for r in runs)
        rows.append(row)
    return {
        "quick": quick,
        "reps": reps,
        "jax": runs[0]["jax_status"],
        "jax_version": runs[0].get("jax_version"),
        "rows": rows,
        "runs": runs,
    }


def markdown(result: dict) -> str:
    from benchmarks.machine import _cpu_model

    def seconds(s: float) -> str:
        return f"{s:.2f} s" if s >= 0.1 else f"{s * 1e3:.0f} ms"

    jax = result["jax"] == "ok"
    lines = [
        f"CPU: {_cpu_model()}; one fresh process per repetition, medians of {result['reps']}; mg: "
        "`mg_xdsl.compile` (optimised pipeline, machine code made, MGC_NO_CACHE=1; kernels cached: the "
        "matrix-product and reduction kernels in the disk cache, as after any earlier use on this machine; "
        "each time with the medians of its two parts: LLVM's for the program (linking, optimising, code "
        "generation, loading) and the rest, called passes: the front end, xDSL's passes, the LLVM IR text "
        "and, cold, the kernels it compiles); JAX"
        + (f" {result['jax_version']}" if jax else "")
        + ": `jit(f).lower(*shapes).compile()` (trace + lower, then XLA); ratio above 1: mg compiles faster"
        + ("" if jax else f". JAX {result['jax']}."),
        "",
        "| function | mg (passes + LLVM) | mg, kernels cached (passes + LLVM) | JAX (trace + lower, XLA) "
        "| JAX / mg | JAX / mg, kernels cached |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = result["rows"]
    functions = [r for r in rows if r["function"] != FIRST]
    total = {k: sum(r[k] for r in functions) for k in rows[0] if k != "function"}
    for row in [*rows, {"function": f"total of the {len(functions)} functions", **total}]:
        if jax:
            cell = f"{seconds(row['jax_s'])} ({seconds(row['jax_lower_s'])} + {seconds(row['jax_compile_s'])})"
            ratios = f"{row['jax_s'] / row['mg_s']:.2f} | {row['jax_s'] / row['mg_kernels_cached_s']:.2f}"
        else:
            cell, ratios = result["jax"], "- | -"
        mg = " | ".join(
            f"{seconds(row[f'{key}_s'])} ({seconds(row[f'{key}_passes_s'])} + {seconds(row[f'{key}_llvm_s'])})"
            for key in ("mg", "mg_kernels_cached")
        )
        lines.append(f"| {row['function']} | {mg} | {cell} | {ratios} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the workloads' tiny --quick sizes")
    parser.add_argument("--reps", type=int, default=3, help="fresh processes (default 3)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kernels-cached", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.quick, args.kernels_cached)))
        return 0
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    try:
        result = measure(args.quick, args.reps, log=lambda m: print(m, file=sys.stderr, flush=True))
    except RuntimeError as e:
        print(f"compile_vs_jax.py: {e}", file=sys.stderr)
        return 1
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
