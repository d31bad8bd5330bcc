"""A random-program campaign: many generated programs, each run in both pipelines and
compared with the NumPy reference; the failures minimised and saved.

Run it from the repository root, in the project's virtual environment:

    python -m tests.properties.fuzz.campaign --programs 5000 --jobs 2     # a new seed, printed first
    python -m tests.properties.fuzz.campaign --programs 400 --seed 17 --kinds long
    python -m tests.properties.fuzz.campaign --show dtypes 17000042       # one program and its expected output
    python -m tests.properties.fuzz.campaign --check dtypes 17000042      # run one program in both pipelines

The programs are split evenly between the kinds (``static``: f64, no ``?``; ``question``:
defs with ``?`` sizes; ``dtypes``: every element type; ``long``: 30 to 100 statements), and
program ``i`` of a run with seed ``S`` has the seed ``S * 1000000 + i``: ``--show`` and
``--check`` take it. Each failure is written to ``OUT/<failure>/<kind>-<seed>-<pipeline>/``
(``prog.mg``, minimised for the first of each failure; ``original.mg``; ``expected.txt``;
``output.txt``; ``verdict.txt``; ``reproduce.sh``), and a summary to ``OUT/summary.txt``: the
outcomes per kind and pipeline, the failures by kind, and what the programs covered.
About 3 programs a second on two cores (long ones fewer); minimising takes up to
``--minimise-seconds`` per failure kind.
"""

import argparse
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import blocks, triage
from .execute import PIPELINES, run_many, run_one, warm_up
from .generator import KINDS, Program
from .minimise import minimise
from .oracle import OUTCOMES, Verdict, judge
from .syntax import program_source, run_program


def program_seed(base: int, index: int) -> int:
    return base * 1_000_000 + index


def expected_text(expected, abort: str | None) -> str:
    """The reference's prints (values, and the bound of each inexact one), and the failed
    check the program must stop with."""
    parts = []
    for k, val in enumerate(expected, 1):
        parts.append(f"print {k}: {val.dtype}, sizes {list(val.shape)}\n{np.array2string(val.v, threshold=10**6)}")
        if val.e.any():
            parts.append(f"  (bounds: {np.array2string(val.e, threshold=10**6)})")
    if abort:
        parts.append(f"then it stops (exit status 134) with: {abort}")
    return "\n".join(parts) + "\n"


def slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")[:80] or "failure"


@dataclass
class Failure:
    program: Program
    pipeline: str
    verdict: Verdict
    item: str  # the known item it looks like, or "new"


def save_failure(out: Path, failure: Failure, statements: list, minimised: bool) -> tuple[Path, str]:
    """Write a failure's folder: the program (minimised if it was), the original, what the
    reference expects, what the compiled program did, and how to run it again; and say
    which known item the program (minimised) shows."""
    program, pipeline = failure.program, failure.pipeline
    folder = out / slug(failure.verdict.key) / f"{program.kind}-{program.seed}-{pipeline}"
    folder.mkdir(parents=True, exist_ok=True)
    flag = " --reference" if pipeline == "reference" else ""
    source = program_source(statements)
    (folder / "prog.mg").write_text(source)
    (folder / "original.mg").write_text(program.source)
    expected, abort = run_program(statements)
    (folder / "expected.txt").write_text(expected_text(expected, abort))
    run = run_one(source, PIPELINES[pipeline])
    again = judge(run, expected, statements, abort)
    item = (triage.known_item(again, pipeline, statements) or "new") if minimised else failure.item
    (folder / "output.txt").write_text(
        f"exit status {run.status} ({run.phase})\n--- stdout\n{run.stdout}--- stderr\n{run.stderr}{run.message}"
    )
    (folder / "verdict.txt").write_text(
        f"{again.outcome} ({pipeline} pipeline){' minimised' if minimised else ''}\nkey: {again.key}\n"
        f"known: {item}\n\n{again.detail}\n"
    )
    (folder / "reproduce.sh").write_text(
        f"# {again.outcome} in the {pipeline} pipeline; expected.txt is what NumPy computes\n"
        f"mgc run{flag} prog.mg\n"
        f"# the whole generated program: python -m tests.properties.fuzz.campaign --check {program.kind} {program.seed}\n"
    )
    return folder, item


