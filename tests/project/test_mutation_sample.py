"""A fixed sample of the mutation run (tests/mutation/run.py): each mutation must make a
test fail. The full run is documented in docs/testing.md; this suite itself is the baseline."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT

# A fixed sample of mutations, each with the tests that catch it: the full run (run.py's
# default) offers a mutation to every test file in order, which took ten minutes of one
# worker; the sample runs only what catches it, in half a minute.
SAMPLE = [
    (["26"], ["tests/e2e/test_examples.py"], ""),  # the printer's separator: every example's output
    # a reduction writing the wrong cell (the equivalent mutant), no dealloc: the FileCheck
    # tests that catch them, chosen by lit's own filter (a regular expression on the paths)
    (["9", "33"], ["tests/filecheck/test_filecheck.py"], "lower-mg-to-affine/reduce|buffer-deallocation"),
]


@pytest.mark.parametrize("mutations, tests, lit_filter", SAMPLE, ids=["examples", "lit"])
def test_sampled_mutations_are_all_caught(mutations, tests, lit_filter):
    p = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "mutation" / "run.py"), "--no-baseline", "--only", *mutations]
        + ["--tests", *tests],
        capture_output=True,
        text=True,
        timeout=3000,
        env={**os.environ, "LIT_FILTER": lit_filter} if lit_filter else None,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"{len(mutations)} of {len(mutations)} mutations caught" in p.stdout


def test_every_mutation_still_applies():
    """Each mutation's text occurs exactly once in its file: a mutation whose code has
    changed under it would otherwise be reported as not applicable, not as caught."""
    sys.path.insert(0, str(ROOT / "tests" / "mutation"))
    from mutations import MUTATIONS

    stale = [
        (i, m.file, (ROOT / m.file).read_text().count(m.old))
        for i, m in enumerate(MUTATIONS, 1)
        if (ROOT / m.file).read_text().count(m.old) != 1
    ]
    assert not stale, stale


def test_every_test_file_is_run_or_left_out_with_a_reason():
    """The full run offers each mutation to the test files of ``TEST_ORDER``, in order; a file
    missing there (and not in ``LEFT_OUT``, with why) would let a mutation that only its tests
    catch be reported as surviving, as a new file's were."""
    module = runner()
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))
    ordered = [f for f in files if any(f == t or f.startswith(t + "/") for t in module.TEST_ORDER)]
    left_out = [f for f in files if f in module.LEFT_OUT]
    assert set(ordered) & set(left_out) == set()
    assert sorted(ordered + left_out) == files, sorted(set(files) - set(ordered) - set(left_out))
    assert all((ROOT / t).exists() for t in [*module.TEST_ORDER, *module.LEFT_OUT])


def runner():
    """tests/mutation/run.py as a module (it is a script, not a package's)."""
    spec = importlib.util.spec_from_file_location("mutation_run", ROOT / "tests" / "mutation" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A test process that dies proves nothing about a mutation: it is a crash, never a catch.
FAKE_TESTS = {
    "passes": ("def test_fine():\n    assert True\n", "passed", "all tests pass"),
    "fails": ("def test_wrong():\n    assert 1 == 2\n", "failed", "test_fails.py::test_wrong"),
    "aborts": (
        "import os\n\ndef test_abort():\n    os.abort()\n",
        "crashed",
        "killed by SIGABRT, Fatal Python error: Aborted in test_abort (test_aborts.py:4)",
    ),
    "exits": ("import os\n\ndef test_exit():\n    os._exit(77)\n", "crashed", "exit status 77"),
    "collects_nothing": ("", "error", "no tests were collected (exit status 5)"),
}


@pytest.mark.parametrize("name", FAKE_TESTS)
def test_a_crashed_test_process_is_told_from_a_failed_test(tmp_path, name):
    source, status, what = FAKE_TESTS[name]
    (tmp_path / f"test_{name}.py").write_text(source)
    outcome = runner().run_tests(tmp_path, [f"test_{name}.py"])
    assert (outcome.status, outcome.what) == (status, what)


def test_a_crashed_baseline_stops_the_run_and_a_crashed_mutation_is_no_catch(tmp_path):
    aborts = tmp_path / "test_aborts.py"
    aborts.write_text(FAKE_TESTS["aborts"][0])
    script = str(ROOT / "tests" / "mutation" / "run.py")
    p = subprocess.run(
        [sys.executable, script, "--baseline-only", "--tests", str(aborts)], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 2, p.stdout + p.stderr
    assert "baseline (unmodified): CRASHED: killed by SIGABRT, Fatal Python error: Aborted in test_abort" in p.stdout
    assert "The baseline is broken" in p.stdout
    p = subprocess.run(
        [sys.executable, script, "--no-baseline", "--only", "1", "--tests", str(aborts)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 1, p.stdout + p.stderr
    assert " 1. " in p.stdout and "crashed: killed by SIGABRT" in p.stdout and "(not a catch)" in p.stdout
    assert "0 of 1 mutations caught (1 crashed or not run)" in p.stdout


def test_the_baseline_runs_again_with_fresh_seeds(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        textwrap.dedent("""\
        from hypothesis import given, settings, strategies as st

        @given(st.integers())
        def test_any(x):
            assert settings.default.derandomize is False  # the explore profile, not ci
        """)
    )
    probe_conftest = tmp_path / "conftest.py"  # (the suite's profiles, as tests/conftest.py registers them)
    probe_conftest.write_text(
        "from hypothesis import settings\nsettings.register_profile('explore', derandomize=False)\n"
    )
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "mutation" / "run.py"),
            "--baseline-only",
            "--runs",
            "3",
            "--seed",
            "fresh",
            "--tests",
            str(probe),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    seeds = [
        line.split("[hypothesis seed ")[1].split("]")[0]
        for line in p.stdout.splitlines()
        if line.startswith("baseline (unmodified) run ")
    ]
    assert len(seeds) == 3 and len(set(seeds)) == 3, p.stdout
    p = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "mutation" / "run.py"), "--baseline-only", "--runs", "3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "give --seed fresh" in p.stderr


def test_the_copy_holds_everything_the_project_tracks():
    """A tracked file the mutation runner does not copy would fail its tests in every copy,
    and every mutation would seem caught by them."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    tops = {line.split("/", 1)[0] for line in tracked.stdout.splitlines() if line}
    assert tops - {".gitignore"} <= set(runner().PARTS), tops
