"""Builtins: reductions over axes (``sum``, ``prod``, ``max``, ``min``,
``mean`` with ``axes=`` and ``keepdims=``), math functions (``sqrt rsqrt exp log sin cos tanh
acos asin abs``, ``maximum minimum pow atan2``) and creation (``zeros ones full zeros_like
ones_like iota``), through ``mgc run`` and the Python API in both CPU pipelines and through
upstream MLIR, against NumPy."""

import re
import shutil

import ml_dtypes
import numpy as np
import pytest
from conftest import mgc
from helpers.printed import printed_arrays
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl

DTYPES = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64}
needs_mlir = pytest.mark.skipif(
    shutil.which("mlir-opt-22") is None,
    reason="mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)",
)

PROGRAM = """
let a = [[[1, 2, 3], [4, 5, 6]], [[-1, -2, -3], [7, 8, 9]]]
print sum(a)
print sum(a, axes=[0, -1])
print max(a, axes=[1], keepdims=true)
print min(a, axes=[2])
print prod(a, axes=[0])
print mean(a, axes=[1, 2], keepdims=true)
def softmax(x: tensor[?x3]) = exp(x) / sum(exp(x), axes=[1], keepdims=true)
print softmax([[1, 2, 3], [0, 0, 0]])
print maximum(a, 2) - minimum([1, 5, 2], a)
print pow([1, 2, 3], 2) + atan2([1.0], [1.0]) * 4
print sqrt([4, 9]) + rsqrt([4, 16]) + abs([-1.5, 2])
print log([1, 0]) + sin([0, 0]) + cos([0, 0]) + tanh([0, 100]) + acos([1, 1]) + asin([0, 1])
print zeros([2, 3], dtype=i32) + iota([2, 3], axis=1)
print ones([2]) + full([2], 7.5)
print zeros_like(a) + ones_like(a, dtype=f64)
let i: tensor[2x3xi32] = [[1, -2, 3], [-4, 5, -6]]
print abs(i) + sum(i, axes=[0], keepdims=true)
print mean(exp(0) * [2, 4])
"""


def expected() -> list[np.ndarray]:
    a = np.array([[[1, 2, 3], [4, 5, 6]], [[-1, -2, -3], [7, 8, 9]]], dtype=float)
    x = np.array([[1, 2, 3], [0, 0, 0]], dtype=float)
    i = np.array([[1, -2, 3], [-4, 5, -6]], np.int32)
    with np.errstate(divide="ignore"):
        funcs = (
            np.log([1, 0]) + np.sin([0, 0]) + np.cos([0, 0]) + np.tanh([0, 100]) + np.arccos([1, 1]) + np.arcsin([0, 1])
        )
    return [
        a.sum(),
        a.sum(axis=(0, 2)),
        a.max(axis=1, keepdims=True),
        a.min(axis=2),
        a.prod(axis=0),
        a.mean(axis=(1, 2), keepdims=True),
        np.exp(x) / np.exp(x).sum(axis=1, keepdims=True),
        np.maximum(a, 2) - np.minimum([1, 5, 2], a),
        np.power([1, 2, 3], 2.0) + np.arctan2([1.0], [1.0]) * 4,
        np.sqrt([4, 9]) + 1 / np.sqrt([4, 16]) + np.abs([-1.5, 2]),
        funcs,
        np.zeros((2, 3), np.int32) + np.arange(3, dtype=np.int32),
        np.ones(2) + 7.5,
        np.zeros_like(a) + np.ones_like(a),
        np.abs(i) + i.sum(axis=0, keepdims=True, dtype=np.int32),
        np.array(3.0),
    ]


def check_printed(text: str) -> None:
    got, want = printed_arrays(text), expected()
    assert len(got) == len(want)
    six_digits = np.vectorize(lambda x: float("%g" % x))  # as printMemref prints a number
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, six_digits(np.asarray(w, dtype=float)))


@pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])
def test_mgc_run_computes_each_builtin_as_numpy_does(flags):
    out = mgc("run", *flags, "-", input=PROGRAM.encode())
    assert out.returncode == 0, out.stderr
    check_printed(out.stdout.decode())


