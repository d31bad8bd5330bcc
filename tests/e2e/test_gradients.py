"""Gradients in the language, end to end: ``grad`` and ``value_and_grad`` as a user writes them
(of an expression, through defs with block bodies and ``?`` sizes, inside a training loop that
updates its weights in place, from the Python API), in both CPU pipelines, against values
computed here by hand or by NumPy (central differences, or the analytic gradient NumPy
computes). The rules one by one are ``tests/unit/transforms/mg/``'s; random programs against
``jax.grad`` are ``tests/properties/``'."""

from pathlib import Path

import numpy as np
import pytest
from conftest import mgc

import mg_xdsl

PIPELINES = pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])


def saved(program: str, flags: list[str], folder: Path, names: list[str]) -> list[np.ndarray]:
    """Run ``program`` in ``folder``; the arrays it saved as ``NAME.npy``, exactly."""
    (folder / "prog.mg").write_text(program)
    out = mgc("run", "--no-cache", *flags, str(folder / "prog.mg"))
    assert out.returncode == 0, out.stderr.decode()
    return [np.load(folder / f"{name}.npy") for name in names]


@PIPELINES
def test_grad_of_an_expression_is_the_hand_computed_value(tmp_path, flags):
    """d/dw sum(w * w * x) = 2 w x; d/dx = w^2; the value is returned unchanged."""
    program = """
let w = [1.0, -2.0, 3.0]
let x = [0.5, 4.0, -1.0]
let gw = grad(sum(w * w * x), wrt=[w])
let l, gw2, gx = value_and_grad(sum(w * w * x), wrt=[w, x])
save("gw.npy", gw)
save("gw2.npy", gw2)
save("gx.npy", gx)
save("l.npy", l)
"""
    w, x = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -1.0])
    gw, gw2, gx, value = saved(program, flags, tmp_path, ["gw", "gw2", "gx", "l"])
    np.testing.assert_array_equal(gw, 2 * w * x)
    np.testing.assert_array_equal(gw2, 2 * w * x)
    np.testing.assert_array_equal(gx, w * w)
    assert value.shape == () and value == np.sum(w * w * x)


SOFTMAX_LOSS = """
def loss(w: tensor[?x?], b: tensor[?], x: tensor[?x?], y: tensor[?x?]) -> tensor[]:
    let z = x @ w + b
    let m = broadcast_to(max(z, axes=[1], keepdims=true), shape(z))
    let lse = broadcast_to(log(sum(exp(z - m), axes=[1], keepdims=true)), shape(z)) + m
    return -mean(sum(y * (z - lse), axes=[1]))
"""


def softmax_loss(w, b, x, y):
    z = x @ w + b
    m = z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z - m).sum(axis=1, keepdims=True)) + m
    return -np.mean(np.sum(y * (z - lse), axis=1))


def central_differences(f, a: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += h
        down[i] -= h
        g[i] = (f(up) - f(down)) / (2 * h)
    return g


@PIPELINES
def test_value_and_grad_through_a_def_with_unknown_sizes(tmp_path, flags):
    """A softmax cross-entropy over '?' sizes, with a bias broadcast and a max for stability:
    its gradients against central differences of NumPy's loss."""
    rng = np.random.default_rng(5)
    w, b, x = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(6, 4))
    y = np.eye(3)[rng.integers(0, 3, size=6)]
    for name, value in dict(w=w, b=b, x=x, y=y).items():
        np.save(tmp_path / f"{name}.npy", value)
    program = (
        SOFTMAX_LOSS
        + """
let w: tensor[?x?] = load("w.npy")
let b: tensor[?] = load("b.npy")
let x: tensor[?x?] = load("x.npy")
let y: tensor[?x?] = load("y.npy")
let l, gw, gb = value_and_grad(loss(w, b, x, y), wrt=[w, b])
save("l.npy", l)
save("gw.npy", gw)
save("gb.npy", gb)
"""
    )
    value, gw, gb = saved(program, flags, tmp_path, ["l", "gw", "gb"])
    assert value == pytest.approx(softmax_loss(w, b, x, y), rel=1e-12)
    np.testing.assert_allclose(gw, central_differences(lambda a: softmax_loss(a, b, x, y), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, central_differences(lambda a: softmax_loss(w, a, x, y), b), rtol=1e-6, atol=1e-8)


@PIPELINES
def test_a_training_loop_updates_its_weights_in_place(tmp_path, flags):
    """Linear regression by gradient descent in an mg loop (``w -= lr * grad(...)``, a
    single gradient inside an expression), step for step as NumPy's hand-written gradient."""
    rng = np.random.default_rng(8)
    x, true_w = rng.normal(size=(20, 3)), np.array([1.5, -2.0, 0.5])
    y = x @ true_w + 0.01 * rng.normal(size=20)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    program = """
def mse(w: tensor[3], x: tensor[?x3], y: tensor[?]) -> tensor[]:
    let r = x @ w - y
    return mean(r * r)
let x: tensor[?x3] = load("x.npy")
let y: tensor[?] = load("y.npy")
var w = zeros([3])
for step in range(50):
    w -= 0.1 * grad(mse(w, x, y), wrt=[w])
save("w.npy", w)
"""
    (got,) = saved(program, flags, tmp_path, ["w"])
    w = np.zeros(3)
    for _ in range(50):
        w = w - 0.1 * (2 / len(y)) * x.T @ (x @ w - y)
    np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-14)


