"""The language's program features, one group of tests each, end to end: a small ``.mg``
program run with ``mgc run`` in both CPU pipelines (the optimised default and
``--reference``), its output compared with NumPy (or Python's ``format()`` for ``println``)
computed here.

Covered: ``%`` and ``//`` (NumPy's ``remainder``/``floor_divide``: negative operands, zero
divisors, infinities, NaN and the sign of zeros, in f64, f32, bf16, i32 and i64; an integer
zero divisor stops the program), ``**``, ``and``/``or``/``not`` (broadcasting), ``inf``/``nan``,
``argmax``/``argmin`` (ties, NaN, every axis, ``?`` sizes), ``@`` with rank-1 operands (a ``?``
vector too), literals typed by the tensor they meet, subscripts (static slices with negative
bounds, ``x[i]`` and ``x[s : s + n]`` with run-time starts, their range check), run-time sizes
(``dim``, ``numel``, ``zeros(shape(x))``, ``broadcast_to(m, shape(x))`` and its check, ``mean``
over ``?`` axes), ``println`` with format specs, ``load``/``save`` of ``.npy`` files (relative
paths, bad files, a missing folder), the Python API (a def that loads, a def of two results),
``arg`` from ``mgc run`` and from an executable, and ``for``/``if`` carrying several vars; a
few of the programs are held to upstream MLIR as well.

Exact values (signs of zeros, NaN, the last bit) are compared through ``save``: the program
writes its results to ``.npy`` files that NumPy reads back bit for bit."""

import itertools
import math
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import ROOT, mgc
from helpers.printed import printed_arrays
from helpers.upstream import MLIR_OPT, upstream_agrees

PIPELINES = pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])
NP = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64, "i1": np.bool_}


def run(program: str, flags: list[str], *args: str, folder: Path | None = None) -> subprocess.CompletedProcess:
    """``mgc run`` of ``program``: from standard input, or written to ``folder/prog.mg`` and
    run from the repository root (so that its relative paths are the program's folder's)."""
    if folder is None:
        return mgc("run", "--no-cache", *flags, "-", *args, input=program.encode())
    (folder / "prog.mg").write_text(program)
    return mgc("run", "--no-cache", *flags, str(folder / "prog.mg"), *args, cwd=ROOT)


def prints(program: str, flags: list[str], *args: str) -> list[np.ndarray]:
    out = run(program, flags, *args)
    assert out.returncode == 0, out.stderr.decode()
    return printed_arrays(out.stdout.decode())


def lines(program: str, flags: list[str], *args: str, folder: Path | None = None) -> list[str]:
    out = run(program, flags, *args, folder=folder)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode().splitlines()


def assert_prints(program: str, flags: list[str], want: list) -> None:
    got = prints(program, flags)
    assert len(got) == len(want), got
    for g, w in zip(got, want):
        w = np.asarray(w, dtype=float)
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=5e-6, atol=1e-12)  # (print shows 6 significant digits)


def fails(program: str, flags: list[str], status: int, *args: str, folder: Path | None = None) -> str:
    """Run ``program``, which must end with ``status``; what it wrote to stderr."""
    out = run(program, flags, *args, folder=folder)
    if out.returncode < 0:  # (killed by a signal: as a shell reports it, 134 for SIGABRT)
        out.returncode = 128 - out.returncode
    assert out.returncode == status, (out.returncode, out.stdout.decode(), out.stderr.decode())
    return out.stderr.decode()


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Equal values of one dtype and shape: NaN where NaN, and zeros of the same sign."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        bad = ~((got == want) & (np.signbit(got) == np.signbit(want)) | (nan & np.isnan(got)))
    else:
        bad = got != want
    assert not bad.any(), [(i, got.flat[i], want.flat[i]) for i in np.flatnonzero(bad)[:10]]


def saved(tmp_path: Path, flags: list[str], program: str, inputs: dict[str, np.ndarray], outputs: list[str]) -> dict:
    """Write ``inputs`` as ``NAME.npy`` beside the program, run it (it saves ``outputs``), and
    read back what it saved (removing the files, so that a second run cannot pass on them)."""
    for name, a in inputs.items():
        np.save(tmp_path / f"{name}.npy", a)
    out = run(program, flags, folder=tmp_path)
    assert out.returncode == 0, out.stderr.decode()
    got = {}
    for name in outputs:
        got[name] = np.load(tmp_path / f"{name}.npy")
        (tmp_path / f"{name}.npy").unlink()
    return got


# -- % and // ------------------------------------------------------------------------------

FLOAT_VALUES = [
    -7.5,
    7.5,
    -4.0,
    4.0,
    0.0,
    -0.0,
    3.0,
    -3.0,
    0.5,
    -0.5,
    1e300,
    -1e-300,
    5e-324,
    math.inf,
    -math.inf,
    math.nan,
]


def every_pair(values: list, dtype) -> tuple[np.ndarray, np.ndarray]:
    pairs = list(itertools.product(values, values))
    return np.array([a for a, _ in pairs]).astype(dtype), np.array([b for _, b in pairs]).astype(dtype)


@PIPELINES
@pytest.mark.parametrize("t", ["f64", "f32"])
def test_float_remainder_and_floor_division_are_numpys(tmp_path, flags, t):
    """Every pair of signed values, zeros of both signs, infinities and NaN: NumPy's result
    bit for bit (the sign of a zero remainder is the divisor's; x // 0 is inf or NaN)."""
    with np.errstate(all="ignore"):
        a, b = every_pair(FLOAT_VALUES, NP[t])
        program = (
            f'let a: tensor[?x{t}] = load("a.npy")\nlet b: tensor[?x{t}] = load("b.npy")\n'
            'save("rem.npy", a % b)\nsave("fdiv.npy", a // b)\nsave("rem2.npy", a % 2)\nsave("fdiv2.npy", -3 // b)\n'
        )
        got = saved(tmp_path, flags, program, {"a": a, "b": b}, ["rem", "fdiv", "rem2", "fdiv2"])
        same_bits(got["rem"], np.remainder(a, b))
        same_bits(got["fdiv"], np.floor_divide(a, b))
        same_bits(got["rem2"], np.remainder(a, NP[t](2)))
        same_bits(got["fdiv2"], np.floor_divide(NP[t](-3), b))


