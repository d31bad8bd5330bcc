"""A gradient campaign: many random differentiable programs (``helpers/gradient_programs.py``),
each compiled in both pipelines, in its element types (``f64`` and ``f32``; a bf16 program,
a share of them, ``bf16`` and ``f64``), run at 1 and 2 threads (``MG_NUM_THREADS``; the
reference pipeline has no threads: 1 only), and its gradients compared with ``jax.grad``'s
(``jax.value_and_grad``, 64-bit types enabled). Some of the programs' parameters declare
``?`` sizes; the summary counts the operations that met one.

Run it from the repository root, in the project's virtual environment (with JAX installed):

    python -m tests.properties.fuzz.gradient_campaign --programs 300 --jobs 2      # a new seed, printed
    python -m tests.properties.fuzz.gradient_campaign --programs 300 --seed 17
    python -m tests.properties.fuzz.gradient_campaign --programs 200 --seed 17 --start 100  # its last 200
    python -m tests.properties.fuzz.gradient_campaign --show 17000042             # one program, both types
    python -m tests.properties.fuzz.gradient_campaign --check 17000042            # run that one

Program ``i`` of a run with seed ``S`` has the seed ``S * 1000000 + i`` (``--show`` and
``--check`` take it); every ``--large-every``-th one is a large program (sizes up to 256,
enough work for the threads). Each failure is written to ``OUT/<kind>/<seed>-<dtype>-<pipeline>/``
(``prog.mg``, ``reference.py``: the program as JAX code, the ``.npy`` files it loads,
``expected/`` and ``got/``: JAX's and mg's outputs, ``verdict.txt``, ``reproduce.sh``), and
a summary to ``OUT/summary.txt``: outcomes, failures, how often each operation appeared (and
with a ``?`` size), and how close the bf16 outputs came to their tolerance. A run stopped by
SIGTERM writes the summary of the programs it checked (``--start`` goes on from there).
This kind is separate from ``campaign.py``'s: its oracle is JAX, not the NumPy reference,
and its programs save files instead of printing.
"""

import argparse
import os
import random
import re
import signal
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

try:  # (under pytest, tests/ is on the path; from the repository root, tests is a namespace)
    from helpers import gradient_programs as gp
except ImportError:
    from tests.helpers import gradient_programs as gp

PIPELINES = {"optimised": True, "reference": False}

# Every stage verified, as the test suite compiles: a pass that breaks the IR fails there.
os.environ.setdefault("MGC_VERIFY_EACH", "1")


def program_seed(base: int, index: int) -> int:
    return base * 1_000_000 + index


def is_large(seed: int, every: int) -> bool:
    return every > 0 and seed % every == every - 1


def margins(program, run, want, want64) -> list[float]:
    """For a bf16 program's run: each output's largest error over its tolerance (at most 1
    where it passes), to show how close the outputs come to it."""
    out = []
    if program.dtype != "bf16" or run.phase != "ran":
        return out
    for _, (status, _, outs) in sorted(run.runs.items()):
        for g, w, w64 in zip(outs, want, want64, strict=True):
            if status == 0 and g is not None:
                w64 = np.asarray(w64, dtype=np.float64)
                tolerance = gp.bf16_tolerance(np.asarray(w, dtype=np.float64), w64)
                out.append(float(np.max(np.abs(g - w64) / np.maximum(tolerance, 1e-300), initial=0.0)))
    return out


def verdicts(program, run, want, want64) -> list[tuple[str, str]]:
    """(key, detail) of each way a run went wrong: empty if it matched JAX at every thread
    count and the thread counts agreed bit for bit."""
    if run.phase != "ran":
        first = run.message.strip().splitlines()
        code = re.search(r"\[(E-[A-Z]+-\d+)\]", run.message)
        key = f"{run.phase}: {code.group(1) if code else (first[-1] if first else '')}"
        return [(key[:120], run.message)]
    found = []
    outputs = {}
    for threads, (status, printed, outs) in sorted(run.runs.items()):
        if status != 0:
            found.append((f"exit status {status}", printed[-3000:]))
            continue
        problem = gp.difference(program, outs, want, want64)
        if problem:
            name = problem.split(":")[0]
            found.append((f"wrong {'value' if name == 'value.npy' else 'gradient'} (threads {threads})", problem))
        outputs[threads] = outs
    if len(outputs) > 1:
        first, *others = outputs.values()
        for other in others:
            for name, a, b in zip(program.outputs, first, other, strict=True):
                if a is not None and b is not None and not np.array_equal(a, b, equal_nan=True):
                    found.append(("threads differ", f"{name}: 1 and 2 threads give different bits"))
    return found


