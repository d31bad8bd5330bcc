"""``CudaDevice`` -- the launcher's NVIDIA side -- run against a stand-in for cuda-python's
driver module (``fake_cuda.FakeDriver``), on every machine.

The stand-in keeps what real hardware would show: a context is current per thread, a call
without one fails with CUDA_ERROR_INVALID_CONTEXT (201), failures can be injected into any
call, and the kernels really run (on the emulated device), so results are checked against
NumPy. ``test_gpu_launch_cuda.py`` runs the same code on a real GPU where there is one.
"""

import threading

import numpy as np
import pytest
from conftest import EXAMPLES
from fake_cuda import CudaDeviceOnFake, CUresult, FakeDriver
from helpers_gpu import SOURCE, cases, reference

import mg_xdsl
from mg_xdsl.api import RuntimeCheckFailed
from mg_xdsl.backend import gpu_runtime
from mg_xdsl.tools import mgc as cli


@pytest.fixture
def fake(monkeypatch) -> FakeDriver:
    """A fake driver, which every ``gpu=True`` compilation in the test uses."""
    driver = FakeDriver()
    device = CudaDeviceOnFake(driver)
    monkeypatch.setattr(gpu_runtime, "device", lambda kind: device)
    return driver


def in_thread(work):
    """``work()`` run in a new thread: its result, or the exception it raised."""
    out = {}

    def run():
        try:
            out["result"] = work()
        except BaseException as e:  # handed back to the test's thread
            out["error"] = e

    t = threading.Thread(target=run, name="second")
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["result"]


def test_on_the_fake_driver_results_agree_with_numpy(fake):
    lib = mg_xdsl.api.Library(SOURCE, "fake.mg", "cuda")
    rng = np.random.default_rng(7)
    for name, args in cases(rng):
        np.testing.assert_allclose(
            getattr(lib, name)(*args),
            reference(name, *args),
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"{name} at {[a.shape for a in args]}",
        )
    assert fake.memory == {}  # every device buffer freed
    assert fake.cuCtxGetCurrent()[1] is None  # and the context made current only while launching


def test_calls_from_another_thread(fake):
    """A function compiled in one thread and called in another launches in the caller's
    thread, where the device's context was never made current: each launch must make it
    current itself (the driver answers 201, invalid context, otherwise)."""
    lib = mg_xdsl.api.Library(SOURCE, "threads.mg", "cuda")
    rng = np.random.default_rng(8)
    args = [(name, a) for name, a in cases(rng)]

    def work():
        return [getattr(lib, name)(*a) for name, a in args]

    for (name, a), got in zip(args, in_thread(work)):
        np.testing.assert_allclose(got, reference(name, *a), rtol=1e-12, atol=1e-12)
    assert fake.launched_in and set(fake.launched_in) == {"second"}
    assert fake.memory == {}


def test_the_callers_own_context_is_current_again_afterwards(fake):
    """The device's context is pushed and popped, not set: a context that another library
    made current in the calling thread stays current."""
    lib = mg_xdsl.api.Library("def f(a: tensor[?x?]) = relu(a)", "own.mg", "cuda")
    theirs = object()

    def work():
        fake.cuCtxSetCurrent(theirs)
        out = lib.f(np.array([[-1.0, 2.0]]))
        return out, fake.cuCtxGetCurrent()[1]

    out, current = in_thread(work)
    np.testing.assert_array_equal(out, [[0.0, 2.0]])
    assert current is theirs


def test_failed_launch_frees_every_buffer_and_reports_the_launch(fake, capsys):
    """A launch fails and so does one cuMemFree after it: the other buffers are still freed,
    and the error reported first is the launch's, with the free's after it."""
    lib = mg_xdsl.api.Library("def f(a: tensor[?x?], b: tensor[?x?]) = a + b", "fail.mg", "cuda")
    fake.fail_next["cuLaunchKernel"] = CUresult.CUDA_ERROR_LAUNCH_FAILED
    fake.fail_next["cuMemFree"] = CUresult.CUDA_ERROR_INVALID_VALUE
    with pytest.raises(RuntimeCheckFailed):
        lib.f(np.ones((3, 4)), np.ones((3, 4)))
    err = capsys.readouterr().err
    assert err.splitlines()[:2] == [
        "mgc: error: GPU: kernel f_kernel: cuLaunchKernel failed: unspecified launch failure",
        "mgc: (also: cuMemFree failed: invalid argument)",
    ]
    # Three buffers (a, b, the result): all three frees tried, only the failed one left.
    assert len(fake.freed) == 3 and list(fake.memory) == [fake.freed[0]]
    # The device is still usable.
    np.testing.assert_array_equal(lib.f(np.ones((1, 2)), np.ones((1, 2))), [[2.0, 2.0]])