@PIPELINES
def test_bf16_remainder_floor_division_and_power(tmp_path, flags):
    """bf16 is computed in f32 and rounded once: NumPy's f32 result rounded to bf16."""
    bf16 = ml_dtypes.bfloat16
    values = np.array([-7.5, 7.5, -4.0, 4.0, 0.0, -0.0, 3.0, -3.0, 0.1, -0.3, 2.5, math.inf, math.nan], np.float32)
    values = values.astype(bf16).astype(np.float32)
    a, b = every_pair(list(values), np.float32)
    program = (
        'let fa: tensor[?xf32] = load("a.npy")\nlet fb: tensor[?xf32] = load("b.npy")\n'
        "let a = cast(fa, bf16)\nlet b = cast(fb, bf16)\n"
        'save("rem.npy", cast(a % b, f32))\nsave("fdiv.npy", cast(a // b, f32))\nsave("pow.npy", cast(a ** b, f32))\n'
    )
    got = saved(tmp_path, flags, program, {"a": a, "b": b}, ["rem", "fdiv", "pow"])
    with np.errstate(all="ignore"):
        for name, f in (("rem", np.remainder), ("fdiv", np.floor_divide), ("pow", np.power)):
            same_bits(got[name], f(a, b).astype(bf16).astype(np.float32))


@PIPELINES
@pytest.mark.parametrize("t", ["i32", "i64"])
def test_integer_remainder_and_floor_division_are_numpys(tmp_path, flags, t):
    """Negative operands either side, the extremes, MIN // -1 (wraps to MIN, as NumPy's
    does) and MIN % -1 (0)."""
    info = np.iinfo(NP[t])
    values = [-7, 7, -8, 8, 0, 1, -1, 3, -3, int(info.min), int(info.max), int(info.min) + 1]
    pairs = [(x, y) for x, y in itertools.product(values, values) if y != 0]
    a, b = np.array([x for x, _ in pairs], NP[t]), np.array([y for _, y in pairs], NP[t])
    program = (
        f'let a: tensor[?x{t}] = load("a.npy")\nlet b: tensor[?x{t}] = load("b.npy")\n'
        'save("rem.npy", a % b)\nsave("fdiv.npy", a // b)\nsave("rem3.npy", a % -3)\nsave("fdiv3.npy", a // 3)\n'
    )
    got = saved(tmp_path, flags, program, {"a": a, "b": b}, ["rem", "fdiv", "rem3", "fdiv3"])
    with np.errstate(all="ignore"):
        same_bits(got["rem"], np.remainder(a, b))
        same_bits(got["fdiv"], np.floor_divide(a, b))
        same_bits(got["rem3"], np.remainder(a, NP[t](-3)))
        same_bits(got["fdiv3"], np.floor_divide(a, NP[t](3)))


@PIPELINES
@pytest.mark.parametrize("t", ["i32", "i64"])
@pytest.mark.parametrize("op,name", [("%", "mg.rem"), ("//", "mg.floordiv")])
def test_an_integer_zero_divisor_stops_the_program(flags, t, op, name):
    program = f"let a: tensor[3x{t}] = [7, -7, 1]\nlet b: tensor[3x{t}] = [2, 0, 1]\nprint a {op} b\n"
    err = fails(program, flags, 134)
    assert err.startswith(f"{name}: integer division by zero\n  at <stdin>:3"), err


