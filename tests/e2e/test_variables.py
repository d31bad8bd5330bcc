"""Variables updated in place: ``var w = EXPR`` owns a buffer; ``w += g`` (``-=``,
``*=``, ``/=``) computes ``w op g`` with the operators' broadcasting into it, keeping ``w``'s
type; ``w = EXPR`` rebinds ``w``; a ``let`` never changes. Against NumPy, in both CPU
pipelines (at one and two threads), on the emulated GPU and through upstream MLIR; names
bound to a var's value before an update keep the old value."""

import subprocess

import numpy as np
import pytest
from conftest import mask, mgc, run_forked, tool
from helpers.printed import printed_arrays
from helpers.upstream import upstream_agrees
from hypothesis import HealthCheck, given, settings, strategies as st

PROGRAM = """
let g = [[1, 2, 3], [4, 5, 6]]
var w = g
let before = w
w += g
w -= 0.5
w *= 2
w /= [1, 2, 4]
print w
print before
print g
let y = w * 10
w += 100
print y + 1
print w
var n = 3
n += 1
n *= n
print n
w = zeros([2])
w -= [1, 2]
print w
var k: tensor[3xi32] = [7, -7, 9]
k /= 2
k *= cast([1, 2, 3], i32)
print k
"""


def expected() -> list[np.ndarray]:
    g = np.array([[1, 2, 3], [4, 5, 6]], dtype=float)
    w = ((g + g) - 0.5) * 2 / [1, 2, 4]
    y = w * 10
    k = np.array([3, -3, 4], dtype=np.int32) * [1, 2, 3]  # (7 / 2 truncates toward zero)
    return [w, g, g, y + 1, w + 100, np.float64(16), -np.array([1.0, 2.0]), k]


@pytest.mark.parametrize("flags", [[], ["--reference"], ["--gpu-emulated"]], ids=["optimised", "reference", "gpu"])
def test_updates_compute_what_numpy_does(flags):
    out = mgc("run", *flags, "-", input=PROGRAM.encode())
    assert out.returncode == 0, out.stderr.decode()
    got, want = printed_arrays(out.stdout.decode()), expected()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.asarray(w, dtype=float))


def test_upstream_accepts_every_stage_and_prints_the_same():
    upstream_agrees(PROGRAM)


