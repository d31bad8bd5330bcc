#!/usr/bin/env python3
"""Prove the tests can fail: apply each mutation of mutations.py to a copy of the project,
run the test suite against it, and report which test caught it.

    python tests/mutation/run.py                 all mutations (about a minute each)
    python tests/mutation/run.py --sample 5      a fixed sample (what CI runs)
    python tests/mutation/run.py --only 3 7      by number

READ THIS FIRST: this script runs deliberately broken copies of the compiler. A FAILED test
under a mutation is the expected, wanted result: it shows the tests notice the bug. The
baseline (the unmodified copy) must pass, and a mutation that no test catches is a hole in
the tests; the script exits non-zero if there is one. The copy is found first on PYTHONPATH,
so `mgc`, `mg-opt` and in-process imports all use the mutated code; the real tree is never
touched. Tests stop at the first failure (-x), so the table names the first test to catch
each mutation.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from mutations import MUTATIONS  # noqa: E402

# Fast, decisive tests first: with -x a mutation usually stops within seconds.
TEST_ORDER = [
    "tests/test_diagnostic_codes.py", "tests/test_filecheck.py", "tests/test_op_builders.py", "tests/test_llvm_ir.py", "tests/test_xdsl_compat.py",
    "tests/test_print_runtime.py", "tests/test_element_types.py", "tests/test_ranks.py", "tests/test_typed_programs.py",
    "tests/test_builtins.py", "tests/test_element_access.py", "tests/test_variables.py", "tests/test_random.py", "tests/test_scans.py", "tests/test_shape_ops.py",
    "tests/test_views.py", "tests/test_indexing.py",
    "tests/test_optimised.py",
    "tests/test_threads_runtime.py",
    "tests/test_codegen.py", "tests/test_target.py", "tests/test_examples.py", "tests/test_malformed.py",
    "tests/test_stages.py", "tests/test_api.py", "tests/test_llvm_conversions.py",
    "tests/test_cli.py", "tests/test_compile_cache.py", "tests/test_cpp.py", "tests/test_build.py", "tests/test_gpu_ptx.py", "tests/gpu",
    "tests/test_properties.py",
]


def copy_project(dest: Path) -> None:
    for part in ("mg_xdsl", "tests", "examples", "benchmarks", "pyproject.toml"):
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__", "Output", ".hypothesis"))
        else:
            shutil.copy2(src, dest / part)


def run_tests(tree: Path) -> tuple[bool, str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "MG_PROPERTY_EXAMPLES": "60"}
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *TEST_ORDER],
                       cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
    failed = re.findall(r"^FAILED (\S+)", p.stdout, re.M) or re.findall(r"^ERROR (\S+)", p.stdout, re.M)
    crashed = "Fatal Python error" in p.stdout + p.stderr
    caught = p.returncode != 0
    what = failed[0] if failed else ("crashed the test process" if crashed else p.stdout.strip().splitlines()[-1:])
    return caught, str(what), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, help="run only every k-th mutation, k chosen to give this many")
    parser.add_argument("--only", type=int, nargs="*", help="mutation numbers to run (1-based)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the baseline run (when the caller has just run the suite itself)")
    args = parser.parse_args()
    chosen = list(enumerate(MUTATIONS, start=1))
    if args.only:
        chosen = [c for c in chosen if c[0] in args.only]
    elif args.sample:
        step = max(1, len(chosen) // args.sample)
        chosen = chosen[::step][: args.sample]
    print("NOTE: this script deliberately runs broken copies of the compiler; FAILED tests under a "
          "mutation are the expected result. The baseline must pass.")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_baseline:
            base = Path(tmp, "baseline")
            copy_project(base)
            failed, what, seconds = run_tests(base)
            print(f"baseline (unmodified): {'FAILED: ' + what if failed else 'all tests pass'} ({seconds:.0f} s)")
            if failed:
                return 2
        rows, survivors = [], 0
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
            caught, what, seconds = run_tests(tree)
            survivors += not caught
            rows.append((n, m.breaks, f"{what} ({seconds:.0f} s)" if caught else "SURVIVED: no test failed"))
            print(f"{n:>2}. {m.breaks}: {rows[-1][2]}", flush=True)
            shutil.rmtree(tree, ignore_errors=True)
    print("\n| # | mutation | caught by |\n| --- | --- | --- |")
    for n, breaks, what in rows:
        print(f"| {n} | {breaks} | {what} |")
    print(f"\n{len(rows) - survivors} of {len(rows)} mutations caught")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