@PIPELINES
def test_remainder_and_floor_division_print(flags):
    """The operators in a program that prints (broadcasting a number, a row)."""
    program = """
let x = [[-7.0, 7.0, -2.5], [5.0, -5.5, 0.25]]
print x % 2.0
print x // [[2.0, -2.0, 0.5]]
print 7 % x
let n: tensor[4xi32] = [-7, 7, -7, 7]
print n % [2, -2, -2, 2]
print n // [2, -2, -2, 2]
print (n % 3) * 10 + n // 3
"""
    x = np.array([[-7.0, 7.0, -2.5], [5.0, -5.5, 0.25]])
    n, d = np.array([-7, 7, -7, 7]), np.array([2, -2, -2, 2])
    want = [x % 2.0, x // np.array([[2.0, -2.0, 0.5]]), 7 % x, n % d, n // d, (n % 3) * 10 + n // 3]
    assert_prints(program, flags, want)


# -- **, and/or/not, inf and nan -----------------------------------------------------------


@PIPELINES
def test_power(flags):
    program = """
let x = [[0.5, 2.0, 3.0], [-2.0, 0.0, 4.0]]
print x ** 2
print 2 ** x
print x ** [[0.5, -1.0, 3.0]]
let h: tensor[2xf32] = [1.5, 4.0]
print h ** 0.5 + h ** 2
"""
    x = np.array([[0.5, 2.0, 3.0], [-2.0, 0.0, 4.0]])
    with np.errstate(all="ignore"):
        want = [
            x**2,
            2.0**x,
            x ** np.array([[0.5, -1.0, 3.0]]),
            np.array([1.5, 4.0], np.float32) ** 0.5 + np.array([1.5, 4.0]) ** 2,
        ]
    assert_prints(program, flags, want)


@PIPELINES
def test_and_or_not_broadcast(flags):
    program = """
let a = [[true], [false]]
let b = [true, false, true]
print a and b
print a or b
print not b
print not (a and b) or b
let x = [[1.0, -2.0, 3.0], [0.0, 5.0, -1.0]]
print where(x > 0.0 and not (x > 4.0), x, 100.0)
print (x < 0.0) or (x == 3.0)
"""
    a, b = np.array([[True], [False]]), np.array([True, False, True])
    x = np.array([[1.0, -2.0, 3.0], [0.0, 5.0, -1.0]])
    want = [a & b, a | b, ~b, ~(a & b) | b, np.where((x > 0) & ~(x > 4), x, 100.0), (x < 0) | (x == 3.0)]
    assert_prints(program, flags, want)


@PIPELINES
def test_and_or_not_decide_branches(flags):
    program = """
var hits: tensor[i64] = 0
var other: tensor[i64] = 0
for i in range(12):
    if i % 2 == 0 and not (i % 3 == 0):
        hits = hits + 1
    elif i > 9 or i == 3:
        other = other + i
println("{hits} {other}")
"""
    hits = sum(1 for i in range(12) if i % 2 == 0 and not i % 3 == 0)
    other = sum(i for i in range(12) if not (i % 2 == 0 and not i % 3 == 0) and (i > 9 or i == 3))
    assert lines(program, flags) == [f"{hits} {other}"]


@PIPELINES
def test_inf_and_nan(flags):
    program = """
let x = [1.0, -3.0, 2.0]
var best: tensor[] = inf
for i in range(3):
    if x[i] < best:
        best = x[i]
print best
print maximum(x, -inf)
print [inf, -inf] * 2.0
println("{inf} {-inf:>6} {nan} {x[0] * nan} {x[0] + nan == x[0] + nan} {x[1] * inf < -1e308}")
"""
    out = lines(program, flags)
    got = printed_arrays("\n".join(out[:-1]))
    assert got[0].tolist() == -3.0 and got[1].tolist() == [1.0, -3.0, 2.0] and got[2].tolist() == [math.inf, -math.inf]
    assert out[-1] == f"{math.inf} {-math.inf:>6} {math.nan} {math.nan} {False} {True}"


# -- argmax and argmin -------------------------------------------------------------------


@PIPELINES
def test_argmax_argmin_ties_and_nan(tmp_path, flags):
    """Each axis of a matrix with ties (the first wins) and NaN (the first NaN wins, and
    stays), of f64, f32 and i32; the results are i64."""
    nan, inf = math.nan, math.inf
    x = np.array(
        [
            [1.0, 3.0, 3.0, -1.0],
            [nan, 2.0, nan, 9.0],
            [2.0, 2.0, 2.0, 2.0],
            [-inf, 5.0, nan, -inf],
            [0.0, -0.0, 7.0, nan],
        ]
    )
    k = np.array([[4, 1, 4, 0], [-2, 7, 7, -2], [3, 3, 3, 3]], np.int32)
    outputs = []
    program = 'let x: tensor[5x4] = load("x.npy")\nlet k: tensor[3x4xi32] = load("k.npy")\n'
    for fn in ("argmax", "argmin"):
        for axis in (0, 1, -1):
            program += f'save("{fn}_x{axis}.npy", {fn}(x, axis={axis}))\n'
            program += f'save("{fn}_h{axis}.npy", {fn}(cast(x, f32), axis={axis}))\n'
            program += f'save("{fn}_k{axis}.npy", {fn}(k, axis={axis}))\n'
            outputs += [f"{fn}_x{axis}", f"{fn}_h{axis}", f"{fn}_k{axis}"]
    got = saved(tmp_path, flags, program, {"x": x, "k": k}, outputs)
    for fn in ("argmax", "argmin"):
        for axis in (0, 1, -1):
            same_bits(got[f"{fn}_x{axis}"], getattr(np, fn)(x, axis=axis))
            same_bits(got[f"{fn}_h{axis}"], getattr(np, fn)(x.astype(np.float32), axis=axis))
            same_bits(got[f"{fn}_k{axis}"], getattr(np, fn)(k, axis=axis))


@PIPELINES
def test_argmax_of_question_mark_sizes(flags):
    program = """
def pick(x: tensor[?x?]) -> (tensor[?xi64], tensor[?xi64]):
    return argmax(x, axis=1), argmin(x, axis=0)
let a, b = pick([[0.5, 9.0, 9.0], [nan, 1.0, -4.0]])
print a
print b
let i = argmax([3.0, 8.0, 8.0, 1.0], axis=0)
println("{i} {i + 1}")
"""
    x = np.array([[0.5, 9.0, 9.0], [np.nan, 1.0, -4.0]])
    out = lines(program, flags)
    got = printed_arrays("\n".join(out[:-1]))
    assert got[0].tolist() == np.argmax(x, axis=1).tolist() and got[1].tolist() == np.argmin(x, axis=0).tolist()
    assert out[-1] == "1 2"


# -- @ with vectors ----------------------------------------------------------------------


@PIPELINES
def test_matmul_with_vectors(flags):
    program = """
let v = [1.0, 2.0, 3.0]
let m = [[1.0, 0.0, 2.0], [0.5, -1.0, 4.0]]
print v @ v
print m @ v
print [2.0, -1.0] @ m
print transpose(m) @ [1.0, 1.0]
let b = [[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]]
print b @ [1.0, -1.0]
print [1.0, 2.0] @ b
let h: tensor[3xf32] = [0.5, 1.5, 2.0]
print h @ h
"""
    v, m = np.array([1.0, 2.0, 3.0]), np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 4.0]])
    b = np.array([[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]])
    h = np.array([0.5, 1.5, 2.0], np.float32)
    want = [
        v @ v,
        m @ v,
        np.array([2.0, -1.0]) @ m,
        m.T @ np.ones(2),
        b @ np.array([1.0, -1.0]),
        np.array([1.0, 2.0]) @ b,
        h @ h,
    ]
    assert_prints(program, flags, want)


@PIPELINES
def test_matmul_with_a_question_mark_vector(flags):
    program = """
def dot(a: tensor[?], b: tensor[?]) -> tensor[] = a @ b
def apply(m: tensor[?x?], v: tensor[?]) -> tensor[?] = m @ v
def left(v: tensor[?], m: tensor[?x2]) -> tensor[2] = v @ m
print dot([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0])
print apply([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [1.0, -1.0])
print left([1.0, 2.0, 3.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
"""
    m = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    want = [np.dot([1, 2, 3, 4], [4, 3, 2, 1]), m @ [1.0, -1.0], np.array([1.0, 2.0, 3.0]) @ [[1, 0], [0, 1], [1, 1]]]
    assert_prints(program, flags, want)
    err = fails(
        "def dot(a: tensor[?], b: tensor[?]) -> tensor[] = a @ b\nprint dot([1.0, 2.0], [1.0, 2.0, 3.0])\n", flags, 134
    )
    assert err.startswith("mg.matmul: inner dimensions differ at runtime"), err


# -- literals typed by the tensor they meet ---------------------------------------------------


