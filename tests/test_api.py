"""The Python API: defs as callables on NumPy arrays, shape errors before the call, failed
run-time checks as exceptions the interpreter survives, results that own their memory."""

import gc

import numpy as np
import pytest

import mg_xdsl
from mg_xdsl.api import RuntimeCheckFailed, ShapeMismatch

SOURCE = """
def layer(x: tensor[5x3], w: tensor[3x2], bias: tensor[1x2]) = relu(x @ w + bias)
def add(a: tensor[?x?], b: tensor[?x?]) = a + b
def totals(a: tensor[?x?]) = row_sum(a)
def peaks(a: tensor[?x?]) = col_max(a)
def same(a: tensor[2x2]) = a
def centered(a: tensor[4x3]) = a - col_mean(a)
"""


@pytest.fixture(scope="module")
def lib():
    return mg_xdsl.compile(SOURCE)


def test_values_match_numpy(lib):
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(5, 3)), rng.normal(size=(3, 2)), rng.normal(size=(1, 2))
    np.testing.assert_allclose(lib.layer(x, w, b), np.maximum(x @ w + b, 0), rtol=1e-12)
    a = rng.normal(size=(4, 3))
    np.testing.assert_allclose(lib.centered(a), a - a.mean(axis=0, keepdims=True), atol=1e-12)


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (7, 1), (1, 9), (33, 17)])
def test_one_compiled_function_serves_every_size(lib, shape):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 5
    np.testing.assert_array_equal(lib.add(a, a), a + a)
    np.testing.assert_array_equal(lib.totals(a), a.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(lib.peaks(a), a.max(axis=0, keepdims=True))


def test_inputs_are_converted(lib):
    ints = [[1, 2], [3, 4]]
    np.testing.assert_array_equal(lib.same(ints), np.array(ints, dtype=float))
    fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(lib.totals(fortran), [[3.0], [12.0]])
    view = np.arange(20.0).reshape(4, 5)[::2, 1:4]
    np.testing.assert_array_equal(lib.add(view, view), 2 * view)


def test_results_own_their_memory(lib):
    a = np.ones((2, 2))
    r = lib.same(a)
    assert r.dtype == np.float64 and r.shape == (2, 2) and r.flags.c_contiguous
    assert not np.shares_memory(r, a)  # `same` returns a copy, never its argument
    a[0, 0] = 5
    assert r[0, 0] == 1


def test_shape_mismatch_is_a_value_error_before_the_call(lib):
    with pytest.raises(ShapeMismatch, match=r"layer: argument 2 \(w\) must be 3x2, got 2x3"):
        lib.layer(np.ones((5, 3)), np.ones((2, 3)), np.ones((1, 2)))
    with pytest.raises(ValueError, match=r"argument 1 \(a\) must be \?x\?, got 3"):
        lib.totals(np.ones(3))
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        lib.add(np.ones((2, 2)))


def test_failed_runtime_check_raises_and_the_interpreter_survives(lib):
    for _ in range(3):
        with pytest.raises(RuntimeCheckFailed, match="^mg.add: operand shapes differ at runtime in dimension 0$"):
            lib.add(np.ones((2, 2)), np.ones((3, 2)))
        with pytest.raises(RuntimeCheckFailed, match="in dimension 1$"):
            lib.add(np.ones((2, 2)), np.ones((2, 3)))
    np.testing.assert_array_equal(lib.add(np.ones((2, 2)), np.ones((2, 2))), 2 * np.ones((2, 2)))


def test_compile_errors_and_unknown_functions():
    with pytest.raises(mg_xdsl.api.MgError, match="cannot add shapes 2x3 and 3x2"):
        mg_xdsl.compile("print [[1, 2, 3], [4, 5, 6]] + [[1, 2], [3, 4], [5, 6]]\n")
    lib = mg_xdsl.compile("def f(a: tensor[1x1]) = a\n")
    with pytest.raises(AttributeError, match="no function 'g'"):
        lib.g


def test_compilation_is_cached_per_source(lib):
    assert mg_xdsl.compile(SOURCE) is lib


def test_compile_file(tmp_path):
    path = tmp_path / "p.mg"
    path.write_text("def twice(a: tensor[?x?]) = 2 * a\n")
    np.testing.assert_array_equal(mg_xdsl.compile_file(str(path)).twice([[1.5]]), [[3.0]])


def rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_ten_thousand_calls_do_not_grow_memory(lib):
    a = np.ones((64, 64))
    for _ in range(500):  # warm up allocator pools
        lib.add(a, a)
    gc.collect()
    before = rss_kib()
    for _ in range(10_000):
        lib.totals(lib.add(a, a))
    gc.collect()
    grown = rss_kib() - before
    # Each call returns 32 KiB; a leak would be over 300 MiB.
    assert grown < 8 * 1024, f"resident memory grew by {grown} KiB"
