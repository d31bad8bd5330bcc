"""Compile time: how long ``mgc run --no-cache`` takes as programs grow, where the time goes,
and how the project's lowering from the affine stage to the LLVM dialect compares with
upstream mlir-opt-22 doing the same work on the same IR.

The programs are the compile-time issue's generated chain: N statements cycling through
``relu(x @ w + b)``, ``x * 0.5 - b``, ``x + row_sum(x) / 3`` and ``x / (col_max(x) + 10)``
on 2x3 and 3x3 matrices, then one ``print``; and the same N statements as the block body
of a def that a ``for`` loop calls, carrying ``x`` (the "loop" program). The result of every
run is checked against NumPy. Every figure is a median of ``reps`` separate processes (cold: ``--no-cache``, so
each compiles everything). This is a benchmark, not a test: nothing here asserts a time.

    python benchmarks/compile_time.py                    # 10, 30, 100, 300 statements
    python benchmarks/compile_time.py --sizes 10,30 --reps 1
"""

from __future__ import annotations

import argparse
import gc
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MGC = Path(sys.executable).parent / "mgc"
KINDS = [
    "let x{k} = relu(x{p} @ w + b)",
    "let x{k} = x{p} * 0.5 - b",
    "let x{k} = x{p} + row_sum(x{p}) / 3",
    "let x{k} = x{p} / (col_max(x{p}) + 10)",
]
W = np.array([[0.5, -1, 2], [1, 0.25, -0.5], [0, 1, 1]])
B = np.array([[1.0, 2, 3]])
X0 = np.array([[1.0, 2, 3], [4, 5, 6]])


def chain(n: int) -> str:
    lines = [
        "let w = [[0.5, -1, 2], [1, 0.25, -0.5], [0, 1, 1]]",
        "let b = [[1, 2, 3]]",
        "let x0 = [[1, 2, 3], [4, 5, 6]]",
    ]
    lines += [KINDS[(k - 1) % 4].format(k=k, p=k - 1) for k in range(1, n + 1)]
    return "\n".join(lines + [f"print x{n}"]) + "\n"


LOOPS = 3  # iterations of the loop program (its compile time does not depend on them)


def looped(n: int) -> str:
    """The chain as a def with a block body, run ``LOOPS`` times by a ``for`` loop that
    carries ``x``: the same statements, compiled once inside a loop."""
    body = [KINDS[(k - 1) % 4].format(k=k, p=k - 1) for k in range(1, n + 1)]
    lines = [
        "let w = [[0.5, -1, 2], [1, 0.25, -0.5], [0, 1, 1]]",
        "let b = [[1, 2, 3]]",
        "def step(x0: tensor[2x3], w: tensor[3x3], b: tensor[1x3]) -> tensor[2x3]:",
        *(f"    {line}" for line in body),
        f"    return x{n}",
        "var x = [[1, 2, 3], [4, 5, 6]]",
        f"for i in range({LOOPS}):",
        "    x = step(x, w, b)",
        "print x",
    ]
    return "\n".join(lines) + "\n"


def looped_value(n: int) -> np.ndarray:
    x = X0
    for _ in range(LOOPS):
        x = chain_value(n, x)
    return x


def chain_value(n: int, x0: np.ndarray = X0) -> np.ndarray:
    x = x0
    for k in range(1, n + 1):
        x = [
            lambda x: np.maximum(x @ W + B, 0),
            lambda x: x * 0.5 - B,
            lambda x: x + x.sum(axis=1, keepdims=True) / 3,
            lambda x: x / (x.max(axis=0, keepdims=True) + 10),
        ][(k - 1) % 4](x)
    return x


def printed_matrix(stdout: str) -> np.ndarray:
    sizes = [int(s) for s in re.search(r"sizes = \[([^\]]*)\]", stdout).group(1).split(",")]
    data = stdout.split("data = \n", 1)[1]
    nums = re.findall(r"-?nan|-?inf|-?[0-9.]+(?:e[+-]?[0-9]+)?", data)
    return np.array([float(v) for v in nums]).reshape(sizes)


def cold_run(path: Path, flags: tuple[str, ...]) -> tuple[float, dict[str, float], str]:
    """Wall time of one ``mgc run --no-cache --time``, its per-pass split, its stdout."""
    start = time.perf_counter()
    p = subprocess.run(
        [str(MGC), "run", "--no-cache", "--time", *flags, str(path)], capture_output=True, text=True, timeout=3600
    )
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise RuntimeError(f"mgc run {' '.join(flags)} {path}: exit {p.returncode}: {p.stderr[-500:]}")
    split = {
        m.group(1).strip(): float(m.group(2)) / 1000
        for m in re.finditer(r"^mgc: (.+?)\s+([0-9.]+) ms$", p.stderr, re.MULTILINE)
    }
    return wall, split, p.stdout