@PIPELINES
def test_literals_take_the_element_type_they_meet(flags):
    program = """
let h: tensor[3xf32] = [1.0, 2.0, 3.0]
let k: tensor[3xi32] = [7, -8, 9]
let g = h + [0.1, 0.2, 0.3]
let j = k * [2, 3, -4]
println("{g[0]} {g[1]} {g[2]}")
println("{j[0]} {j[1]} {j[2]}")
print k - [1, 2, 3] * k
print [[1, 2, 3], [4, 5, 6]] - k
"""
    h, k = np.array([1.0, 2.0, 3.0], np.float32), np.array([7, -8, 9], np.int32)
    g = h + np.array([0.1, 0.2, 0.3], np.float32)  # (the literal's numbers as f32, added in f32)
    j = k * np.array([2, 3, -4], np.int32)
    out = lines(program, flags)
    assert out[0] == " ".join(str(v) for v in g)  # (an f32 prints as str(np.float32(v)))
    assert out[1] == " ".join(str(v) for v in j)
    got = printed_arrays("\n".join(out[2:]))
    assert got[0].tolist() == (k - np.array([1, 2, 3]) * k).tolist()
    assert got[1].tolist() == (np.array([[1, 2, 3], [4, 5, 6]]) - k).tolist()


@pytest.mark.parametrize(
    "program,message",
    [
        ("let a: tensor[2xi32] = [1, 2]\nprint a + [1.5]\n", "cannot add a tensor[2xi32] and a tensor[1xf64]"),
        ("let a: tensor[2xi32] = [1, 2]\nprint [0.5, 2] * a\n", "tensor[2xf64] and a tensor[2xi32]"),
        ("let a: tensor[2xi64] = [1, 2]\nprint a - [1, 99999999999999999999]\n", "tensor[2xi64] and a tensor[2xf64]"),
    ],
)
def test_a_literal_that_does_not_convert_is_an_error(program, message):
    out = mgc("run", "-", input=program.encode())
    assert out.returncode == 1 and message in out.stderr.decode(), out.stderr.decode()


# -- subscripts ---------------------------------------------------------------------------

Z = np.arange(1.0, 13.0).reshape(3, 4)
Z_TEXT = "[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]"


@PIPELINES
def test_static_slices(flags):
    program = f"""
let z = {Z_TEXT}
print z[-2:, 1:-1]
print z[:, 2]
print z[1]
print z[-1, :2]
print z[:-1, -3:-1]
let t = reshape(iota([24], axis=0, dtype=i32), [2, 3, 4])
print t[1:2, :, 3]
print t[:, -1, 1:]
print z[0:2, 1:3] * 2.0 + z[1:3, 2:4]
"""
    t = np.arange(24).reshape(2, 3, 4)
    want = [
        Z[-2:, 1:-1],
        Z[:, 2],
        Z[1],
        Z[-1, :2],
        Z[:-1, -3:-1],
        t[1:2, :, 3],
        t[:, -1, 1:],
        Z[0:2, 1:3] * 2 + Z[1:3, 2:4],
    ]
    assert_prints(program, flags, want)


@PIPELINES
def test_run_time_subscripts_in_loops(flags):
    program = f"""
let z = {Z_TEXT}
var rows = zeros([4])
var cols = zeros([3])
var pairs = zeros([2, 4])
for i in range(3):
    rows += z[i]
    cols = cols + z[:, i + 1]
    if i < 2:
        pairs = pairs * 2.0 + z[i : i + 2]
for j in range(1, dim(z, 0)):
    let two = z[j - 1 : j - 1 + 2, 0]
    println("{{j}}: {{z[2, j]}} {{sum(two)}}")
print rows
print cols
print pairs
"""
    rows, cols, pairs = np.zeros(4), np.zeros(3), np.zeros((2, 4))
    for i in range(3):
        rows += Z[i]
        cols = cols + Z[:, i + 1]
        if i < 2:
            pairs = pairs * 2.0 + Z[i : i + 2]
    out = lines(program, flags)
    assert out[:2] == [f"{j}: {Z[2, j]} {Z[j - 1 : j + 1, 0].sum()}" for j in range(1, 3)]
    got = printed_arrays("\n".join(out[2:]))
    for g, w in zip(got, [rows, cols, pairs], strict=True):
        np.testing.assert_array_equal(g, w)


@PIPELINES
def test_mini_batches_of_a_loaded_question_mark_size(tmp_path, flags):
    x = np.arange(30.0).reshape(10, 3)
    np.save(tmp_path / "x.npy", x)
    program = """
let x: tensor[?x3] = load("x.npy")
var total = zeros([2, 3])
for b in range(dim(x, 0) // 2):
    total += x[b * 2 : b * 2 + 2]
print total
"""
    out = run(program, flags, folder=tmp_path)
    assert out.returncode == 0, out.stderr.decode()
    np.testing.assert_array_equal(printed_arrays(out.stdout.decode())[0], x.reshape(5, 2, 3).sum(axis=0))


@PIPELINES
@pytest.mark.parametrize(
    "subscript,count,start,size,starts",
    [
        ("z[i + 1 : i + 1 + 2]", 2, 2, 2, 2),  # (start 2 of 3 rows: a slice of 2 has starts 0 and 1)
        ("z[i]", 4, 3, 1, 3),
        ("z[i - 1]", 2, -1, 1, 3),
        ("z[:, i + 3 : i + 3 + 2]", 1, 3, 2, 3),
    ],
)
def test_a_run_time_start_out_of_range_stops_the_program(flags, subscript, count, start, size, starts):
    axis = 1 if subscript.startswith("z[:,") else 0
    program = f"let z = {Z_TEXT}\nfor i in range({count}):\n    print {subscript}\n"
    err = fails(program, flags, 134)
    message = (
        f"mg.dynamic_slice: start {start} is out of range for axis {axis}: "
        f"a slice of {size} has {starts} starts (0 to {starts - 1})\n  at <stdin>:3"
    )
    assert err.startswith(message), err


