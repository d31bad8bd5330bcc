"""Shape operations: ``transpose(x, [0, 2, 1])`` (any permutation), ``reshape(x,
[2, -1])``, ``broadcast_to(x, [4, 2, 3])``, ``slice(x, axis, start, stop)`` and ``concat(axis,
[a, b, c])`` against NumPy for
random shapes of rank 1-4 and every element type, in both CPU pipelines, through upstream
MLIR and on the emulated GPU. (The optimised pipeline reads slices, transposes and
reshapes in place: test_views.py; the compile errors: tests/unit/language/test_compile_errors.py.)"""

import numpy as np
import pytest
from conftest import gpu_agrees
from helpers.dtypes import DTYPES
from helpers.upstream import upstream_agrees
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl

PROGRAM = """
let x = [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]
print transpose(x, [2, 0, -2])
print reshape(x, [3, -1])
print slice(x, 1, 1, 3)
print broadcast_to([1, 2], [3, 2])
def rows(a: tensor[?x3], b: tensor[3]) = slice(a, -1, 1, 3) * reshape(slice(b, 0, 0, 2), [2])
print rows([[1, 2, 3], [4, 5, 6]], [10, 20, 30])
def joined(a: tensor[?x2], b: tensor[1x2]) = concat(0, [a, b * 10, a])
print joined([[1, 2], [3, 4]], [[5, 6]])
"""


def test_upstream_accepts_every_stage_and_prints_the_same():
    upstream_agrees(PROGRAM)


def test_runs_alike_on_the_emulated_gpu_and_assembles_for_a_real_one():
    gpu_agrees(PROGRAM)