def lowering_ratio(source: str, optimise: bool) -> dict | None:
    """Seconds for the project's passes from the affine stage to the LLVM dialect, as ``mgc``
    runs them before compiling (no verification: LLVM verifies the LLVM IR), then for one
    verification of the result, and for mlir-opt-22's equivalent pipeline on the same IR
    (process start included; it verifies after every pass); None where mlir-opt-22 is not
    installed."""
    from mg_xdsl.backend.upstream import UPSTREAM_PIPELINE
    from mg_xdsl.driver import Compilation
    from mg_xdsl.pipeline import stages as pipeline
    from mg_xdsl.support.xdsl_compat import verify

    tool = shutil.which("mlir-opt-22")
    if tool is None:
        return None
    comp = Compilation(source, "chain.mg", keep_dir=None, optimise=optimise, verify_each=False)
    module = comp.mlir("affine")
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(str(module))
    start = time.perf_counter()
    subprocess.run([tool, *UPSTREAM_PIPELINE, f.name, "-o", "/dev/null"], check=True, timeout=3600)
    upstream = time.perf_counter() - start
    Path(f.name).unlink()
    ctx = pipeline.context()
    gc.disable()  # as mgc does while it compiles (see mg_xdsl.tools.mgc)
    start = time.perf_counter()
    for stage in pipeline.stages_to("llvm", optimise)[1:]:  # scf, cf, llvm
        pipeline.run_stage(module, stage, ctx, verify_result=False)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    verify(module)
    verification = time.perf_counter() - start
    gc.enable()
    return {
        "ours_s": ours,
        "verify_s": verification,
        "mlir_opt_s": upstream,
        "ratio": ours / upstream,
        "ratio_verified": (ours + verification) / upstream,
    }


PROGRAMS = {"chain": (chain, chain_value), "loop": (looped, looped_value)}


def measure(sizes: list[int], reps: int, log=print, programs: tuple[str, ...] = ("chain", "loop")) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, program in [(n, program) for n in sizes for program in programs]:
            source, value = PROGRAMS[program]
            path = Path(tmp) / f"{program}{n}.mg"
            path.write_text(source(n))
            want = value(n)
            for flags in ((), ("--reference",)):
                walls, splits = [], []
                for _ in range(reps):
                    wall, split, out = cold_run(path, flags)
                    if not np.allclose(printed_matrix(out), want, rtol=1e-5):
                        raise RuntimeError(f"{program} {n} {flags}: wrong result")
                    walls.append(wall)
                    splits.append(split)
                median = statistics.median(walls)
                split = splits[walls.index(sorted(walls)[len(walls) // 2])]
                rows.append(
                    {
                        "statements": n,
                        "program": program,
                        "pipeline": "reference" if flags else "optimised",
                        "wall_s": median,
                        "split_s": split,
                        "lowering": lowering_ratio(source(n), not flags),
                    }
                )
                log(f"compile_time: {program} of {n} statements, {rows[-1]['pipeline']}: {median:.2f} s")
    return rows


# the steps of `mgc run --time` that are not the xDSL passes (verification is, where it runs)
NOT_PASSES = ("front end", "to LLVM IR", "LLVM optimise + JIT code", "load object code", "run")


def markdown(rows: list[dict]) -> str:
    lines = [
        "| statements | program | pipeline | cold `mgc run --no-cache` | per statement | passes | "
        "LLVM optimise + JIT | affine -> llvm: ours / mlir-opt-22 (ours + one verification) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        low = r["lowering"]
        ratio = (
            "-"
            if low is None
            else (
                f"{low['ours_s']:.2f} s / {low['mlir_opt_s']:.2f} s = {low['ratio']:.1f}x "
                f"({low['ratio_verified']:.1f}x verified)"
            )
        )
        passes = sum(s for name, s in r["split_s"].items() if name not in NOT_PASSES)
        lines.append(
            f"| {r['statements']} | {r.get('program', 'chain')} | {r['pipeline']} | {r['wall_s']:.2f} s | "
            f"{1000 * r['wall_s'] / r['statements']:.0f} ms | {passes:.2f} s | "
            f"{r['split_s'].get('LLVM optimise + JIT code', 0):.2f} s | {ratio} |"
        )
    for pipeline_name in ("optimised", "reference"):
        of = [r for r in rows if r["pipeline"] == pipeline_name and r.get("program", "chain") == "chain"]
        steps = sorted(
            {name for r in of for name in r["split_s"]}, key=lambda name: -max(r["split_s"].get(name, 0) for r in of)
        )
        lines += [
            "",
            f"Where the time goes ({pipeline_name}, seconds):",
            "",
            "| step | " + " | ".join(f"{r['statements']} statements" for r in of) + " |",
            "| --- |" + " --- |" * len(of),
        ]
        lines += [f"| {name} | " + " | ".join(f"{r['split_s'].get(name, 0):.3f}" for r in of) + " |" for name in steps]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,30,100,300", help="statement counts (default 10,30,100,300)")
    ap.add_argument("--reps", type=int, default=3, help="cold runs per size and pipeline (median)")
    args = ap.parse_args(argv)
    rows = measure(
        [int(s) for s in args.sizes.split(",")], args.reps, log=lambda m: print(m, file=sys.stderr, flush=True)
    )
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