@PIPELINES
def test_the_last_start_that_fits(flags):
    """The largest start a slice fits at is in range (the check is ``start < starts``)."""
    program = f'let z = {Z_TEXT}\nlet s = arg("s", 0)\nprint z[s : s + 2]\nprint z[:, s + 1]\n'
    for s in range(2):
        got = prints(program, flags, f"s={s}")
        np.testing.assert_array_equal(got[0], Z[s : s + 2])
        np.testing.assert_array_equal(got[1], Z[:, s + 1])
    err = fails(program, flags, 134, "s=2")
    assert err.startswith("mg.dynamic_slice: start 2 is out of range for axis 0: a slice of 2 has 2 starts (0 to 1)")


@PIPELINES
def test_a_run_time_start_into_a_question_mark_size(flags):
    pick = "def pick(x: tensor[?], s: tensor[i64]) -> tensor[2] = x[s : s + 2]\n"
    got = prints(pick + "print pick([1.0, 2.0, 3.0], 1)\nprint pick([1.0, 2.0, 3.0, 4.0], 2)\n", flags)
    assert [g.tolist() for g in got] == [[2.0, 3.0], [3.0, 4.0]]
    err = fails(pick + "print pick([1.0, 2.0, 3.0], 2)\n", flags, 134)
    assert err.startswith("mg.dynamic_slice: start 2 is out of range for axis 0: a slice of 2 has 2 starts (0 to 1)"), (
        err
    )
    err = fails(pick + "print pick([1.0], 0)\n", flags, 134)  # (a size shorter than the slice: no start fits)
    assert err.startswith("mg.dynamic_slice: start 0 is out of range for axis 0: a slice of 2 has 0 starts"), err


# -- run-time sizes ------------------------------------------------------------------------


@PIPELINES
def test_dim_numel_and_shape_of_question_mark_sizes(flags):
    program = """
def stats(x: tensor[?x?]) -> (tensor[], tensor[i64], tensor[?x?]):
    let rows = cast(dim(x, 0), f64)
    var acc = zeros(shape(x))
    for i in range(dim(x, 1)):
        acc += x * cast(i, f64)
    return rows * 10.0 + cast(numel(x), f64), numel(x) * 2 - dim(x, 1), acc + full(shape(x), 0.5)
let a, n, acc = stats([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print a
print n
print acc
let b, m, _acc = stats([[1.0], [2.0], [3.0], [4.0]])
println("{b} {m} {dim(_acc, 0)} {numel(_acc)}")
"""
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    acc = sum(x * i for i in range(3)) + 0.5
    out = lines(program, flags)
    got = printed_arrays("\n".join(out[:-1]))
    assert got[0].tolist() == 2 * 10.0 + 6 and got[1].tolist() == 6 * 2 - 3
    np.testing.assert_array_equal(got[2], acc)
    assert out[-1] == f"{4 * 10.0 + 4} {4 * 2 - 1} 4 4"


@PIPELINES
def test_mean_over_question_mark_axes(flags):
    program = """
def means(x: tensor[?x?x3]) -> (tensor[], tensor[?x3], tensor[1x?x1]):
    return mean(x), mean(x, axes=[0]), mean(x, axes=[0, 2], keepdims=true)
def centred(x: tensor[?x?xf32]) -> tensor[?x?xf32]:
    return x - broadcast_to(mean(x, axes=[1], keepdims=true), shape(x))
let t = reshape(cast(iota([24], axis=0), f64), [2, 4, 3]) * 0.5
let a, b, c = means(t)
print a
print b
print c
print centred(cast([[1.0, 2.0, 6.0], [0.0, 0.5, 1.0]], f32))
"""
    t = np.arange(24.0).reshape(2, 4, 3) * 0.5
    h = np.array([[1.0, 2.0, 6.0], [0.0, 0.5, 1.0]], np.float32)
    want = [t.mean(), t.mean(axis=0), t.mean(axis=(0, 2), keepdims=True), h - h.mean(axis=1, keepdims=True)]
    assert_prints(program, flags, want)


@PIPELINES
def test_broadcast_to_the_shape_of_a_question_mark_tensor(flags):
    program = """
def grow(m: tensor[?x1], x: tensor[?x?]) -> tensor[?x?] = broadcast_to(m, shape(x))
def spread(r: tensor[1x?], x: tensor[?x?]) -> tensor[?x?] = broadcast_to(r, shape(x)) + x
def lift(s: tensor[], x: tensor[?x2]) -> tensor[?x2] = broadcast_to(s, shape(x))
print grow([[1.0], [2.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
print spread([[1.0, 2.0]], [[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]])
print lift(7.0, [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
"""
    want = [
        np.broadcast_to([[1.0], [2.0]], (2, 3)),
        np.array([[11.0, 22.0], [31.0, 42.0], [51.0, 62.0]]),
        np.full((3, 2), 7.0),
    ]
    assert_prints(program, flags, want)


@PIPELINES
@pytest.mark.parametrize(
    "m,x,dimension,sizes",
    [
        ("[[1.0], [2.0]]", "[[1.0, 2.0, 3.0]]", 0, "2 and 1"),  # (m's '?' rows: 2, x's: 1)
        ("[[1.0, 2.0]]", "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]", 1, "2 and 3"),
    ],
)
def test_broadcast_to_checks_a_question_mark_it_keeps(flags, m, x, dimension, sizes):
    m_type = "?x1" if dimension == 0 else "1x?"
    program = f"def grow(m: tensor[{m_type}], x: tensor[?x?]) -> tensor[?x?] = broadcast_to(m, shape(x))\nprint grow({m}, {x})\n"
    err = fails(program, flags, 134)
    assert err.startswith(
        f"mg.broadcast: dimension {dimension} differs at runtime from the shape broadcast to\n  at <stdin>:1: sizes {sizes}"
    ), err


@PIPELINES
def test_broadcast_to_checks_a_question_mark_it_keeps_beside_a_static_size(flags):
    program = (
        "def grow(m: tensor[?x1], x: tensor[?x3]) -> tensor[?x3] = broadcast_to(m, shape(x))\n"
        "print grow([[1.0], [2.0]], [[1.0, 2.0, 3.0]])\n"
    )
    fails(program, flags, 134)


# -- println -------------------------------------------------------------------------------


