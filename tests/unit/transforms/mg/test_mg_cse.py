"""``mg-cse`` and the fusion of producers several generics read (issue 39): programs whose
values are used twice, written twice, or bound to vars updated in place, compiled by the
optimised pipeline (which runs both) and by the reference pipeline (which runs neither),
must give the same results; random such programs too."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl
from mg_xdsl.driver import Compilation

rng = np.random.default_rng(39)


def both(source: str, name: str, *args: np.ndarray) -> tuple[object, object]:
    optimised = getattr(mg_xdsl.compile(source), name)(*args)
    reference = getattr(mg_xdsl.compile(source, optimise=False), name)(*args)
    return optimised, reference


def assert_agree(got, want) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, equal_nan=True)


def linalg_stage(source: str) -> str:
    return str(Compilation(source, "prog.mg", keep_dir=None, optimise=True).mlir("linalg"))


SOFTMAX_TWICE = """def softmax(s: tensor[?x?xf32]) -> tensor[?x?xf32]:
    return exp(s - broadcast_to(max(s, axes=[1], keepdims=true), shape(s))) / broadcast_to(sum(exp(s - broadcast_to(max(s, axes=[1], keepdims=true), shape(s))), axes=[1], keepdims=true), shape(s))
"""


def test_softmax_written_twice_has_one_exp():
    assert linalg_stage(SOFTMAX_TWICE).count("math.exp") == 1
    s = rng.standard_normal((37, 53)).astype(np.float32)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    got = mg_xdsl.compile(SOFTMAX_TWICE).softmax(s)
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_attention_has_one_product_per_matmul():
    source = """def attention(q: tensor[2x5x4xf32], kt: tensor[2x4x5xf32], v: tensor[2x5x4xf32]) = exp(q @ kt * 0.5 - max(q @ kt * 0.5, axes=[-1], keepdims=true)) / sum(exp(q @ kt * 0.5 - max(q @ kt * 0.5, axes=[-1], keepdims=true)), axes=[-1], keepdims=true) @ v
"""
    ir = linalg_stage(source)
    assert ir.count("ins(%q, %kt") == 1 and ir.count("math.exp") == 1
    q, kt, v = (rng.standard_normal(s).astype(np.float32) for s in ((2, 5, 4), (2, 4, 5), (2, 5, 4)))
    p = np.exp(q @ kt * 0.5 - (q @ kt * 0.5).max(axis=-1, keepdims=True))
    want = (p / p.sum(axis=-1, keepdims=True)) @ v
    np.testing.assert_allclose(mg_xdsl.compile(source).attention(q, kt, v), want, rtol=1e-5, atol=1e-6)


# Values bound to vars: an update in place must not change a value that equals the var's.
VARS = """def f(x: tensor[3x4]) -> (tensor[3x4], tensor[3x4], tensor[3x4], tensor[3x4], tensor[3x4], tensor[3x4]):
    var w = x * 2
    let y = x * 2
    w += 1
    var v = x
    var u = x
    v += y
    var z = exp(x)
    for i in range(3):
        z += exp(x)
        if sum(z) > 0:
            z -= x * 2
    let e = exp(x)
    return y, w, u, v, z, e
"""


def test_vars_keep_their_own_buffers():
    x = rng.standard_normal((3, 4))
    optimised, reference = both(VARS, "f", x)
    assert_agree(optimised, reference)
    y, w, u, v, _, e = optimised
    np.testing.assert_array_equal(y, x * 2)
    np.testing.assert_array_equal(w, x * 2 + 1)
    np.testing.assert_array_equal(u, x)
    np.testing.assert_array_equal(v, x + x * 2)
    np.testing.assert_allclose(e, np.exp(x))


REBOUND = """def f(x: tensor[3]) -> (tensor[3], tensor[3]):
    var w = x * 1
    let e = exp(x)
    for i in range(3):
        w += 1
        w = exp(x)
    return e, w
def g(x: tensor[3]) -> (tensor[3], tensor[3]):
    var w = x * 1
    let e = exp(x)
    if sum(x) > 0:
        w = exp(x)
    w += 1
    return e, w
