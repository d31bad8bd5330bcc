"""The derivative rules of ``mg-autodiff``, each against central finite differences.

Each case is a function ``f`` of a few inputs, written twice: in mg (an expression, or the body
of a def whose parameters may be ``tensor[?x?]``) and in NumPy. A program computes
``grad(sum(f(...) * r), wrt=[...])`` in ``f64`` (``r`` a fixed random tensor of ``f``'s shape, so
that every element of ``f`` counts), the inputs loaded from ``.npy`` files and the gradients
saved to others (``save`` is exact), and the test compares them with the central differences
of ``sum(f(...) * r)`` computed here with NumPy's ``f``. The cases of a family share one
program, run in both pipelines (``mgc run --no-cache`` and ``--reference``). Inputs stay away
from kinks (``relu``, ``abs``, ties of ``max``); the rules at the kinks (ties shared equally, as
JAX does) are checked against values computed by hand. The errors (``E-GRAD-004``) are at the
end, and the pass's known wrong gradients, expected to fail until fixed (``KNOWN_BUGS``).
"""

import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, mgc

PIPELINES = pytest.mark.parametrize(
    "flags", [["--no-cache"], ["--no-cache", "--reference"]], ids=["optimised", "reference"]
)
STEP = 1e-5  # the finite differences' step (central: an error of about STEP**2)
TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}

rng = np.random.default_rng(20240611)


def reseed(name: str) -> None:
    """Each test draws its inputs from a generator of its own seed (the same whichever tests
    run with it)."""
    global rng
    rng = np.random.default_rng(zlib.crc32(name.encode()))


def normal(*shape: int) -> np.ndarray:
    return rng.normal(size=shape)


def positive(*shape: int) -> np.ndarray:
    """Away from 0 (log, sqrt, a divisor, a base of pow)."""
    return rng.uniform(0.5, 2.0, size=shape)


def away(*shape: int) -> np.ndarray:
    """Either sign, away from 0 (relu, abs, where's mask)."""
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.3, 1.5, size=shape)


def unit(*shape: int) -> np.ndarray:
    """Inside (-1, 1), away from its ends (acos, asin)."""
    return rng.uniform(-0.8, 0.8, size=shape)


