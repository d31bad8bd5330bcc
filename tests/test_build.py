"""`mgc build`: every example as a native executable prints what `mgc run` prints (the
expected files), aborts with status 134 on a failed run-time check, and frees all it
allocates (valgrind: no errors, nothing definitely lost)."""

import re
import shutil
import subprocess

import pytest

from conftest import EXAMPLES, mgc
from test_examples import CASES, check_outcome, expected_of

RUNNABLE = [c for c in CASES if expected_of(c)[1] != 1]
ERRORS = [c for c in CASES if expected_of(c)[1] == 1]


@pytest.fixture(scope="module")
def executables(tmp_path_factory):
    out = tmp_path_factory.mktemp("exe")
    built = {}
    for rel in RUNNABLE:
        exe = out / rel.stem
        p = mgc("build", str(rel), "-o", str(exe), cwd=EXAMPLES)
        assert p.returncode == 0, p.stderr.decode()
        built[rel] = exe
    return built


@pytest.mark.parametrize("rel", RUNNABLE, ids=[str(c) for c in RUNNABLE])
def test_executable_prints_what_mgc_run_prints(executables, rel):
    p = subprocess.run([str(executables[rel])], capture_output=True, timeout=60)
    check_outcome(p, rel)


@pytest.mark.parametrize("rel", ERRORS, ids=[str(c) for c in ERRORS])
def test_build_reports_compile_errors(tmp_path, rel):
    p = mgc("build", str(rel), "-o", str(tmp_path / "exe"), cwd=EXAMPLES)
    check_outcome(p, rel)
    assert not (tmp_path / "exe").exists()


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize("rel", RUNNABLE, ids=[str(c) for c in RUNNABLE])
def test_no_leaks_under_valgrind(executables, rel):
    p = subprocess.run(["valgrind", "--leak-check=full", "--error-exitcode=99", str(executables[rel])],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode != 99, p.stderr
    assert "ERROR SUMMARY: 0 errors" in p.stderr, p.stderr
    lost = re.search(r"definitely lost: ([\d,]+) bytes", p.stderr)
    assert lost is None or lost.group(1) == "0", p.stderr
