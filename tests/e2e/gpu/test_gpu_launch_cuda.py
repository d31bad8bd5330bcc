"""`mgc run --gpu` and ``compile(..., gpu=True)`` on a real NVIDIA GPU.

These need the hardware: on a machine without a GPU (or without its driver, or without
cuda-python, or with a driver too old for the installed cuda-python) every test here is
skipped, and the reason says which. The same host side runs
on every machine in ``test_gpu_launch_emulated.py``.
"""

import threading

import numpy as np
import pytest
from conftest import EXAMPLES, mgc
from helpers.examples import CASES, check_outcome
from helpers.printed import printed_arrays
from helpers_gpu import BLOCK_PROGRAMS, SOURCE, block_reference, cases, reference

import mg_xdsl
from mg_xdsl.api import RuntimeCheckFailed
from mg_xdsl.backend import gpu_runtime
from mg_xdsl.backend.ptx import compile_ptx, find_ptxas, ptxas_check

_ok, _why = gpu_runtime.cuda_available()
pytestmark = pytest.mark.skipif(not _ok, reason=f"no usable NVIDIA GPU: {_why}")


@pytest.mark.parametrize("rel", CASES, ids=[str(c) for c in CASES])
def test_example_on_gpu(rel):
    """Every example prints on the GPU exactly what the chapter lists for the CPU."""
    check_outcome(mgc("run", "--gpu", str(rel), cwd=EXAMPLES), rel)


def test_api_agrees_with_numpy():
    lib = mg_xdsl.compile(SOURCE, gpu=True)
    rng = np.random.default_rng(5)
    for name, args in cases(rng, big=True):
        np.testing.assert_allclose(
            getattr(lib, name)(*args),
            reference(name, *args),
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"{name} at {[a.shape for a in args]}",
        )


def test_large_layer():
    """A 1024x1024 layer: 4096 blocks for the elementwise kernels."""
    lib = mg_xdsl.compile(SOURCE, gpu=True)
    rng = np.random.default_rng(6)
    x, w, b = rng.normal(size=(1024, 256)), rng.normal(size=(256, 1024)), rng.normal(size=(1024, 1024))
    np.testing.assert_allclose(lib.layer(x, w, b), reference("layer", x, w, b), rtol=1e-10, atol=1e-10)


def test_runtime_check_on_gpu_then_good_call():
    lib = mg_xdsl.compile(SOURCE, gpu=True)
    a = np.ones((4, 2))
    with pytest.raises(RuntimeCheckFailed, match="mg.sub: operand shapes differ at runtime"):
        lib.diff(a, np.ones((5, 2)))
    np.testing.assert_array_equal(lib.diff(a, 2 * a), [[-2.0, -2.0]])


def test_call_from_another_thread():
    """The CUDA context is current per thread: a launch from a thread other than the one
    that set the device up must make it current itself (else CUDA_ERROR_INVALID_CONTEXT)."""
    lib = mg_xdsl.compile(SOURCE, gpu=True)
    rng = np.random.default_rng(9)
    args = list(cases(rng))
    out = {}
    t = threading.Thread(target=lambda: out.update(got=[getattr(lib, n)(*a) for n, a in args]))
    t.start()
    t.join()
    assert "got" in out, "the call in the second thread raised (see the thread's traceback above)"
    for (name, a), got in zip(args, out["got"]):
        np.testing.assert_allclose(got, reference(name, *a), rtol=1e-12, atol=1e-12)


def test_relu_propagates_nan_on_gpu():
    lib = mg_xdsl.compile("def r(a: tensor[?x?]) = relu(a)", gpu=True)
    out = lib.r(np.array([[np.nan, -1.0, 2.0]]))
    assert np.isnan(out[0, 0]) and list(out[0, 1:]) == [0.0, 2.0]


def test_ptx_for_this_gpu_assembles():
    arch = gpu_runtime.cuda_device().arch
    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    ok, message = ptxas_check(compile_ptx((EXAMPLES / "10_gpu_layer.mg").read_text(), "10", arch), arch)
    assert ok, message


@pytest.mark.parametrize("name", sorted(BLOCK_PROGRAMS))
def test_programs_with_blocks_on_gpu(name):
    """Loops, conditionals and block-bodied defs around the kernels print NumPy's values."""
    p = mgc("run", "--gpu", "-", input=BLOCK_PROGRAMS[name].encode())
    assert p.returncode == 0, p.stderr.decode()
    got, want = printed_arrays(p.stdout.decode()), block_reference(name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=5e-6)
