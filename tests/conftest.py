"""Shared helpers for the pytest suite."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent
ADDRESS = re.compile(r"base@ = 0x[0-9a-fA-F]+")

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="module", autouse=True)
def compile_cache_dir(tmp_path_factory):
    """Give `mgc run`'s on-disk cache of compiled programs a directory of each test module's
    own, so that tests never read or fill ~/.cache, and no module finds programs another one
    compiled (a test may expect `mgc run` to compile). The cache stays on, as users have it:
    within a module, the programs it repeats run from the cache."""
    path = tmp_path_factory.mktemp("mgc-cache")
    previous = os.environ.get("MGC_CACHE_DIR")
    os.environ["MGC_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        del os.environ["MGC_CACHE_DIR"]
    else:
        os.environ["MGC_CACHE_DIR"] = previous


def mask(text: str) -> str:
    """Memref addresses differ from run to run; the chapter's listings show them as 0x…."""
    return ADDRESS.sub("base@ = 0x…", text)


def tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else name


def mgc(*args: str, cwd: Path | str = ROOT, input: bytes | None = None, env: dict | None = None,
        timeout: int = 120) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([tool("mgc"), *args], cwd=cwd, capture_output=True, input=input,
                          env=full_env, timeout=timeout)


def run_in_process(source: str, path: str = "prog.mg") -> str:
    """Compile and run a program in this process; what it printed."""
    from mg_xdsl.backend import runtime
    from mg_xdsl.driver import Compilation

    engine = Compilation(source, path, keep_dir=None).engine()
    with runtime.capture() as out:
        engine.run_main()
    return out.getvalue()