def save_failure(out: Path, program, pipeline: str, key: str, detail: str, run, want) -> Path:
    folder = out / slug(key) / f"{program.seed}-{program.dtype}-{pipeline}"
    program.write(folder)
    (folder / "expected").mkdir(exist_ok=True)
    for name, value in zip(program.outputs, want, strict=True):
        np.save(folder / "expected" / name, value)
    if run.phase == "ran":
        (folder / "got").mkdir(exist_ok=True)
        for threads, (_, printed, outs) in run.runs.items():
            (folder / "got" / f"t{threads}.txt").write_text(printed)
            for name, value in zip(program.outputs, outs, strict=True):
                if value is not None:
                    np.save(folder / "got" / f"t{threads}-{name}", value)
    (folder / "verdict.txt").write_text(f"{key} ({pipeline} pipeline, {program.dtype})\n\n{detail}\n")
    flag = " --reference" if pipeline == "reference" else ""
    (folder / "reproduce.sh").write_text(
        f"# {key}; expected/ is what JAX computes (reference.py)\n"
        f"mgc run --no-cache{flag} prog.mg   # MG_NUM_THREADS=1 or 2; it saves {' '.join(program.outputs)}\n"
        f"# again: python -m tests.properties.fuzz.gradient_campaign --check {program.seed}\n"
    )
    return folder


def slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")[:80] or "failure"


def run_campaign(args) -> int:
    base = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    dtypes = args.dtypes.split(",")  # (of each program's types, those listed)
    print(
        f"seed {base}: python -m tests.properties.fuzz.gradient_campaign --programs {args.programs} --seed {base} "
        f"--dtypes {args.dtypes} --jobs {args.jobs} --large-every {args.large_every}"
        + (f" --start {args.start}" if args.start else ""),
        flush=True,
    )
    started = time.monotonic()
    out = Path(args.out)
    work = Path(args.work)
    seeds = [program_seed(base, i) for i in range(args.start, args.start + args.programs)]
    generated = [gp.generate(s, large=is_large(s, args.large_every)) for s in seeds]
    tally = Tally()
    # (SIGTERM: stop, and write the summary of the programs checked so far)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        with gp.Runner(args.jobs) as runner:
            check_all(args, runner, generated, dtypes, work, started, tally)
    finally:
        print(summary(args, base, out, started, tally))
    return 1 if tally.failures else 0


@dataclass
class Tally:
    """What a campaign found so far."""

    checked: int = 0  # programs
    ops: Counter = field(default_factory=Counter)
    features: Counter = field(default_factory=Counter)
    counts: Counter = field(default_factory=Counter)  # (label, "pass" or "fail")
    failures: dict = field(default_factory=lambda: defaultdict(list))
    ratios: list = field(default_factory=list)  # bf16 outputs' error / tolerance


