"""The Python API: defs as callables on NumPy arrays, by position or by name; shape and type
errors before the call, naming what was expected and what was given; failed run-time checks
and allocations as exceptions the interpreter survives; results that own their memory; arrays
of every rank and element type, bool and bfloat16 included, taken and returned."""

import gc
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import mgc
from helpers.reference import divide

import mg_xdsl
from mg_xdsl.api import MgWarning, RuntimeCheckFailed, ShapeMismatch

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


def test_read_only_and_empty_arrays_are_passed_as_they_are(lib):
    # (Their addresses cannot be taken through a writable buffer: another path finds them.)
    a = np.arange(6.0).reshape(2, 3)
    a.setflags(write=False)
    np.testing.assert_array_equal(lib.add(a, a), [[0, 2, 4], [6, 8, 10]])
    np.testing.assert_array_equal(lib.totals(a), [[3], [12]])
    assert lib.add(np.empty((0, 3)), np.empty((0, 3))).shape == (0, 3)
    assert lib.totals(np.empty((2, 0))).tolist() == [[0.0], [0.0]]


def test_results_own_their_memory(lib):
    a = np.ones((2, 2))
    r = lib.same(a)
    assert r.dtype == np.float64 and r.shape == (2, 2) and r.flags.c_contiguous
    assert not np.shares_memory(r, a)  # `same` returns a copy, never its argument
    a[0, 0] = 5
    assert r[0, 0] == 1


def test_shape_mismatch_is_a_value_error_before_the_call(lib):
    with pytest.raises(ShapeMismatch, match=r"^layer: argument 2 \(w\) must be 3x2, got 2x3$"):
        lib.layer(np.ones((5, 3)), np.ones((2, 3)), np.ones((1, 2)))


# Every way an argument can miss its parameter's static sizes: larger, smaller, transposed,
# in either dimension or both, for static and half-`?` parameters. A check that let a larger
# array through would have the compiled code read the wrong elements.
SIZES = """
def s23(a: tensor[2x3]) = 2 * a
def q3(a: tensor[?x3]) = 2 * a
def p2(a: tensor[2x?]) = 2 * a
"""
MISSES = [
    ("s23", (3, 3)),
    ("s23", (1, 3)),
    ("s23", (2, 4)),
    ("s23", (2, 2)),
    ("s23", (3, 2)),
    ("s23", (3, 4)),
    ("s23", (1, 1)),
    ("s23", (0, 3)),
    ("s23", (2, 0)),
    ("q3", (2, 4)),
    ("q3", (2, 2)),
    ("q3", (3, 2)),
    ("q3", (5, 1)),
    ("q3", (0, 4)),
    ("p2", (3, 2)),
    ("p2", (1, 2)),
    ("p2", (3, 5)),
    ("p2", (4, 0)),
]
FITS = [("s23", (2, 3)), ("q3", (1, 3)), ("q3", (7, 3)), ("q3", (0, 3)), ("p2", (2, 1)), ("p2", (2, 9)), ("p2", (2, 0))]
WANT = {"s23": "2x3", "q3": "?x3", "p2": "2x?"}


@pytest.fixture(scope="module")
def sized():
    return mg_xdsl.compile(SIZES)


@pytest.mark.parametrize("name, shape", MISSES, ids=[f"{n}-{r}x{c}" for n, (r, c) in MISSES])
def test_every_size_that_misses_its_parameter_is_rejected(sized, name, shape):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    with pytest.raises(
        ShapeMismatch,
        match=rf"^{name}: argument 1 \(a\) must be "
        rf"{re.escape(WANT[name])}, got {shape[0]}x{shape[1]}$",
    ):
        getattr(sized, name)(a)


@pytest.mark.parametrize("name, shape", FITS, ids=[f"{n}-{r}x{c}" for n, (r, c) in FITS])
def test_every_size_that_fits_its_parameter_is_computed(sized, name, shape):
    a = np.arange(float(np.prod(shape))).reshape(shape) - 3
    np.testing.assert_array_equal(getattr(sized, name)(a), 2 * a)