@needs_mlir
def test_upstream_accepts_every_stage_and_prints_the_same():
    from helpers.upstream import upstream_agrees

    upstream_agrees(PROGRAM)


GPU_MATH = """
def unary(x: tensor[?xf32], y: tensor[?]) = exp(x) + log(x) + sin(x) + cos(x) + tanh(x) + cast(acos(y) + asin(y), f32)
def binary(x: tensor[?xf32], y: tensor[?]) = atan2(x, cast(y, f32)) + pow(x, cast(y, f32)) + cast(pow(y, y), f32)
def brain(x: tensor[?xbf16]) = exp(x)
"""


def test_the_gpu_computes_every_math_function():
    """On the emulated GPU, the kernels call libdevice's functions (``__nv_expf``...): each
    against NumPy, in f32, f64 and bf16."""
    lib = mg_xdsl.compile(GPU_MATH, gpu="emulated")
    x = np.linspace(0.1, 3.0, 37, dtype=np.float32)
    y = np.linspace(-0.9, 0.9, 37)
    want = np.exp(x) + np.log(x) + np.sin(x) + np.cos(x) + np.tanh(x) + (np.arccos(y) + np.arcsin(y)).astype(np.float32)
    np.testing.assert_allclose(lib.unary(x, y), want, rtol=2e-6)
    with np.errstate(invalid="ignore"):
        want = (
            np.arctan2(x, y.astype(np.float32)) + np.power(x, y.astype(np.float32)) + np.power(y, y).astype(np.float32)
        )  # (NaN for a negative y, as pow's)
    np.testing.assert_allclose(lib.binary(x, y), want, rtol=2e-6)
    b = x.astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(lib.brain(b), np.exp(b.astype(np.float32)).astype(ml_dtypes.bfloat16))


def test_the_gpu_math_functions_assemble(tmp_path):
    """``mgc ptx`` links libdevice: only the functions called are in the PTX, and ptxas
    assembles it."""
    from mg_xdsl.backend.ptx import compile_ptx, find_libdevice, find_ptxas, ptxas_check

    if find_libdevice() is None or find_ptxas() is None:
        pytest.skip("needs nvidia-cuda-nvcc (the test extra installs it)")
    text = compile_ptx(GPU_MATH)
    functions = sorted(set(re.findall(r"^\.func\s+\(\.param \.b\d+ func_retval0\) (__nv_\w+)", text, re.M)))
    assert functions == sorted(
        [
            "__nv_expf",
            "__nv_logf",
            "__nv_sinf",
            "__nv_cosf",
            "__nv_tanhf",
            "__nv_acos",
            "__nv_asin",
            "__nv_atan2f",
            "__nv_powf",
            "__nv_pow",
        ]
    )
    ok, messages = ptxas_check(text)
    assert ok, messages


def test_a_missing_libdevice_is_an_error_naming_the_functions(monkeypatch):
    from mg_xdsl.backend import ptx

    monkeypatch.setattr(ptx, "find_libdevice", lambda: None)
    with pytest.raises(
        ptx.LibdeviceMissing, match="the kernels call __nv_exp, __nv_sin of CUDA's libdevice, which is not installed"
    ):
        ptx.compile_ptx("def f(x: tensor[?]) = exp(x) + sin(x)\n")


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_softmax_works_for_any_number_of_rows(optimise):
    """Softmax over a batch of rows: the batch dimension is a '?', and the row sums (``?x1``) grow
    along their static 1."""
    lib = mg_xdsl.compile(
        "def softmax(x: tensor[?x10]) = exp(x) / sum(exp(x), axes=[1], keepdims=true)\n", optimise=optimise
    )
    rng = np.random.default_rng(0)
    for rows in (1, 7, 300):
        x = rng.normal(size=(rows, 10)) * 3
        want = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(lib.softmax(x), want, rtol=1e-14)


