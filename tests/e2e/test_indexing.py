"""Indexing: ``index(table, ids)``, ``index_add(base, ids, values)``, ``gather(x, idx,
axis=-1)`` and ``scatter_add(base, idx, values, axis=-1)`` against NumPy (``table[ids]``,
``np.add.at``, ``np.take_along_axis``) for random shapes (``?`` sizes too), ids of rank 0-2
with repeated ids, negative axes and every element type, in both CPU pipelines, through
upstream MLIR and on the emulated GPU; an id out of range stops the program with the id
and the range. (The compile errors: tests/unit/language/test_compile_errors.py.)"""

import ml_dtypes
import numpy as np
import pytest
from conftest import gpu_agrees, mgc
from helpers.dtypes import DTYPES
from helpers.upstream import upstream_agrees
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl

PROGRAM = """
let t = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
print index(t, cast([[2, 0], [1, 1]], i64))
print index_add(t, cast([0, 0, 2], i32), [[1, 1, 1], [10, 10, 10], [100, 100, 100]])
let j = cast([[2, 2], [0, 1], [1, 1]], i64)
print gather(t, j)
print gather(cast(t, i32), cast([[2, 0, 1]], i64), axis=0)
print scatter_add(t, j, [[1, 2], [3, 4], [5, 6]])
def rows(t: tensor[?x3], ids: tensor[?xi32]) = index_add(t, ids, index(t, ids) * 10)
print rows(t, cast([1, 1], i32))
"""


def index_add(base: np.ndarray, ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = base.copy()
    np.add.at(out, ids, values)
    return out


def scatter_add(base: np.ndarray, idx: np.ndarray, values: np.ndarray, axis: int) -> np.ndarray:
    """``np.add.at`` at the index tuples ``take_along_axis`` reads: ``idx`` along ``axis``,
    each element's own indices elsewhere."""
    out = base.copy()
    at = list(np.indices(idx.shape))
    at[axis] = idx
    np.add.at(out, tuple(at), values)
    return out


def test_upstream_accepts_every_stage_and_prints_the_same():
    upstream_agrees(PROGRAM)


def test_runs_alike_on_the_emulated_gpu_and_assembles_for_a_real_one():
    gpu_agrees(PROGRAM)


def type_text(shape, question, element: str) -> str:
    return f"tensor[{'x'.join([*('?' if q else str(d) for d, q in zip(shape, question)), element])}]"


@st.composite
def cases(draw):
    """A table (x, base) of rank 1-3, ids of rank 0-2, indices along a (maybe negative)
    axis, some sizes '?', an element type and an id type."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    id_shape = tuple(draw(st.lists(st.integers(1, 4), max_size=2)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    idx_shape = tuple(draw(st.integers(1, 4)) if d == axis % len(shape) else s for d, s in enumerate(shape))
    questions = [tuple(draw(st.booleans()) for _ in s) for s in (shape, id_shape, idx_shape)]
    return (
        shape,
        id_shape,
        axis,
        idx_shape,
        questions,
        draw(st.sampled_from(list(DTYPES))),
        draw(st.sampled_from(["i32", "i64"])),
    )


def positions(rng, shape: tuple, below: int, dtype) -> np.ndarray:
    """Random positions ``0 <= p < below``, the last one the first's: always a repeat."""
    p = rng.integers(0, below, size=shape)
    if p.size > 1:
        p.flat[-1] = p.flat[0]
    return p.astype(dtype)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.integers(0, 2**32 - 1))
