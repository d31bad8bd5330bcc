"""Element types in the language: ``tensor[2x3xf32]``, ``tensor[?xi32]``,
``tensor[i64]``; ``let NAME: TYPE = ...`` and ``def ... -> TYPE``; numbers that take the
type of the tensor they combine with; ``cast``; integer arithmetic (division truncating
toward zero, a zero divisor stopping the program, overflow wrapping). Checked through
``mgc run`` (both CPU pipelines, upstream MLIR's lowering, the emulated GPU) against NumPy
computing in the same dtype. (The compile errors: tests/unit/language/test_compile_errors.py;
the Python API and the C++ header of each element type: test_api.py, test_cpp.py.)"""

import re

import ml_dtypes
import numpy as np
import pytest
from conftest import gpu_agrees, mgc
from helpers.printed import printed_arrays
from helpers.reference import divide
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl

DTYPES = {"f64": np.float64, "f32": np.float32, "bf16": ml_dtypes.bfloat16, "i32": np.int32, "i64": np.int64}


# -- mgc run ---------------------------------------------------------------------------------

PROGRAM = """
let a: tensor[2x3xi32] = [[1, 2, 3], [4, -5, 6]]
let b: tensor[2x3xi32] = [[2, 2, 2], [-3, 3, 4]]
print a + b
print a / b
print -a * 2
print 7 / b
print relu(a)
print row_sum(a)
print col_max(a)
print row_max(a - 10)
print a @ transpose(b)
print cast(a, f32) / 3
print cast(cast(a, f64) * 1.7, i64)
def f(x: tensor[?x3xi64]) -> tensor[?x3xi64] = x * x - 1
print f(cast(a, i64))
let n: tensor[i32] = -7
print n / 2
let c: tensor[3xf32] = [0.1, 2, 1e10]
print c * c
print cast([3e9, -3e9, 2.7, -2.7], i32)
"""


def expected_outputs() -> list[np.ndarray]:
    a = np.array([[1, 2, 3], [4, -5, 6]], np.int32)
    b = np.array([[2, 2, 2], [-3, 3, 4]], np.int32)
    c = np.array([0.1, 2, 1e10], np.float32)
    return [
        a + b,
        divide(a, b),
        -a * np.int32(2),
        divide(np.full_like(b, 7), b),
        np.maximum(a, 0),
        a.sum(axis=1, keepdims=True),
        a.max(axis=0, keepdims=True),
        (a - np.int32(10)).max(axis=1, keepdims=True),
        a @ b.T,
        a.astype(np.float32) / np.float32(3),
        np.trunc(a * 1.7).astype(np.int64),
        a.astype(np.int64) ** 2 - 1,
        np.array(-3),
        c * c,
        np.array([2**31 - 1, -(2**31), 2, -2], np.int32),
    ]


@pytest.mark.parametrize("flags", [[], ["--reference"], ["--gpu-emulated"]], ids=["optimised", "reference", "gpu"])
def test_mgc_run_computes_each_element_type_as_numpy_does(flags):
    out = mgc("run", *flags, "-", input=PROGRAM.encode())
    assert out.returncode == 0, out.stderr
    got = printed_arrays(out.stdout.decode())
    want = expected_outputs()
    assert len(got) == len(want)
    six_digits = np.vectorize(lambda x: float("%g" % x))  # as printMemref prints a number
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(
            g, np.asarray(w, dtype=float) if w.dtype.kind == "i" else six_digits(np.asarray(w, dtype=float))
        )
    # Integers print as integers, f32 as C++ prints a float.
    text = out.stdout.decode()
    assert "[[3,   4,   5], \n [1,   -2,   10]]" in text
    assert "[0.01,  4,  1e+20]" in text


@pytest.mark.skipif(
    __import__("shutil").which("mlir-opt-22") is None,
    reason="mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)",
)
def test_upstream_accepts_every_stage_and_prints_the_same():
    from helpers.upstream import upstream_agrees

    upstream_agrees(PROGRAM)


DIVISION_BY_ZERO = "let a: tensor[3xi64] = [4, 5, 6]\nlet d: tensor[3xi64] = [2, 0, 1]\nprint [[1]]\nprint a / d\n"