@pytest.mark.parametrize(
    "value, error, given",
    [
        (np.ones(3), ShapeMismatch, r"a 1-D array of shape \(3,\)"),
        ([1, 2, 3], ShapeMismatch, r"a 1-D array of shape \(3,\)"),
        (np.array(2.0), ShapeMismatch, r"a 0-D array \(2\.0\)"),
        (np.ones((2, 2, 2)), ShapeMismatch, r"a 3-D array of shape \(2, 2, 2\)"),
        (3, TypeError, "the number 3"),
        (2.5, TypeError, "the number 2.5"),
        (np.float64(1.0), TypeError, r"the number np\.float64\(1\.0\)|the number 1\.0"),
        (None, TypeError, "None"),
    ],
    ids=["1d", "list", "0d", "3d", "int", "float", "numpy-scalar", "none"],
)
def test_a_matrix_parameter_wants_a_2d_array(lib, value, error, given):
    with pytest.raises(
        error,
        match=rf"^totals: argument 1 \(a\) must be a 2-D array of shape \?x\?, "
        rf"got {given}$",
    ):
        lib.totals(value)
    with pytest.raises(error, match=r"^same: argument 1 \(a\) must be a 2-D array of shape 2x2, got "):
        lib.same(value)


def test_complex_ragged_and_text_arguments_are_type_errors(lib):
    with pytest.raises(
        TypeError,
        match=r"^same: argument 1 \(a\) must be real, got complex values "
        r"\(complex128\)",
    ):
        lib.same(np.ones((2, 2)) * (1 + 1j))
    with pytest.raises(TypeError, match=r"must be real, got complex values"):
        lib.same([[1j, 0], [0, 1]])
    with pytest.raises(
        TypeError,
        match=r"^totals: argument 1 \(a\) must be a 2-D array of shape \?x\?, "
        r"got a list that NumPy cannot make an array of",
    ):
        lib.totals([[1, 2], [3]])
    with pytest.raises(TypeError, match=r"of numbers, got a list that NumPy makes an array of <U1"):
        lib.totals([["a", "b"]])
    # Not a real part silently kept: no value came out, and no ComplexWarning either.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError):
            lib.totals(np.zeros((1, 1), dtype=np.complex64))


# The one rule of conversion: no value may change. Integers are checked value by value
# (NumPy's default integer is int64, which ids for an i32 parameter usually are).
CONVERSIONS = """
def rows(table: tensor[4x2], ids: tensor[?xi32]) = index(table, ids)
def exact(x: tensor[?]) = x
def narrow(x: tensor[?xf32]) = x
def brain(x: tensor[?xbf16]) = x
def mask(m: tensor[?xi1]) = m
"""


@pytest.fixture(scope="module")
def conversions():
    return mg_xdsl.compile(CONVERSIONS)


def test_integers_convert_where_every_value_is_kept(conversions):
    table = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(conversions.rows(table, np.array([3, 0, 3])), table[[3, 0, 3]])
    np.testing.assert_array_equal(conversions.rows(table, np.array([1], np.uint64)), table[[1]])
    for fits in ([2**53, -(2**53)], [2**60, -(2**63)]):  # (beyond 2^53, multiples of a power of 2 are exact)
        got = conversions.exact(np.array(fits))
        assert got.dtype == np.float64 and [int(v) for v in got] == fits
    assert conversions.narrow(np.array([2**24, -3], np.int32)).tolist() == [2**24, -3]
    assert conversions.brain(np.array([256, -2])).astype(np.float32).tolist() == [256, -2]


@pytest.mark.parametrize(
    "name, value, problem",
    [
        (
            "rows",
            np.array([3, 2**31, -(2**31) - 1]),
            "argument 2 (ids) is tensor[?xi32], an array of int32: the int64 value "
            "2147483648 at [1] is outside int32's range (-2147483648 to 2147483647)",
        ),
        (
            "rows",
            [0, 2**40],
            "argument 2 (ids) is tensor[?xi32], an array of int32: the value 1099511627776 at [1] is "
            "outside int32's range",
        ),
        (
            "exact",
            np.array([1, 2**53 + 1]),
            "argument 1 (x) is tensor[?], an array of float64: the int64 value "
            "9007199254740993 at [1] is no float64 (it would become 9007199254740992.0)",
        ),
        ("exact", [2**53 + 1], "the value 9007199254740993 at [0] is no float64"),
        (
            "exact",
            np.array([2**64 - 1], np.uint64),
            "the uint64 value 18446744073709551615 at [0] is no float64 (it would become 1.8446744073709552e+19)",
        ),
        ("narrow", np.array([2**24 + 1], np.int32), "the int32 value 16777217 at [0] is no float32"),
        ("brain", np.array([257]), "the int64 value 257 at [0] is no bfloat16 (it would become 256.0)"),
        ("narrow", np.array([0.5]), "float64 values do not convert to it without loss"),  # (floats: by dtype)
        ("mask", np.array([1, 0]), "an array of bool: int64 values do not convert to it without loss"),
    ],
    ids=[
        "int64-ids",
        "list-ids",
        "int64-f64",
        "list-f64",
        "uint64-f64",
        "int32-f32",
        "int64-bf16",
        "f64-f32",
        "int-i1",
    ],
)
def test_a_conversion_that_would_change_a_value_names_it(conversions, name, value, problem):
    args = (np.zeros((4, 2)), value) if name == "rows" else (value,)
    with pytest.raises(TypeError, match=f"^{name}: .*{re.escape(problem)}"):
        getattr(conversions, name)(*args)