@PIPELINES
def test_println_formats_as_python(flags):
    program = r"""
let x = [3.14159, -0.0, 1e-05, 2.5, 123456789.0]
let n: tensor[2xi64] = [42, -7]
let k: tensor[2xi32] = [5, -2147483648]
let h: tensor[2xf32] = [0.1, 3.0]
let b: tensor[2xbf16] = [0.1, 2.0]
println("a {x[0]:.3f} b {x[1]} c {x[2]} d {x[3]:+.1e} e {x[4]:g} f {x[4]:>14.2f}")
for i in range(3):
    println("i={i:>3} sq={i * i:03d} {{i}}\t|{x[0] * cast(i, f64):^9.2f}|")
println("{n[0]:d} {n[1]:+d} {k[0]:<4}| {k[1]} {h[0]} {h[0]:.3f} {b[0]} {x[0] > 1.0} {n[1] > 0:d}")
println("{x[3]:%} {x[3]:*>10.1%} {x[1]:z.1f} {n[0]:e} {x[0] + x[3]} {sum(n)} {7 // 2} {7 % -3} \"quoted\" \\")
"""
    x = [3.14159, -0.0, 1e-05, 2.5, 123456789.0]
    h, b = np.float32(0.1), ml_dtypes.bfloat16(0.1)
    want = [f"a {x[0]:.3f} b {x[1]} c {x[2]} d {x[3]:+.1e} e {x[4]:g} f {x[4]:>14.2f}"]
    want += [f"i={i:>3} sq={i * i:03d} {{i}}\t|{x[0] * i:^9.2f}|" for i in range(3)]
    want += [f"{42:d} {-7:+d} {5:<4}| {-2147483648} {str(h)} {float(h):.3f} {str(np.float32(b))} {True} {False:d}"]
    want += [f'{x[3]:%} {x[3]:*>10.1%} {x[1]:z.1f} {42:e} {x[0] + x[3]} {35} {7 // 2} {7 % -3} "quoted" \\']
    assert lines(program, flags) == want


def test_println_of_a_slice_inside_braces():
    out = mgc("run", "-", input=b'let z = [1.0, 2.0, 3.0]\nprintln("{sum(z[0:2])} {z[1:][0]:.2f}")\n')
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode() == f"{3.0} {2.0:.2f}\n"


# The tensors a program prints whole, read from .npy files so that every value is exact: each
# kind of layout NumPy has (positional floats padded to a common width, exponent form, NaN and
# infinities, integers, bools, rows that wrap at 75 columns, summaries of > 1000 elements).
def _printed_tensors() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "a": rng.normal(size=(3, 4)),
        "b": (rng.normal(size=(2, 3, 4)) * 1e-5).astype(np.float32),
        "c": rng.integers(-1000, 1000, size=5).astype(np.int32),
        "d": rng.integers(-(2**40), 2**40, size=(2, 7)),
        "e": rng.random(4) > 0.5,
        "f": np.arange(2000.0).reshape(1000, 2),
        "g": np.concatenate([rng.normal(size=37), [np.nan, np.inf, -0.0]]),
        "h": np.array([[0.1, 1.0 / 3.0], [2.5, -1e9]]),
    }


TENSOR_PROGRAM = """
let a: tensor[?x?xf64] = load("a.npy")
let b: tensor[2x3x4xf32] = load("b.npy")
let c: tensor[?xi32] = load("c.npy")
let d: tensor[2x?xi64] = load("d.npy")
let e: tensor[4xi1] = load("e.npy")
let f: tensor[?x2xf64] = load("f.npy")
let g: tensor[?xf64] = load("g.npy")
let h: tensor[2x2xf64] = load("h.npy")
println("a = {a}")
println("{transpose(a)} | {a[1:3, 1:3]} | {a[0:3, 2]}")
println("{a > 0.0} {sum(a, axes=[0])} {cast(a, bf16)} {cast(a, f32)}")
println("b {b}\\nc {c} d {d}")
println("{e} {f} {g}")
println("{h} {h[0] * 1000.0} {broadcast_to(c[0:2], [3, 2])}")
var s = zeros([3])
for i in range(2):
    s += cast(i, f64) + 0.5
    println("{i}: {s}")
"""


@pytest.mark.parametrize("flags", [[], ["--reference"], ["--backend", "mlir"]], ids=["optimised", "reference", "mlir"])
def test_println_prints_tensors_as_numpy(tmp_path, flags):
    """A tensor in braces prints as NumPy's str() of it: every element type (bf16 as the f32
    it widens to), views (a transpose, slices, a broadcast), results, '?' sizes, in a loop."""
    t = _printed_tensors()
    for name, value in t.items():
        np.save(tmp_path / f"{name}.npy", value)
    a = t["a"]
    bf16 = a.astype(ml_dtypes.bfloat16).astype(np.float32)
    c = t["c"]
    want = f"a = {a}\n{a.T} | {a[1:3, 1:3]} | {a[0:3, 2]}\n"
    want += f"{a > 0.0} {a.sum(axis=0)} {bf16} {a.astype(np.float32)}\n"
    want += f"b {t['b']}\nc {c} d {t['d']}\n{t['e']} {t['f']} {t['g']}\n"
    want += f"{t['h']} {t['h'][0] * 1000.0} {np.broadcast_to(c[0:2], (3, 2))}\n"
    want += "0: [0.5 0.5 0.5]\n1: [2. 2. 2.]\n"
    assert "\n".join(lines(TENSOR_PROGRAM, flags, folder=tmp_path)) + "\n" == want