def test_random_indexing_agrees_with_numpy(case, seed):
    shape, id_shape, axis, idx_shape, (q_table, q_ids, q_idx), element, id_element = case
    table, ids, idx = (
        type_text(shape, q_table, element),
        type_text(id_shape, q_ids, id_element),
        type_text(idx_shape, q_idx, id_element),
    )
    value_shape = (*id_shape, *shape[1:])
    values = type_text(value_shape, [False] * len(value_shape), element)
    adds = element != "i1"
    source = (
        f"def pick(t: {table}, i: {ids}) = index(t, i)\n"
        f"def take(x: {table}, i: {idx}) = gather(x, i, axis={axis})\n"
        + (
            f"def add(b: {table}, i: {ids}, v: {values}) = index_add(b, i, v)\n"
            f"def scatter(b: {table}, i: {idx}, v: {type_text(idx_shape, q_idx, element)}) = "
            f"scatter_add(b, i, v, axis={axis})\n"
            if adds
            else ""
        )
    )
    dtype, id_dtype = DTYPES[element], DTYPES[id_element]
    rng = np.random.default_rng(seed)

    def data(s: tuple) -> np.ndarray:
        if element == "i1":
            return rng.integers(0, 2, size=s).astype(dtype)
        return (rng.normal(size=s) * 4 if element in ("f64", "f32", "bf16") else rng.integers(-9, 10, size=s)).astype(
            dtype
        )

    x, v, w = data(shape), data(value_shape), data(idx_shape)
    i = positions(rng, id_shape, shape[0], id_dtype)
    j = positions(rng, idx_shape, shape[axis], id_dtype)
    tolerance = {"bf16": {"rtol": 2e-2, "atol": 5e-2}, "f32": {"rtol": 1e-5, "atol": 1e-5}}.get(
        element, {"rtol": 1e-12}
    )
    for optimise in (True, False):
        lib = mg_xdsl.compile(source, optimise=optimise)
        for got, want in ((lib.pick(x, i), x[i]), (lib.take(x, j), np.take_along_axis(x, j, axis))):
            assert got.dtype == want.dtype and got.shape == want.shape, source
            np.testing.assert_array_equal(got, want, err_msg=source)
        if adds:
            for got, want in (
                (lib.add(x, i, v), index_add(x, i, v)),
                (lib.scatter(x, j, w), scatter_add(x, j, w, axis)),
            ):
                assert got.dtype == want.dtype and got.shape == want.shape, source
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), **tolerance, err_msg=source)


VIEWS = """def f(t: tensor[4x6], i: tensor[3xi64], v: tensor[3x4]) = index_add(transpose(slice(t, 1, 1, 5), [1, 0]), i, v)
def g(t: tensor[4x6], i: tensor[3xi64]) = index(transpose(t, [1, 0]), i)
def h(t: tensor[4x6], j: tensor[4x2xi64]) = gather(slice(t, 1, 2, 6), j, axis=1)
def k(t: tensor[4x6], j: tensor[2x2xi64], v: tensor[2x2]) = scatter_add(reshape(t, [2, 12]), j, v, axis=1)
"""


def test_indexing_reads_through_views():
    """The optimised pipeline makes slice, transpose and reshape views (test_views.py); the
    indexing ops read through them, and an add's result does not write into its base's
    buffer."""
    t = np.arange(24.0).reshape(4, 6)
    i, v = np.array([3, 0, 3]), np.array([[1.0] * 4, [2.0] * 4, [4.0] * 4])
    j, w = np.array([[0, 3], [1, 1], [2, 0], [3, 3]]), np.array([[1.0, 2.0], [3.0, 4.0]])
    for optimise in (True, False):
        lib = mg_xdsl.compile(VIEWS, optimise=optimise)
        np.testing.assert_array_equal(lib.f(t, i, v), index_add(t[:, 1:5].T, i, v))
        np.testing.assert_array_equal(lib.g(t, i), t.T[i])
        np.testing.assert_array_equal(lib.h(t, j), np.take_along_axis(t[:, 2:6], j, 1))
        np.testing.assert_array_equal(lib.k(t, j[:2], w), scatter_add(t.reshape(2, 12), j[:2], w, 1))
        np.testing.assert_array_equal(t, np.arange(24.0).reshape(4, 6))