def table(counts: Counter, rows: list[str], columns: list[str], title: str) -> str:
    width = max(len(r) for r in rows + [title]) + 2
    head = title.ljust(width) + "".join(c[:13].rjust(14) for c in columns)
    lines = [head] + [r.ljust(width) + "".join(str(counts[(r, c)] or ".").rjust(14) for c in columns) for r in rows]
    return "\n".join(lines)


def coverage_report(coverage: Counter) -> str:
    """What the programs exercised: positions by element type and by the operation that
    made the value, ``?`` patterns of parameters."""
    positions = sorted({k[2] for k in coverage if k[0] == "dtype"})
    dtypes = sorted({k[1] for k in coverage if k[0] == "dtype"})
    by_dtype = Counter({(k[2], k[1]): n for k, n in coverage.items() if k[0] == "dtype"})
    origins = Counter()
    for k, n in coverage.items():
        if k[0] == "position":
            origins[(k[1], str(k[2]))] += n
    patterns = Counter({k[1]: n for k, n in coverage.items() if k[0] == "pattern"})
    made = sorted({o for _, o in origins})
    lines = [
        table(by_dtype, positions, dtypes, "position \\ dtype"),
        "",
        "operations whose results were placed in each position (how many positions of 11):",
    ]
    for origin in made:
        placed = sorted(p for p, o in origins if o == origin)
        lines.append(f"  {origin:>14}: {len(placed):2d}  {' '.join(placed)}")
    lines += [
        "",
        f"'?' patterns of def parameters ({len(patterns)} kinds), most common:",
        "  " + "  ".join(f"{p} {n}" for p, n in patterns.most_common(30)),
    ]
    views = sum(n for k, n in coverage.items() if k[0] == "view of a view")
    lines.append(
        f"views of views: {views}; calls with new argument shapes: {sum(1 for k in coverage if k[0] == 'call shapes')}"
    )
    return "\n".join(lines)


def run_campaign(args) -> int:
    base = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    kinds = args.kinds.split(",")
    print(
        f"seed {base}: python -m tests.properties.fuzz.campaign --programs {args.programs} --seed {base} "
        f"--kinds {args.kinds} --jobs {args.jobs}",
        flush=True,
    )
    warm_up()
    started = time.monotonic()
    programs = [blocks.generate(kinds[i % len(kinds)], program_seed(base, i)) for i in range(args.programs)]
    runs = run_all(programs, args.jobs, args.timeout, started)
    counts, failures = judge_all(programs, runs)
    report = [
        f"seed {base}, {args.programs} programs, {len(runs)} runs in {time.monotonic() - started:.0f} s",
        "",
        table(counts, [f"{k} {p}" for k in kinds for p in PIPELINES], list(OUTCOMES), "kind, pipeline"),
        "",
        items_table(programs, failures, kinds),
        "",
        "failures (pipeline, key): programs, by kind; the folder of the first",
    ]
    report += save_all(failures, args, Path(args.out))
    report += ["", coverage_report(sum((p.coverage for p in programs), start=Counter()))]
    text = "\n".join(report) + "\n"
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "summary.txt").write_text(text)
    print(text)
    return 1 if failures else 0