def test_println_of_a_tensor_in_an_executable(tmp_path):
    """An executable (mgc build) has the library's array printer too."""
    t = _printed_tensors()
    np.save(tmp_path / "g.npy", t["g"])
    (tmp_path / "p.mg").write_text('let g: tensor[?xf64] = load("g.npy")\nprintln("g = {g}")\n')
    exe = tmp_path / "p"
    built = mgc("build", str(tmp_path / "p.mg"), "-o", str(exe))
    assert built.returncode == 0, built.stderr.decode()
    out = subprocess.run([str(exe)], capture_output=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode() == f"g = {t['g']}\n"


def test_println_refuses_a_spec_for_a_tensor():
    out = mgc("run", "-", input=b'let x = [1.5, 2.0]\nprintln("x = {x:.2f}")\n')
    err = out.stderr.decode()
    assert out.returncode == 1 and "E-ARG-006" in err and "without" in err, err


def test_println_refuses_a_spec_it_cannot_print():
    out = mgc("run", "-", input=b'let x = [1.5]\nprintln("{x[0]:,}")\n')
    assert out.returncode == 1 and "E-ARG-006" in out.stderr.decode(), out.stderr.decode()


# -- load and save ---------------------------------------------------------------------------


@PIPELINES
def test_load_and_save_round_trip_with_relative_paths(tmp_path, flags):
    """Files of every element type, with '?' and static sizes, read and written relative to
    the program's folder (the program runs from another working directory)."""
    rng = np.random.default_rng(0)
    arrays = {
        "f64": rng.standard_normal((3, 4)),
        "f32": rng.standard_normal((2, 3, 2)).astype(np.float32),
        "i32": rng.integers(-(2**31), 2**31, (5,), dtype=np.int32),
        "i64": rng.integers(-(2**63), 2**63 - 1, (2, 2), dtype=np.int64),
        "i1": rng.integers(0, 2, (4, 1)).astype(bool),
    }
    arrays["f64"][0, :3] = [np.nan, -0.0, -np.inf]
    types = {"f64": "?x4", "f32": "2x?x?xf32", "i32": "?xi32", "i64": "2x?xi64", "i1": "?x1xi1"}
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    program = ""
    for t, a in arrays.items():
        np.save(tmp_path / "in" / f"{t}.npy", a)
        program += f'let {t}_: tensor[{types[t]}] = load("in/{t}.npy")\nsave("out/{t}.npy", {t}_)\n'
    program += 'save("out/twice.npy", f64_ * 2.0)\nsave("out/count.npy", numel(i32_))\n'
    assert run(program, flags, folder=tmp_path).returncode == 0
    for t, a in arrays.items():
        same_bits(np.load(tmp_path / "out" / f"{t}.npy"), a)
    same_bits(np.load(tmp_path / "out" / "twice.npy"), arrays["f64"] * 2.0)
    same_bits(np.load(tmp_path / "out" / "count.npy"), np.array(5, np.int64))


@PIPELINES
def test_a_loaded_file_feeds_a_loop_and_is_saved(tmp_path, flags):
    w0 = np.array([[0.5, -1.0], [2.0, 0.25]])
    np.save(tmp_path / "w.npy", w0)
    program = """
let w0: tensor[?x?] = load("w.npy")
var w = w0
for step in range(4):
    w -= 0.5 * w
    if step == 2:
        save("mid.npy", w)
save("w_end.npy", w)
"""
    got = saved(tmp_path, flags, program, {}, ["mid", "w_end"])
    same_bits(got["mid"], w0 * 0.5**3)
    same_bits(got["w_end"], w0 * 0.5**4)


@PIPELINES
@pytest.mark.parametrize(
    "declared,content,message",
    [
        ("?x3xf32", b"hello", "load: {path}: not a .npy file"),
        ("?x4xf32", None, "load: {path}: dimension 1 must be 4, found 3"),
        ("?x3", None, "load: {path}: expected element type f64 ('<f8'), found '<f4'"),
        ("?xf32", None, "load: {path}: "),  # (a rank of 1 for a file of rank 2)
    ],
)
def test_a_bad_file_is_an_error(tmp_path, flags, declared, content, message):
    path = tmp_path / "x.npy"
    if content is None:
        np.save(path, np.zeros((2, 3), np.float32))
    else:
        path.write_bytes(content)
    err = fails(f'let x: tensor[{declared}] = load("x.npy")\nprint x\n', flags, 1, folder=tmp_path)
    assert err.startswith(message.format(path=path)), err


@PIPELINES
def test_a_missing_file_is_an_error(tmp_path, flags):
    err = fails('let x: tensor[?] = load("none.npy")\nprint x\n', flags, 1, folder=tmp_path)
    assert err.startswith(f"load: {tmp_path / 'none.npy'}: No such file or directory"), err


@PIPELINES
def test_save_into_a_missing_folder_leaves_nothing(tmp_path, flags):
    program = 'let x = [1.0, 2.0]\nsave("here.npy", x)\nsave("nowhere/x.npy", x)\nprint x\n'
    out = run(program, flags, folder=tmp_path)
    assert out.returncode == 1, out.stderr.decode()
    assert out.stderr.decode().startswith(f"save: {tmp_path / 'nowhere' / 'x.npy'}: No such file or directory")
    assert out.stdout == b""  # (the program stopped at the failed save)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here.npy", "prog.mg"]
    same_bits(np.load(tmp_path / "here.npy"), np.array([1.0, 2.0]))


# -- the Python API ------------------------------------------------------------------------

LIBRARY = """
def scaled(k: tensor[]) -> tensor[?x3xf32]:
    let x: tensor[?x3xf32] = load("data/x.npy")
    return x * cast(k, f32)

def moments(a: tensor[?]) -> (tensor[], tensor[?]):
    let m = mean(a)
    return m, (a - m) * (a - m)

def count(x: tensor[?x?], limit: tensor[]) -> tensor[i64]:
    var n: tensor[i64] = 0
    for i in range(dim(x, 0)):
        if sum(x[i]) > limit:
            n = n + 1
    return n

def rate() -> tensor[] = arg("lr", 0.25)
"""


def test_the_python_api_loads_and_returns_several_results(tmp_path, monkeypatch):
    import mg_xdsl
    from mg_xdsl.api import MgFileError

    (tmp_path / "data").mkdir()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "data" / "x.npy", x)
    (tmp_path / "lib.mg").write_text(LIBRARY)
    lib = mg_xdsl.compile_file(tmp_path / "lib.mg")  # (paths relative to the program's folder)
    same_bits(lib.scaled(np.array(2.0)), x * np.float32(2.0))
    result = lib.moments(np.array([1.0, 2.0, 6.0]))
    assert isinstance(result, tuple) and len(result) == 2 and lib.moments.result_count == 2
    same_bits(result[0], np.array(3.0))
    same_bits(result[1], (np.array([1.0, 2.0, 6.0]) - 3.0) ** 2)
    rows = np.array([[1.0, 1.0], [5.0, 0.0], [-1.0, 0.0], [3.0, 3.0]])
    assert lib.count(rows, np.array(1.5)).item() == 3
    assert lib.rate().item() == 0.25  # (nothing sets arguments: the default)
    (tmp_path / "data" / "x.npy").unlink()
    with pytest.raises(MgFileError, match="x.npy"):
        lib.scaled(np.array(2.0))
    monkeypatch.chdir(tmp_path)  # (a program compiled from a string: the working directory's)
    np.save(tmp_path / "data" / "x.npy", x + 1)
    lib = mg_xdsl.compile(LIBRARY.replace("k: tensor[]", "k: tensor[f64]"))
    same_bits(lib.scaled(np.array(3.0)), (x + 1) * np.float32(3.0))