def test_arguments_by_position_and_by_name(lib):
    x, w, b = np.ones((5, 3)), np.arange(6.0).reshape(3, 2), np.array([[1.0, -100.0]])
    want = lib.layer(x, w, b)
    np.testing.assert_array_equal(lib.layer(x=x, w=w, bias=b), want)
    np.testing.assert_array_equal(lib.layer(bias=b, w=w, x=x), want)
    np.testing.assert_array_equal(lib.layer(x, bias=b, w=w), want)
    assert lib.layer.parameters == ["x", "w", "bias"]
    # A shape error names the argument by its position and name, however it was passed.
    with pytest.raises(ShapeMismatch, match=r"^layer: argument 3 \(bias\) must be 1x2, got 2x1$"):
        lib.layer(x, w, bias=b.T)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.ones((2, 2)),), {}, "add is missing 1 argument: 'b'"),
        ((), {}, "add is missing 2 arguments: 'a' and 'b'"),
        ((), {"b": np.ones((2, 2))}, "add is missing 1 argument: 'a'"),
        ((np.ones((2, 2)),) * 3, {}, "add takes 2 arguments, got 3"),
        ((np.ones((2, 2)),), {"a": np.ones((2, 2))}, "add got multiple values for argument 'a'"),
        (
            (np.ones((2, 2)),),
            {"c": np.ones((2, 2))},
            "add got an unexpected keyword argument 'c' (its parameters: a, b)",
        ),
    ],
    ids=["missing-one", "missing-two", "missing-first", "too-many", "twice", "unknown"],
)
def test_argument_binding_errors_are_type_errors_like_pythons(lib, args, kwargs, message):
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        lib.add(*args, **kwargs)


def test_argument_counts_are_singular_or_plural(lib):
    with pytest.raises(TypeError, match="^totals takes 1 argument, got 2$"):
        lib.totals(np.ones((1, 1)), np.ones((1, 1)))
    with pytest.raises(TypeError, match="^add takes 2 arguments, got 3$"):
        lib.add(np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)))


def test_failed_runtime_check_raises_and_the_interpreter_survives(lib):
    for _ in range(3):
        with pytest.raises(RuntimeCheckFailed) as info:
            lib.add(np.ones((2, 2)), np.ones((3, 2)))
        e = info.value
        assert str(e) == ("mg.add: operand shapes differ at runtime in dimension 0\n  at <string>:3: sizes 2 and 3")
        assert e.message == "mg.add: operand shapes differ at runtime in dimension 0"
        assert (e.path, e.line, e.sizes) == ("<string>", 3, (2, 3))
        with pytest.raises(RuntimeCheckFailed, match="in dimension 1\n  at <string>:3: sizes 2 and 3$"):
            lib.add(np.ones((2, 2)), np.ones((2, 3)))
    np.testing.assert_array_equal(lib.add(np.ones((2, 2)), np.ones((2, 2))), 2 * np.ones((2, 2)))