def test_a_def_that_takes_a_gradient_is_callable_from_python():
    """A training step compiled once, called from a Python loop: it returns a tuple."""
    lib = mg_xdsl.compile(
        SOFTMAX_LOSS
        + """
def step(w: tensor[?x?], b: tensor[?], x: tensor[?x?], y: tensor[?x?]) -> (tensor[], tensor[?x?], tensor[?]):
    let l, gw, gb = value_and_grad(loss(w, b, x, y), wrt=[w, b])
    return l, w - 0.5 * gw, b - 0.5 * gb
"""
    )
    rng = np.random.default_rng(2)
    w, b, x = rng.normal(size=(4, 3)), np.zeros(3), rng.normal(size=(8, 4))
    y = np.eye(3)[rng.integers(0, 3, size=8)]
    losses = []
    for _ in range(5):
        value, w2, b2 = lib.step(w, b, x, y)
        assert float(value) == pytest.approx(softmax_loss(w, b, x, y), rel=1e-12)
        gw = central_differences(lambda a: softmax_loss(a, b, x, y), w)
        np.testing.assert_allclose(w2, w - 0.5 * gw, rtol=1e-6, atol=1e-8)
        w, b = w2, b2
        losses.append(float(value))
    assert losses == sorted(losses, reverse=True)


def test_errors_name_the_problem():
    cases = {
        "let w = [1.0, 2.0]\nlet g = grad(w * w, wrt=[w])\n": "E-GRAD-001",
        "let n: tensor[2xi64] = [1, 2]\nlet g = grad(sum(cast(n, f64)), wrt=[n])\n": "E-GRAD-002",
        "let w = [1.0]\nlet b = [2.0]\nlet g = grad(sum(w * w), wrt=[b])\n": "E-GRAD-003",
        "let w = [1.0, 2.0]\nlet g = grad(sum(w % 1.5), wrt=[w])\n": "E-GRAD-004",
        "let w = [1.0]\nlet g = grad(sum(w * w))\n": "E-ARG-001",
    }
    for source, code in cases.items():
        out = mgc("run", "-", input=source.encode())
        err = out.stderr.decode()
        assert out.returncode == 1 and f"[{code}]" in err and "Traceback" not in err, (source, err)


@PIPELINES
def test_bf16_gradients_are_computed_as_bf16_arithmetic_is(tmp_path, flags):
    """Each op of the sweep computes in f32 and rounds to bf16, as the forward ops do: the
    gradient of sum(exp(w * x)) is bf16(bf16(exp(bf16(w * x))) * x), element by element."""
    import ml_dtypes

    program = """
let w: tensor[3xbf16] = [1.0, 2.0, 3.0]
let x: tensor[3xbf16] = [0.5, 0.25, 4.0]
let g = grad(sum(exp(w * x)), wrt=[w])
save("g.npy", cast(g, f32))
"""
    (got,) = saved(program, flags, tmp_path, ["g"])
    bf16, f32 = ml_dtypes.bfloat16, np.float32
    w, x = np.array([1.0, 2.0, 3.0], dtype=bf16), np.array([0.5, 0.25, 4.0], dtype=bf16)
    e = np.exp((w.astype(f32) * x.astype(f32)).astype(bf16).astype(f32)).astype(bf16)
    np.testing.assert_array_equal(got, (e.astype(f32) * x.astype(f32)).astype(bf16).astype(f32))
