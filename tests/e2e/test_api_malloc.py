"""The Python API fixes glibc's malloc thresholds (``mg_xdsl.api._settle_malloc``), so that
the buffers compiled code allocates and frees on every call are reused, not given back to
the system and faulted in again at the next call. Counted in page faults, not time: each
process compiles the attention of the JAX issue (2 MiB intermediate buffers), calls it a few
times, then counts the minor page faults of 20 more calls (``getrusage``)."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc: Linux only")

ATTENTION = """
def softmax(s: tensor[8x256x256xf32]) -> tensor[8x256x256xf32]:
    let e = exp(s - max(s, axes=[-1], keepdims=true))
    return e / sum(e, axes=[-1], keepdims=true)

def f(q: tensor[8x256x64xf32], kt: tensor[8x64x256xf32], v: tensor[8x256x64xf32]) -> tensor[8x256x64xf32]:
    return softmax(q @ kt * 0.125) @ v
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
