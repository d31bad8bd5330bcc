"""Programs with blocks: defs with a block body and several results, ``for`` loops that carry
vars from iteration to iteration, ``if``/``elif``/``else`` on run-time values. Each program
is written twice, in mg and in Python with NumPy (the reference), and run in both CPU
pipelines and through upstream MLIR."""

import numpy as np
import pytest
from conftest import mgc
from helpers.printed import printed_arrays
from helpers.upstream import upstream_agrees

PIPELINES = pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])


def run(program: str, flags: list[str]) -> list[np.ndarray]:
    out = mgc("run", "--no-cache", *flags, "-", input=program.encode())
    assert out.returncode == 0, out.stderr.decode()
    return printed_arrays(out.stdout.decode())


def assert_prints(program: str, flags: list[str], want: list) -> None:
    got = run(program, flags)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(
            g, np.asarray(w, dtype=float), rtol=5e-6, atol=1e-12
        )  # (print shows 6 significant digits)


LOOP = """
var w = zeros([3])
var total: tensor[] = 0.0
let step = [1.0, 2.0, 3.0]
for i in range(5):
    let scaled = step * cast(i, f64)
    w += scaled
    total = total + sum(w)
print w
print total
"""


def loop_reference() -> list:
    w, total, step = np.zeros(3), 0.0, np.array([1.0, 2.0, 3.0])
    for i in range(5):
        w += step * i
        total = total + w.sum()
    return [w, total]


@PIPELINES
def test_a_loop_carries_its_vars(flags):
    assert_prints(LOOP, flags, loop_reference())


BRANCHES = """
var best: tensor[] = 100.0
var k = [0.0, 1.0]
for i in range(7):
    let loss = cast(i, f64) * 3.0 - 5.0
    if loss < best:
        best = loss * loss
    elif loss > 10.0:
        k += 1.0
    else:
        k = k * 2.0
print best
print k
"""


def branches_reference() -> list:
    best, k = 100.0, np.array([0.0, 1.0])
    for i in range(7):
        loss = i * 3.0 - 5.0
        if loss < best:
            best = loss * loss
        elif loss > 10.0:
            k += 1.0
        else:
            k = k * 2.0
    return [best, k]


@PIPELINES
def test_if_elif_else_choose_by_run_time_values(flags):
    assert_prints(BRANCHES, flags, branches_reference())


NESTED = """
var m = zeros([2, 3])
for i in range(3):
    for j in range(4):
        if (i + j) == 3:
            m += 1.0
        else:
            m = m + cast(i * j, f64)
    m *= 0.5
print m
"""


def nested_reference() -> list:
    m = np.zeros((2, 3))
    for i in range(3):
        for j in range(4):
            if i + j == 3:
                m += 1.0
            else:
                m = m + i * j
        m *= 0.5
    return [m]


@PIPELINES
def test_nested_loops_and_conditionals(flags):
    assert_prints(NESTED, flags, nested_reference())


DEFS = """
def softmax(x: tensor[2x3]) -> tensor[2x3]:
    let e = exp(x - max(x, axes=[1], keepdims=true))
    return e / sum(e, axes=[1], keepdims=true)

def moments(x: tensor[4]) -> (tensor[], tensor[]):
    let m = mean(x)
    let d = x - m
    return m, mean(d * d)

def power(a: tensor[2x2], v0: tensor[2x1], n: tensor[i64]) -> tensor[2x1]:
    var v = v0
    for i in range(n):
        let w = a @ v
        v = w / sqrt(sum(w * w))
    return v

print softmax([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
let m, v = moments([1.0, 2.0, 3.0, 6.0])
print m
print v
var lo, hi = moments([0.0, 0.0, 4.0, 4.0])
hi += lo
print hi
print power([[2.0, 1.0], [1.0, 3.0]], [[1.0], [0.0]], 30)
"""


def defs_reference() -> list:
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    xs = np.array([1.0, 2.0, 3.0, 6.0])
    a, v = np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([[1.0], [0.0]])
    for _ in range(30):
        w = a @ v
        v = w / np.sqrt((w * w).sum())
    return [e / e.sum(axis=1, keepdims=True), xs.mean(), xs.var(), 4.0 + 2.0, v]


@PIPELINES
def test_defs_with_blocks_and_several_results(flags):
    assert_prints(DEFS, flags, defs_reference())


RETURNS = """
def sign_scale(x: tensor[3], k: tensor[]) -> (tensor[3], tensor[]):
    let s = sum(x)
    if s > k:
        return x * 2.0, s
    elif s < 0.0:
        let y = -x
        return y, -s
    else:
        return x, k
let a, b = sign_scale([1.0, 2.0, 3.0], 1.0)
print a
print b
let c, d = sign_scale([-1.0, -2.0, 0.0], 1.0)
print c
print d
let e, f = sign_scale([0.5, 0.0, 0.0], 1.0)
print e
print f
"""


def returns_reference() -> list:
    def sign_scale(x, k):
        s = x.sum()
        if s > k:
            return x * 2.0, s
        if s < 0.0:
            return -x, -s
        return x, k

    out = []
    for x in ([1.0, 2.0, 3.0], [-1.0, -2.0, 0.0], [0.5, 0.0, 0.0]):
        out += sign_scale(np.array(x), 1.0)
    return out


@PIPELINES
def test_an_if_that_returns_on_every_path(flags):
    assert_prints(RETURNS, flags, returns_reference())


def test_upstream_mlir_agrees_on_loops_and_conditionals():
    for program in (LOOP, BRANCHES, NESTED, DEFS, RETURNS):
        upstream_agrees(program)


def test_a_million_iterations_compile_as_one(tmp_path):
    """A loop is a loop in the IR: its count changes nothing but a constant."""
    ir = {}
    for n in (1_000_000, 10_000_000):
        p = mgc(
            "mlir",
            "--stage",
            "llvm",
            "-",
            input=f"var w = [0.0]\nfor i in range({n}):\n    w += 1.0\nprint w\n".encode(),
        )
        assert p.returncode == 0, p.stderr.decode()
        ir[n] = p.stdout.decode()
    assert ir[1_000_000].replace("(1000000)", "(10000000)") == ir[10_000_000]
    out = mgc("run", "-", input=b"var w = [0.0]\nfor i in range(1000000):\n    w += 1.0\nprint w\n")
    assert printed_arrays(out.stdout.decode())[0].tolist() == [1e6]