def check_all(args, runner, generated, dtypes, work, started, tally: Tally) -> None:
    """Submits every program, then compares each with JAX as its runs come back."""
    tickets = {}
    for gen in generated:
        for dtype in [d for d in gen.dtypes if d in dtypes]:
            program = gen.program(dtype)
            for pipeline, optimise in PIPELINES.items():
                threads = (1, 2) if optimise else (1,)
                folder = work / f"{gen.seed}-{dtype}-{pipeline}"
                tickets[(gen.seed, dtype, pipeline)] = (
                    program,
                    runner.submit(program, folder, optimise, threads, args.timeout),
                )
    for n, gen in enumerate(generated, 1):
        references = {}
        types = [d for d in gen.dtypes if d in dtypes]
        for dtype in types:
            references[dtype] = gp.jax_reference(gen.program(dtype))
        want64 = references.get("f64") or gp.jax_reference(gen.program("f64"))
        for dtype in types:
            for pipeline in PIPELINES:
                program, ticket = tickets[(gen.seed, dtype, pipeline)]
                run = runner.wait(ticket)
                found = verdicts(program, run, references[dtype], want64)
                tally.ratios += margins(program, run, references[dtype], want64)
                label = f"{'large ' if gen.large else ''}{dtype} {pipeline}"
                tally.counts[(label, "fail" if found else "pass")] += 1
                for key, detail in found:
                    tally.failures[key].append((program, pipeline, detail, run, references[dtype]))
                    print(f"  {gen.seed} {dtype} {pipeline}: {key}", flush=True)  # (as found)
        tally.ops += gen.ops()
        tally.features += gen.features
        tally.checked = n
        if n % max(1, len(generated) // 20) == 0:
            print(f"  {n}/{len(generated)} programs, {time.monotonic() - started:.0f} s", flush=True)


def summary(args, base, out, started, tally: Tally) -> str:
    """The campaign's summary (written to ``OUT/summary.txt``), the failures' folders saved."""
    ops, features, counts, failures, ratios = tally.ops, tally.features, tally.counts, tally.failures, tally.ratios
    stopped = "" if tally.checked == args.programs else f" (stopped: {tally.checked} checked: --start to go on)"
    first = f" from {args.start}" if args.start else ""
    lines = [f"seed {base}, {args.programs} programs{first}{stopped}, {time.monotonic() - started:.0f} s", ""]
    labels = sorted({label for label, _ in counts})
    lines += [f"  {label:24} pass {counts[(label, 'pass')]:5d}  fail {counts[(label, 'fail')]:5d}" for label in labels]
    lines += ["", "failures (key: runs; the folder of the first few):"]
    if not failures:
        lines.append("  none")
    for key, group in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        programs = len({p.seed for p, *_ in group})
        lines.append(f"  {key}: {len(group)} runs, {programs} programs")
        for program, pipeline, detail, run, want in group[: args.keep]:
            folder = save_failure(out, program, pipeline, key, detail, run, want)
            lines.append(f"      {folder}  {detail.splitlines()[0][:150] if detail else ''}")
    total = sum(ops.values())
    dynamic = Counter({k[1]: n for k, n in features.items() if k[0] == "? op"})
    lines += ["", f"operations ({total} in all, {len(ops)} kinds), how many times each appeared (with a '?' size):"]
    lines += [f"  {op:24} {n:6d} {dynamic[op]:6d}" for op, n in ops.most_common()]
    if ratios:
        q = np.quantile(ratios, [0.5, 0.9, 0.99, 1.0])
        lines += ["", f"bf16 outputs ({len(ratios)}): error / tolerance, median {q[0]:.3f}, 90% {q[1]:.3f}, "]
        lines[-1] += f"99% {q[2]:.3f}, largest {q[3]:.3f}"
    lines += ["", "program features:"]
    lines += [f"  {' '.join(map(str, k)):40} {n:6d}" for k, n in sorted(features.items(), key=str) if k[0] != "? op"]
    text = "\n".join(lines) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.txt").write_text(text)
    return text


def show(seed: int, large_every: int, check: bool, work: Path) -> int:
    gen = gp.generate(seed, large=is_large(seed, large_every))
    status = 0
    for dtype in gen.dtypes:
        program = gen.program(dtype)
        print(f"--- {dtype}\n{program.source}--- as JAX code\n{program.reference}")
    if not check:
        return 0
    with gp.Runner(1) as runner:
        want64 = gp.jax_reference(gen.program("f64"))
        for dtype in gen.dtypes:
            program = gen.program(dtype)
            want = gp.jax_reference(program)
            for pipeline, optimise in PIPELINES.items():
                threads = (1, 2) if optimise else (1,)
                ticket = runner.submit(program, work / f"{seed}-{dtype}-{pipeline}", optimise, threads)
                found = verdicts(program, runner.wait(ticket), want, want64)
                print(f"--- {dtype} {pipeline}: {'fail' if found else 'pass'}")
                for key, detail in found:
                    print(f"{key}\n{detail}")
                status |= bool(found)
    return status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.properties.fuzz.gradient_campaign",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--programs", type=int, default=200, help="how many programs (default 200)")
    parser.add_argument("--seed", type=int, help="the run's seed (default: a new one, printed)")
    parser.add_argument(
        "--start", type=int, default=0, help="the first program's index (default 0; a stopped run goes on from there)"
    )
    parser.add_argument(
        "--dtypes", default="f64,f32,bf16", help="element types, of each program's own (default f64,f32,bf16)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="programs compiled and run at once (default 2)")
    parser.add_argument("--large-every", type=int, default=10, help="every Nth program is large (default 10; 0: none)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds for one compile and its runs (default 300)")
    parser.add_argument(
        "--out", default="fuzz-failures/gradients", help="where failures go (default fuzz-failures/gradients/)"
    )
    parser.add_argument("--work", default="/tmp/mg-gradient-campaign", help="where programs run (default /tmp/...)")
    parser.add_argument("--keep", type=int, default=5, help="failures of each kind to save (default 5)")
    parser.add_argument("--show", type=int, metavar="SEED", help="print one program, as mg and as JAX code")
    parser.add_argument("--check", type=int, metavar="SEED", help="run one program in both pipelines and types")
    args = parser.parse_args(argv)
    if args.show is not None or args.check is not None:
        seed = args.show if args.show is not None else args.check
        return show(seed, args.large_every, args.check is not None, Path(args.work))
    return run_campaign(args)


if __name__ == "__main__":
    sys.exit(main())