def ids(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@dataclass
class Case:
    """``f`` of ``inputs``: ``mg`` (``{x}`` names input ``x``), ``numpy`` (the inputs in order);
    the gradient with respect to ``wrt`` (every float input unless given). ``dynamic``: the
    mg side is a def whose float parameters have ``?`` sizes (``via_def``: a def of static
    parameters)."""

    name: str
    mg: str
    numpy: Callable[..., np.ndarray]
    inputs: dict[str, np.ndarray]
    wrt: tuple[str, ...] = ()
    dynamic: bool = False
    via_def: bool = False
    types: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if not self.wrt:
            self.wrt = tuple(k for k, v in self.inputs.items() if v.dtype == np.float64)

    def value(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(self.numpy(*inputs.values()), dtype=np.float64)


def mg_type(a: np.ndarray, dynamic: bool = False) -> str:
    dims = ["?" if dynamic else str(n) for n in a.shape]
    if a.dtype != np.float64:
        dims.append({np.dtype(np.int64): "i64", np.dtype(np.float32): "f32"}[a.dtype])
    return f"tensor[{'x'.join(dims)}]"


def finite_differences(case: Case, r: np.ndarray) -> dict[str, np.ndarray]:
    """d sum(f * r) / d input, for each input of ``wrt``, by central differences."""

    def loss(inputs):
        return float(np.sum(case.value(inputs) * r))

    grads = {}
    for name in case.wrt:
        x = case.inputs[name]
        g = np.zeros_like(x)
        for i in np.ndindex(*x.shape):
            up, down = x.copy(), x.copy()
            up[i] += STEP
            down[i] -= STEP
            g[i] = (loss({**case.inputs, name: up}) - loss({**case.inputs, name: down})) / (2 * STEP)
        grads[name] = g
    return grads


def program(cases: list[Case], folder: Path) -> tuple[str, dict[str, np.ndarray]]:
    """The program of ``cases`` (its inputs written to ``folder``), and each case's ``r``."""
    defs, body, weights = [], [], {}
    for k, case in enumerate(cases):
        p = f"c{k}"
        for name, a in case.inputs.items():
            np.save(folder / f"{p}_{name}.npy", a)
            body.append(f'let {p}_{name}: {mg_type(a)} = load("{p}_{name}.npy")')
        out = case.value(case.inputs)
        r = weights[case.name] = rng.normal(size=out.shape)
        np.save(folder / f"{p}_r.npy", r)
        body.append(f'let {p}_r: {mg_type(r)} = load("{p}_r.npy")')
        if case.dynamic or case.via_def:
            params = ", ".join(
                f"{n}: {case.types.get(n) or mg_type(a, case.dynamic and a.dtype == np.float64)}"
                for n, a in case.inputs.items()
            )
            defs.append(f"def {p}_f({params}) = {case.mg.format(**{n: n for n in case.inputs})}")
            value = f"{p}_f({', '.join(f'{p}_{n}' for n in case.inputs)})"
        else:
            value = "(" + case.mg.format(**{n: f"{p}_{n}" for n in case.inputs}) + ")"
        grads = [f"{p}_g_{n}" for n in case.wrt]
        wrt = ", ".join(f"{p}_{n}" for n in case.wrt)
        body.append(f"let {', '.join(grads)} = grad(sum({value} * {p}_r), wrt=[{wrt}])")
        body.extend(f'save("{g}.npy", {g})' for g in grads)
    return "\n".join(defs + body) + "\n", weights


def check(cases: list[Case], flags: list[str], folder: Path) -> None:
    source, weights = program(cases, folder)
    (folder / "prog.mg").write_text(source)
    out = mgc("run", *flags, str(folder / "prog.mg"), cwd=ROOT)
    assert out.returncode == 0, out.stderr.decode() + "\n" + source
    for k, case in enumerate(cases):
        want = finite_differences(case, weights[case.name])
        for name in case.wrt:
            got = np.load(folder / f"c{k}_g_{name}.npy")
            assert got.shape == case.inputs[name].shape, (case.name, name, got.shape)
            np.testing.assert_allclose(got, want[name], **TOLERANCE, err_msg=f"{case.name}: d/d{name}")


def scan(a: np.ndarray, b: np.ndarray, axis: int = 0, reverse: bool = False) -> np.ndarray:
    """h[t] = a[t] * h[t-1] + b[t] along ``axis`` from 0 (from the end if ``reverse``)."""
    a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    h, out = np.zeros_like(b[0]), np.zeros_like(b)
    for t in reversed(range(len(b))) if reverse else range(len(b)):
        h = a[t] * h + b[t]
        out[t] = h
    return np.moveaxis(out, 0, axis)


def index_add(base, i, values):
    out = base.copy()
    np.add.at(out, i, values)
    return out


def scatter_add(base, idx, values, axis):
    out, where = base.copy(), list(np.indices(idx.shape))
    where[axis] = idx
    np.add.at(out, tuple(where), values)
    return out


def case(name, mg, numpy, **inputs) -> Case:
    return Case(name, mg, numpy, inputs)


def _elementwise() -> list[Case]:
    x, y, c = normal(3, 4), normal(3, 4), away(3, 4)
    p, q = positive(3, 4), positive(3, 4)
    return [
        case("add", "{x} + {y}", lambda x, y: x + y, x=x, y=y),
        case("sub", "{x} - {y}", lambda x, y: x - y, x=x, y=y),
        case("mul", "{x} * {y}", lambda x, y: x * y, x=x, y=y),
        case("mul of a value by itself", "{x} * {x}", lambda x: x * x, x=x),
        case("div", "{x} / {y}", lambda x, y: x / y, x=x, y=p),
        case("maximum", "maximum({x}, {y})", np.maximum, x=x, y=x + away(3, 4)),
        case("minimum", "minimum({x}, {y})", np.minimum, x=x, y=x + away(3, 4)),
        case("pow", "pow({x}, {y})", np.power, x=p, y=normal(3, 4)),
        case("** of tensors", "{x} ** {y}", np.power, x=p, y=q),
        case("atan2", "atan2({x}, {y})", np.arctan2, x=x, y=y),
        Case(
            "where",
            "where({c} > 0.0, {x}, {y})",
            lambda c, x, y: np.where(c > 0, x, y),
            {"c": c, "x": x, "y": y},
            ("x", "y"),
        ),
        case("neg", "-{x}", np.negative, x=x),
        case("relu", "relu({x})", lambda x: np.maximum(x, 0), x=c),
        case("x + 2", "{x} + 2.0", lambda x: x + 2, x=x),
        case("x - 2", "{x} - 2.0", lambda x: x - 2, x=x),
        case("2 - x", "2.0 - {x}", lambda x: 2 - x, x=x),
        case("x * 3", "{x} * 3.0", lambda x: x * 3, x=x),
        case("3 * x", "3.0 * {x}", lambda x: 3 * x, x=x),
        case("x / 4", "{x} / 4.0", lambda x: x / 4, x=x),
        case("4 / x", "4.0 / {x}", lambda x: 4 / x, x=p),
        case("x ** 3", "{x} ** 3.0", lambda x: x**3, x=x),
        case("x ** 0.5", "{x} ** 0.5", lambda x: x**0.5, x=p),
        case("2 ** x", "2.0 ** {x}", lambda x: 2**x, x=x),
        case("broadcast of a row", "{x} + {b}", lambda x, b: x + b, x=x, b=normal(4)),
        case("broadcast of a column", "{x} * {c}", lambda x, c: x * c, x=x, c=normal(3, 1)),
        case("broadcast of both", "{b} - {c}", lambda b, c: b - c, b=normal(1, 4), c=normal(3, 1)),
        case("broadcast of a rank-0 tensor", "{x} * {s}", lambda x, s: x * s, x=x, s=normal()),
        case("broadcast to 3-D", "{z} / {b}", lambda z, b: z / b, z=normal(2, 3, 4), b=positive(3, 4)),
        case(
            "a chain",
            "tanh({x} * {y} + {x}) / ({y} * {y} + 1.0)",
            lambda x, y: np.tanh(x * y + x) / (y * y + 1),
            x=x,
            y=y,
        ),
    ]


def _math() -> list[Case]:
    x, p, u = normal(3, 4), positive(3, 4), unit(3, 4)
    return [
        case("exp", "exp({x})", np.exp, x=x),
        case("log", "log({x})", np.log, x=p),
        case("sqrt", "sqrt({x})", np.sqrt, x=p),
        case("rsqrt", "rsqrt({x})", lambda x: 1 / np.sqrt(x), x=p),
        case("tanh", "tanh({x})", np.tanh, x=x),
        case("sin", "sin({x})", np.sin, x=x),
        case("cos", "cos({x})", np.cos, x=x),
        case("acos", "acos({x})", np.arccos, x=u),
        case("asin", "asin({x})", np.arcsin, x=u),
        case("abs", "abs({x})", np.abs, x=away(3, 4)),
    ]


def _reductions() -> list[Case]:
    x, z = normal(3, 4), normal(2, 3, 4)
    return [
        case("sum", "sum({x})", np.sum, x=x),
        case("sum axis 0", "sum({x}, axes=[0])", lambda x: x.sum(0), x=x),
        case("sum axis -1 keepdims", "sum({x}, axes=[-1], keepdims=true)", lambda x: x.sum(-1, keepdims=True), x=x),
        case("sum of 3-D axes 0, 2", "sum({z}, axes=[0, 2])", lambda z: z.sum((0, 2)), z=z),
        case("mean", "mean({x})", np.mean, x=x),
        case("mean axis 1", "mean({x}, axes=[1])", lambda x: x.mean(1), x=x),
        case("mean 3-D keepdims", "mean({z}, axes=[1], keepdims=true)", lambda z: z.mean(1, keepdims=True), z=z),
        case("prod axis 1", "prod({x}, axes=[1])", lambda x: x.prod(1), x=away(3, 4)),
        case("prod", "prod({x})", np.prod, x=away(2, 3)),
        case("max axis 0", "max({x}, axes=[0])", lambda x: x.max(0), x=x),
        case("max", "max({x})", np.max, x=x),
        case("min axis 1 keepdims", "min({x}, axes=[1], keepdims=true)", lambda x: x.min(1, keepdims=True), x=x),
        case("min of 3-D axes 0, 1", "min({z}, axes=[0, 1])", lambda z: z.min((0, 1)), z=z),
        case("row_sum", "row_sum({x})", lambda x: x.sum(1, keepdims=True), x=x),
        case("col_sum", "col_sum({x})", lambda x: x.sum(0, keepdims=True), x=x),
        case("row_max", "row_max({x})", lambda x: x.max(1, keepdims=True), x=x),
        case("col_max", "col_max({x})", lambda x: x.max(0, keepdims=True), x=x),
        case("row_mean", "row_mean({x})", lambda x: x.mean(1, keepdims=True), x=x),
        case("col_mean", "col_mean({x})", lambda x: x.mean(0, keepdims=True), x=x),
        case(
            "softmax",
            "exp({x}) / broadcast_to(sum(exp({x}), axes=[1], keepdims=true), [3, 4])",
            lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True),
            x=x,
        ),
    ]


def _matmul_and_shapes() -> list[Case]:
    x, y, z = normal(3, 4), normal(3, 4), normal(2, 3, 4)
    return [
        case("matmul", "{a} @ {b}", np.matmul, a=x, b=normal(4, 2)),
        case("batched matmul", "{a} @ {b}", np.matmul, a=z, b=normal(2, 4, 2)),
        case("batched by a matrix", "{a} @ {b}", np.matmul, a=z, b=normal(4, 2)),
        case("matrix @ vector", "{a} @ {v}", np.matmul, a=x, v=normal(4)),
        case("vector @ matrix", "{v} @ {a}", np.matmul, v=normal(3), a=x),
        case("vector @ vector", "{v} @ {w}", np.matmul, v=normal(4), w=normal(4)),
        case("transpose", "transpose({x})", np.transpose, x=x),
        case("transpose 0 2 1", "transpose({z}, [0, 2, 1])", lambda z: z.transpose(0, 2, 1), z=z),
        case("transpose 2 0 1", "transpose({z}, [2, 0, 1])", lambda z: z.transpose(2, 0, 1), z=z),
        case("reshape", "reshape({x}, [2, -1])", lambda x: x.reshape(2, -1), x=x),
        case("reshape 3-D to 1-D", "reshape({z}, [24])", lambda z: z.reshape(24), z=z),
        case("slice", "slice({x}, 1, 1, 3)", lambda x: x[:, 1:3], x=x),
        case("slice from 0", "slice({x}, 0, 0, 2)", lambda x: x[0:2], x=x),
        case("slice to the end", "slice({x}, 1, 2, 4)", lambda x: x[:, 2:4], x=x),
        case("subscript rows", "{x}[1:3, :]", lambda x: x[1:3, :], x=x),
        case("subscript last column", "{x}[:, -1]", lambda x: x[:, -1], x=x),
        case("subscript a row", "{z}[1]", lambda z: z[1], z=z),
        case("concat axis 0", "concat(0, [{x}, {y}])", lambda x, y: np.concatenate([x, y], 0), x=x, y=normal(2, 4)),
        case("concat axis 1 twice", "concat(1, [{x}, {x}, {y}])", lambda x, y: np.concatenate([x, x, y], 1), x=x, y=y),
        case("broadcast_to", "broadcast_to({b}, [3, 4])", lambda b: np.broadcast_to(b, (3, 4)), b=normal(4)),
        case(
            "broadcast_to 3-D", "broadcast_to({c}, [2, 3, 4])", lambda c: np.broadcast_to(c, (2, 3, 4)), c=normal(3, 1)
        ),
        case("element", "{x}[1, 2]", lambda x: x[1, 2], x=x),
        case("element from the end", "{z}[-1, 0, -2]", lambda z: z[-1, 0, -2], z=z),
        case("elements", "{x}[0, 0] * {x}[2, 3] + {x}[0, 0]", lambda x: x[0, 0] * x[2, 3] + x[0, 0], x=x),
        Case(
            "a def of static sizes",
            "tanh({a} @ {w}) * {a}[:, 0:2]",
            lambda a, w: np.tanh(a @ w) * a[:, 0:2],
            {"a": x, "w": normal(4, 2)},
            via_def=True,
        ),
        case("cast to f32 and back", "cast(cast({x}, f32), f64) * {y}", lambda x, y: x * y, x=x, y=y),
    ]


def _indexing_and_scans() -> list[Case]:
    x, table = normal(3, 4), normal(5, 3)
    i = ids([[2, 0, 2], [4, 4, 4]])
    idx = ids([[3, 0, 3], [1, 1, 2], [0, 3, 3]])
    return [
        case("index", "index({t}, {i})", lambda t, i: t[i], t=table, i=i),
        case("index_add", "index_add({b}, {i}, {v})", index_add, b=table, i=i, v=normal(2, 3, 3)),
        case("gather axis 1", "gather({x}, {i})", lambda x, i: np.take_along_axis(x, i, 1), x=x, i=idx),
        case(
            "gather axis 0",
            "gather({x}, {i}, axis=0)",
            lambda x, i: np.take_along_axis(x, i, 0),
            x=x,
            i=ids([[2, 0, 2, 1]] * 2),
        ),
        case(
            "scatter_add axis 1",
            "scatter_add({b}, {i}, {v})",
            lambda b, i, v: scatter_add(b, i, v, 1),
            b=x,
            i=idx,
            v=normal(3, 3),
        ),
        case(
            "scatter_add axis 0",
            "scatter_add({b}, {i}, {v}, axis=0)",
            lambda b, i, v: scatter_add(b, i, v, 0),
            b=x,
            i=ids([[2, 0, 2, 1], [2, 2, 0, 0]]),
            v=normal(2, 4),
        ),
        case("linear_scan", "linear_scan({a}, {b})", scan, a=normal(4, 3), b=normal(4, 3)),
        case(
            "linear_scan reverse",
            "linear_scan({a}, {b}, reverse=true)",
            lambda a, b: scan(a, b, 0, True),
            a=normal(4, 3),
            b=normal(4, 3),
        ),
        case(
            "linear_scan axis 1",
            "linear_scan({a}, {b}, axis=1)",
            lambda a, b: scan(a, b, 1),
            a=normal(3, 4),
            b=normal(3, 4),
        ),
        case(
            "linear_scan axis 1 reverse",
            "linear_scan({a}, {b}, axis=1, reverse=true)",
            lambda a, b: scan(a, b, 1, True),
            a=normal(3, 4),
            b=normal(3, 4),
        ),
        case(
            "linear_scan of 3-D",
            "linear_scan({a}, {b}, axis=1)",
            lambda a, b: scan(a, b, 1),
            a=normal(2, 3, 2),
            b=normal(2, 3, 2),
        ),
        case("linear_scan of one step", "linear_scan({a}, {b})", scan, a=normal(1, 3), b=normal(1, 3)),
        case(
            "linear_scan of a number", "linear_scan(0.5, {b})", lambda b: scan(np.full_like(b, 0.5), b), b=normal(4, 3)
        ),
        case(
            "linear_scan of a number b",
            "linear_scan({a}, 2.0)",
            lambda a: scan(a, np.full_like(a, 2.0)),
            a=normal(4, 3),
        ),
        Case(
            "index_add into zeros_like",
            "index_add(zeros_like({t}), {i}, {v})",
            lambda t, i, v: index_add(np.zeros_like(t), i, v),
            {"t": table, "i": i, "v": normal(2, 3, 3)},
            ("v",),
        ),
        case("cumsum", "cumsum({x})", lambda x: np.cumsum(x, 0), x=x),
        case("cumsum axis 1", "cumsum({x}, axis=1)", lambda x: np.cumsum(x, 1), x=x),
        case("x[i : i + 2]", "{x}[{i} : {i} + 2]", lambda x, i: x[i : i + 2], x=normal(5, 3), i=ids(2)),
        case("x[:, i : i + 2]", "{x}[:, {i} : {i} + 2]", lambda x, i: x[:, i : i + 2], x=x, i=ids(1)),
        case("x[i]", "{x}[{i}]", lambda x, i: x[i], x=x, i=ids(2)),
    ]


def _dynamic() -> list[Case]:
    """Through a def of ``tensor[?x?]`` parameters: every rule with ``?`` sizes."""
    x, y = normal(3, 4), normal(3, 4)

    def dyn(name, mg, numpy, **inputs) -> Case:
        return Case(name, mg, numpy, inputs, dynamic=True)

    return [
        dyn("? elementwise", "{x} * {y} - exp({x})", lambda x, y: x * y - np.exp(x), x=x, y=y),
        dyn("? sum axis 0", "sum({x}, axes=[0])", lambda x: x.sum(0), x=x),
        dyn("? mean axis 1", "mean({x}, axes=[1])", lambda x: x.mean(1), x=x),
        dyn("? max axis 1", "max({x}, axes=[1], keepdims=true)", lambda x: x.max(1, keepdims=True), x=x),
        dyn("? matmul", "{a} @ {b}", np.matmul, a=x, b=normal(4, 2)),
        dyn("? transpose", "transpose({x})", np.transpose, x=x),
        dyn(
            "? softmax",
            "exp({x} - broadcast_to(max({x}, axes=[-1], keepdims=true), shape({x})))",
            lambda x: np.exp(x - x.max(-1, keepdims=True)),
            x=x,
        ),
        Case(
            "? broadcast_to of a column",
            "broadcast_to({m}, shape({x})) * {x}",
            lambda m, x: m * x,
            {"m": normal(3, 1), "x": x},
            dynamic=True,
            types={"m": "tensor[?x1]"},
        ),
        dyn("? slice axis 1", "slice({x}, 1, 1, 3)", lambda x: x[:, 1:3], x=x),
        dyn("? slice axis 0", "slice({x}, 0, 1, 2)", lambda x: x[1:2], x=x),
        dyn("? slice of the start", "slice({x}, 0, 0, 2)", lambda x: x[0:2], x=x),
        dyn(
            "? concat axis 0", "concat(0, [{x}, {y}, {x}])", lambda x, y: np.concatenate([x, y, x]), x=x, y=normal(2, 4)
        ),
        Case(
            "? concat of static and ? sizes",
            "concat(1, [{s}, {x}, {s}, {x}])",
            lambda s, x: np.concatenate([s, x, s, x], 1),
            {"s": normal(3, 2), "x": x},
            dynamic=True,
            types={"s": "tensor[3x2]"},
        ),
        dyn("? element", "{x}[1, 2]", lambda x: x[1, 2], x=x),
        dyn("? element from the end", "{x}[-1, -3]", lambda x: x[-1, -3], x=x),
        dyn("? cumsum", "cumsum({x}, axis=1)", lambda x: np.cumsum(x, 1), x=x),
        dyn("? linear_scan", "linear_scan({a}, {b})", scan, a=normal(4, 3), b=normal(4, 3)),
        dyn(
            "? linear_scan reverse axis 1",
            "linear_scan({a}, {b}, axis=1, reverse=true)",
            lambda a, b: scan(a, b, 1, True),
            a=x,
            b=y,
        ),
        dyn("? x[i : i + 2]", "{x}[{i} : {i} + 2]", lambda x, i: x[i : i + 2], x=normal(5, 3), i=ids(3)),
        Case(
            "? x[:, i : i + 3]",
            "{x}[:, {i} : {i} + 3]",
            lambda x, i: x[:, i : i + 3],
            {"x": x, "i": ids(1)},
            dynamic=True,
            types={"x": "tensor[3x?]"},  # (a slice of a '?' axis needs its stop)
        ),
        dyn("? index", "index({t}, {i})", lambda t, i: t[i], t=normal(5, 3), i=ids([[2, 0, 2], [4, 4, 4]])),
        dyn(
            "? gather",
            "gather({x}, {i})",
            lambda x, i: np.take_along_axis(x, i, 1),
            x=x,
            i=ids([[3, 0, 3], [1, 1, 2], [0, 3, 3]]),
        ),
    ]


FAMILIES = {
    "elementwise": _elementwise,
    "math": _math,
    "reductions": _reductions,
    "matmul-and-shapes": _matmul_and_shapes,
    "indexing-and-scans": _indexing_and_scans,
    "dynamic": _dynamic,
}


@PIPELINES
@pytest.mark.parametrize("family", FAMILIES)
def test_rules_against_finite_differences(family, flags, tmp_path):
    reseed(family)
    check(FAMILIES[family](), flags, tmp_path)


def saved(source: str, flags: list[str], folder: Path, *names: str) -> list[np.ndarray]:
    """Run ``source`` (in ``folder``) and read back the ``.npy`` files it saved."""
    (folder / "prog.mg").write_text(source)
    out = mgc("run", *flags, str(folder / "prog.mg"), cwd=ROOT)
    assert out.returncode == 0, out.stderr.decode()
    return [np.load(folder / f"{n}.npy") for n in names]


TIES = """
let x = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
let y = [[1.0, 0.0, 3.0], [2.0, 5.0, 2.0]]
let z = [[0.0, -1.0, 2.0]]
let r = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
save("rows.npy", grad(sum(max(x, axes=[1]) * [10.0, 30.0]), wrt=[x]))
save("cols.npy", grad(sum(min(x, axes=[0]) * [1.0, 2.0, 4.0]), wrt=[x]))
save("all.npy", grad(max(x), wrt=[x]))
let gx, gy = grad(sum(maximum(x, y) * r), wrt=[x, y])
save("gx.npy", gx)
save("gy.npy", gy)
let hx, hy = grad(sum(minimum(x, y) * r), wrt=[x, y])
save("hx.npy", hx)
save("hy.npy", hy)
save("number.npy", grad(sum(maximum(x, 2.0) * r), wrt=[x]))
save("number_first.npy", grad(sum(minimum(2.0, x) * r), wrt=[x]))
save("relu.npy", grad(sum(relu(z) * [[7.0, 8.0, 9.0]]), wrt=[z]))
save("abs.npy", grad(sum(abs(z) * [[7.0, 8.0, 9.0]]), wrt=[z]))
"""


@PIPELINES
def test_the_rules_at_their_kinks(flags, tmp_path):
    """Ties of max and min (a reduction's or maximum/minimum's) share the adjoint equally
    among the elements chosen, as JAX does; relu's derivative at 0 is 0 (jax.nn.relu's), abs'
    is 1 (JAX's). Every value here is worked out by hand."""
    names = ["rows", "cols", "all", "gx", "gy", "hx", "hy", "number", "number_first", "relu", "abs"]
    got = dict(zip(names, saved(TIES, flags, tmp_path, *names)))
    want = {
        "rows": [[0, 5, 5], [10, 10, 10]],  # 3 twice in row 0, 2 three times in row 1
        "cols": [[1, 0, 0], [0, 2, 4]],
        "all": [[0, 0.5, 0.5], [0, 0, 0]],
        "gx": [[0.5, 2, 1.5], [2, 0, 3]],  # equal at (0,0), (0,2), (1,0), (1,2): half each
        "gy": [[0.5, 0, 1.5], [2, 5, 3]],
        "hx": [[0.5, 0, 1.5], [2, 5, 3]],
        "hy": [[0.5, 2, 1.5], [2, 0, 3]],
        "number": [[0, 2, 3], [2, 2.5, 3]],  # x == 2.0: half
        "number_first": [[1, 0, 0], [2, 2.5, 3]],
        "relu": [[0, 0, 9]],
        "abs": [[7, -8, 9]],
    }
    for name in names:
        np.testing.assert_array_equal(got[name], np.array(want[name], dtype=np.float64), err_msg=name)


BLOCK_DEF = """
def loss(w: tensor[3x2], b: tensor[2], x: tensor[4x3]) -> tensor[]:
    let h = tanh(x @ w + b)
    var p = exp(h) * h
    p = p + sum(w * w)
    return mean(p * p)

let w: tensor[3x2] = load("w.npy")
let b: tensor[2] = load("b.npy")
let x: tensor[4x3] = load("x.npy")
let l, gw, gb = value_and_grad(loss(w, b, x), wrt=[w, b])
save("l.npy", l)
save("gw.npy", gw)
save("gb.npy", gb)
let gx = grad(loss(w, b, x), wrt=[x])
save("gx.npy", gx)
"""


@PIPELINES
def test_value_and_grad_of_a_def_with_a_block_body(flags, tmp_path):
    """A def of several lets and a var, called (and inlined) under value_and_grad and grad."""
    reseed("block def")
    inputs = {"w": normal(3, 2), "b": normal(2), "x": normal(4, 3)}
    for name, a in inputs.items():
        np.save(tmp_path / f"{name}.npy", a)

    def loss(w, b, x):
        h = np.tanh(x @ w + b)
        p = np.exp(h) * h + np.sum(w * w)
        return np.mean(p * p)

    value, gw, gb, gx = saved(BLOCK_DEF, flags, tmp_path, "l", "gw", "gb", "gx")
    np.testing.assert_allclose(value, loss(**inputs), rtol=1e-12)
    want = finite_differences(Case("loss", "", loss, inputs, ("w", "b", "x")), np.array(1.0))
    for name, got in (("w", gw), ("b", gb), ("x", gx)):
        np.testing.assert_allclose(got, want[name], **TOLERANCE, err_msg=f"d/d{name}")


UNUSED = """
let w = [1.0, 2.0]
let v = [3.0, 4.0]
let gw, gv = grad(sum(w * w) + sum(cast(v > 3.5, f64)), wrt=[w, v])
save("gw.npy", gw)
save("gv.npy", gv)
"""


def test_a_variable_only_a_comparison_reads_gets_zeros(tmp_path):
    """v is read by a comparison only (an i1, a constant to differentiation): no op of the
    sweep reaches it, and its gradient is zeros."""
    gw, gv = saved(UNUSED, ["--no-cache"], tmp_path, "gw", "gv")
    np.testing.assert_array_equal(gw, [2.0, 4.0])
    np.testing.assert_array_equal(gv, [0.0, 0.0])


def test_cast_between_f32_and_f64_converts_the_adjoint(tmp_path):
    """d/dx of cast(x32, f64) * y (x32 an f32 tensor) is y rounded to f32, of x32's type."""
    source = """
let x: tensor[3xf32] = load("x.npy")
let y: tensor[3] = load("y.npy")
save("g.npy", grad(sum(cast(x, f64) * y), wrt=[x]))
"""
    reseed("cast")
    y = normal(3)
    np.save(tmp_path / "x.npy", normal(3).astype(np.float32))
    np.save(tmp_path / "y.npy", y)
    (g,) = saved(source, ["--no-cache"], tmp_path, "g")
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, y.astype(np.float32))


