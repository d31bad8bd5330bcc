#!/usr/bin/env python3
"""Prove the tests can fail: apply each mutation of mutations.py to a copy of the project,
run the test suite against it, and report which test caught it.

    python tests/mutation/run.py                 all mutations (about a minute each)
    python tests/mutation/run.py --sample 5      a fixed sample (what CI runs)
    python tests/mutation/run.py --only 3 7      by number
    python tests/mutation/run.py --baseline-only --runs 3 --seed fresh
                                                 the unmodified suite three times, each with
                                                 fresh hypothesis examples (seeds printed)

READ THIS FIRST: this script runs deliberately broken copies of the compiler. A FAILED test
under a mutation is the expected, wanted result: it shows the tests notice the bug. The
baseline (the unmodified copy) must pass, and a mutation that no test catches is a hole in
the tests; the script exits non-zero if there is one. The copy is found first on PYTHONPATH,
so `mgc`, `mg-opt` and in-process imports all use the mutated code; the real tree is never
touched. Tests stop at the first failure (-x), so the table names the first test to catch
each mutation.

A test run ends one of three ways: the tests pass; a test fails (pytest's exit status 1, or
2 where collecting the tests failed), which under a mutation is a catch; or the test process
crashes (killed by a signal, a "Fatal Python error", any exit status outside pytest's own 0
to 5), which proves nothing: a crashed baseline is a broken baseline (the run stops), and a
crashed mutation is reported as "crashed: ..." and not counted as caught. (Exit statuses 3 to
5, pytest's internal and usage errors and an empty collection, are no catch either.)

The suite's hypothesis tests draw the same examples on every run (tests/conftest.py's
profile "ci"); --seed N or --seed fresh runs them with the profile "explore" and that seed
(fresh: a new one for each run, printed so that a failure can be reproduced with --seed N).
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from mutations import MUTATIONS  # noqa: E402

# Fast, decisive tests first: with -x a mutation usually stops within seconds.
TEST_ORDER = [
    "tests/unit/language/test_diagnostic_codes.py",
    "tests/filecheck/test_filecheck.py",
    # println of whole tensors and gradients: their own fast tests first
    "tests/unit/backend/test_runtime_print_array_ir.py",
    "tests/e2e/test_gradients.py",
    "tests/e2e/test_gradients_bf16_sums.py",
    "tests/unit/transforms/mg/test_autodiff_rules.py",
    "tests/unit/transforms/mg/test_mg_cse.py",
    "tests/unit/transforms/math/test_math_accuracy.py",
    "tests/unit/support/test_op_builders.py",
    "tests/unit/backend/test_llvm_ir.py",
    "tests/unit/support/test_xdsl_compat.py",
    "tests/unit/core/test_format_spec.py",
    "tests/unit/dialects/test_mg_dialect.py",
    "tests/unit/language/test_frontend_diagnostics.py",
    "tests/unit/language/test_frontend_input_forms.py",
    "tests/unit/language/test_frontend_stages.py",
    "tests/unit/transforms/test_cse.py",
    "tests/unit/backend/test_symbols.py",
    "tests/unit/backend/test_multiple_results.py",
    "tests/unit/backend/test_runtime_core.py",
    "tests/unit/backend/test_runtime_files_ir.py",
    "tests/unit/backend/test_engine_exports.py",
    "tests/unit/backend/test_code_generator.py",
    "tests/unit/support/test_collector.py",
    "tests/unit/conversions/test_upstream_inputs.py",
    "tests/unit/tools/test_mg_opt.py",
    "tests/unit/backend/test_print_runtime.py",
    "tests/unit/dialects/test_element_types.py",
    "tests/unit/language/test_compile_errors.py",
    "tests/e2e/test_ranks.py",
    "tests/e2e/test_typed_programs.py",
    "tests/e2e/test_builtins.py",
    "tests/e2e/test_element_access.py",
    "tests/e2e/test_variables.py",
    "tests/e2e/test_random.py",
    "tests/e2e/test_scans.py",
    "tests/e2e/test_shape_ops.py",
    "tests/e2e/test_views.py",
    "tests/e2e/test_indexing.py",
    "tests/e2e/test_optimised.py",
    "tests/e2e/test_row_fusion.py",
    "tests/e2e/test_malloc_thresholds.py",
    "tests/unit/backend/test_threads_runtime.py",
    "tests/unit/backend/test_codegen.py",
    "tests/unit/core/test_target.py",
    "tests/e2e/test_examples.py",
    "tests/unit/language/test_malformed.py",
    "tests/unit/pipeline/test_registry.py",
    "tests/unit/pipeline/test_stages.py",
    "tests/e2e/test_api.py",
    "tests/e2e/test_api_called_defs.py",
    "tests/e2e/test_api_disk_cache.py",
    "tests/e2e/test_api_kernels_apart.py",
    "tests/e2e/test_api_two_threads.py",
    "tests/unit/conversions/test_llvm_conversions.py",
    "tests/unit/tools/test_cli.py",
    "tests/unit/backend/test_compile_cache.py",
    "tests/e2e/test_cpp.py",
    "tests/e2e/test_build.py",
    "tests/e2e/test_upstream.py",
    "tests/e2e/gpu/test_gpu_ptx.py",
    "tests/e2e/gpu",
    "tests/properties/test_properties.py",
    "tests/properties/test_random_programs.py",
    "tests/properties/test_compile_growth.py",
    "tests/e2e/test_long_programs.py",
    # the programs' tests, last: a mutation an older test catches never runs them
    "tests/e2e/test_blocks.py",
    "tests/e2e/test_program_features.py",
    "tests/e2e/test_control_flow_ir.py",
    "tests/properties/test_blocks_random.py",
    "tests/e2e/test_println_ir.py",
    "tests/e2e/test_files_ir.py",
    "tests/e2e/test_arguments_ir.py",
    "tests/e2e/test_program_examples.py",
    "tests/e2e/test_digits_training.py",
    "tests/properties/test_autodiff_random.py",
]

# The test files the run leaves out, and why. Every other test file is in TEST_ORDER
# (tests/project/test_mutation_sample.py checks that each file is in one of the two), so
# that a mutation only a new file's tests catch is not reported as surviving.
LEFT_OUT = {
    "tests/project/test_mutation_sample.py": "runs this script itself",
    "tests/project/test_benchmarks_quick.py": "times the benchmarks (minutes); its checks of results repeat the e2e tests'",
    "tests/project/test_readme.py": "the README's and docs' commands and text, which no mutation of the code changes",
    "tests/project/test_layers.py": "which modules import which, which no mutation changes",
}


# Everything the project tracks (the tests read the scripts, the docs and the README too): a
# part left out would fail its tests in every copy, and every mutation would seem caught.
PARTS = (
    "mg_xdsl",
    "tests",
    "examples",
    "benchmarks",
    "scripts",
    "docs",
    ".ci",
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
)


def copy_project(dest: Path) -> None:
    for part in PARTS:
        src = ROOT / part
        if src.is_dir():
            # (not lit's outputs and timings: a parallel run of the suite, this script's
            # caller, may be writing them while the copy is made)
            ignore = shutil.ignore_patterns("__pycache__", "Output", ".lit_test_times.txt", ".hypothesis")
            shutil.copytree(src, dest / part, ignore=ignore)
        else:
            shutil.copy2(src, dest / part)


# pytest's own exit statuses (pytest.ExitCode): every other status is the process crashing.
PYTEST_FAILED = {1: "tests failed", 2: "interrupted (collecting the tests failed)"}
PYTEST_ERRORS = {3: "pytest's internal error", 4: "pytest's usage error", 5: "no tests were collected"}


@dataclass
class Outcome:
    """How one run of the tests ended: ``passed``, ``failed`` (a test failed: a catch),
    ``crashed`` (the test process died) or ``error`` (pytest could not run the tests)."""

    status: str
    what: str  # the first failed test, or what crashed and where
    seconds: float


def classify(returncode: int, stdout: str, stderr: str) -> tuple[str, str]:
    """The status and description of a pytest run that ended with ``returncode``."""
    if returncode == 0:
        return "passed", "all tests pass"
    if returncode in PYTEST_FAILED:
        failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", stdout, re.M)
        return "failed", failed[0] if failed else PYTEST_FAILED[returncode]
    if returncode in PYTEST_ERRORS:
        return "error", f"{PYTEST_ERRORS[returncode]} (exit status {returncode})"
    # A crash: a signal (negative: the process was killed), or a status pytest never gives.
    how = (
        f"killed by {signal.Signals(-returncode).name}"
        if returncode < 0 and -returncode in signal.valid_signals()
        else f"exit status {returncode}"
    )
    fatal = re.search(r"^Fatal Python error: (.*)$", stderr + stdout, re.M)
    # (faulthandler's traceback, most recent call first: the innermost test function)
    test = re.search(r'File "([^"]+)", line (\d+) in (test\w*)', stderr + stdout)
    where = f" in {test.group(3)} ({Path(test.group(1)).name}:{test.group(2)})" if test else ""
    return "crashed", f"{how}{', Fatal Python error: ' + fatal.group(1) if fatal else ''}{where}"


def run_tests(tree: Path, tests: list[str] = TEST_ORDER, pytest_args: list[str] = ()) -> Outcome:
    env = {**os.environ, "PYTHONPATH": str(tree), "MG_PROPERTY_EXAMPLES": "60"}
    start = time.perf_counter()
    # -n 0: in this process, in TEST_ORDER, not on pyproject.toml's parallel workers, whose
    # crash pytest-xdist reports as a failed test (a catch) and not as the crash it is.
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *pytest_args, *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    status, what = classify(p.returncode, p.stdout, p.stderr)
    return Outcome(status, what, time.perf_counter() - start)


def seed_arguments(seed: str | None) -> tuple[list[str], str]:
    """pytest's arguments for ``--seed`` (none: the suite's derandomised examples), and how
    the run is described."""
    if seed is None:
        return [], ""
    chosen = random.randrange(2**32) if seed == "fresh" else int(seed)
    return ["--hypothesis-profile=explore", f"--hypothesis-seed={chosen}"], f" [hypothesis seed {chosen}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, help="run only every k-th mutation, k chosen to give this many")
    parser.add_argument("--only", type=int, nargs="*", help="mutation numbers to run (1-based)")
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the baseline run (when the caller has just run the suite itself)",
    )
    parser.add_argument("--baseline-only", action="store_true", help="run the baseline, no mutation")
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="run the baseline N times (with --seed fresh: each with new examples)",
    )
    parser.add_argument(
        "--seed",
        metavar="N|fresh",
        help="run the hypothesis tests with random examples from seed N, or a fresh seed "
        "for each run (default: the suite's fixed, derandomised examples)",
    )
    parser.add_argument(
        "--tests",
        nargs="+",
        metavar="PATH",
        default=TEST_ORDER,
        help="the test files to run, relative to the project (default: the whole suite, fastest first)",
    )
    args = parser.parse_args(argv)
    if args.seed not in (None, "fresh") and not args.seed.isdigit():
        parser.error(f"--seed takes a number or 'fresh', not {args.seed!r}")
    if args.runs > 1 and args.seed != "fresh":
        parser.error("--runs N repeats the baseline: give --seed fresh, or each run draws the same examples")
    if args.baseline_only and args.no_baseline:
        parser.error("--baseline-only and --no-baseline leave nothing to run")
    chosen = list(enumerate(MUTATIONS, start=1))
    if args.only:
        chosen = [c for c in chosen if c[0] in args.only]
    elif args.sample:
        step = max(1, len(chosen) // args.sample)
        chosen = chosen[::step][: args.sample]
    print(
        "NOTE: this script deliberately runs broken copies of the compiler; FAILED tests under a "
        "mutation are the expected result. The baseline must pass."
    )
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_baseline:
            base = Path(tmp, "baseline")
            copy_project(base)
            for run in range(1, args.runs + 1):
                extra, seeded = seed_arguments(args.seed)
                outcome = run_tests(base, args.tests, extra)
                count = f" run {run} of {args.runs}" if args.runs > 1 else ""
                print(
                    f"baseline (unmodified){count}{seeded}: "
                    f"{'' if outcome.status == 'passed' else outcome.status.upper() + ': '}{outcome.what} "
                    f"({outcome.seconds:.0f} s)",
                    flush=True,
                )
                if outcome.status != "passed":
                    if outcome.status == "crashed":
                        print(
                            "The baseline is broken: the test process crashed, which no mutation run can "
                            "tell from a catch. Fix the crash first."
                        )
                    return 2
            if args.baseline_only:
                return 0
        rows, survivors, crashes = [], 0, 0
        for n, m in chosen:
            tree = Path(tmp, f"m{n}")
            copy_project(tree)
            target = tree / m.file
            text = target.read_text()
            if text.count(m.old) != 1:
                rows.append((n, m.breaks, f"MUTATION DID NOT APPLY ({text.count(m.old)} matches)"))
                survivors += 1
                continue
            target.write_text(text.replace(m.old, m.new))
            extra, seeded = seed_arguments(args.seed)
            outcome = run_tests(tree, args.tests, extra)
            if outcome.status == "failed":
                result = f"{outcome.what} ({outcome.seconds:.0f} s){seeded}"
            elif outcome.status == "passed":
                result, survivors = f"SURVIVED: no test failed{seeded}", survivors + 1
            else:  # neither a catch nor a survivor: the tests proved nothing
                result, crashes = f"{outcome.status}: {outcome.what} (not a catch){seeded}", crashes + 1
            rows.append((n, m.breaks, result))
            print(f"{n:>2}. {m.breaks}: {rows[-1][2]}", flush=True)
            shutil.rmtree(tree, ignore_errors=True)
    print("\n| # | mutation | caught by |\n| --- | --- | --- |")
    for n, breaks, what in rows:
        print(f"| {n} | {breaks} | {what} |")
    caught = len(rows) - survivors - crashes
    print(f"\n{caught} of {len(rows)} mutations caught" + (f" ({crashes} crashed or not run)" if crashes else ""))
    return 1 if survivors or crashes else 0


if __name__ == "__main__":
    sys.exit(main())
