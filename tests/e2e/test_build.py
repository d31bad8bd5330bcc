"""`mgc build`: every example as a native executable prints what `mgc run` prints (the
expected files), aborts with status 134 on a failed run-time check, and frees all it
allocates (valgrind: no errors, nothing definitely lost). An allocation that fails, in an
executable or under `mgc run`, is reported and aborts."""

import platform
import re
import resource
import shutil
import subprocess

import pytest
from conftest import EXAMPLES, mask, mgc, tool
from helpers.examples import CASES, check_outcome, expected_of, short_run

RUNNABLE = [c for c in CASES if expected_of(c)[1] != 1]
ERRORS = [c for c in CASES if expected_of(c)[1] == 1]


def build_all(out, *flags: str) -> dict:
    built = {}
    for rel in RUNNABLE:
        exe = out / rel.stem
        p = mgc("build", str(rel), "-o", str(exe), *flags, cwd=EXAMPLES)
        assert p.returncode == 0, p.stderr.decode()
        built[rel] = exe
    return built


@pytest.fixture(scope="module")
def executables(tmp_path_factory):
    return build_all(tmp_path_factory.mktemp("exe"))


@pytest.fixture(scope="module")
def valgrind_executables(tmp_path_factory):
    """Built for a CPU that valgrind can decode: code for this host may use AVX-512, which
    valgrind 3.19 does not know (it stops with SIGILL on it)."""
    flags = ("--cpu", "x86-64-v3") if platform.machine() == "x86_64" else ()
    return build_all(tmp_path_factory.mktemp("exe-valgrind"), *flags)


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
def test_no_leaks_under_valgrind(valgrind_executables, rel):
    # (The thread pool's workers live until the process exits: their stacks are "possibly
    # lost", by design; a leak is a block definitely or indirectly lost.)
    p = subprocess.run(
        [
            "valgrind",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=99",
            str(valgrind_executables[rel]),
            *short_run(rel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode != 99, p.stderr
    assert "ERROR SUMMARY: 0 errors" in p.stderr, p.stderr
    lost = re.search(r"definitely lost: ([\d,]+) bytes", p.stderr)
    assert lost is None or lost.group(1) == "0", p.stderr


# An outer product of two 30000-element literals: a 7.2 GB result, whose size the compiled
# code computes from its `?` arguments at run time. The processes below may map at most
# 3 GiB, so the allocation fails on any machine (and never runs the machine out of memory).
OUTER_N = 30_000
ADDRESS_SPACE = 3 << 30


def limited_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.fixture(scope="module")
def huge_outer(tmp_path_factory):
    path = tmp_path_factory.mktemp("oom") / "outer.mg"
    column = "[" + ", ".join(["[1]"] * OUTER_N) + "]"
    row = "[[" + ", ".join(["2"] * OUTER_N) + "]]"
    path.write_text(f"def outer(a: tensor[?x1], b: tensor[1x?]) = a @ b\nprint [[7]]\nprint outer({column}, {row})\n")
    return path


def check_out_of_memory(p: subprocess.CompletedProcess) -> None:
    assert p.returncode in (134, -6), p.stderr
    assert mask(p.stdout.decode()).endswith("data = \n[[7]]\n")  # what came before is printed
    assert p.stderr.decode() == f"mg: out of memory allocating {OUTER_N * OUTER_N * 8} bytes\n"


@pytest.mark.parametrize(
    "flags",
    [
        (),
        ("--reference",),
        pytest.param(
            ("--backend", "mlir"),
            marks=pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="mlir-opt-22 is not installed"),
        ),
    ],
    ids=["optimised", "reference", "upstream"],
)
def test_failed_allocation_aborts_mgc_run_with_the_message(huge_outer, flags):
    p = subprocess.run(
        [tool("mgc"), "run", *flags, str(huge_outer)],
        capture_output=True,
        timeout=300,
        preexec_fn=limited_address_space,
    )
    check_out_of_memory(p)


def test_failed_allocation_aborts_an_executable_with_the_message(huge_outer, tmp_path):
    exe = tmp_path / "outer"
    p = mgc("build", str(huge_outer), "-o", str(exe), timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    check_out_of_memory(subprocess.run([str(exe)], capture_output=True, timeout=60, preexec_fn=limited_address_space))
