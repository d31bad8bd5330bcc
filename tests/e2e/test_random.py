"""Random numbers: ``normal(shape, std=, mean=, seed=)`` and ``uniform(shape, low=,
high=, seed=)`` from Philox 4x32-10 (``mg_xdsl.dialects.philox``): the numbers equal a
reference written here (itself checked against the generator's published known answers),
are the same on every run and every backend, and have the distributions' mean and spread."""

import numpy as np
import pytest
from conftest import mask, mgc
from helpers.printed import printed_arrays
from helpers.upstream import upstream_agrees

import mg_xdsl

M0, M1, W0, W1, MASK = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, 0xFFFFFFFF


def philox4x32_10(counter: tuple[int, int, int, int], key: tuple[int, int]) -> list[int]:
    """Philox 4x32-10 as Salmon et al. (SC 2011) and Random123 define it."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for r in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & MASK, p1 & MASK, ((p0 >> 32) ^ c3 ^ k1) & MASK, p0 & MASK
        if r < 9:
            k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    return [c0, c1, c2, c3]


def test_the_reference_gives_the_published_known_answers():
    """Random123's kat_vectors for philox4x32 with 10 rounds."""
    assert philox4x32_10((0, 0, 0, 0), (0, 0)) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert philox4x32_10((MASK,) * 4, (MASK, MASK)) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    assert philox4x32_10((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0)) == [
        0xD16CFE09,
        0x94FDCCEB,
        0x5001E420,
        0x24126EA1,
    ]


def reference_words(n: int, seed: int) -> list[int]:
    return philox4x32_10((n & MASK, n >> 32, 0, 0), (seed & MASK, seed >> 32))


def reference_uniform(count: int, seed: int, f32: bool = False) -> np.ndarray:
    out = []
    for n in range(count):
        w = reference_words(n, seed)
        out.append((w[0] >> 8) * 2.0**-24 if f32 else ((w[0] << 21) | (w[1] >> 11)) * 2.0**-53)
    return np.array(out, dtype=np.float32 if f32 else np.float64)


def reference_normal(count: int, seed: int) -> np.ndarray:
    out = []
    for n in range(count):
        w = reference_words(n, seed)
        u1 = 1.0 - ((w[0] << 21) | (w[1] >> 11)) * 2.0**-53
        u2 = ((w[2] << 21) | (w[3] >> 11)) * 2.0**-53
        out.append(np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * np.pi * u2))
    return np.array(out)


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_the_first_numbers_are_the_references(optimise):
    lib = mg_xdsl.compile(
        "def u() = uniform([4], seed=0)\n"
        "def u7(x: tensor[]) = uniform([2, 3], low=-1, high=3, seed=7) + x\n"
        "def big_seed(x: tensor[]) = uniform([3], seed=12345678901234) + x\n"
        "def n(x: tensor[]) = normal([5], mean=2, std=0.5, seed=3) + x\n"
        "def f(x: tensor[]) = uniform([4], seed=9, dtype=f32) + cast(x, f32)\n",
        optimise=optimise,
    )
    np.testing.assert_array_equal(lib.u(), reference_uniform(4, 0))
    np.testing.assert_array_equal(lib.u7(0), (-1 + 4 * reference_uniform(6, 7)).reshape(2, 3))
    np.testing.assert_array_equal(lib.big_seed(0), reference_uniform(3, 12345678901234))
    np.testing.assert_allclose(lib.n(0), 2 + 0.5 * reference_normal(5, 3), rtol=1e-15)
    np.testing.assert_array_equal(lib.f(0), reference_uniform(4, 9, f32=True))


def test_the_same_numbers_on_every_run_and_backend():
    source = b"print normal([3, 4], seed=5, dtype=f32)\nprint uniform([2, 2], low=1, high=2, seed=1, dtype=bf16)\n"
    runs = [
        mgc("run", *flags, "--no-cache", "-", input=source)
        for flags in ([], [], ["--reference"], ["--gpu-emulated"], ["--backend", "mlir"])
    ]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    outputs = {mask(r.stdout.decode()) for r in runs}
    assert len(outputs) == 1, outputs
    from mg_xdsl.backend.ptx import find_libdevice, find_ptxas

    if find_ptxas() is None or find_libdevice() is None:
        pytest.skip("needs nvidia-cuda-nvcc (the test extra installs it)")
    out = mgc("ptx", "--check", "-", input=source)  # (normal's log and cos: libdevice)
    assert out.returncode == 0, out.stderr


def test_upstream_accepts_every_stage_and_prints_the_same():
    upstream_agrees("print normal([2, 3], seed=1)\nprint uniform([4], low=-2, high=2, seed=2, dtype=f32)\n")


@pytest.mark.parametrize("dtype", ["f64", "f32", "bf16"])
def test_a_million_samples_have_the_distributions_mean_and_spread(dtype):
    lib = mg_xdsl.compile(
        f"def n(x: tensor[]) = normal([1000, 1000], mean=3, std=2, seed=11, dtype={dtype})"
        f" + cast(x, {dtype})\n"
        f"def u(x: tensor[]) = uniform([1000, 1000], low=-1, high=5, seed=12, dtype={dtype})"
        f" + cast(x, {dtype})\n"
    )
    n = lib.n(0).astype(np.float64)
    u = lib.u(0).astype(np.float64)
    # The standard error of a mean of 10^6 samples is spread / 1000: 5 of them is far out.
    assert abs(n.mean() - 3) < 5 * 2e-3 and abs(n.std() - 2) < 0.01
    assert abs(u.mean() - 2) < 5 * 6 / np.sqrt(12) / 1e3 and abs(u.std() - 6 / np.sqrt(12)) < 0.01
    assert u.min() >= -1 and u.max() <= 5  # (bf16 rounding may reach the end)
    assert len(np.unique(n)) > (1000 if dtype == "bf16" else 900_000)


def test_a_zero_spread_is_a_constant_with_no_random_op(tmp_path):
    prog = tmp_path / "c.mg"
    prog.write_text("print normal([2], std=0, mean=1.5)\nprint uniform([2], low=4, high=4)\n")
    out = mgc("run", str(prog))
    assert [a.tolist() for a in printed_arrays(out.stdout.decode())] == [[1.5, 1.5], [4.0, 4.0]]
    import subprocess

    from conftest import tool

    ir = subprocess.run([tool("mg-opt"), str(prog)], capture_output=True, text=True).stdout
    assert "mg.random" not in ir and ir.count("mg.full") == 2
