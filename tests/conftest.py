"""Shared helpers for the pytest suite."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

import mg_xdsl  # noqa: F401  (first, as in mgc: it defers xDSL's formats before a test imports xDSL)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent
ADDRESS = re.compile(r"base@ = 0x[0-9a-fA-F]+")

# The tests import conftest's helpers and tests/helpers/ by name (tests/ on the path), and
# the benchmarks' workloads as benchmarks.workloads (the repository root on the path), from
# whichever folder a test runs.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Every compilation in the tests (in this process and in the `mgc` runs it starts) verifies
# the IR after every stage, so that a pass that breaks the IR fails at its own stage. Users'
# compilations verify only the last stage; tests/unit/tools/test_cli.py checks that default.
os.environ.setdefault("MGC_VERIFY_EACH", "1")

# The property tests (hypothesis) draw the same examples on every run of the suite, plain
# `pytest` included, on whichever worker of a parallel run (pytest-xdist) a test lands: each
# test's examples come from a seed derived from the test itself (derandomize), and no
# database of past failures (.hypothesis/) steers them, so a commit that passed passes
# again. Each test's @settings(max_examples=..., deadline=...) keeps these. To
# look for new failures, run with fresh random examples (and the database) instead:
#     pytest --hypothesis-profile=explore tests/properties/test_properties.py
#     HYPOTHESIS_PROFILE=explore pytest ...         (pytest --hypothesis-seed=N: one chosen seed)
# A failure prints the example and a @reproduce_failure blob, in either profile. Tests that
# draw arrays with NumPy take their seed from a hypothesis strategy or a constant, never from
# the clock.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The suite runs on pytest-xdist's workers (pyproject.toml's addopts: -n auto): this many at
# most, however many cores there are. Beyond it the longest modules (the mutation sample, the
# random programs: minutes each, on one worker) bound the run's time, and each worker holds
# up to 1 GiB. (`-n N` or PYTEST_XDIST_AUTO_NUM_WORKERS=N chooses N workers; `-n 0` runs the
# tests in this process.)
MAX_AUTO_WORKERS = 8


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a worker per core this process may use (CI's two), at most MAX_AUTO_WORKERS."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cores, MAX_AUTO_WORKERS)


# The longest modules, longest first (minutes each on CI's two cores): `--dist loadfile` hands
# whole modules to the workers in the order of the collection, and a long module handed out
# near the end kept one worker busy for minutes after the other had run out of work. Every
# other module follows in its collected order, and each module's tests keep theirs.
LONGEST_MODULES = [
    "tests/properties/test_random_programs.py",
    "tests/project/test_benchmarks_quick.py",
    "tests/e2e/test_upstream.py",
    "tests/properties/test_properties.py",
    "tests/e2e/test_program_features.py",
    "tests/e2e/test_long_programs.py",
    "tests/properties/test_autodiff_random.py",
    "tests/filecheck/test_filecheck.py",
    "tests/unit/transforms/mg/test_autodiff_rules.py",
    "tests/unit/backend/test_symbols.py",
    "tests/properties/test_blocks_random.py",
    "tests/e2e/test_build.py",
]


def pytest_collection_modifyitems(config, items):
    rank = {module: i for i, module in enumerate(LONGEST_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # (a stable sort)


@pytest.fixture(scope="module", autouse=True)
def compile_cache_dir(tmp_path_factory):
    """Give `mgc run`'s on-disk cache of compiled programs a directory of each test module's
    own, so that tests never read or fill ~/.cache, and no module finds programs another one
    compiled (a test may expect `mgc run` to compile). The cache stays on, as users have it:
    within a module, the programs it repeats run from the cache. (In a parallel run each
    worker has directories of its own, tmp_path_factory's: no two workers share one.)"""
    path = tmp_path_factory.mktemp("mgc-cache")
    previous = os.environ.get("MGC_CACHE_DIR")
    os.environ["MGC_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        del os.environ["MGC_CACHE_DIR"]
    else:
        os.environ["MGC_CACHE_DIR"] = previous


@pytest.fixture(scope="module")
def ctx():
    """An xDSL context with every dialect xDSL has, for parsing hand-written IR."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects

    context = Context()
    for name, factory in get_all_dialects().items():
        context.register_dialect(name, factory)
    return context


def mask(text: str) -> str:
    """Memref addresses differ from run to run; the chapter's listings show them as 0x…."""
    return ADDRESS.sub("base@ = 0x…", text)


def tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else name


def mgc(
    *args: str, cwd: Path | str = ROOT, input: bytes | None = None, env: dict | None = None, timeout: int = 120
) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [tool("mgc"), *args], cwd=cwd, capture_output=True, input=input, env=full_env, timeout=timeout
    )


def run_in_process(source: str, path: str = "prog.mg", optimise: bool = True) -> str:
    """Compile and run a program in this process; what it printed. (A failed run-time check
    would abort this process: run such programs with ``mgc``.)"""
    from mg_xdsl.backend import runtime
    from mg_xdsl.driver import Compilation

    engine = Compilation(source, path, keep_dir=None, optimise=optimise).engine()
    with runtime.capture() as out:
        engine.run_main()
    return out.getvalue()


class _FdWriter:
    """A text stream that writes straight to a file descriptor (nothing is lost if the
    process then aborts)."""

    def __init__(self, fd: int):
        self.fd = fd

    def write(self, text: str) -> int:
        os.write(self.fd, text.encode())
        return len(text)

    def flush(self) -> None:
        pass


def run_forked(source: str, path: str = "prog.mg", optimise: bool = True) -> tuple[str, str, int]:
    """Compile a program in this process and run it in a forked child, as ``mgc run`` would:
    (stdout, stderr, exit status). A failed run-time check aborts only the child."""
    from mg_xdsl.backend import runtime
    from mg_xdsl.driver import Compilation

    engine = Compilation(source, path, keep_dir=None, optimise=optimise).engine()
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without running the parent's clean-ups
        status = 1
        try:
            import faulthandler

            faulthandler.disable()  # an expected abort is not a crash to report
            os.close(out_r)
            os.close(err_r)
            os.dup2(err_w, 2)
            runtime._output.append(_FdWriter(out_w))
            engine.run_main()
            status = 0
        finally:
            os._exit(status)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, "rb") as out, os.fdopen(err_r, "rb") as err:
        stdout, stderr = out.read(), err.read()  # small: the pipes cannot fill up first
    _, status = os.waitpid(pid, 0)
    return stdout.decode(), stderr.decode(), os.waitstatus_to_exitcode(status)


def compile_error(source: str) -> str:
    """What compiling ``source`` (one more line end added) reports: the text of the
    ``MgError`` it must raise."""
    from mg_xdsl.language.frontend import MgError

    with pytest.raises(MgError) as e:
        mg_xdsl.compile(source + "\n")
    return str(e.value)


def gpu_agrees(source: str) -> None:
    """``source`` prints on the emulated GPU what it prints on the CPU, and its kernels'
    PTX assembles with ptxas (skipped, saying why, where ptxas is not installed)."""
    from mg_xdsl.backend.ptx import find_ptxas

    cpu = mgc("run", "-", input=source.encode())
    gpu = mgc("run", "--gpu-emulated", "-", input=source.encode())
    assert cpu.returncode == gpu.returncode == 0, gpu.stderr
    assert mask(gpu.stdout.decode()) == mask(cpu.stdout.decode())
    if find_ptxas() is None:
        pytest.skip("ptxas not found: pip install 'mg-xdsl[gpu]' (nvidia-cuda-nvcc) or put ptxas on PATH")
    out = mgc("ptx", "--check", "-", input=source.encode())
    assert out.returncode == 0, out.stderr
