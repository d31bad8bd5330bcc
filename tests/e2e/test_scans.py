"""Scans: ``linear_scan(a, b, axis=0, reverse=false)`` (``h[t] = a[t] * h[t-1] + b[t]``
from ``h = 0``) and ``cumsum(x, axis=0)``, against NumPy (a loop written here) for every
rank, axis (negative too), direction and element type, in both CPU pipelines, through
upstream MLIR and on the emulated GPU."""

import ml_dtypes
import numpy as np
from conftest import gpu_agrees
from helpers.dtypes import DTYPES
from helpers.upstream import upstream_agrees
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl

PROGRAM = """
let x = [[1, 2, 3], [4, 5, 6]]
print cumsum(x)
print cumsum(cast(x, i32), axis=-1)
print linear_scan(0.5, x, axis=1, reverse=true)
print linear_scan([[2], [3]], [1, 1, 1], axis=1)
"""


def linear_scan(a: np.ndarray, b: np.ndarray, axis: int, reverse: bool, carry=None) -> np.ndarray:
    """The recurrence, step by step along ``axis`` (``carry``: the type ``h`` is kept in)."""
    a, b = np.broadcast_arrays(a, b)
    a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    out = np.empty_like(b)
    h = np.zeros(b.shape[1:], dtype=carry or b.dtype)
    steps = range(b.shape[0])
    for t in reversed(steps) if reverse else steps:
        h = (a[t].astype(h.dtype) * h + b[t].astype(h.dtype)).astype(h.dtype)
        out[t] = h
    return np.moveaxis(out, 0, axis)


def test_upstream_accepts_every_stage_and_prints_the_same():
    upstream_agrees(PROGRAM)


def test_runs_alike_on_the_emulated_gpu_and_assembles_for_a_real_one():
    gpu_agrees(PROGRAM)


@st.composite
def scans(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    element = draw(st.sampled_from(["f64", "f32", "bf16"]))
    question = draw(st.booleans())  # (b's sizes '?': a has them too, as a '?' never broadcasts)
    a_shape = shape if question else tuple(1 if draw(st.booleans()) else d for d in shape)
    return shape, a_shape, axis, draw(st.booleans()), element, question


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scans(), st.integers(0, 2**32 - 1))
def test_random_scans_agree_with_a_loop(case, seed):
    shape, a_shape, axis, reverse, element, question = case
    dims = "x".join("?" if question else str(d) for d in shape)
    a_dims = dims if question else "x".join(map(str, a_shape))
    source = (
        f"def f(a: tensor[{a_dims}x{element}], b: tensor[{dims}x{element}]) = "
        f"linear_scan(a, b, axis={axis}, reverse={'true' if reverse else 'false'})\n"
        f"def c(b: tensor[{dims}x{element}]) = cumsum(b, axis={axis})\n"
    )
    dtype = DTYPES[element]
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.2, 1.2, size=a_shape).astype(dtype)
    b = rng.normal(size=shape).astype(dtype)
    carry = np.float32 if element == "bf16" else None
    want = linear_scan(a, b, axis, reverse, carry).astype(dtype)
    want_sum = linear_scan(np.ones_like(b), b, axis, False, carry).astype(dtype)
    for optimise in (True, False):
        lib = mg_xdsl.compile(source, optimise=optimise)
        tight = {"rtol": 1e-12} if element == "f64" else {"rtol": 1e-5, "atol": 1e-5}
        if element == "bf16":  # (one rounding of the same f32 value: equal)
            np.testing.assert_array_equal(lib.f(a, b), want, err_msg=source)
            np.testing.assert_array_equal(lib.c(b), want_sum, err_msg=source)
            continue
        np.testing.assert_allclose(lib.f(a, b), want, **tight, err_msg=source)
        np.testing.assert_allclose(lib.c(b), want_sum, **tight, err_msg=source)


def test_an_integer_cumsum_is_exact_and_wraps():
    lib = mg_xdsl.compile("def c(x: tensor[?xi32]) = cumsum(x)\n")
    x = np.array([2**31 - 1, 1, 5], dtype=np.int32)
    np.testing.assert_array_equal(lib.c(x), np.cumsum(x, dtype=np.int32))


def test_bf16_is_carried_in_f32():
    """A sum of many small bf16 numbers: carried in bf16 it would stop growing at 256 + ..."""
    lib = mg_xdsl.compile("def c(x: tensor[?xbf16]) = cumsum(x)\n")
    x = np.full(2000, 0.5, dtype=ml_dtypes.bfloat16)
    assert float(lib.c(x)[-1]) == 1000.0