def test_a_number_is_a_rank_0_tensor_to_relu_and_transpose_as_to_exp():
    """``relu(-3)`` folds as ``exp(2)`` and ``abs(-3)`` do, to what ``mg.relu`` would compute
    (NaN stays NaN, -0.0 gives 0.0); ``transpose`` of a number (a rank-0 tensor) is itself."""
    p = mgc(
        "run",
        "-",
        input=b"print relu(-3)\nprint relu(2.5) * 2\nprint relu(0 / 0)\nprint relu(-0.0)\n"
        b"print relu([-0.0])\nprint transpose(3)\nprint exp(0) + abs(-3)\n",
    )
    assert p.returncode == 0, p.stderr
    assert re.findall(r"data = \n(.*)\n", p.stdout.decode()) == ["[0]", "[5]", "[nan]", "[0]", "[0]", "[3]", "[4]"]


# -- random reductions and functions against NumPy ---------------------------------------------

NUMPY_REDUCTIONS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


@st.composite
def reductions(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=4)))
    element = draw(st.sampled_from(list(DTYPES)))
    kind = draw(st.sampled_from([k for k in NUMPY_REDUCTIONS if element[0] == "f" or k != "mean"]))
    axes = draw(
        st.none()
        | st.lists(
            st.integers(-len(shape), len(shape) - 1),
            unique_by=lambda a: a % len(shape),
            min_size=1,
            max_size=len(shape),
        )
        if shape
        else st.none()
    )
    keepdims = draw(st.booleans())
    dims = [("?" if draw(st.booleans()) and not (kind == "mean") else str(d)) for d in shape]
    return shape, element, kind, axes, keepdims, dims


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reductions(), st.integers(0, 2**32 - 1))
def test_random_reductions_agree_with_numpy(case, seed):
    """Every kind, element type, rank 0 to 4, axes (negative ones too, none given: all),
    keepdims, '?' sizes: NumPy's shape; integers exactly (summed in their own type, as
    NumPy with dtype=), floats up to the order of summation."""
    shape, element, kind, axes, keepdims, dims = case
    keywords = ("" if axes is None else f", axes=[{', '.join(map(str, axes))}]") + f", keepdims={str(keepdims).lower()}"
    source = f"def f(x: tensor[{'x'.join([*dims, element])}]) = {kind}(x{keywords})\n"
    rng = np.random.default_rng(seed)
    dtype = DTYPES[element]
    x = (rng.integers(-3, 4, size=shape) if element[0] == "i" else rng.normal(size=shape)).astype(dtype)
    numpy_axes = None if axes is None else tuple(a % len(shape) for a in axes) if shape else None
    extra = {"dtype": dtype} if kind in ("sum", "prod") else {}
    want = np.asarray(NUMPY_REDUCTIONS[kind](x, axis=numpy_axes, keepdims=keepdims, **extra))
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(x)
        assert got.shape == want.shape and got.dtype == dtype, source
        if element[0] == "i":
            np.testing.assert_array_equal(got, want, err_msg=source)
        else:
            tolerance = 1e-5 if element == "f32" else 1e-12
            np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=source)


NUMPY_FUNCTIONS = {
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "acos": np.arccos,
    "asin": np.arcsin,
    "abs": np.abs,
}


@pytest.mark.parametrize("element", ["f64", "f32"])
@pytest.mark.parametrize("function", list(NUMPY_FUNCTIONS))
def test_each_function_agrees_with_numpy(function, element):
    """Over its domain and outside it (NaN, as NumPy), in both pipelines."""
    dtype = DTYPES[element]
    x = np.concatenate([np.linspace(-3, 3, 61), [0.0, -0.0, 1e-300, 50.0, np.inf, -np.inf, np.nan]]).astype(dtype)
    with np.errstate(all="ignore"):
        want = NUMPY_FUNCTIONS[function](x)
    for optimise in (True, False):
        got = mg_xdsl.compile(f"def f(x: tensor[?x{element}]) = {function}(x)\n", optimise=optimise).f(x)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=4e-6 if element == "f32" else 1e-14, atol=0)