@pytest.mark.parametrize("flags", [[], ["--reference"], ["--backend", "mlir"]], ids=["optimised", "reference", "mlir"])
def test_an_integer_division_by_zero_stops_the_program(flags):
    if flags[:1] == ["--backend"] and __import__("shutil").which("mlir-opt-22") is None:
        pytest.skip("mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)")
    out = mgc("run", *flags, "-", input=DIVISION_BY_ZERO.encode())
    assert out.returncode in (134, -6)  # (the shell says 134; Python sees the signal, SIGABRT)
    assert out.stdout.decode().endswith("[[1]]\n")  # what was printed before it stays printed
    assert out.stderr.decode() == "mg.div: integer division by zero\n  at <stdin>:4\n"


def test_integer_overflow_wraps_and_float_to_integer_saturates():
    out = mgc(
        "run",
        "-",
        input=b"let m: tensor[2xi32] = [-2147483648, 2147483647]\n"
        b"print m / -1\nprint m + 1\nprint -m\n"
        b"print cast([1e300, -1e300, 0, -0.9] / [1, 1, 0, 1], i64)\n",
    )  # (0 / 0: NaN)
    assert out.returncode == 0, out.stderr
    data = re.findall(r"data = \n(.*)\n", out.stdout.decode())
    assert data == [
        "[-2147483648,  -2147483647]",
        "[-2147483647,  -2147483648]",
        "[-2147483648,  -2147483647]",
        "[9223372036854775807,  -9223372036854775808,  0,  0]",
    ]


EXACT_INTEGERS = """let b: tensor[2xi64] = [9223372036854775000, 3]
print b + 1
let c: tensor[1xi64] = [9007199254740993]
print c
let d: tensor[2xi64] = [9223372036854775807, -9223372036854775808]
print d
let e: tensor[i64] = 9007199254740993
print e - 1
print c * 0 + 9007199254740993 + 2
print full([2], 9007199254740995, dtype=i64)
let m: tensor[2xi32] = [2147483647, -2147483648]
print m
"""


@pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])
def test_integer_literals_and_numbers_are_exact_in_every_integer_type(flags):
    """Integers beyond f64's 2^53 keep every digit (they were once read as f64), up to
    INT64_MAX and INT64_MIN; compile-time integers fold exactly."""
    out = mgc("run", *flags, "-", input=EXACT_INTEGERS.encode())
    assert out.returncode == 0, out.stderr
    data = re.findall(r"data = \n(.*)\n", out.stdout.decode())
    assert data == [
        "[9223372036854775001,  4]",
        "[9007199254740993]",
        "[9223372036854775807,  -9223372036854775808]",
        "[9007199254740992]",
        "[9007199254740995]",
        "[9007199254740995,  9007199254740995]",
        "[2147483647,  -2147483648]",
    ]


# -- random programs ------------------------------------------------------------------------

NUMBERS = {"f": [0.5, 2.0, -3.0, 1.25], "i": [2, -3, 7, 1], "b": [0.5, 2.0, -3.0, 1.25]}
COMPARE = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}


@st.composite
def typed_expression(draw, element: str, params: list, depth: int, number_ok: bool = True):
    """(source, NumPy function of the parameters' values) of an expression on 3x4 tensors of
    ``element``; divisors are parameters (no zero is generated for them) or numbers."""
    kind = element[0]

    def param(divisor: bool = False):
        name = f"p{len(params)}"
        params.append(divisor)
        return name, (lambda env: env[name])

    def number():
        x = draw(st.sampled_from(NUMBERS[kind]))
        return repr(x), (lambda env: DTYPES[element](x))

    choice = draw(st.integers(0, 7 if depth < 3 else 1))
    if choice == 0 or (choice == 1 and not number_ok):
        return param()
    if choice == 1:
        return number()
    if choice == 2:
        src, f = draw(typed_expression(element, params, depth + 1, number_ok=False))
        return f"relu({src})", (lambda env: np.maximum(f(env), DTYPES[element](0)))
    if choice == 3:
        src, f = draw(typed_expression(element, params, depth + 1, number_ok=False))
        return f"-{src}", (lambda env: -f(env))
    if choice == 4:  # there and back through another type that holds every value
        via = {"f32": "f64", "f64": "f64", "bf16": "f32", "i32": "i64", "i64": "i64"}[element]
        src, f = draw(typed_expression(element, params, depth + 1, number_ok=False))
        return f"cast(cast({src}, {via}), {element})", f
    if choice == 5:  # where(l < r, a, b), either value a number
        cmp = draw(st.sampled_from(list(COMPARE)))
        ls, lf = draw(typed_expression(element, params, depth + 1, number_ok=False))
        rs, rf = draw(typed_expression(element, params, depth + 1))
        a_src, af = draw(typed_expression(element, params, depth + 1))
        # (two numbers would give f64, as NumPy's where does: one is a tensor; a tensor's
        # source names a parameter, a number's none)
        b_src, bf = draw(typed_expression(element, params, depth + 1, number_ok="p" in a_src))
        return (
            f"where({ls} {cmp} {rs}, {a_src}, {b_src})",
            lambda env: np.where(COMPARE[cmp](lf(env), rf(env)), af(env), bf(env)).astype(DTYPES[element]),
        )
    op = draw(st.sampled_from("+-*/"))
    # (two numbers fold in f64: 2 / -3 is no integer, so an integer division has a tensor)
    ls, lf = draw(typed_expression(element, params, depth + 1, number_ok and (op != "/" or kind == "f")))
    if op == "/":
        rs, rf = draw(st.sampled_from([param(divisor=True), number()]))
        return f"({ls} / {rs})", (lambda env: divide(lf(env), rf(env)))
    rs, rf = draw(typed_expression(element, params, depth + 1))
    fn = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
    return f"({ls} {op} {rs})", (lambda env: fn(lf(env), rf(env)))