# The errors: a gradient through an op without a rule names the op and points at its line.
NO_RULE = {
    "remainder": ('let w = [1.0, 2.0]\nlet g = grad(sum(w % 1.5), wrt=[w])\nprintln("{g}")\n', "mg.scalar rem", 2),
    "floor division": (
        'let w = [1.0, 2.0]\nlet v = [3.0, 4.0]\nlet g = grad(sum(v // w), wrt=[w])\nprintln("{g}")\n',
        "mg.floordiv",
        3,
    ),
    "a loop in a def": (
        "def f(w: tensor[2]) -> tensor[]:\n"
        "    var s = w\n"
        "    for i in range(3):\n"
        "        s = s * w\n"
        "    return sum(s)\n"
        "let w = [1.0, 2.0]\n"
        "let g = grad(f(w), wrt=[w])\n"
        'println("{g}")\n',
        "scf.for",
        3,
    ),
}


@pytest.mark.parametrize("name", NO_RULE)
def test_a_gradient_through_an_op_without_a_rule_is_an_error(name, tmp_path):
    source, op, line = NO_RULE[name]
    (tmp_path / "prog.mg").write_text(source)
    out = mgc("run", "--no-cache", str(tmp_path / "prog.mg"), cwd=ROOT)
    err = out.stderr.decode()
    assert out.returncode == 1, err
    assert "E-GRAD-004" in err and op in err and "Traceback" not in err, err
    assert re.search(rf"prog\.mg:{line}:\d+ \[E-GRAD-004\]", err), err