"""


@pytest.mark.parametrize("name", ["f", "g"])
def test_a_var_rebound_in_a_loop_or_branch_keeps_its_buffer(name):
    """``w = exp(x)`` in a loop's body (or a branch) becomes the buffer the next update
    writes in place: it is not the ``exp(x)`` computed before."""
    x = np.array([1.0, -2.0, 0.5])
    optimised, reference = both(REBOUND, name, x)
    assert_agree(optimised, reference)
    np.testing.assert_allclose(optimised[0], np.exp(x), rtol=1e-14)


SHARED = """def f(a: tensor[?x?], b: tensor[?x?], r: tensor[?x1]) -> (tensor[?x?], tensor[?x?], tensor[?x?]):
    let d = a - b
    let s = a - broadcast_to(r, shape(a))
    let e = exp(s)
    let p = d * d + relu(d)
    return p, s * 2 + e, relu(s) - e * d
"""


def test_used_twice_across_trees():
    """``d`` read in one tree (computed once inside it) and in another (recomputed: one
    subtraction); ``s`` recomputed in two trees; ``e`` (an exp) kept for two."""
    ir = linalg_stage(SHARED)
    assert ir.count("math.exp") == 1
    a, b = rng.standard_normal((6, 7)), rng.standard_normal((6, 7))
    r = rng.standard_normal((6, 1))
    optimised, reference = both(SHARED, "f", a, b, r)
    assert_agree(optimised, reference)
    d, s = a - b, a - r
    assert_agree(optimised, (d * d + np.maximum(d, 0), s * 2 + np.exp(s), np.maximum(s, 0) - np.exp(s) * d))


TEMPLATES = (
    "{x} + {y}",
    "{x} - {y}",
    "{x} * {y}",
    "-{x}",
    "relu({x})",
    "{x} * 0.5",
    "{x} * {x} + 1",
    "{x} - {y} * 0.25",
    "maximum({x}, {y})",
    "exp({x} * 0.1)",
    "tanh({x})",
    "{x} / (1 + {y} * {y})",
    "{x} - max({x}, axes=[1], keepdims=true)",
    "{x} + sum({y}, axes=[1], keepdims=true)",
    "{x} @ transpose({y}) @ {x} * 0.01",
)


@st.composite
def shared_program(draw) -> tuple[str, int]:
    """A def of ``let``s that use earlier values several times, repeat earlier expressions
    word for word, and update a var in place between them; it returns a few of them."""
    names, lines, exprs = ["a", "b"], [], []
    var = False
    for i in range(draw(st.integers(3, 9))):
        if exprs and draw(st.integers(0, 3)) == 0:
            expr = draw(st.sampled_from(exprs))  # written again
        else:
            template = draw(st.sampled_from(TEMPLATES))
            recent = names[-3:]  # (so that values are used several times)
            expr = template.format(x=draw(st.sampled_from(recent)), y=draw(st.sampled_from(recent)))
        exprs.append(expr)
        if not var and draw(st.booleans()):
            lines.append(f"    var w = {expr}")
            names.append("w")
            var = True
        elif var and draw(st.integers(0, 2)) == 0:
            lines.append(f"    w += {draw(st.sampled_from(names))}")
        else:
            lines.append(f"    let t{i} = {expr}")
            names.append(f"t{i}")
    results = draw(st.lists(st.sampled_from(names[-4:]), min_size=1, max_size=3))
    types = ", ".join("tensor[4x4]" for _ in results)
    source = f"def f(a: tensor[4x4], b: tensor[4x4]) -> ({types}):\n" + "\n".join(lines)
    return source + f"\n    return {', '.join(results)}\n", len(results)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shared_program(), st.integers(0, 2**31))
def test_random_shared_programs_agree_with_the_reference(case, seed):
    source, _ = case
    values = np.random.default_rng(seed)
    a, b = values.standard_normal((4, 4)), values.standard_normal((4, 4))
    optimised, reference = both(source, "f", a, b)
    assert_agree(optimised, reference)
