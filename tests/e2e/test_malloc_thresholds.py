"""The Python API, ``mgc run`` and executables fix glibc's malloc thresholds
(``mg_xdsl.backend.malloc_thresholds``), so that the buffers compiled code allocates and
frees on every call, or every iteration of a loop, are reused, not given back to the system
and faulted in again. Counted in minor page faults (``getrusage``), not time: through the
API, 20 calls of the attention of the JAX issue (2 MiB intermediate buffers) after a few
calls; the same in a program's loop of 20 iterations, run by ``mgc run`` and as an
executable; each with and without ``MG_MALLOC=system``. (Two heads of it, so that the
softmax, a def called twice, is not inlined: each call returns a buffer of its own.)"""

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import mgc, tool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc: Linux only")

ATTENTION = """
def softmax(s: tensor[8x256x256xf32]) -> tensor[8x256x256xf32]:
    let e = exp(s - max(s, axes=[-1], keepdims=true))
    return e / sum(e, axes=[-1], keepdims=true)

def f(q: tensor[8x256x64xf32], kt: tensor[8x64x256xf32], v: tensor[8x256x64xf32]) -> tensor[8x256x64xf32]:
    return softmax(q @ kt * 0.125) @ v + softmax(q @ kt * 0.0625) @ v
"""

_PROCESS = """
import resource, sys
import numpy as np
import mg_xdsl

lib = mg_xdsl.compile(sys.argv[1])
rng = np.random.default_rng(0)
q, kt, v = (rng.standard_normal(s).astype(np.float32) for s in ((8, 256, 64), (8, 64, 256), (8, 256, 64)))
for _ in range(3):
    result = lib.f(q, kt, v)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    assert np.array_equal(lib.f(q, kt, v), result)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def faults_per_call(**env: str) -> float:
    p = subprocess.run(
        [sys.executable, "-c", _PROCESS, ATTENTION],
        env={**os.environ, "MG_NUM_THREADS": "1", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return float(p.stdout)


def test_the_buffers_of_a_call_are_reused_by_the_next():
    # Its 2 MiB buffers are 512 pages each: a call that faulted them in would count hundreds.
    assert faults_per_call() < 50


def test_without_the_setting_each_call_faults_its_buffers_in_again():
    """Why the setting is there (MG_MALLOC=system leaves malloc as it is): glibc gives the
    buffers back to the system after each call."""
    assert faults_per_call(MG_MALLOC="system") > 200


# The attention again, in a loop: its buffers of 2 MiB freed at the end of each iteration.
LOOP = (
    ATTENTION
    + """
let q = cast(normal([8, 256, 64], std=1.0, seed=1), f32)
let kt = cast(normal([8, 64, 256], std=1.0, seed=2), f32)
let v = cast(normal([8, 256, 64], std=1.0, seed=3), f32)
var s: tensor[] = 0.0
for i in range(20):
    s += cast(sum(f(q, kt, v)), f64)
println("{s > -1.0e300}")
"""
)


def child_faults(command: list[str], **env: str) -> int:
    """The minor page faults of running ``command`` (which must print ``True``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    p = subprocess.run(
        command, env={**os.environ, "MG_NUM_THREADS": "1", **env}, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0 and p.stdout.strip() == "True", p.stderr
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before


@pytest.fixture(scope="module")
def loop_program(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("malloc") / "loop.mg"
    path.write_text(LOOP)
    return path


def test_a_loops_buffers_are_reused_by_mgc_run(loop_program):
    run = [tool("mgc"), "run", str(loop_program)]
    child_faults(run)  # (compiled and cached: the runs below load it)
    tuned, system = child_faults(run), child_faults(run, MG_MALLOC="system")
    # Both count Python's start, some 6000 faults; each iteration that faults its buffers
    # in again adds about 1000.
    assert system - tuned > 20 * 500, (tuned, system)


def test_a_loops_buffers_are_reused_by_an_executable(loop_program, tmp_path):
    exe = tmp_path / "loop"
    built = mgc("build", str(loop_program), "-o", str(exe))
    assert built.returncode == 0, built.stderr
    tuned, system = child_faults([str(exe)]), child_faults([str(exe)], MG_MALLOC="system")
    assert tuned < 5000 and system > 10 * tuned, (tuned, system)