@pytest.mark.filterwarnings("ignore::mg_xdsl.MgWarning")  # (the API leaves out the print that mgc run runs)
def test_runtime_check_text_is_what_mgc_run_prints(tmp_path):
    """The exception carries the same report as ``mgc run``'s stderr, in both pipelines."""
    prog = tmp_path / "p.mg"
    prog.write_text("def mm(a: tensor[?x?], b: tensor[?x?]) = a @ b\n\nprint mm([[1, 2, 3]], [[1], [2]])\n")
    p = mgc("run", str(prog))
    assert p.returncode in (134, -6)
    report = p.stderr.decode()
    assert report == (
        f"mg.matmul: inner dimensions differ at runtime (columns of the left "
        f"operand, rows of the right)\n  at {prog}:1: sizes 3 and 2\n"
    )
    for optimise in (True, False):
        with pytest.raises(RuntimeCheckFailed) as info:
            mg_xdsl.compile_file(str(prog), optimise=optimise).mm(np.ones((1, 3)), np.ones((2, 1)))
        assert str(info.value) + "\n" == report
        assert (info.value.path, info.value.line, info.value.sizes) == (str(prog), 1, (3, 2))


# A '?' passed where a def's parameter has a static size, and a '?' growing with a static 1:
# the checks are the front end's mg.cast, which the program never wrote, so their messages
# name the call's argument and the operator's op instead.
CLAIMS = """def f(x: tensor[2x2]) = x + 1
def g(y: tensor[?x2]) = f(y)
def h(a: tensor[?x3], b: tensor[2x1x3]) = a + b
"""
CLAIM_FAILURES = [  # (the def called, its arguments, the message, the line of the check, the sizes)
    (
        "g",
        [[[1, 2], [3, 4], [5, 6]]],
        "argument 1 of f (x) must be tensor[2x2]: its size in dimension 0 differs at runtime",
        2,
        (3, 2),
    ),
    (
        "h",
        [[[1, 2, 3], [4, 5, 6]], [[[1, 1, 1]], [[2, 2, 2]]]],
        "mg.add: operand shapes differ at runtime in dimension 1",
        3,
        (2, 1),
    ),
]


@pytest.mark.filterwarnings("ignore::mg_xdsl.MgWarning")  # (h's '?' meets a static 1)
@pytest.mark.parametrize("name, args, message, line, sizes", CLAIM_FAILURES, ids=["call", "operator"])
def test_a_claimed_size_that_differs_is_reported_in_the_programs_terms(tmp_path, name, args, message, line, sizes):
    prog = tmp_path / "p.mg"
    prog.write_text(CLAIMS + f"print {name}({', '.join(map(str, args))})\n")
    report = f"{message}\n  at {prog}:{line}: sizes {sizes[0]} and {sizes[1]}\n"
    for pipeline in ([], ["--reference"]):
        p = mgc("run", "-w", *pipeline, str(prog))
        assert p.returncode in (134, -6) and p.stderr.decode() == report, pipeline
    for optimise in (True, False):
        with pytest.raises(RuntimeCheckFailed) as info:
            getattr(mg_xdsl.compile_file(str(prog), optimise=optimise), name)(*args)
        assert str(info.value) + "\n" == report
        assert (info.value.message, info.value.line, info.value.sizes) == (message, line, sizes)