def test_an_update_allocates_nothing_in_either_pipeline(tmp_path):
    """The update's loop nest writes into w's buffer: the one memref.alloc of @main is the
    var's own (``w -= w`` reads and writes each element once)."""
    prog = tmp_path / "u.mg"
    prog.write_text("var w = ones([64, 64])\nw += 1\nw *= 3\nw -= w\nprint w\n")
    for pipeline in ("mg-cpu-pipeline{to=affine}", "mg-reference-pipeline{to=affine}"):
        p = subprocess.run([tool("mg-opt"), str(prog), "-p", pipeline], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        main = p.stdout.split("func.func @main")[1]
        assert main.count("memref.alloc") == 1, (pipeline, main)


def test_a_let_of_a_var_name_binds_a_fixed_value():
    out = mgc("run", "-", input=b"var w = [1, 2]\nlet w = w + 1\nw += 1\n")
    assert out.returncode == 1
    assert "cannot assign to w: it is bound by let" in out.stderr.decode()


# -- random sequences of updates ---------------------------------------------------------------

OPS = {"+=": np.add, "-=": np.subtract, "*=": np.multiply, "/=": np.divide}


@st.composite
def updates(draw):
    """A var of a random shape (rank 1-3), then updates by numbers, by parameters that
    broadcast to it, by expressions that read it, and reads of it in between."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    lines, steps = [], []
    for i in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(list(OPS)))
        kind = draw(st.sampled_from(["number", "param", "self", "read"]))
        if kind == "number":
            x = draw(st.sampled_from([0.5, 2.0, -3.0]))
            lines.append(f"w {op} {x}")
            steps.append(("number", op, x))
        elif kind == "param":
            rank = draw(st.integers(0, len(shape)))
            pshape = tuple(1 if draw(st.booleans()) else d for d in shape[len(shape) - rank :])
            lines.append(f"w {op} p{i}")
            steps.append(("param", op, (f"p{i}", pshape)))
        elif kind == "self":  # reads w while it is written: each element its own
            lines.append(f"w {op} relu(w) + 1")
            steps.append(("self", op, None))
        else:
            lines.append(f"let r{i} = w * 2")
            steps.append(("read", None, f"r{i}"))
    return shape, lines, steps


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(updates(), st.integers(0, 2**32 - 1))
def test_random_updates_agree_with_numpy(case, seed):
    shape, lines, steps = case
    rng = np.random.default_rng(seed)
    w0 = rng.normal(size=shape)
    params = {s[2][0]: rng.normal(size=s[2][1]) for s in steps if s[0] == "param"}
    reads = [s[2] for s in steps if s[0] == "read"]
    body = "\n".join(lines)
    prints = "\n".join(f"print {r}" for r in [*reads, "w"])
    lets = "\n".join(f"let {n} = {fmt(v)}" for n, v in [*params.items(), ("w0", w0)])
    source = f"{lets}\nvar w = w0\n{body}\n{prints}\n"
    w, got_reads = w0.copy(), []
    with np.errstate(all="ignore"):
        for kind, op, arg in steps:
            if kind == "number":
                w = OPS[op](w, arg)
            elif kind == "param":
                w = OPS[op](w, params[arg[0]])
            elif kind == "self":
                w = OPS[op](w, np.maximum(w, 0) + 1)
            else:
                got_reads.append(w * 2)
    want = [*got_reads, w]
    for flags in ([], ["--reference"]):
        out = mgc("run", *flags, "-", input=source.encode())
        assert out.returncode == 0, out.stderr.decode()
        got = printed_arrays(out.stdout.decode())
        assert len(got) == len(want), source
        for g, x in zip(got, want):
            np.testing.assert_allclose(g, x, rtol=1e-5, err_msg=source)  # (printed with 6 digits)


def fmt(a: np.ndarray) -> str:
    """A NumPy array as a literal, every digit kept."""
    if a.ndim == 0:
        return repr(float(a))
    return "[" + ", ".join(fmt(x) for x in a) + "]"


def test_updates_agree_at_any_thread_count():
    """An update large enough to be split across threads, through the Python API."""
    source = (
        "var w = iota([700, 300], axis=1, dtype=i64)\nw *= 3\nw -= iota([700, 300], axis=0, dtype=i64)\nprint sum(w)\n"
    )
    results = [mgc("run", "-", input=source.encode(), env={"MG_NUM_THREADS": t}) for t in ("1", "2")]
    assert all(r.returncode == 0 for r in results)
    i, j = np.meshgrid(np.arange(700), np.arange(300), indexing="ij")
    want = int((j * 3 - i).sum())
    assert [mask(r.stdout.decode()).splitlines()[-1] for r in results] == [f"[{want}]"] * 2


# -- a var made from a let's value copies it ----------------------------------------------------

# Right-hand sides a let may be bound to, and their values for x = [1, 2, 3]; `var v = a`
# then `v += 10` must leave `a` as it was.
X = np.array([1.0, 2.0, 3.0])
COMPUTED = {
    "x * 2": X * 2,
    "x + 1": X + 1,
    "relu(x - 2)": np.maximum(X - 2, 0),
    "slice(concat(0, [x, x]), 0, 1, 4)": np.array([2.0, 3, 1]),
    "transpose(x)": X,
    "reshape(x, [3])": X,
    "sum(x) + x": X.sum() + X,
    "concat(0, [x])": X,
    "broadcast_to(x, [3])": X,
    "cast(cast(x, f32), f64)": X,
    "where(x > 1, x, 0)": np.array([0.0, 2, 3]),
    "cumsum(x)": np.cumsum(X),
    "zeros([3])": np.zeros(3),
    "x": X,
    "index(x, cast([2, 1, 0], i64))": X[::-1],
    "reshape([[1], [2], [3]] @ [[1]], [3])": X,
    "f(x)": X,
}


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("rhs", COMPUTED)
def test_a_var_made_from_a_let_owns_its_buffer(rhs, optimise):
    """`let a = EXPR`, `var v = a`, `v += 10`: `a` keeps its value, for every EXPR (once a
    computed one shared its buffer with the var, and the update changed `a`)."""
    source = f"def f(a: tensor[?]) = a * 1\nlet x = [1, 2, 3]\nlet a = {rhs}\nvar v = a\nvar w = a\nv += 10\nw -= 10\nprint a\nprint v\nprint w\n"
    out, err, status = run_forked(source, optimise=optimise)
    assert status == 0, err
    a, v, w = printed_arrays(out)
    np.testing.assert_array_equal(a, COMPUTED[rhs])
    np.testing.assert_array_equal(v, COMPUTED[rhs] + 10)
    np.testing.assert_array_equal(w, COMPUTED[rhs] - 10)


def test_a_var_made_from_a_computed_let_leaves_the_let_as_it_was():
    for flags in ([], ["--reference"]):
        out = mgc("run", *flags, "-", input=b"let x = [1, 2, 3]\nlet a = x * 2\nvar v = a\nv += 10\nprint v\nprint a\n")
        assert out.returncode == 0, out.stderr
        v, a = printed_arrays(out.stdout.decode())
        np.testing.assert_array_equal(v, [12, 14, 16])
        np.testing.assert_array_equal(a, [2, 4, 6])


# A value computed before a var is updated in place and read after it, through chains of
# elementwise ops that the optimised pipeline fuses (its last op, a conversion for print,
# comes after the update). Once the fused loop moved the first op past the update.
X1 = np.array([[-0.5, -1, 0], [-3, -3, 3.5], [-0.5, -0.5, 1], [2, 1.5, 1.5]])
BEFORE_AN_UPDATE = {
    "pow(x, 3) <= [[1.5, 1, -0.5]]": (X1**3 <= [[1.5, 1, -0.5]]).astype(np.int32),
    "-x * 2 + 1": -X1 * 2 + 1,
    "cast(relu(x) * x, i32)": (np.maximum(X1, 0) * X1).astype(np.int32),
}


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("rhs", BEFORE_AN_UPDATE)
def test_a_value_computed_before_an_update_keeps_the_old_values(rhs, optimise):
    source = f"var x = {X1.tolist()}\nlet a = {rhs}\nx -= x\nprint x\nprint a\n"
    out, err, status = run_forked(source, optimise=optimise)
    assert status == 0, err
    x, a = printed_arrays(out)
    np.testing.assert_array_equal(x, np.zeros_like(X1))
    np.testing.assert_array_equal(a, BEFORE_AN_UPDATE[rhs])