def test_failed_free_after_a_good_launch_is_reported(fake, capsys):
    lib = mg_xdsl.api.Library("def f(a: tensor[?x?], b: tensor[?x?]) = a + b", "free.mg", "cuda")
    fake.fail_next["cuMemFree"] = CUresult.CUDA_ERROR_INVALID_VALUE
    with pytest.raises(RuntimeCheckFailed):
        lib.f(np.ones((3, 4)), np.ones((3, 4)))
    assert (
        capsys.readouterr().err.splitlines()[0]
        == "mgc: error: GPU: kernel f_kernel: cuMemFree failed: invalid argument"
    )
    assert len(fake.freed) == 3 and len(fake.memory) == 1


# -- a driver too old for the installed cuda-python ---------------------------------------------

TOO_OLD = (
    "the NVIDIA driver (version 550.54.15, CUDA 12.4) is too old for cuda-python 13 "
    "(needs 580 or newer); install 'cuda-python<13' or update the driver"
)


@pytest.fixture
def old_driver(monkeypatch) -> FakeDriver:
    """cuda-python 13 on a CUDA 12.4 driver: its start-up fails for want of cuGetProcAddress_v2."""
    driver = FakeDriver()
    driver.init_error = RuntimeError('Function "cuGetProcAddress_v2" not found')
    monkeypatch.setattr(gpu_runtime, "bindings_version", lambda: "13.4.4")
    monkeypatch.setattr(gpu_runtime, "installed_driver", lambda: (12040, "550.54.15"))
    real = gpu_runtime.CudaDevice
    monkeypatch.setattr(gpu_runtime, "CudaDevice", lambda: real(driver))
    monkeypatch.setattr(gpu_runtime, "_cuda_device", None)
    return driver


def test_driver_too_old_for_the_bindings(old_driver):
    assert gpu_runtime.cuda_available() == (False, TOO_OLD)  # the GPU tests' skip reason
    with pytest.raises(gpu_runtime.GpuError) as e:
        mg_xdsl.compile("def g(a: tensor[2x2]) = relu(a)", path="old.mg", gpu=True)
    assert str(e.value) == TOO_OLD


def test_mgc_run_gpu_says_the_driver_is_too_old(old_driver, capsys):
    status = cli.main(["run", "--gpu", str(EXAMPLES / "01_relu.mg")])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert err.splitlines()[0] == f"mgc: error: GPU: {TOO_OLD}"


@pytest.mark.parametrize(
    "bindings, driver, expected",
    [
        ("13.0.0", (13000, "580.65.06"), None),  # new enough: not the reason
        ("12.9.10", (12040, "550.54.15"), None),  # cuda-python 12 runs on a 12.x driver
        (
            "12.9.10",
            (11080, None),
            "the NVIDIA driver (CUDA 11.8) is too old for cuda-python 12 (needs 525 or newer); update the driver",
        ),
        (None, (12040, "550.54.15"), None),  # no cuda-python
        ("13.4.4", None, None),  # no driver at all: cuda-python's own message says so
    ],
)
def test_driver_too_old_judgement(monkeypatch, bindings, driver, expected):
    monkeypatch.setattr(gpu_runtime, "bindings_version", lambda: bindings)
    monkeypatch.setattr(gpu_runtime, "installed_driver", lambda: driver)
    assert gpu_runtime.driver_too_old() == expected


def test_a_failure_that_is_not_the_drivers_age_keeps_its_message(monkeypatch):
    driver = FakeDriver()
    driver.init_error = RuntimeError("libcuda.so.1: cannot open shared object file")
    monkeypatch.setattr(gpu_runtime, "bindings_version", lambda: "13.4.4")
    monkeypatch.setattr(gpu_runtime, "installed_driver", lambda: None)
    with pytest.raises(
        gpu_runtime.GpuError,
        match=r"^the NVIDIA driver cannot be loaded: libcuda\.so\.1: "
        r"cannot open shared object file$",
    ):
        gpu_runtime.CudaDevice(driver)