def test_binary_functions_agree_with_numpy_and_propagate_nan():
    lib = mg_xdsl.compile(
        "def f(a: tensor[?], b: tensor[?]) = maximum(a, b) + minimum(b, a)\n"
        "def p(a: tensor[?], b: tensor[?]) = pow(a, b)\n"
        "def t(y: tensor[?], x: tensor[?]) = atan2(y, x)\n"
        "def g(a: tensor[?xi64]) = maximum(a, 0) - minimum(3, a)\n"
    )
    a = np.array([1.0, np.nan, -2.0, 0.0, -0.0, np.inf])
    b = np.array([2.0, 1.0, np.nan, -0.0, 0.0, 3.0])
    np.testing.assert_array_equal(lib.f(a, b), np.maximum(a, b) + np.minimum(b, a))
    np.testing.assert_allclose(lib.p(np.abs(a), b), np.power(np.abs(a), b), rtol=1e-15)
    np.testing.assert_allclose(lib.t(a, b), np.arctan2(a, b), rtol=1e-15)
    i = np.array([-5, 0, 2, 7], np.int64)
    np.testing.assert_array_equal(lib.g(i), np.maximum(i, 0) - np.minimum(3, i))


def test_creation_builtins_make_numpys_tensors():
    lib = mg_xdsl.compile(
        "def f(x: tensor[?x3xf32]) = zeros_like(x) + ones_like(x) * 2\n"
        "def g(x: tensor[2x3xi64]) = x + iota([2, 3], axis=0, dtype=i64) + full([3], 7, dtype=i64)\n"
        "def h(x: tensor[2x2]) = x + ones([2, 2]) + zeros([2])\n"
    )
    got = lib.f(np.ones((4, 3), np.float32))
    assert got.dtype == np.float32 and got.tolist() == [[2.0] * 3] * 4
    np.testing.assert_array_equal(lib.g(np.zeros((2, 3), np.int64)), [[7, 7, 7], [8, 8, 8]])
    np.testing.assert_array_equal(lib.h(np.eye(2)), np.eye(2) + 1)


# -- batched matrix products ------------------------------------------------------------------


@st.composite
def batched_products(draw):
    """Two stacks of matrices whose batch (leading) axes broadcast as NumPy's do."""
    m, k, n = (draw(st.integers(1, 5)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))

    def side(rows: int, cols: int) -> tuple[int, ...]:
        rank = draw(st.integers(0, len(batch)))
        own = tuple(1 if draw(st.booleans()) else d for d in batch[len(batch) - rank :])
        return (*own, rows, cols)

    return side(m, k), side(k, n), draw(st.sampled_from(["f64", "f32", "i32", "i64"])), draw(st.booleans())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batched_products(), st.integers(0, 2**32 - 1))
def test_random_batched_products_agree_with_numpy(case, seed):
    """``@`` of rank 2 or more: the last two axes multiply, the leading axes broadcast. With
    ``?`` matrix sizes a float product runs the tiled kernel on each matrix of the batch
    (static ones this small are loops)."""
    a_shape, b_shape, element, question = case

    def type_of(shape: tuple[int, ...]) -> str:
        dims = [*map(str, shape[:-2]), *(["?", "?"] if question else map(str, shape[-2:]))]
        return f"tensor[{'x'.join([*dims, element])}]"

    source = f"def f(a: {type_of(a_shape)}, b: {type_of(b_shape)}) = a @ b\n"
    rng = np.random.default_rng(seed)
    dtype = DTYPES[element]
    a, b = (
        (rng.integers(-5, 6, size=s) if element[0] == "i" else rng.normal(size=s)).astype(dtype)
        for s in (a_shape, b_shape)
    )
    want = a @ b
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(a, b)
        assert got.shape == want.shape and got.dtype == dtype, source
        np.testing.assert_allclose(got, want, rtol=1e-5 if element == "f32" else 1e-12, err_msg=source)


def test_a_batched_product_with_question_marks_checks_its_sizes_at_run_time():
    lib = mg_xdsl.compile("def f(a: tensor[?x2x?], b: tensor[?x?x4]) = a @ b\n")
    a, b = np.ones((3, 2, 5)), np.ones((3, 5, 4))
    np.testing.assert_array_equal(lib.f(a, b), a @ b)
    with pytest.raises(mg_xdsl.api.RuntimeCheckFailed, match="mg.matmul: batch dimension 0 differs at runtime"):
        lib.f(a, np.ones((2, 5, 4)))
    with pytest.raises(mg_xdsl.api.RuntimeCheckFailed, match="mg.matmul: inner dimensions differ at runtime"):
        lib.f(a, np.ones((3, 4, 4)))
