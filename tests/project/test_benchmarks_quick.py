"""The benchmark suite (benchmarks/run.py) in its --quick form: every workload compiles, runs
and is checked against NumPy, at 1 and 2 threads, JAX's form too where JAX is installed (and
Numba's where Numba is), and a wrong result fails the run. No timing is asserted: the quick
sizes are tiny and CI machines are noisy."""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

from benchmarks.workloads import NAMES  # (the repository root is on the path: conftest.py)

RUN = ROOT / "benchmarks" / "run.py"
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.mg"))
HAS_JAX = importlib.util.find_spec("jax") is not None  # (found, not imported: JAX runs in the subprocess)
HAS_NUMBA = importlib.util.find_spec("numba") is not None  # (not in the test extra: CI has none)
F32 = ("relu_add_f32", "matmul_f32", "layer_f32", "softmax", "attention", "batched_matmul_f32", "exp_f32")
PRODUCTS = ("matmul", "layer", "two_layers", "matmul_f32", "batched_matmul", "layer_f32", "attention")
PRODUCTS += ("batched_matmul_f32", "attention_f64")


pytest.importorskip("threadpoolctl")


def run(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MGC_NO_CACHE", None)
    return subprocess.run(
        [sys.executable, str(RUN), *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=timeout
    )


def table_rows(stdout: str) -> list[list[str]]:
    """The data rows of the markdown tables, as lists of cells."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] not in ("workload", "example"):
                rows.append(cells)
    return rows


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "results.json"
    p = run("--quick", "--json", str(out))
    return p, out


def test_quick_run_passes(quick):
    p, out = quick
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "Every result checked correct" in p.stdout


def test_table_has_every_workload_at_every_thread_count(quick):
    p, _ = quick
    rows = table_rows(p.stdout)
    kernels = {(r[0], r[2]) for r in rows if r[0] in NAMES}
    assert kernels == {(name, t) for name in NAMES for t in ("1", "2")}
    assert all(r[-1] == "ok" for r in rows), [r for r in rows if r[-1] != "ok"]
    examples = {r[0] for r in rows if r[0].endswith(".mg")}
    assert examples == {f"{e}.mg" for e in EXAMPLES}
    # The machine's context heads the report.
    for words in ("CPU:", "NumPy's BLAS:", "OPENBLAS_CORETYPE", "threads measured: 1, 2", "JAX and Numba:"):
        assert words in p.stdout
    # The columns: every side's median, then the ratios against mg.
    assert "| mg | NumPy | JAX | Numba | NumPy / mg | JAX / mg | Numba / mg |" in p.stdout
    jax_cells = {r[5] for r in rows if r[0] in NAMES and r[2] == "1"}
    assert ("not installed" not in jax_cells) if HAS_JAX else (jax_cells == {"not installed"}), jax_cells


def test_json_records_a_check_for_every_workload(quick):
    _, out = quick
    report = json.loads(out.read_text())
    assert report["ok"] is True
    assert report["settings"]["quick"] is True
    assert {
        "date",
        "cpu_model",
        "cpu_count",
        "affinity_count",
        "numpy",
        "llvmlite",
        "blas",
        "openblas_coretype",
    } <= set(report["context"])
    assert [c["threads"] for c in report["children"]] == [1, 2]
    assert all(c["exit_code"] == 0 for c in report["children"])
    kernels = report["kernels"]
    assert {(r["name"], r["threads"]) for r in kernels} == {(n, t) for n in NAMES for t in (1, 2)}
    for r in kernels:
        assert r["check"]["passed"] is True, r
        # (f32 rounds each step at 2^-24; an integer sum is exact)
        assert r["check"]["rtol"] == (1e-5 if r["name"] in F32 else 0.0 if r["name"] == "sum_i32" else 1e-9)
        assert r["mg"]["median_s"] > 0 and r["numpy"]["median_s"] > 0 and r["ratio"] > 0
        assert r["ratios"]["numpy"] == r["ratio"]
        assert r["mg"]["unit"] == ("GFLOP/s" if r["name"] in PRODUCTS else "GB/s")
        # JAX: every workload has a form; --quick runs it (and Numba) at the first thread count.
        if r["threads"] == 2:
            assert r["status"] == {"jax": "off", "numba": "off"}, r["status"]
        elif HAS_JAX:
            assert r["status"]["jax"] == "timed" and r["checks"]["jax"]["passed"] is True, r
            assert r["checks"]["jax"]["rtol"] == r["check"]["rtol"] and r["checks"]["jax"]["atol"] == r["check"]["atol"]
            assert r["jax"]["median_s"] > 0 and r["ratios"]["jax"] > 0
        else:
            assert r["status"]["jax"] == "not installed"
        if r["threads"] == 1:
            assert r["status"]["numba"] == "off"  # (--quick leaves Numba out unless --numba)
            assert "numba" not in r
    # A sum's tolerance grows with its length; elementwise results must be exact.
    atol = {r["name"]: r["check"]["atol"] for r in kernels}
    assert atol["add"] == atol["relu_add"] == atol["row_max"] == atol["relu_add_f32"] == atol["sum_i32"] == 0.0
    assert atol["row_sum"] > 0 and atol["matmul"] > 0 and atol["two_layers"] > 0
    assert {r["example"] for r in report["mgc_run"]} == {f"{e}.mg" for e in EXAMPLES}
    for r in report["mgc_run"]:
        assert r["check"]["passed"] is True, r
        assert r["cached"]["median_s"] > 0 and "no_cache" not in r  # (--quick: one run, cached)


def test_a_wrong_result_fails_the_run(tmp_path):
    """--self-test-wrong moves every expected result by one part in a million: far beyond the
    tolerance, so each check must fail, be recorded, and make the exit status non-zero."""
    out = tmp_path / "wrong.json"
    p = run(
        "--quick",
        "--self-test-wrong",
        "--threads",
        "1",
        "--only",
        "^row_sum ",
        "--only",
        "^matmul n=32",
        "--only",
        "01_relu",
        "--json",
        str(out),
    )
    assert p.returncode == 1, p.stdout + p.stderr
    assert "FAILED: 3 check(s)" in p.stdout
    report = json.loads(out.read_text())
    assert report["ok"] is False
    records = report["kernels"] + report["mgc_run"]
    assert [r["id"] for r in records] == ["row_sum 67x64", "matmul n=32", "mgc_run 01_relu"]
    for r in records:
        assert r["check"]["passed"] is False and r["check"]["error"]
        assert "mg" not in r and "cached" not in r  # a wrong result is not timed
    for r in report["kernels"]:  # JAX's results are checked against the same expectation
        assert r["status"]["jax"] == ("failed" if HAS_JAX else "not installed"), r["status"]
        assert "jax" not in r


@pytest.mark.skipif(not HAS_NUMBA, reason="numba is not installed (the bench extra has it; CI need not)")
def test_the_numba_forms_run_in_parallel_and_are_checked(tmp_path):
    """The issue's Numba workloads, njit'ed with parallel=True (prange) at 2 threads, checked
    against NumPy and timed; a wrong expectation fails Numba's check too."""
    out = tmp_path / "numba.json"
    only = ["--only", "^(softmax|row_sum|relu_chain|layer_norm) "]
    p = run("--quick", "--numba", "--no-jax", "--threads", "2", *only, "--json", str(out))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    report = json.loads(out.read_text())
    assert {r["name"] for r in report["kernels"]} == {"softmax", "row_sum", "relu_chain", "layer_norm"}
    for r in report["kernels"]:
        assert r["status"] == {"jax": "off", "numba": "timed"} and r["checks"]["numba"]["passed"] is True, r
        assert r["numba"]["median_s"] > 0 and r["ratios"]["numba"] > 0
    numba = report["children"][0]["others"]["numba"]
    assert numba["parallel"] is True and numba["num_threads"] == 2 and numba["threading_layer"]
    assert "Numba " in p.stdout and "parallel=True, 2 threads" in p.stdout
    p = run("--quick", "--numba", "--no-jax", "--threads", "1", "--only", "^relu_chain ", "--self-test-wrong")
    assert p.returncode == 1 and "Numba: " in p.stdout, p.stdout[-3000:]


def test_missing_jax_and_numba_leave_their_columns_saying_so(tmp_path):
    """Without JAX and Numba (their imports fail, as where they are not installed) the run
    still measures mg and NumPy, and their columns say "not installed"."""
    for name in ("jax", "numba"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f'raise ModuleNotFoundError("No module named {name!r}")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    env.pop("MGC_NO_CACHE", None)
    only = ["--only", "^add 64x64", "--only", "^softmax "]
    p = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--numba", "--threads", "1", *only, "--json", str(tmp_path / "r.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = [r for r in table_rows(p.stdout) if r[0] in NAMES]
    assert [(r[0], r[5], r[6], r[8], r[9], r[-1]) for r in rows] == [
        (name, "not installed", "not installed", "-", "-", "ok") for name in ("add", "softmax")
    ]
    assert "JAX not installed; Numba not installed" in p.stdout


def test_bad_arguments():
    p = run("--only", "no-such-workload")
    assert p.returncode == 2 and "no workload matches" in p.stderr
    assert run("--threads", "0").returncode == 2


def test_compile_time_section_measures_and_checks(tmp_path):
    """The compile-time benchmark at tiny sizes: every program compiles cold, prints what
    NumPy computes, and the table has a row per size, program (the chain, and the chain as a
    def a loop calls) and pipeline (times mean nothing)."""
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compile_time.py"), "--sizes", "3,6", "--reps", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [r for r in table_rows(p.stdout) if r[0] in ("3", "6")]
    assert {(r[0], r[1], r[2]) for r in rows} == {
        (n, program, k) for n in ("3", "6") for program in ("chain", "loop") for k in ("optimised", "reference")
    }
    if shutil.which("mlir-opt-22"):
        assert all("x" in r[-1] and "mlir-opt" not in r[-1] for r in rows), rows
    assert "Where the time goes (optimised, seconds)" in p.stdout
    assert "| step | 3 statements | 6 statements |" in p.stdout


@pytest.mark.skipif(not HAS_JAX, reason="jax is not installed")
def test_compile_time_against_jax_has_a_row_per_function():
    """benchmarks/compile_vs_jax.py at the --quick sizes: the issue's seven functions, the
    first compile of the process and their total, each compiled by mg (cold, and with its
    kernels cached) and by JAX, each time with its two parts (times mean nothing)."""
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compile_vs_jax.py"), "--quick", "--reps", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [r for r in table_rows(p.stdout) if r[0] != "function"]
    names = ("first", "layer", "layer_f32", "softmax", "attention", "row_sum", "relu_chain", "layer_norm", "total")
    assert [r[0].split(" ")[0] for r in rows] == list(names), rows
    # Each side's time, and its two parts: "54 ms (25 ms + 29 ms)".
    parts = re.compile(r"\d+(\.\d+)? (ms|s) \(\d+(\.\d+)? (ms|s) \+ \d+(\.\d+)? (ms|s)\)")
    assert all(parts.fullmatch(r[k]) for r in rows for k in (1, 2, 3)), rows
    assert all(float(r[4]) > 0 and float(r[5]) > 0 for r in rows), rows


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset (util-linux) binds each run to its cores")
def test_the_training_step_benchmark_runs_and_checks_its_results():
    """benchmarks/training_step.py: mg's step (value_and_grad and the updates) against JAX's and
    a hand-written NumPy backprop, results checked equal (a difference fails the run)."""
    if not HAS_JAX:
        pytest.skip("jax is not installed")
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "training_step.py"), "--threads", "1", "--reps", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if line.startswith("| digits") or line.startswith("| 784")]
    assert len(rows) == 2, p.stdout