# -- arg ---------------------------------------------------------------------------------

TRAIN = """
let lr = arg("lr", 0.1)
let steps = arg("steps", 3)
var w = [1.0, -2.0]
for i in range(steps):
    w -= lr * w
println("w={w[0]:.6f} {w[1]:.6f} steps={steps} lr={lr}")
"""


def train(lr: float = 0.1, steps: int = 3) -> str:
    w = np.array([1.0, -2.0])
    for _ in range(steps):
        w -= lr * w
    return f"w={w[0]:.6f} {w[1]:.6f} steps={steps} lr={lr}"


@PIPELINES
def test_arguments_from_mgc_run(tmp_path, flags):
    assert lines(TRAIN, flags, folder=tmp_path) == [train()]
    assert lines(TRAIN, flags, "lr=0.5", "steps=5", folder=tmp_path) == [train(0.5, 5)]
    assert lines(TRAIN, flags, "steps=0", folder=tmp_path) == [train(0.1, 0)]
    err = fails(TRAIN, flags, 1, "steps=1.5", folder=tmp_path)
    assert "argument 'steps': expected an integer (i64), got '1.5'" in err
    err = fails(TRAIN, flags, 1, "rate=1", folder=tmp_path)
    assert "unknown argument 'rate'" in err


@PIPELINES
def test_arguments_of_an_executable(tmp_path, flags):
    (tmp_path / "train.mg").write_text(TRAIN)
    built = mgc("build", *flags, str(tmp_path / "train.mg"), "-o", str(tmp_path / "train"))
    assert built.returncode == 0, built.stderr.decode()

    def exe(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(tmp_path / "train"), *args], capture_output=True, text=True, timeout=60)

    assert exe().stdout.splitlines() == [train()]
    assert exe("steps=7", "lr=0.03").stdout.splitlines() == [train(0.03, 7)]
    helped = exe("--help")
    assert (
        helped.returncode == 0 and "lr: f64, default 0.1" in helped.stdout and "steps: i64, default 3" in helped.stdout
    )
    bad = exe("lr=fast")
    assert bad.returncode == 1 and "argument 'lr'" in bad.stderr


# -- loops and branches carrying several vars ---------------------------------------------------


@PIPELINES
def test_a_loop_carries_every_var_it_assigns(flags):
    """Vars updated in place and rebound, of several types, carried by one loop and an if
    inside it; the loop's counter read as a value."""
    program = """
var w = zeros([3])
var total: tensor[] = 0.0
var count: tensor[i32] = 0
var last = [0.0, 0.0]
let step = [1.0, 2.0, 3.0]
for i in range(1, 8, 2):
    w += step * cast(i, f64)
    total = total + sum(w)
    if i % 3 == 0:
        count = count + 1
        last = w[1:]
    else:
        last = last - 1.0
print w
print total
print count
print last
"""
    w, total, count, last = np.zeros(3), 0.0, 0, np.zeros(2)
    for i in range(1, 8, 2):
        w += np.array([1.0, 2.0, 3.0]) * i
        total = total + w.sum()
        if i % 3 == 0:
            count += 1
            last = w[1:].copy()
        else:
            last = last - 1.0
    assert_prints(program, flags, [w, total, count, last])


@PIPELINES
def test_a_loop_starting_from_views(flags):
    """Vars that start as a view of another buffer (a slice, a transpose: in the optimised
    pipeline, strided memrefs) and are carried by a loop."""
    program = """
let m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
var w = m[:, 1:]
var t = transpose(m)
for i in range(3):
    w = w * 2.0
    t += 1.0
    if i == 1:
        w = m[:, :2]
print w
print t
print m
"""
    m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert_prints(program, flags, [m[:, :2] * 2.0, m.T + 3.0, m])


# -- upstream MLIR ----------------------------------------------------------------------------


@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-22 is not installed")
@pytest.mark.parametrize(
    "program",
    [
        "let n: tensor[4xi32] = [-7, 7, -7, 7]\nprint n % [2, -2, -2, 2]\nprint n // [2, -2, -2, 2]\n"
        "let x = [-7.5, 7.5, 0.0, 3.0]\nprint x % [2.0, -2.0, 0.0, inf]\nprint x // [2.0, -2.0, 0.0, -inf]\nprint x ** 2.0\n",
        "print argmax([[1.0, 3.0, 3.0], [nan, 2.0, nan]], axis=1)\nprint argmin([[4, 1], [1, 1]], axis=0)\n"
        "let a = [[true], [false]]\nprint a and [true, false] or not a\n",
        f"let z = {Z_TEXT}\nvar acc = zeros([2, 2])\nfor i in range(2):\n    acc += z[i : i + 2, -2:]\n"
        "    if i == 1 and acc[0, 0] > 3.0:\n        acc *= 0.5\nprint acc\nprint z[1] @ [1.0, 0.0, 1.0, 0.0]\n",
        "def f(x: tensor[?x?]) -> tensor[?x?]:\n    let m = mean(x, axes=[1], keepdims=true)\n"
        "    return x - broadcast_to(m, shape(x)) + cast(dim(x, 0), f64)\nprint f([[1.0, 2.0], [3.0, 7.0]])\n"
        'println("{numel([1.0, 2.0])} {2.5:.2f}")\n',
    ],
    ids=["rem-floordiv-pow", "argmax-logic", "loop-slices", "sizes-println"],
)
def test_upstream_mlir_agrees(program):
    upstream_agrees(program)