@st.composite
def typed_program(draw):
    element = draw(st.sampled_from(list(DTYPES)))
    params: list = []
    src, f = draw(typed_expression(element, params, 0, number_ok=False))
    types = ", ".join(f"p{i}: tensor[3x4x{element}]" for i in range(len(params)))
    return f"def f({types}) -> tensor[3x4x{element}] = {src}\n", element, params, f


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_program(), st.integers(0, 2**32 - 1))
def test_random_typed_programs_agree_with_numpy(case, seed):
    """Operators, numbers, relu, negation, casts, comparisons and where on tensors of one
    element type, in both pipelines, against NumPy computing in that dtype: the same bits."""
    source, element, params, f = case
    dtype = DTYPES[element]
    rng = np.random.default_rng(seed)
    args = {}
    for i, divisor in enumerate(params):
        if np.dtype(dtype).kind == "i":
            values = rng.integers(-50, 50, size=(3, 4))
            if divisor:
                values = np.where(values == 0, 1, values)
        else:
            values = rng.normal(size=(3, 4))
        args[f"p{i}"] = values.astype(dtype)
    with np.errstate(all="ignore"):
        want = np.asarray(f(args)).astype(dtype)
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(*args.values())
        assert got.dtype == dtype, source
        np.testing.assert_array_equal(got, want, err_msg=f"{source} optimise={optimise}")


def test_large_integer_results_are_streamed_and_right():
    """An elementwise i32 result of 16 MiB goes through stream-large-results' vector loop
    (integer vector ops, ``llvm.smax`` for relu) and gives NumPy's values."""
    lib = mg_xdsl.compile("def f(a: tensor[2048x2048xi32], b: tensor[2048x2048xi32]) = relu(a - b * 3)\n")
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-100, 100, (2048, 2048)).astype(np.int32) for _ in range(2))
    np.testing.assert_array_equal(lib.f(a, b), np.maximum(a - b * np.int32(3), 0))


# -- comparisons, i1 and where ---------------------------------------------------------------

BOOLEANS = """
let a = [[1, -2, 3], [0, 5, -6]]
print a > 0
print where(a > 0, a, 0)
print where(a < [1, 0, 2], 10, a * 2)
let m: tensor[3xi1] = [true, false, true]
print m
print m == [true, true, false]
print where(m, [1, 2, 3], [4, 5, 6])
print cast(m, f64) + 1
print cast(a, i1)
let i: tensor[2x3xi32] = [[1, 2, 3], [4, 5, 6]]
print i >= 3
print 4 > i
def f(x: tensor[?x3]) = where(x != x, 0, x)
print f(a / [0, 1, 0])
print true
"""


def boolean_outputs() -> list[np.ndarray]:
    a = np.array([[1, -2, 3], [0, 5, -6]], dtype=float)
    m = np.array([True, False, True])
    i = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    with np.errstate(all="ignore"):
        x = a / np.array([0, 1, 0])
    return [
        a > 0,
        np.where(a > 0, a, 0),
        np.where(a < [1, 0, 2], 10, a * 2),
        m,
        m == [True, True, False],
        np.where(m, [1, 2, 3], [4, 5, 6]),
        m + 1.0,
        a != 0,
        i >= 3,
        4 > i,
        np.where(x != x, 0, x),
        np.array(True),
    ]


