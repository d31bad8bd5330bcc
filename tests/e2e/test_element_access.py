"""Element access ``a[1, -1]`` (a rank-0 tensor), a rank-0 or
lower-rank tensor growing along '?' dimensions as NumPy's do, the compile-time values of a
type (``shape``, ``rank``, ``dim``, ``numel``) and ``print`` of a number, through ``mgc run``
and the Python API in both CPU pipelines and upstream MLIR, against NumPy."""

import numpy as np
import pytest
from conftest import gpu_agrees, mask, mgc
from helpers.dtypes import DTYPES
from helpers.printed import printed_arrays
from helpers.upstream import upstream_agrees
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl

PROGRAM = """
let x = [[1, 2, 3], [4, 5, 6]]
print x[1, 2]
print x[-1, 0] * x + x[0, -1]
print 6 / 4
print rank(x) + dim(x, -1) * numel(x)
print shape(x)
print zeros(shape(transpose(x))) + numel(x)
def at(a: tensor[?x3xi32]) = a[-1, 1] + a[0, 0] * a
print at(cast(x, i32))
def bias(v: tensor[?x3], b: tensor[3]) = v + b
print bias(x, [10, 20, 30])
def scaled(v: tensor[?x?], k: tensor[]) = where(v > k, v, k * 2)
print scaled(x, 2.5)
"""


def expected() -> list[np.ndarray]:
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=float)
    xi = x.astype(np.int32)
    return [
        x[1, 2],
        x[-1, 0] * x + x[0, -1],
        np.float64(1.5),
        np.float64(2 + 3 * 6),
        np.array([2, 3]),
        np.zeros((3, 2)) + 6,
        xi[-1, 1] + xi[0, 0] * xi,
        x + [10, 20, 30],
        np.where(x > 2.5, x, 5.0),
    ]


@pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])
def test_mgc_run_computes_what_numpy_does(flags):
    out = mgc("run", *flags, "-", input=PROGRAM.encode())
    assert out.returncode == 0, out.stderr.decode()
    got = printed_arrays(out.stdout.decode())
    want = expected()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.asarray(w, dtype=float))


def test_a_number_prints_as_a_rank_0_memref():
    out = mgc("run", "-", input=b"print 3\nprint -2.5 * 2\n")
    assert mask(out.stdout.decode()) == (
        "Unranked Memref base@ = 0x… rank = 0 offset = 0 sizes = [] strides = [] data = \n[3]\n"
        "Unranked Memref base@ = 0x… rank = 0 offset = 0 sizes = [] strides = [] data = \n[-5]\n"
    )


def test_upstream_accepts_every_stage_and_prints_the_same():
    upstream_agrees(PROGRAM)


def test_runs_alike_on_the_emulated_gpu_and_assembles_for_a_real_one():
    gpu_agrees(PROGRAM)


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_an_index_into_a_question_mark_is_checked_when_the_program_runs(optimise):
    lib = mg_xdsl.compile("def at(a: tensor[?x3]) = a[-3, 1]\n", optimise=optimise)
    a = np.arange(12.0).reshape(4, 3)
    assert lib.at(a) == a[-3, 1]
    for rows in (2, 0):
        with pytest.raises(mg_xdsl.RuntimeCheckFailed, match=r"mg.extract: index -3 is out of range for dimension 0"):
            lib.at(np.zeros((rows, 3)))
    out = mgc("run", "-", input=b"def at(a: tensor[?x3]) = a[5, 1]\nprint at([[1, 2, 3]])\n")
    assert out.returncode in (134, -6)  # (abort: the shell reports 134)
    assert out.stderr.decode() == "mg.extract: index 5 is out of range for dimension 0\n  at <stdin>:1\n"


# -- random element accesses -----------------------------------------------------------------


@st.composite
def accesses(draw):
    """A tensor of rank 1-4 (some sizes '?'), an index per axis (negative ones too), and an
    element type."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    index = [draw(st.integers(-d, d - 1)) for d in shape]
    question = [draw(st.booleans()) for _ in shape]
    return tuple(shape), index, question, draw(st.sampled_from(["f64", "f32", "i32", "i64", "bf16"]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(accesses(), st.integers(0, 2**32 - 1))
def test_random_element_accesses_agree_with_numpy(case, seed):
    """``a[i, ...] * a - a[i, ...]``: the element, then grown to ``a``'s shape (its '?'s
    included), in both pipelines."""
    shape, index, question, element = case
    dims = ["?" if q else str(d) for d, q in zip(shape, question)]
    at = ", ".join(map(str, index))
    source = f"def f(a: tensor[{'x'.join([*dims, element])}]) = a[{at}] * a - a[{at}]\n"
    dtype = DTYPES[element]
    a = np.random.default_rng(seed).integers(-9, 10, size=shape).astype(dtype)
    element_ = a[tuple(index)]
    want = element_ * a - element_
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(a)
        assert got.dtype == dtype and got.shape == a.shape, source
        np.testing.assert_array_equal(got, want, err_msg=source)
