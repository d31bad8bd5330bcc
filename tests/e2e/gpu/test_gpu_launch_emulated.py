"""The launch path of `mgc run --gpu` on the emulated device, which runs on every machine.

The emulated device (``mg_xdsl.backend.gpu_emulator``) runs the very kernels that become
PTX, compiled for the CPU, one thread at a time, with the host code, launch calls, grid
sizes, descriptor fields and buffer copies exactly as on a GPU. So these tests check the
whole host side; ``test_gpu_launch_cuda.py`` repeats the end-to-end checks on a real GPU.
"""

import numpy as np
import pytest
from conftest import EXAMPLES, mask, mgc
from helpers.examples import CASES, check_outcome, short_run
from helpers.printed import printed_arrays
from helpers_gpu import BLOCK_PROGRAMS, SOURCE, block_reference, cases, reference

import mg_xdsl
from mg_xdsl.api import RuntimeCheckFailed
from mg_xdsl.backend import gpu_emulator, gpu_runtime


@pytest.mark.parametrize("rel", CASES, ids=[str(c) for c in CASES])
def test_example_on_emulated_gpu(rel):
    """Every example prints what the chapter lists (and fails as it does) with its parallel
    loop nests launched as kernels; a long one, shortened, what the CPU prints of it."""
    if short_run(rel):
        gpu = mgc("run", "--gpu-emulated", str(rel), *short_run(rel), cwd=EXAMPLES)
        cpu = mgc("run", str(rel), *short_run(rel), cwd=EXAMPLES)
        assert gpu.returncode == cpu.returncode == 0, gpu.stderr.decode()
        assert mask(gpu.stdout.decode()) == mask(cpu.stdout.decode())
        return
    check_outcome(mgc("run", "--gpu-emulated", str(rel), cwd=EXAMPLES), rel)


def test_api_agrees_with_numpy():
    lib = mg_xdsl.compile(SOURCE, gpu="emulated")
    rng = np.random.default_rng(4)
    for name, args in cases(rng):
        np.testing.assert_allclose(
            getattr(lib, name)(*args),
            reference(name, *args),
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"{name} at {[a.shape for a in args]}",
        )


def test_api_runtime_check_then_good_call():
    lib = mg_xdsl.compile(SOURCE, gpu="emulated")
    a, b = np.ones((4, 2)), np.ones((5, 2))
    with pytest.raises(RuntimeCheckFailed, match="mg.sub: operand shapes differ at runtime in dimension 0"):
        lib.diff(a, b)
    np.testing.assert_array_equal(lib.diff(a, 2 * a), [[-2.0, -2.0]])


def test_empty_sizes_launch_nothing():
    lib = mg_xdsl.compile(SOURCE, gpu="emulated")
    assert lib.stats(np.ones((0, 3))).shape == (0, 1)


class CountingDevice(gpu_emulator.EmulatedDevice):
    """The emulated device, recording every copy and allocation."""

    def __init__(self):
        super().__init__()
        self.to_device_calls, self.to_host_calls, self.launches = [], [], []
        self.live = 0

    def alloc(self, nbytes):
        self.live += 1
        return super().alloc(nbytes)

    def free(self, ptr):
        self.live -= 1
        super().free(ptr)

    def to_device(self, dst, src, nbytes):
        self.to_device_calls.append((src, nbytes))
        super().to_device(dst, src, nbytes)

    def to_host(self, dst, src, nbytes):
        self.to_host_calls.append((dst, nbytes))
        super().to_host(dst, src, nbytes)

    def launch(self, function, grid, block, args):
        self.launches.append((grid, block))
        super().launch(function, grid, block, args)


def test_copies_only_what_kernels_write(monkeypatch):
    """10_gpu_layer launches five kernels; each writes one buffer, so five copies back, none
    of them of the arguments x and bias; every device buffer is freed."""
    device = CountingDevice()
    monkeypatch.setattr(gpu_runtime, "device", lambda kind: device)
    lib = mg_xdsl.api.Library((EXAMPLES / "10_gpu_layer.mg").read_text(), "10_gpu_layer.mg", "emulated")
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    bias = np.array([[0.5, 0.5, -10.0]])
    out = lib.f(x, bias)
    np.testing.assert_array_equal(out, np.maximum(x + bias, 0).sum(1, keepdims=True))
    assert len(device.launches) == 5
    assert all(grid == (1, 1, 1) and block == (256, 1, 1) for grid, block in device.launches)
    assert len(device.to_host_calls) == 5
    assert x.ctypes.data not in [dst for dst, _ in device.to_host_calls]
    assert sorted(n for _, n in device.to_host_calls) == [16, 16, 48, 48, 48]
    assert device.live == 0


def test_grid_covers_the_data(monkeypatch):
    """ceil(total / 256) blocks of 256 threads: 300x5 elements need 6 blocks."""
    device = CountingDevice()
    monkeypatch.setattr(gpu_runtime, "device", lambda kind: device)
    lib = mg_xdsl.api.Library("def f(a: tensor[?x?]) = relu(a)", "grid.mg", "emulated")
    a = np.random.default_rng(1).normal(size=(300, 5))
    np.testing.assert_array_equal(lib.f(a), np.maximum(a, 0))
    assert device.launches == [((6, 1, 1), (256, 1, 1))]


def test_no_gpu_is_a_clear_error():
    ok, why = gpu_runtime.cuda_available()
    if ok:
        pytest.skip("this machine has a GPU: test_gpu_launch_cuda.py runs instead")
    p = mgc("run", "--gpu", "07_mlp_layer.mg", cwd=EXAMPLES)
    err = p.stderr.decode()
    assert p.returncode == 1 and p.stdout == b""
    assert err.startswith("mgc: error: GPU: ") and "Traceback" not in err
    assert "--gpu-emulated" in err
    with pytest.raises(gpu_runtime.GpuError):
        mg_xdsl.compile("def g(a: tensor[2x2]) = relu(a)", gpu=True)


def test_gpu_and_mlir_backend_exclude_each_other():
    p = mgc("run", "--gpu-emulated", "--backend", "mlir", "07_mlp_layer.mg", cwd=EXAMPLES)
    assert p.returncode == 2 and b"drop --backend mlir" in p.stderr


@pytest.mark.parametrize("name", sorted(BLOCK_PROGRAMS))
def test_programs_with_blocks_on_emulated_gpu(name):
    """Loops, conditionals and block-bodied defs around the kernels print NumPy's values."""
    p = mgc("run", "--gpu-emulated", "-", input=BLOCK_PROGRAMS[name].encode())
    assert p.returncode == 0, p.stderr.decode()
    got, want = printed_arrays(p.stdout.decode()), block_reference(name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=5e-6)