def run_all(programs: list, jobs: int, timeout: float, started: float) -> list:
    """Every program in both pipelines (run ``2 i`` optimised, ``2 i + 1`` reference)."""
    work = [(p.source, optimise) for p in programs for optimise in PIPELINES.values()]
    done = Counter()

    def progress(index, run):
        done["runs"] += 1
        if done["runs"] % max(1, len(work) // 20) == 0:
            print(f"  {done['runs']}/{len(work)} runs, {time.monotonic() - started:.0f} s", flush=True)

    return run_many(work, jobs, timeout, progress)


def judge_all(programs: list, runs: list) -> tuple[Counter, dict]:
    """Outcomes per kind and pipeline, and the failures by (pipeline, key), each triaged."""
    counts, failures = Counter(), defaultdict(list)
    for i, program in enumerate(programs):
        for j, pipeline in enumerate(PIPELINES):
            verdict = blocks.judge(runs[2 * i + j], program)
            counts[(f"{program.kind} {pipeline}", verdict.outcome)] += 1
            if not verdict.ok:
                known = not blocks.is_block(program.kind) and triage.known_item(verdict, pipeline, program.statements)
                item = known or "new"
                failures[(pipeline, verdict.key)].append(Failure(program, pipeline, verdict, item))
    return counts, failures


def items_table(programs: list, failures: dict, kinds: list[str]) -> str:
    """How many programs of each kind fail with each known item (in either pipeline)."""
    seeds = defaultdict(set)
    for group in failures.values():
        for f in group:
            seeds[(f.item, f.program.kind)].add(f.program.seed)
    per_kind = Counter(p.kind for p in programs)
    return (
        table(
            Counter({key: len(s) for key, s in seeds.items()}),
            sorted({item for item, _ in seeds}),
            kinds,
            "programs failing with (either pipeline)",
        )
        + "\n  (of "
        + ", ".join(f"{per_kind[k]} {k}" for k in kinds)
        + " programs)"
    )


def save_all(failures: dict, args, out: Path) -> list[str]:
    """Save up to ``--keep`` failures of each (pipeline, key), the first ``--minimise``
    minimised; a report line for each."""
    lines = []
    for (pipeline, key), group in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        by_kind = Counter(f.program.kind for f in group)
        for n, failure in enumerate(group[: args.keep]):
            if blocks.is_block(failure.program.kind):  # (saved whole: see blocks.py)
                folder, item = blocks.save(out, failure, pipeline), failure.item
                if n == 0:
                    lines.append(f"  {len(group):5d}  {pipeline:9}  {key}\n         {dict(by_kind)}  {folder}")
                continue
            shrink = n < args.minimise
            statements = (
                minimise(failure.program.statements, PIPELINES[pipeline], key, args.minimise_seconds)
                if shrink
                else failure.program.statements
            )
            folder, item = save_failure(out, failure, statements, shrink)
            if n == 0:
                lines.append(
                    f"  {len(group):5d}  {pipeline:9}  {key}\n         {dict(by_kind)}  known: {item}  {folder}"
                )
    return lines


def show(kind: str, seed: int, check: bool) -> int:
    program = blocks.generate(kind, seed)
    print(program.source, end="")
    expected = blocks.expected_of(program) or expected_text(program.expected, program.abort)
    print("--- expected (the reference)\n" + expected)
    if not check:
        return 0
    warm_up()
    status = 0
    for pipeline, optimise in PIPELINES.items():
        verdict = blocks.judge(run_one(program.source, optimise), program)
        print(f"--- {pipeline}: {verdict.outcome} {verdict.key}\n{verdict.detail}")
        status |= not verdict.ok
    return status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.properties.fuzz.campaign",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--programs", type=int, default=1000, help="how many programs (default 1000)")
    parser.add_argument("--seed", type=int, help="the run's seed (default: a new one, printed)")
    kinds = [*KINDS, *blocks.KINDS]
    parser.add_argument("--kinds", default=",".join(kinds), help=f"comma-separated, of {', '.join(kinds)}")
    parser.add_argument("--jobs", type=int, default=2, help="programs run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds for one compile and run (default 60)")
    parser.add_argument("--out", default="fuzz-failures", help="where failures go (default fuzz-failures/)")
    parser.add_argument("--minimise", type=int, default=1, help="failures of each kind to minimise (default 1)")
    parser.add_argument("--minimise-seconds", type=float, default=60, help="time for minimising one (default 60)")
    parser.add_argument("--keep", type=int, default=10, help="failures of each kind to save (default 10)")
    parser.add_argument("--show", nargs=2, metavar=("KIND", "SEED"), help="print one program and its expected output")
    parser.add_argument("--check", nargs=2, metavar=("KIND", "SEED"), help="run one program in both pipelines")
    args = parser.parse_args(argv)
    if args.show or args.check:
        kind, seed = args.show or args.check
        return show(kind, int(seed), bool(args.check))
    return run_campaign(args)


if __name__ == "__main__":
    sys.exit(main())