def test_repeated_ids_accumulate_in_order():
    lib = mg_xdsl.compile(
        "def f(b: tensor[3x2xi64], i: tensor[?xi32], v: tensor[?x2xi64]) = index_add(b, i, v)\n"
        "def g(b: tensor[2x3], i: tensor[2x?xi64], v: tensor[2x?]) = scatter_add(b, i, v, axis=-1)\n"
    )
    i = np.array([2, 0, 2, 2], dtype=np.int32)
    v = np.arange(8, dtype=np.int64).reshape(4, 2)
    np.testing.assert_array_equal(lib.f(np.zeros((3, 2), np.int64), i, v), [[2, 3], [0, 0], [0 + 4 + 6, 1 + 5 + 7]])
    j = np.array([[1, 1, 1, 0], [2, 2, 0, 2]])
    np.testing.assert_array_equal(lib.g(np.ones((2, 3)), j, np.ones((2, 4))), [[2, 4, 1], [2, 1, 4]])


def test_a_bf16_sum_is_rounded_to_bf16_at_each_add_as_numpy_does():
    """2000 adds of 0.5 into one cell: in bf16, 128 + 0.5 rounds back to 128."""
    lib = mg_xdsl.compile("def f(b: tensor[3xbf16], i: tensor[?xi64], v: tensor[?xbf16]) = index_add(b, i, v)\n")
    b, i, v = np.zeros(3, ml_dtypes.bfloat16), np.zeros(2000, np.int64), np.full(2000, 0.5, ml_dtypes.bfloat16)
    got = lib.f(b, i, v)
    np.testing.assert_array_equal(got, index_add(b, i, v))
    assert float(got[0]) == 128.0


OUT_OF_RANGE = """def pick(t: tensor[?x2], i: tensor[?xi64]) = index(t, i)
def add(t: tensor[4x2], i: tensor[?xi32], v: tensor[?x2]) = index_add(t, i, v)
def take(x: tensor[2x?], i: tensor[2x3xi32]) = gather(x, i)
def scatter(x: tensor[2x5], i: tensor[1x?xi64], v: tensor[1x?]) = scatter_add(x, i, v, axis=0)
"""


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_an_id_out_of_range_raises_with_the_id_and_the_range(optimise):
    lib = mg_xdsl.compile(OUT_OF_RANGE, optimise=optimise)
    calls = [
        (lambda: lib.pick(np.zeros((5, 2)), np.array([0, 7])), "mg.index: id 7 is out of range for 5 rows (0 to 4)", 1),
        (
            lambda: lib.add(np.zeros((4, 2)), np.array([-1], np.int32), np.ones((1, 2))),
            "mg.index_add: id -1 is out of range for 4 rows (0 to 3)",
            2,
        ),
        (
            lambda: lib.take(np.zeros((2, 3)), np.array([[0, 1, 2], [3, 0, 0]], np.int32)),
            "mg.gather: index 3 is out of range for 3 positions along axis 1 (0 to 2)",
            3,
        ),
        (
            lambda: lib.scatter(np.zeros((2, 5)), np.array([[1, 0, 2, 0, 0]]), np.ones((1, 5))),
            "mg.scatter_add: index 2 is out of range for 2 positions along axis 0 (0 to 1)",
            4,
        ),
    ]
    for call, message, line in calls:
        with pytest.raises(mg_xdsl.RuntimeCheckFailed) as e:
            call()
        assert e.value.message == message and e.value.line == line
        assert str(e.value) == f"{message}\n  at <string>:{line}"
    np.testing.assert_array_equal(lib.pick(np.arange(10.0).reshape(5, 2), np.array([4, 0])), [[8, 9], [0, 1]])


@pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])
def test_the_program_stops_like_a_failed_check(flags, tmp_path):
    program = tmp_path / "ids.mg"
    program.write_text("let t = [[1, 2], [3, 4]]\nprint index(t, cast([1, -2], i64))\n")
    out = mgc("run", *flags, str(program))
    assert out.returncode in (134, -6)  # (abort: the shell reports 134)
    assert out.stderr.decode().startswith(f"mg.index: id -2 is out of range for 2 rows (0 to 1)\n  at {program}:2\n")
    assert out.stdout == b""