@pytest.mark.parametrize("flags", [[], ["--reference"], ["--gpu-emulated"]], ids=["optimised", "reference", "gpu"])
def test_comparisons_and_where_compute_what_numpy_does(flags):
    """Comparisons give i1 tensors (printed 0 and 1, as printMemrefI32 prints them
    extended); where selects, a number standing for a tensor of the other's shape; a NaN
    is unequal to itself."""
    out = mgc("run", *flags, "-", input=BOOLEANS.encode())
    assert out.returncode == 0, out.stderr
    got = printed_arrays(out.stdout.decode())
    want = boolean_outputs()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w.astype(float))


# where's two values combine as an operator combines them, then broadcast against the mask:
# a '?' of one against the other's static 1 is that 1 (checked), which then grows (found by
# the random programs: the '?' was compared with the mask's size instead).
WHERE_OF_A_QUESTION = """def f(m: tensor[3x2xi1], p: tensor[?x2]) = where(m, p, [[0.5, 2]])
def g(m: tensor[3x?xi1], p: tensor[?x2xf32]) = where(m, cast([[0.5, 2]], f32), p)
let m = [[1, 2], [3, 4], [5, 6]] > 2
print f(m, [[0, -1]])
print g(m, cast([[0, -1]], f32))
print f(m, [[0, -1], [1, 1]])
"""


@pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])
def test_where_combines_its_values_before_the_mask(flags):
    out = mgc("run", "-w", *flags, "-", input=WHERE_OF_A_QUESTION.encode())
    m = np.array([[1, 2], [3, 4], [5, 6]]) > 2
    f, g = printed_arrays(out.stdout.decode())
    np.testing.assert_array_equal(f, np.where(m, [[0, -1]], [[0.5, 2]]))
    np.testing.assert_array_equal(g, np.where(m, [[0.5, 2]], [[0, -1]]))
    assert out.returncode in (134, -6)  # aborted at the third call: 2 rows where the other value has 1
    assert "mg.select: operand shapes differ at runtime in dimension 0\n" in out.stderr.decode()


@pytest.mark.skipif(
    __import__("shutil").which("mlir-opt-22") is None,
    reason="mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)",
)
def test_upstream_accepts_every_stage_of_comparisons_and_prints_the_same():
    from helpers.upstream import upstream_agrees

    upstream_agrees(BOOLEANS)


# -- bf16 ---------------------------------------------------------------------------------------

BF16 = """
let a: tensor[2x3xbf16] = [[0.1, 1, 3], [-2.5, 1e10, 0.3333]]
print a
print a + a * 3
print a @ transpose(a)
print sum(a, axes=[1])
print row_mean(a)
print exp(a) - 1
print cast([1.5, -2.5, 3e9], bf16)
print cast(a, i32)
"""


def test_bf16_computes_in_f32_and_rounds_each_result_as_ml_dtypes_does():
    """Each operation's result rounded to bf16 once; products and reductions accumulate in
    f32; printed as the float it is (printMemrefF32)."""
    bf = ml_dtypes.bfloat16
    a = np.array([[0.1, 1, 3], [-2.5, 1e10, 0.3333]], np.float32).astype(bf)
    wide = a.astype(np.float32)
    with np.errstate(over="ignore"):
        want = [
            a,
            a + a * bf(3),
            (wide @ wide.T).astype(bf),
            wide.sum(axis=1).astype(bf),
            wide.mean(axis=1, keepdims=True).astype(bf),
            np.exp(wide).astype(bf) - bf(1),
            np.array([1.5, -2.5, 3e9], np.float32).astype(bf),
            np.array([[0, 1, 3], [-2, 2**31 - 1, 0]]),
        ]
    for flags in ([], ["--reference"]):
        out = mgc("run", *flags, "-", input=BF16.encode())
        assert out.returncode == 0, out.stderr
        got = printed_arrays(out.stdout.decode())
        assert len(got) == len(want)
        six_digits = np.vectorize(lambda x: float("%g" % x))
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_array_equal(
                g, w.astype(np.float64) if w.dtype.kind == "i" else six_digits(w.astype(np.float64))
            )


TYPED_ON_GPU = """
let a: tensor[2x3xbf16] = [[0.1, 1, 3], [-2.5, 1e10, 0.3333]]
print a + a * 3
print a @ transpose(a)
print sum(a, axes=[1])
let i: tensor[2x3xi32] = [[7, -7, 9], [1, 2, 3]]
print where(i > 2, i / 2, -i)
print cast(a, i32)
"""


def test_typed_programs_run_alike_on_the_emulated_gpu_and_assemble_for_a_real_one():
    """bf16 (the kernels' IR printed by the project's printer: xDSL's has no bfloat), i32
    division, comparisons and where in kernels."""
    gpu_agrees(TYPED_ON_GPU)