def test_threads_get_their_own_failures(lib):
    """Compiled code runs without the GIL: calls from several threads at once must each get
    their own result or their own report (the record of a failure is per thread)."""
    problems = []

    def work(rows: int) -> None:
        a, b = np.full((rows, 3), float(rows)), np.ones((rows + 1, 3))
        for _ in range(300):
            try:
                lib.add(a, b)
                problems.append(f"{rows}: the mismatch passed")
            except RuntimeCheckFailed as e:
                if e.sizes != (rows, rows + 1):
                    problems.append(f"{rows}: got the report of another thread: {e}")
            if not np.array_equal(lib.add(a, a), 2 * a):
                problems.append(f"{rows}: wrong sum")

    threads = [threading.Thread(target=work, args=(rows,)) for rows in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []


def test_failed_allocation_raises_memory_error_and_the_interpreter_survives():
    """A result whose size comes from the arguments and that no machine can hold (an outer
    product of 6e6 x 6e6 doubles, 288 TB, beyond the 128 TiB a process can address): the
    compiled code's allocator reports it instead of writing through a null pointer."""
    outer = mg_xdsl.compile("def outer(a: tensor[?x1], b: tensor[1x?]) = a @ b\n").outer
    n = 6_000_000
    for _ in range(2):
        with pytest.raises(MemoryError, match=rf"^mg: out of memory allocating {n * n * 8} bytes$"):
            outer(np.ones((n, 1)), np.ones((1, n)))
    np.testing.assert_array_equal(outer([[1.0], [2.0]], [[3.0, 4.0]]), [[3, 4], [6, 8]])


def test_warnings_are_issued_when_compiling():
    source = "def bias(x: tensor[?x5], b: tensor[1x5]) = x + b\n"
    with pytest.warns(MgWarning) as record:
        lib = mg_xdsl.compile(source, "bias.mg")
    assert [str(w.message) for w in record] == [
        "bias.mg:1: warning: a '?' dimension is never broadcast: this aborts at run time unless "
        "the sizes are equal; give the dimension a static size, or grow the 1 to x's size explicitly with "
        "broadcast_to(m, shape(x))"
    ]
    np.testing.assert_array_equal(lib.bias(np.ones((1, 5)), np.ones((1, 5))), 2 * np.ones((1, 5)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg_xdsl.compile("def fine(x: tensor[?x5], b: tensor[?x5]) = x + b\n")


def test_top_level_statements_are_left_out_with_a_warning_at_the_first():
    source = "def f(a: tensor[1]) = a\n\nlet b = [1]\nprint f(b)\ndef g(a: tensor[1]) = 2 * a\nprint b\n"
    with pytest.warns(MgWarning) as record:
        lib = mg_xdsl.compile(source, "script.mg")
    assert [str(w.message) for w in record] == [
        "script.mg:3: warning: a library holds only the program's defs: this top-level statement and any after it "
        "are left out (mgc run runs them)"
    ]
    assert record[0].filename == __file__  # (the warning points at the caller's compile, not into mg_xdsl)
    assert list(lib.functions) == ["f", "g"]
    np.testing.assert_array_equal(lib.g([1.5]), [3.0])


def test_a_name_that_is_no_def_says_which_defs_there_are():
    lib = mg_xdsl.compile("def f(a: tensor[1]) = a\ndef g(a: tensor[1]) = a\n")
    with pytest.raises(AttributeError, match=r"^the program defines no function 'h' \(its functions: f, g\)$"):
        lib.h([1.0])
    with pytest.warns(MgWarning):
        script = mg_xdsl.compile("print [1]\n")
    with pytest.raises(
        AttributeError,
        match=r"^the program defines no function 'f' \(its functions: none: it has "
        r"no def\)$",
    ):
        script.f


def test_package_exports_and_stays_cheap_to_import():
    assert mg_xdsl.MgError is mg_xdsl.api.MgError
    assert mg_xdsl.RuntimeCheckFailed is RuntimeCheckFailed
    assert mg_xdsl.GpuError is mg_xdsl.api.GpuError
    assert mg_xdsl.MgWarning is MgWarning and issubclass(MgWarning, UserWarning)
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", mg_xdsl.__version__)
    from mg_xdsl import GpuError, MgError, __version__  # noqa: F401

    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        mg_xdsl.nothing
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, mg_xdsl; print(sorted(m for m in ('xdsl', 'numpy', 'llvmlite') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert p.stdout == "[]\n"


def test_compile_errors_and_unknown_functions():
    with pytest.raises(mg_xdsl.MgError, match="^<string>:1: error: cannot add shapes 2x3 and 3x2"):
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
    for given in (path, bytes(path)):  # a path object, and a path as bytes (named as text in messages)
        np.testing.assert_array_equal(mg_xdsl.compile_file(given).twice([[1.5]]), [[3.0]])
    (tmp_path / "bad.mg").write_bytes(b"print q\n")
    with pytest.raises(mg_xdsl.MgError, match=f"^{re.escape(str(tmp_path / 'bad.mg'))}:1: error: unknown name 'q'"):
        mg_xdsl.compile_file(bytes(tmp_path / "bad.mg"))


@pytest.mark.parametrize(
    "source, given",
    [
        (None, "None"),
        (3, "an int"),
        (bytearray(b"print [1]"), "a bytearray"),
        (["def"], "a list"),
        (Path("p.mg"), rf"a {type(Path('p.mg')).__name__} \(for a file, call compile_file\(path\)\)"),
    ],
    ids=["none", "int", "bytearray", "list", "path"],
)
def test_compile_wants_source_text(source, given):
    with pytest.raises(
        TypeError,
        match=rf"^compile takes the program's source text, a str \(or bytes of UTF-8 "
        rf"text\), not {given}$",
    ):
        mg_xdsl.compile(source)


def test_compile_file_wants_a_path():
    # (open() would read an int as a file descriptor: 0 is standard input)
    for path, given in ((None, "None"), (0, "an int")):
        with pytest.raises(
            TypeError, match=f"^compile_file takes the path of a file, a str or a path object, not {given}$"
        ):
            mg_xdsl.compile_file(path)
    with pytest.raises(TypeError, match="^the path of compile .* must be a str, not None$"):
        mg_xdsl.compile("def f(a: tensor[1]) = a\n", path=None)


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


def vm_flags(address: int) -> set[str]:
    """The flags Linux keeps for the mapping that holds ``address`` (``hg``: advised to use
    transparent huge pages)."""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= address < end
            elif inside and head == "VmFlags:":
                return set(line.split()[1:])
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps is Linux's")
def test_results_of_4_mib_and_more_are_advised_huge_pages_as_numpys_arrays_are(lib):
    # The reference is NumPy, which advises the pages of each array of 4 MiB or more; where
    # the kernel has no transparent huge pages neither array's mapping carries the flag.
    a = np.ones((1024, 1024))  # 8 MiB
    results = [lib.add(a, a) for _ in range(3)]  # the first may be mapped apart, later ones not
    reference = np.ones((1024, 1024))
    middle = 4 * 1024 * 1024
    assert ("hg" in vm_flags(reference.ctypes.data + middle)) == ("hg" in vm_flags(a.ctypes.data + middle))
    for r in results:
        assert ("hg" in vm_flags(r.ctypes.data + middle)) == ("hg" in vm_flags(a.ctypes.data + middle))
    small = lib.add(np.ones((64, 64)), np.ones((64, 64)))
    np.testing.assert_array_equal(small, 2.0)


def test_each_guard_calls_its_function_with_the_functions_own_parameters():
    # (A wrapper that declared one parameter too many would still run, passing garbage.)
    from mg_xdsl.api import _guards
    from mg_xdsl.driver import Compilation

    comp = Compilation(SOURCE, "<string>", lib=True)
    ir = comp.llvm_ir()
    for name, guard in zip(comp.signatures, _guards(comp.signatures)):
        defined = re.search(rf"define [^@]*@_mlir_ciface_{name}\(([^)]*)\)", ir).group(1)
        declared = re.search(rf"declare void @_mlir_ciface_{name}\(([^)]*)\)", guard).group(1)
        called = re.search(rf"call void @_mlir_ciface_{name}\(([^)]*)\)", guard).group(1)
        params = len(comp.signatures[name].params)
        assert defined.count("ptr") == declared.count("ptr") == called.count("ptr") == params + 1, name


# -- every rank and element type, bool and bfloat16 arrays included -------------------------


def test_the_api_takes_and_returns_every_rank():
    lib = mg_xdsl.compile(
        "def f(x: tensor[?x3x?], y: tensor[?x3x?]) = x * y - 1\n"
        "def b(x: tensor[4x3x5], y: tensor[3x1]) = x * y - 1\n"
        "def g(x: tensor[]) = -x\n"
        "def h(v: tensor[?]) = relu(v)\n"
    )
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(4, 3, 5)), rng.normal(size=(3, 1))
    np.testing.assert_array_equal(lib.b(x, y), x * y - 1)
    np.testing.assert_array_equal(lib.f(x, x), x * x - 1)
    assert lib.g(2.5).shape == () and lib.g(np.array(2.5)) == -2.5
    v = rng.normal(size=7)
    np.testing.assert_array_equal(lib.h(v), np.maximum(v, 0))
    np.testing.assert_array_equal(lib.h(v[:0]), v[:0])
    with pytest.raises(mg_xdsl.api.ShapeMismatch, match=r"f: argument 1 \(x\) must be \?x3x\?, got 4x2x5"):
        lib.f(np.ones((4, 2, 5)), x)
    with pytest.raises(mg_xdsl.api.ShapeMismatch, match=r"must be a 3-D array of shape \?x3x\?, got a 2-D array"):
        lib.f(np.ones((3, 3)), x)
    with pytest.raises(mg_xdsl.api.ShapeMismatch, match=r"g: argument 1 \(x\) must be a 0-D array or a number"):
        lib.g(np.ones(2))


def test_the_api_takes_and_returns_each_dtype():
    lib = mg_xdsl.compile(
        "def f(a: tensor[?x3xi32], b: tensor[?x3xi32]) -> tensor[?x3xi32] = a / b\n"
        "def g(x: tensor[?xf32]) = x * 2 + 1\n"
        "def h(x: tensor[i64]) = x - 1\n"
        "def k(a: tensor[2xi64]) = cast(a, f64) / 2\n"
    )
    a = np.array([[7, -7, 5], [0, 9, -9]], np.int32)
    b = np.array([[2, 2, -2], [5, 4, 4]], np.int32)
    got = lib.f(a, b)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, divide(a, b))
    assert lib.g(np.ones(2, np.float32)).dtype == np.float32
    np.testing.assert_array_equal(lib.g([0.1, 0.2]), np.array([0.1, 0.2], np.float32) * np.float32(2) + np.float32(1))
    assert lib.h(5) == 4 and lib.h(5).dtype == np.int64
    assert lib.k(np.array([3, 5], np.int8)).tolist() == [1.5, 2.5]  # int8 -> i64: safe
    assert repr(lib.f) == "<mg function f(a: ?x3xi32, b: ?x3xi32) -> ?x3xi32>"
    with pytest.raises(
        TypeError,
        match=r"g: argument 1 \(x\) is tensor\[\?xf32\], an array of float32: "
        r"float64 values do not convert to it without loss",
    ):
        lib.g(np.ones(2))
    # Integers are checked value by value: NumPy's default int64 serves i32 where each fits.
    np.testing.assert_array_equal(lib.f(np.array([[7, -7, 2**31 - 1]]), b[:1]), [[3, -3, -(2**30) + 1]])
    with pytest.raises(
        TypeError,
        match=r"^f: argument 1 \(a\) is tensor\[\?x3xi32\], an array of int32: the int64 "
        r"value 2147483648 at \[0, 2\] is outside int32's range \(-2147483648 to "
        r"2147483647\)",
    ):
        lib.f(np.array([[7, -7, 2**31]]), b[:1])
    with pytest.raises(TypeError, match=r"float64 values do not convert"):
        lib.f([[1.5, 2, 3]], [[1, 1, 1]])
    with pytest.raises(mg_xdsl.api.RuntimeCheckFailed, match="mg.div: integer division by zero"):
        lib.f(a, np.zeros_like(b))


def test_the_api_takes_and_returns_bool_arrays():
    lib = mg_xdsl.compile("def f(x: tensor[?xf32], m: tensor[?xi1]) = where(m, x, -x) > 1\n")
    got = lib.f(np.array([1, 2, 3], np.float32), [True, False, True])
    assert got.dtype == np.bool_ and got.tolist() == [False, False, True]
    with pytest.raises(TypeError, match=r"argument 2 \(m\) is tensor\[\?xi1\], an array of bool: int64 values"):
        lib.f(np.array([1, 2, 3], np.float32), [1, 0, 1])


def test_the_api_takes_and_returns_bfloat16_arrays():
    lib = mg_xdsl.compile("def f(x: tensor[?xbf16]) = x * 3 + 0.1\ndef g(x: tensor[2x2xbf16]) = x @ x\n")
    x = np.array([0.1, 1, 2], ml_dtypes.bfloat16)
    got = lib.f(x)
    assert got.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(
        got.astype(np.float32), (x * ml_dtypes.bfloat16(3) + ml_dtypes.bfloat16(0.1)).astype(np.float32)
    )
    np.testing.assert_array_equal(lib.f([0.1, 1, 2]).astype(np.float32), got.astype(np.float32))  # (a list rounds)
    m = np.array([[0.1, 1], [2, 3]], ml_dtypes.bfloat16)
    np.testing.assert_array_equal(
        lib.g(m).astype(np.float32),
        (m.astype(np.float32) @ m.astype(np.float32)).astype(ml_dtypes.bfloat16).astype(np.float32),
    )
    with pytest.raises(
        TypeError,
        match=r"float32 values do not convert to it without loss \(convert them with "
        r"\.astype\(ml_dtypes\.bfloat16\)",
    ):
        lib.f(np.ones(2, np.float32))