@st.composite
def shape_ops(draw):
    """A shape of rank 1-4, an element type, and one operation with its arguments."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    element = draw(st.sampled_from(list(DTYPES)))
    rank = len(shape)
    kind = draw(st.sampled_from(["transpose", "reshape", "slice", "broadcast_to"]))
    if kind == "transpose":
        perm = draw(st.permutations(range(rank)))
        written = [p - rank if draw(st.booleans()) else p for p in perm]
        return shape, element, f"transpose(x, {written})", lambda x: np.transpose(x, perm)
    if kind == "reshape":
        count = int(np.prod(shape))
        factors = [d for d in range(1, count + 1) if count % d == 0]
        first = draw(st.sampled_from(factors))
        target = [first, -1] if draw(st.booleans()) else [count // first, first, 1]
        return shape, element, f"reshape(x, {target})", lambda x: x.reshape(target)
    if kind == "slice":
        axis = draw(st.integers(-rank, rank - 1))
        size = shape[axis]
        start = draw(st.integers(0, size - 1))
        stop = draw(st.integers(start + 1, size))
        index = [slice(None)] * rank
        index[axis] = slice(start, stop)
        return shape, element, f"slice(x, {axis}, {start}, {stop})", lambda x: x[tuple(index)]
    lead = draw(st.lists(st.integers(1, 3), max_size=2))
    target = [*lead, *(draw(st.integers(1, 3)) if d == 1 else d for d in shape)]
    return shape, element, f"broadcast_to(x, {target})", lambda x: np.broadcast_to(x, target)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape_ops(), st.integers(0, 2**32 - 1))
def test_random_shape_operations_agree_with_numpy(case, seed):
    shape, element, call, numpy = case
    source = f"def f(x: tensor[{'x'.join([*map(str, shape), element])}]) = {call}\n"
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 2, size=shape) if element == "i1" else rng.integers(-50, 50, size=shape)).astype(
        DTYPES[element]
    )
    want = numpy(x)
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(x)
        assert got.shape == want.shape and got.dtype == want.dtype, source
        np.testing.assert_array_equal(got, want, err_msg=source)


@st.composite
def concats(draw):
    """Two to four tensors of one rank (1-3) and type, their sizes equal off the axis; some
    sizes '?'."""
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    items = []
    for _ in range(draw(st.integers(2, 4))):
        own = list(shape)
        own[axis] = draw(st.integers(1, 3))
        items.append(tuple(own))
    return items, axis, draw(st.sampled_from(list(DTYPES))), draw(st.booleans())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(concats(), st.integers(0, 2**32 - 1))
def test_random_concats_agree_with_numpy(case, seed):
    items, axis, element, question = case
    types = ", ".join(
        f"p{i}: tensor[{'x'.join([*('?' if question else str(d) for d in s), element])}]" for i, s in enumerate(items)
    )
    source = f"def f({types}) = concat({axis}, [{', '.join(f'p{i}' for i in range(len(items)))}])\n"
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 2 if element == "i1" else 50, size=s).astype(DTYPES[element]) for s in items]
    want = np.concatenate(xs, axis=axis)
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(*xs)
        np.testing.assert_array_equal(got, want, err_msg=source)
        assert got.dtype == want.dtype


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_a_slice_beyond_a_question_mark_is_checked_when_the_program_runs(optimise):
    lib = mg_xdsl.compile("def f(a: tensor[?x2]) = slice(a, 0, 1, 3)\n", optimise=optimise)
    a = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(lib.f(a), a[1:3])
    with pytest.raises(mg_xdsl.RuntimeCheckFailed, match="mg.slice: stop 3 is beyond the size of dimension 0"):
        lib.f(np.zeros((2, 2)))


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_the_transpose_of_a_rank_0_tensor_is_itself(optimise):
    """(Found by the random-rank test: the permuted indices were built from the first.)"""
    lib = mg_xdsl.compile("def f(x: tensor[]) = transpose(x)\n", optimise=optimise)
    assert lib.f(2.5) == 2.5


# -- the empty list [] ------------------------------------------------------------------------
# Where a list is expected, [] is no axes (a reduction over none leaves its input, as NumPy's
# axis=() does) or the shape of rank 0 (reshape of one element, zeros, full, random numbers).
# As a value it is no tensor (no dimension has size 0), and concat has nothing to join.
EMPTY_LISTS = """
def sum_none(x: tensor[2x3]) = sum(x, axes=[])
def max_none(x: tensor[2x3]) = max(x, axes=[], keepdims=true)
def mean_none(x: tensor[?x3]) = mean(x, axes=[])
def prod_none(x: tensor[2x3xi32]) = prod(x, axes=[])
def to_rank_0(x: tensor[1x1]) = reshape(x, [])
def made(x: tensor[]) = x + zeros([]) + full([], 2.5) + ones([], dtype=f64)
def same_numbers(x: tensor[]) = normal([], seed=3) - reshape(normal([1], seed=3), []) + x
"""


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_the_empty_list_is_no_axes_or_the_shape_of_rank_0(optimise):
    lib = mg_xdsl.compile(EMPTY_LISTS, optimise=optimise)
    x = np.arange(6.0).reshape(2, 3) - 2
    for got, want in [
        (lib.sum_none(x), np.sum(x, axis=())),
        (lib.max_none(x), np.max(x, axis=(), keepdims=True)),
        (lib.mean_none(x), np.mean(x, axis=())),
        (lib.prod_none(x.astype(np.int32)), x.astype(np.int32)),  # (NumPy's prod would widen)
        (lib.to_rank_0([[4.0]]), np.reshape([[4.0]], ())),
        (lib.made(1.0), np.float64(4.5)),
        (lib.same_numbers(0.0), np.float64(0.0)),
    ]:
        np.testing.assert_array_equal(got, want)
        assert got.shape == want.shape and got.dtype == want.dtype


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_broadcast_to_a_static_size_of_a_question_mark_claims_it(optimise):
    """`broadcast_to` of a `?` to a static size with nothing to grow: the `?` is claimed
    (checked when the program runs), and the result has the static type the checker gave it
    (once an internal compiler error: the def returned a `?x5` where `3x5` was declared)."""
    from mg_xdsl.api import RuntimeCheckFailed

    lib = mg_xdsl.compile(
        "def f(p: tensor[?x5]) -> tensor[3x5] = broadcast_to(p, [3, 5])\n"
        "def g(p: tensor[?x5xi1]) = ones_like(broadcast_to(p, [3, 5]))\n",
        optimise=optimise,
    )
    np.testing.assert_array_equal(lib.f(np.arange(15.0).reshape(3, 5)), np.arange(15.0).reshape(3, 5))
    np.testing.assert_array_equal(lib.g(np.zeros((3, 5), bool)), np.ones((3, 5), bool))
    with pytest.raises(RuntimeCheckFailed, match="mg.broadcast: dimension 0 differs at runtime"):
        lib.f(np.ones((2, 5)))