# A shape-only operand is no dependence: zeros_like(w) is a constant.
def test_zeros_like_of_a_variable_is_a_constant(tmp_path):
    source = 'let w = [1.0, 2.0]\nsave("g.npy", grad(sum(zeros_like(w) + w * w), wrt=[w]))\n'
    (g,) = saved(source, ["--no-cache"], tmp_path, "g")
    np.testing.assert_array_equal(g, [2.0, 4.0])


def test_a_loop_that_reads_the_variable_only_in_its_body_is_an_error(tmp_path):
    """Not a silent zero: the loop depends on w through its body, and has no rule yet."""
    source = (
        "def f(w: tensor[2]) -> tensor[]:\n"
        "    var s: tensor[] = 0.0\n"
        "    for i in range(3):\n"
        "        s += sum(w)\n"
        "    return s\n"
        "let w = [1.0, 2.0]\n"
        'save("g.npy", grad(f(w), wrt=[w]))\n'
    )
    (tmp_path / "prog.mg").write_text(source)
    out = mgc("run", "--no-cache", str(tmp_path / "prog.mg"), cwd=ROOT)
    err = out.stderr.decode()
    assert out.returncode == 1 and "E-GRAD-004" in err and "scf.for" in err, err
    assert re.search(r"prog\.mg:3:\d+ \[E-GRAD-004\]", err), err
