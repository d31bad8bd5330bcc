"""Random differentiable Mountain Goat programs, each also written as a JAX function, so that
mg's gradients (``grad``, ``value_and_grad``) can be compared with ``jax.grad``'s.

``generate(seed)`` builds one program: 0 to 3 generated defs (block bodies: a let or two,
then ``return``), main's inputs (literals or ``load``ed ``.npy`` files, every value a
multiple of 1/64, exact in ``f64``, ``f32`` and ``bf16``), and a scalar loss made from a
random tree over the differentiable operations: ``+ - * /`` broadcasting (size-1 axes, lower ranks), a
number on either side, ``exp log sqrt rsqrt tanh sin cos asin acos abs relu``,
``maximum``/``minimum`` (of two, of a number), ``atan2``, ``pow`` and ``**`` (a positive
base; ``x ** 2.0`` and ``2.0 ** x`` of any), ``where`` on comparisons (``and`` of two),
``cast`` to the other float type and back, and to an integer and back (a constant), ``sum
mean max min prod`` over random axes with and without ``keepdims``, ``row_*``/``col_*``,
``@`` (vectors, matrices, batches that broadcast), ``transpose``, ``reshape``, subscripts
(slices, negative and left-out bounds, indices that drop an axis, single elements, a row
``x[argmax(v)]`` and a mini-batch ``x[i * k : i * k + k]`` chosen when the program runs),
``slice``, ``concat``, ``broadcast_to``, ``cumsum``, ``linear_scan`` (forward and
``reverse``), ``index``/``gather`` (repeated ids) and ``index_add``/``scatter_add``, a
``grad`` inside the loss (second derivatives), and calls of the defs; shapes of rank 0 to 4
with sizes 1 to 4. The loss is ``sum`` or ``mean`` of the tree (maybe times a constant weight
tensor), and the gradients (with respect to 1 to 3 inputs) are taken in one of five ways
(``MODES``): ``grad(LOSS, wrt=[...])`` and ``value_and_grad(LOSS, wrt=[...])`` in main, of a
``loss`` def with a block body, inside a def that returns them, or at each step of a
training loop (``var v0 = w0``, ``for``, ``v0 -= 0.05 * g0``) whose variables are the
result. The program saves what it computes (``save("g0.npy", g0)``: exact).

``?`` sizes (``choose_dims``): in ``DYNAMIC_SCOPES`` of the scopes (each generated def, the
``loss`` def, the def that returns the gradients, main's loaded inputs), some parameters
declare ``?`` for every axis or for some (``x: tensor[?x3]``, ``tensor[?x?]``), and a def's
result type has a ``?`` where mg infers one from them (its callers then see it). ``dims``
follows mg's type inference and the README's ``?`` rules, so a ``?`` goes only where mg
allows it: never against a static 1 of another operand (mg warns, and checks the sizes equal
when the program runs), never where its size is not the result's, not in ``reshape``'s
operand, ``row_mean``'s axis, ``broadcast_to``'s 1s, or a subscript's negative or left-out
bounds. The values, and the JAX code, are the same with or without them; the gradient sweep
then runs through dynamically-sized code (the gradient of a ``?`` variable is ``?`` too).

bf16 programs (``BF16_SHARE`` of the seeds, not the large ones) are run in ``bf16`` and
``f64``. mg computes each ``bf16`` operation in ``f32`` and rounds its result to ``bf16``
(its sums and products accumulate in ``f32``, rounded once), the sweep's ops too. JAX in
``bfloat16`` rounds each op as well but orders and forms its sums, and some rules,
differently, so the two are compared with a tolerance, not bit for bit, and the programs are
kept to where a tolerance means something: smooth operations only (no ``relu``, ``abs``,
``maximum``, ``where``, ``max``/``min``/``prod``, ``atan2``, ``argmax``, integer casts: no
branch that rounding could flip), values within ``BF16_LIMIT``, ``tanh`` of operands within
``BF16_TANH`` (its rule ``1 - tanh(x) ** 2`` would cancel), positive denominators, a loss
whose terms add up to at least a ``BF16_CANCEL``-th of their magnitudes, numbers
exact in ``bf16`` (0.875, not 0.9; training rates 1/16 and 1/64), trees of depth
``BF16_DEPTHS``, and every value mg computes within ``BF16_STEPS`` roundings of the exact one
(``check_bf16``: the program evaluated as mg rounds it, in NumPy, against f64). An output
then passes if it is within ``BF16_ERRORS`` times bf16's epsilon (2^-8) of JAX's f64
output, relative to that output's largest magnitude, plus twice the distance between JAX's
own ``bfloat16`` output and its f64 one (``bf16_tolerance``: what rounding does to this
program), and holds bf16 values (saved as ``cast(g, f32)``). A bf16 input is a literal, or
a loaded ``f32`` file cast to ``bf16`` (NumPy has no ``bf16``).

Every value a program computes is checked while it is generated (in NumPy, ``f64``): finite,
within ``LIMIT``, and ``MARGIN`` away from every kink (``relu``/``abs`` at 0, ties of
``maximum``, of a ``max`` reduction, of ``where``'s comparison, of ``argmax``, an integer
cast's steps), so that ``f32`` and ``f64``, mg and JAX, take the same branches;
``log``/``sqrt``/``rsqrt``/``pow`` get positive operands by construction (``x * x + 0.5``,
``exp(x)``, ``abs(x) + 0.5``, ``tanh(x) + 1.5``), ``asin``/``acos`` ``0.9 * tanh(x)``, and
``linear_scan`` a factor below 1. A training loop is checked at every step (JAX's steps).

``GradientProgram.reference`` is the program as Python over ``np`` (with ``PRELUDE``'s
helpers): ``exec`` it with ``np`` bound to ``jax.numpy`` (``jax_reference`` does) and
``program(*inputs)`` is the loss (``trained(*inputs)`` a training loop's result). The
``large`` programs have sizes up to 256 (tens of thousands of elements, enough for the
optimised pipeline's threads), smooth operations only, inputs loaded from files.
``Runner`` compiles and runs programs in a process of its own.

Used by ``tests/properties/test_autodiff_random.py`` and, at larger budgets, by
``python -m tests.properties.fuzz.gradient_campaign``.
"""

import functools
import math
import os
import random
import shutil
import signal
import time
import types
import typing
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

LIMIT = 30.0  # every value a program computes stays within +-LIMIT
MARGIN = 0.05  # and this far from the kinks of relu, abs, maximum, max, where
SIZES = (1, 2, 2, 3, 3, 4)
MAX_ELEMENTS = 48  # of a value
MAX_OPERAND = 96  # of an operand that an op reduces (sum, @)
NUMBERS = (0.5, 1.5, 2.0, 0.25, 3.0, 0.75)
DTYPES = ("f64", "f32")  # a program's types; a bf16 program's are BF16_DTYPES
BF16_DTYPES = ("bf16", "f64")
NUMPY_DTYPE = {"f64": "float64", "f32": "float32", "bf16": "bfloat16"}
STORED = {"f64": "float64", "f32": "float32", "bf16": "float32"}  # in .npy files (NumPy has no bf16)
OTHER = {"f64": "f32", "f32": "f64", "bf16": "f32"}

# bf16 programs: a share of the seeds; smooth operations only, values within BF16_LIMIT,
# shallow trees (see the module's docstring for the comparison).
BF16_SHARE = 0.2
BF16_LIMIT = 4.0
BF16_DEPTHS = (3, 3, 4)
BF16_EPSILON = 2.0**-8  # the distance from 1 to the next bf16
BF16_TANH = 1.5  # tanh's operands within it (1 - tanh(x) ** 2 at least 0.18)
BF16_STEPS = 4  # every value within 4 roundings of the exact one (check_bf16)
BF16_CANCEL = 4  # a loss's terms at most 4 times its magnitude (reduce_to_loss)
BF16_RATES = {0.01: 0.015625, 0.05: 0.0625}  # a training loop's rates, exact in bf16

# '?' sizes: the share of scopes (a def, the loss def, the gradient def, main's loaded inputs)
# whose parameters get some, and of those parameters.
DYNAMIC_SCOPES = 0.75
DYNAMIC_PARAMS = 0.7

# The large programs: sizes and the cap on a value's elements.
LARGE_SIZES = (1, 2, 3, 128, 256)
LARGE_ELEMENTS = 140_000
LARGE_LIMIT = 1e4


class Reject(Exception):
    """A candidate whose values leave the domain the generator keeps to."""


@dataclass(eq=False)
class Node:
    """An expression: ``op`` (what the reports count), its operands, its shape, and how it
    is written: ``mg`` and ``py`` are templates with ``{0}``, ``{1}``... for the operands
    and ``{dt}``/``{other}`` for the element types; ``check`` names its domain check."""

    op: str
    shape: tuple
    kids: tuple = ()
    mg: str = ""
    py: str = ""
    check: str = ""
    p: dict = field(default_factory=dict)

    def size(self) -> int:
        return 1 + sum(k.size() for k in self.kids)

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()


def leaf(name: str, shape: tuple) -> Node:
    return Node("name", shape, p={"name": name})


@dataclass
class Def:
    """A generated def: ``params`` (name, shape), ``lets`` (name, Node), the returned Node;
    ``dims``: which axes of each parameter are declared ``?`` (a tuple of bools; none where
    left out), ``ret_dims`` those of its result (as mg infers them)."""

    name: str
    params: list
    lets: list
    ret: Node
    dims: dict = field(default_factory=dict)
    ret_dims: tuple | None = None

    def param_dims(self, name: str, shape: tuple) -> tuple:
        return self.dims.get(name, (False,) * len(shape))

    def result_dims(self) -> tuple:
        return self.ret_dims if self.ret_dims is not None else (False,) * len(self.ret.shape)

    def nodes(self):
        for _, n in self.lets:
            yield from n.walk()
        yield from self.ret.walk()


def numel(shape) -> int:
    return math.prod(shape)


def broadcasts_to(a: tuple, s: tuple) -> bool:
    if len(a) > len(s):
        return False
    return all(x in (1, y) for x, y in zip(a[::-1], s[::-1]))


# -- rendering -------------------------------------------------------------------------------


def render(node: Node, lang: str, dtype: str) -> str:
    if node.op == "name":
        return node.p["name"]
    kids = [render(k, lang, dtype) for k in node.kids]
    template = node.mg if lang == "mg" else node.py
    wrt = node.p.get("wrt", "")
    if lang == "mg":
        return template.format(*kids, dt=dtype, other=OTHER[dtype], wrt=wrt)
    return template.format(*kids, dt=NUMPY_DTYPE[dtype], other=NUMPY_DTYPE[OTHER[dtype]], wrt=wrt)


def mg_type(shape: tuple, dtype: str, dynamic: tuple = ()) -> str:
    """``tensor[2x3xf64]``; ``?`` for the axes ``dynamic`` marks (``tensor[?x3xf64]``)."""
    dims = "x".join("?" if dynamic and dynamic[i] else str(d) for i, d in enumerate(shape))
    return f"tensor[{dims}x{dtype}]" if shape else f"tensor[{dtype}]"


def literal(value: np.ndarray) -> str:
    if value.ndim == 0:
        return repr(float(value))
    return "[" + ", ".join(literal(v) for v in value) + "]"


def number(c: float) -> str:
    return repr(float(c))


# -- evaluation (NumPy, f64) with the domain checks -------------------------------------------

# What mg has and NumPy and jax.numpy spell differently (or not at all): the reference's first
# lines, run with np bound to either.
PRELUDE = """\
def linear_scan(a, b, axis, reverse):
    a, b = np.broadcast_arrays(a, b)
    a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    if np.__name__ == "jax.numpy":  # (a Python loop would trace into one op per step)
        h = jax.lax.scan(lambda h, ab: (ab[0] * h + ab[1],) * 2, 0.0 * b[0], (a, b), reverse=reverse)[1]
        return np.moveaxis(h, 0, axis)
    h, out = 0.0 * b[0], []
    for t in range(a.shape[0])[::-1] if reverse else range(a.shape[0]):
        h = a[t] * h + b[t]
        out.append(h)
    return np.moveaxis(np.stack(out[::-1] if reverse else out), 0, axis)


def index_add(base, ids, values):
    if np.__name__ == "jax.numpy":
        return np.asarray(base).at[ids].add(values)
    out = base.copy()
    np.add.at(out, ids, values)
    return out


def scatter_add(base, idx, values, axis):
    where = list(np.indices(idx.shape))
    where[axis] = idx
    if np.__name__ == "jax.numpy":
        return np.asarray(base).at[tuple(where)].add(values)
    out = base.copy()
    np.add.at(out, tuple(where), values)
    return out


def cumsum(x, axis):
    if np.__name__ == "jax.numpy":  # (XLA folds a jit's reverse cumsum of a scatter's zeros wrongly)
        return jax.lax.associative_scan(np.add, x, axis=axis)
    return np.cumsum(x, axis=axis)


def rows(x, start, size):
    if np.__name__ == "jax.numpy":
        return jax.lax.dynamic_slice_in_dim(np.asarray(x), start, size, axis=0)
    return x[start : start + size]
"""

_CODE: dict[str, types.CodeType] = {}
_NUMPY: dict = {"np": np}
exec(PRELUDE, _NUMPY)


def prelude_for(text: str) -> str:
    """The prelude's functions that ``text`` calls."""
    parts = PRELUDE.split("\n\n\n")
    return "\n\n\n".join(p for p in parts if p.split("(")[0].removeprefix("def ") + "(" in text)


def _check(node: Node, vals: list, out: np.ndarray) -> None:
    kind = node.check
    if kind == "kink0":  # relu, abs: away from 0
        if np.min(np.abs(vals[0])) < MARGIN:
            raise Reject
    elif kind == "apart":  # maximum/minimum of two, a comparison: the two apart
        if np.min(np.abs(vals[0] - vals[1])) < MARGIN:
            raise Reject
    elif kind == "apart_number":
        if np.min(np.abs(vals[0] - node.p["number"])) < MARGIN:
            raise Reject
    elif kind == "mask":  # where(x > y, ...) or where(x > y and z < u, ...)
        for i in range(0, node.p["compared"], 2):
            if np.min(np.abs(vals[i] - vals[i + 1])) < MARGIN:
                raise Reject
    elif kind == "nonzero":  # a number divided by it, prod's rule divides by it
        if np.min(np.abs(vals[0])) < 0.25:
            raise Reject
    elif kind == "denominator":
        if np.min(np.abs(vals[1])) < 0.25:
            raise Reject
    elif kind == "gap":  # max/min along axes: one element clearly the largest (smallest)
        x, axes = vals[0], node.p["axes"]
        kept = [a for a in range(x.ndim) if a not in axes]
        groups = np.transpose(x, kept + list(axes)).reshape(numel([x.shape[a] for a in kept]), -1)
        if groups.shape[1] > 1:
            s = np.sort(groups, axis=1)
            gaps = s[:, -1] - s[:, -2] if node.p["kind"] == "max" else s[:, 1] - s[:, 0]
            if np.min(gaps) < MARGIN:
                raise Reject
    elif kind == "prod":
        if np.min(np.abs(vals[0])) < 0.25:
            raise Reject
    elif kind == "integer":  # cast(x * 3.0, i32): 3x clear of the integers
        x3 = vals[0] * 3.0
        if np.min(np.abs(x3 - np.round(x3))) < MARGIN:
            raise Reject
    elif kind == "argmax":  # argmax(v): one element clearly the largest
        v = np.sort(vals[1])
        if len(v) > 1 and v[-1] - v[-2] < MARGIN:
            raise Reject
    elif kind == "unsaturated":  # tanh in bf16: 1 - tanh(x) ** 2 clear of 0
        if np.max(np.abs(vals[0]), initial=0.0) > BF16_TANH:
            raise Reject
    elif kind == "atan2":  # away from the origin and from the cut along y = 0, x < 0
        y, x = np.broadcast_arrays(vals[0], vals[1])
        if np.min(x * x + y * y) < 0.05 or np.any((x < MARGIN) & (np.abs(y) < MARGIN)):
            raise Reject


def evaluate(node: Node, env: dict, memo: dict, defs: dict, limit: float = LIMIT) -> np.ndarray:
    """``node``'s value (f64) with ``env``'s names; ``Reject`` where a value leaves the domain."""
    if node in memo:  # (by identity: Node has eq=False; the dict keeps the node alive)
        return memo[node]
    if node.op == "name":
        value = env[node.p["name"]]
    elif node.op == "call":
        f = defs[node.p["def"]]
        args = [evaluate(k, env, memo, defs, limit) for k in node.kids]
        inner = {name: a for (name, _), a in zip(f.params, args, strict=True)}
        body: dict = {}
        for name, n in f.lets:
            inner[name] = evaluate(n, inner, body, defs, limit)
        value = evaluate(f.ret, inner, body, defs, limit)
    elif node.op == "grad (nested)":
        evaluate(node.kids[0], env, memo, defs, limit)
        value = _inner_gradient(node, env, defs, limit)
    else:
        vals = [evaluate(k, env, memo, defs, limit) for k in node.kids]
        text = node.py.format(*(f"_{i}" for i in range(len(vals))), dt="float64", other="float32")
        code = _CODE.get(text)
        if code is None:
            code = _CODE[text] = compile(text, "<node>", "eval")
        with np.errstate(all="ignore"):
            value = np.asarray(eval(code, {**_NUMPY, **{f"_{i}": v for i, v in enumerate(vals)}}), dtype=np.float64)
        _check(node, vals, value)
    assert value.shape == node.shape, (node.op, node.mg, value.shape, node.shape)
    if not np.all(np.isfinite(value)) or np.max(np.abs(value), initial=0.0) > limit:
        raise Reject
    memo[node] = value
    return value


def jax_namespace(defs) -> dict:
    """``np`` (jax.numpy), ``jax``, the prelude and ``defs`` as Python functions, in f64."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    namespace: dict = {"np": jnp, "jax": jax}
    exec(PRELUDE + "".join("\n".join(py_def(f, "f64")) + "\n" for f in defs), namespace)
    return namespace


def to_bf16(x) -> np.ndarray:
    """``x`` rounded to bf16 (to nearest even, as mg and ml_dtypes round), as f32."""
    import ml_dtypes

    return np.asarray(x, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def rounded(node: Node, env: dict, memo: dict, defs: dict) -> tuple[np.ndarray, np.ndarray]:
    """``node``'s value computed as mg computes bf16 (each operation in f32, its result
    rounded to bf16) and exactly (f64), ``env``'s values such pairs; ``Reject`` where the
    rounded one is more than ``BF16_STEPS`` roundings (of bf16's epsilon, relative to the
    largest magnitude) from the exact one."""
    if node in memo:
        return memo[node]
    if node.op == "name":
        pair = env[node.p["name"]]
    elif node.op == "call":
        f = defs[node.p["def"]]
        inner = {n: rounded(k, env, memo, defs) for (n, _), k in zip(f.params, node.kids, strict=True)}
        body: dict = {}
        for name, n in f.lets:
            inner[name] = rounded(n, inner, body, defs)
        pair = rounded(f.ret, inner, body, defs)
    elif node.op == "grad (nested)":  # (from differences of the exact values; rounded once)
        value = _inner_gradient(node, {n: v for n, (_, v) in env.items()}, defs, math.inf)
        pair = (to_bf16(value), value)
    else:
        vals = [rounded(k, env, memo, defs) for k in node.kids]
        with np.errstate(all="ignore"):
            pair = tuple(
                np.asarray(
                    eval(
                        node.py.format(*(f"_{i}" for i in range(len(vals))), dt=dt, other=dt),
                        {**_NUMPY, **{f"_{i}": v[j] for i, v in enumerate(vals)}},
                    ),
                    dtype=np.float64,
                )
                for j, dt in enumerate(("float32", "float64"))
            )
        pair = (to_bf16(pair[0]), pair[1])
    scale = float(np.max(np.abs(pair[1]), initial=0.0))
    if np.max(np.abs(pair[0] - pair[1]), initial=0.0) > BF16_STEPS * BF16_EPSILON * scale:
        raise Reject
    memo[node] = pair
    return pair


def check_bf16(generated: "Generated") -> None:
    """``Reject`` a bf16 program that its rounding moves too far: a value more than
    ``BF16_STEPS`` roundings from the exact one (``rounded``). What rounds badly forward (a
    difference of near values that is amplified later, a function that flattens) rounds
    badly in the gradient too."""
    env = {n: (to_bf16(v), v) for n, v, _ in generated.inputs}
    defs = {f.name: f for f in generated.defs}
    if generated.loss_def:
        defs["loss"] = generated.loss_def
    memo: dict = {}
    for name, node in generated.lets + generated.grad_def_lets:
        env[name] = rounded(node, env, memo, defs)
    rounded(generated.loss, env, memo, defs)


def _inner_gradient(node: Node, env: dict, defs: dict, limit: float) -> np.ndarray:
    """The gradient a nested ``grad`` gives, by central differences (f64: within about 1e-9
    of the exact one, plenty for the domain checks of the ops that read it; the reference is
    JAX's). A difference that crosses a kink is a ``Reject``."""
    name, inner = node.p["wrt"], node.kids[0]
    w = np.asarray(env[name], dtype=np.float64)
    grad = np.zeros(w.shape)
    h = 1e-6
    for i in np.ndindex(*w.shape):
        sums = []
        for step in (h, -h):
            moved = w.copy()
            moved[i] += step
            sums.append(float(np.sum(evaluate(inner, {**env, name: moved}, {}, defs, limit))))
        grad[i] = (sums[0] - sums[1]) / (2 * h)
    return grad


# -- scopes: where an expression's names come from -------------------------------------------


class Scope:
    """The names an expression may use, with the values they have while it is generated:
    main's inputs and lets, or a def's parameters and lets. ``leaf`` reuses one of a shape
    or makes a new one."""

    def __init__(self, gen: "Generator", prefix: str, max_new: int):
        self.gen, self.prefix, self.max_new = gen, prefix, max_new
        self.names: list[tuple[str, tuple, str]] = []  # (name, shape, "new" or "let")
        self.env: dict[str, np.ndarray] = {}
        self.memo: dict = {}
        self.made = 0

    def value(self, node: Node) -> np.ndarray:
        return evaluate(node, self.env, self.memo, self.gen.defs, self.gen.limit)

    def new(self, shape: tuple) -> Node:
        name = f"{self.prefix}{self.made}"
        self.made += 1
        self.names.append((name, shape, "new"))
        self.env[name] = self.gen.values(shape)
        return leaf(name, shape)

    def bind(self, name: str, node: Node) -> None:
        self.env[name] = self.value(node)
        self.names.append((name, node.shape, "let"))

    def leaf(self, shape: tuple) -> Node:
        rng = self.gen.rng
        same = [n for n, s, _ in self.names if s == shape]
        lets = [n for n, s, kind in self.names if s == shape and kind == "let"]
        if lets and rng.random() < 0.7:
            return leaf(rng.choice(lets), shape)
        if same and (rng.random() < 0.45 or self.made >= self.max_new):
            return leaf(rng.choice(same), shape)
        if self.made >= 2 * self.max_new:
            raise Reject  # (too many names: the caller tries another tree)
        return self.new(shape)

    def shapes(self) -> list[tuple]:
        """The shapes of its names, and of the defs' results (so that calls fit)."""
        return [s for _, s, _ in self.names] + [f.ret.shape for f in self.gen.defs.values()]


# -- '?' sizes: which axes mg knows only when the program runs ------------------------------
#
# A program is generated with static sizes; then some parameters are declared with '?' for
# some axes (``choose_dims``), where mg's rules (README, "The '?' rules") allow it. ``dims``
# follows mg's type inference: which axes of each value are '?'. ``Fixed`` is what a '?'
# may not meet: a static 1 in an elementwise operation (mg warns and checks the sizes equal
# when the program runs: it never broadcasts a '?'), a '?' whose size is not the result's
# (the same: it would abort), ``reshape``'s operand, ``row_mean``'s axis, a negative or
# left-out bound of a subscript on it (they count from an end only known when it runs).


class Fixed(Exception):
    """A '?' where mg needs the size when compiling (or would abort when running)."""


def broadcast_dims(shape: tuple, operands: list[tuple[tuple, tuple]]) -> tuple:
    """The '?' axes of an elementwise result of ``shape`` from its operands' (shape, dims),
    aligned at their last axes: '?' where every operand that has the axis has a '?' (a static
    size of one of them is the result's, as mg's ``broadcast_shapes``)."""
    r = len(shape)
    out = []
    for i in range(r):
        present = [(s[j], m[j]) for s, m in operands if (j := len(s) - r + i) >= 0]
        if any(m for _, m in present):
            if any(not m and d == 1 for d, m in present) or any(m and d != shape[i] for d, m in present):
                raise Fixed
        out.append(bool(present) and all(m for _, m in present))
    return tuple(out)


ELEMENTWISE_OPS = {*"+-*/", "pow", "maximum", "minimum", "atan2", "linear_scan", "where", "number", "neg"}
ELEMENTWISE_OPS |= {"exp", "tanh", "sin", "cos", "abs", "relu", "log", "sqrt", "rsqrt", "asin", "acos"}
ELEMENTWISE_OPS |= {"x * x + 0.5", "x ** n", "n ** x", "cast", "cast to an integer", "cumsum"}


def _dims_rule(node: Node, masks: list[tuple]) -> tuple:
    """The '?' axes of ``node``'s result from its operands' (some of which have one)."""
    op, s, p = node.op, node.shape, node.p
    shapes = [k.shape for k in node.kids]
    if op in ELEMENTWISE_OPS:
        return broadcast_dims(s, list(zip(shapes, masks, strict=True)))
    if op in ("sum", "mean", "max", "min", "prod") or op[:4] in ("row_", "col_"):
        axes, keep = p["axes"], p.get("keep", op[:4] in ("row_", "col_"))
        if op.endswith("_mean") and any(masks[0][a] for a in axes):
            raise Fixed  # (row_mean and col_mean divide by a static count)
        return tuple(False if a in axes else m for a, m in enumerate(masks[0]) if keep or a not in axes)
    if op.startswith("@"):
        (a, b), (ma, mb) = shapes, masks
        if len(a) == 1 and len(b) == 1:
            return ()
        if len(a) == 1:
            return mb[:-2] + mb[-1:]
        if len(b) == 1:
            return ma[:-1]
        return broadcast_dims(s[:-2], [(a[:-2], ma[:-2]), (b[:-2], mb[:-2])]) + (ma[-2], mb[-1])
    if op == "transpose":
        return tuple(masks[0][q] for q in p["perm"])
    if op in ("x[a:b]", "x[index]", "x[i, j] (element)"):
        out = []
        for j, dynamic in enumerate(masks[0]):
            item = p["items"][j] if j < len(p["items"]) else None
            if item is None:  # (an axis after the subscript's items: kept whole)
                out.append(dynamic)
            elif ":" not in item:  # an index drops the axis
                if dynamic and int(item) < 0:
                    raise Fixed
            else:
                start, stop = item.split(":")
                if dynamic and (not stop or int(stop) < 0 or (start and int(start) < 0)):
                    raise Fixed
                out.append(False)  # (stop - start)
        return tuple(out)
    if op == "slice()":
        return tuple(False if a == p["axis"] else m for a, m in enumerate(masks[0]))
    if op == "concat":
        joined = zip(*masks, strict=True)
        return tuple(any(m) if a == p["axis"] else all(m) for a, m in enumerate(joined))
    if op == "broadcast_to":
        lead = len(s) - len(shapes[0])
        for j, (d, m) in enumerate(zip(shapes[0], masks[0], strict=True)):
            if m and (d != s[lead + j] or d == 1):  # (a '?' never grows; one against a 1 is an error)
                raise Fixed
        return (False,) * len(s)
    if op == "index":
        return (False,) * (len(s) - len(shapes[0]) + 1) + masks[0][1:]
    if op == "gather":
        return (False,) * len(s)
    if op in ("index_add", "scatter_add"):
        return masks[0]
    if op == "x[argmax(v)]":
        return masks[0][1:]
    if op == "x[i * k : i * k + k]":
        return (False, *masks[0][1:])
    raise Fixed  # (an operation this table does not know: no '?' for it)


def dims(node: Node, env: dict, defs: dict, memo: dict, seen: Counter | None = None) -> tuple:
    """Which axes of ``node``'s value are '?', from ``env``'s (a name's dims) and the defs'
    results; ``Fixed`` where a '?' reaches what needs a static size. ``seen`` counts the
    operations that have a '?' in an operand or their result."""
    if node in memo:
        return memo[node]
    masks = [dims(k, env, defs, memo, seen) for k in node.kids]
    if node.op == "name":
        mask = env[node.p["name"]]
    elif node.op == "call":
        mask = defs[node.p["def"]].result_dims()
    elif node.op == "grad (nested)":
        mask = env[node.p["wrt"]]  # (of the variable's type)
    elif not any(any(m) for m in masks):
        mask = (False,) * len(node.shape)
    else:
        mask = _dims_rule(node, masks)
    assert len(mask) == len(node.shape), (node.op, mask, node.shape)
    if seen is not None and node.op != "name" and (any(mask) or any(any(m) for m in masks)):
        seen[node.op] += 1
    memo[node] = mask
    return mask


def scope_dims(params: dict, lets: list, ret: Node | None, defs: dict, seen: Counter | None = None) -> tuple:
    """The '?' axes of a scope's result (``ret``), its parameters' ``params`` (name: dims),
    through its lets (``Fixed`` where a '?' cannot be)."""
    env, memo = dict(params), {}
    for name, node in lets:
        env[name] = dims(node, env, defs, memo, seen)
    return dims(ret, env, defs, memo, seen) if ret is not None else ()


def propose_dims(static: dict, free: list, fits, rng: random.Random) -> dict:
    """'?' axes for some of the parameters ``free`` (name, shape) where ``fits`` (a mask of
    every parameter) holds, ``static`` the mask of none: every axis of some of them, or
    (where that does not fit) axes tried one at a time in a random order, each kept where
    it fits."""
    chosen = [(n, shape) for n, shape in free if shape and rng.random() < DYNAMIC_PARAMS]
    every = {**static, **{n: (True,) * len(shape) for n, shape in chosen}}
    if chosen and rng.random() < 0.4 and fits(every):
        return every
    mask = dict(static)
    axes = [(n, a) for n, shape in chosen for a in range(len(shape))]
    rng.shuffle(axes)
    for n, a in axes:
        if rng.random() < 0.7:
            trial = {**mask, n: tuple(True if i == a else d for i, d in enumerate(mask[n]))}
            if fits(trial):
                mask = trial
    return mask


# -- the generator ---------------------------------------------------------------------------


class Generator:
    """Makes expressions of a given shape (``expr``) from ``makers``, each an operation that
    asks for its operands' shapes and makes them; the defs made so far can be called."""

    def __init__(self, rng: random.Random, large: bool = False, bf16: bool = False):
        self.rng = rng
        self.large = large
        self.bf16 = bf16  # smooth operations only: no kinks, no branches (see the docstring)
        self.defs: dict[str, Def] = {}
        self.sizes = LARGE_SIZES if large else SIZES
        self.max_elements = LARGE_ELEMENTS if large else MAX_ELEMENTS
        self.max_operand = LARGE_ELEMENTS if large else MAX_OPERAND
        self.limit = LARGE_LIMIT if large else BF16_LIMIT if bf16 else LIMIT
        self.squeeze = "0.875" if bf16 else "0.9"  # (below 1; exact in bf16)
        makers = [
            (10, self.binary),
            (3, self.with_number),
            (8, self.unary),
            (2, self.domain_unary),
            (2, self.power),
            (2, self.cast_round_trip),
            (6, self.reduction),
            (4, self.matmul),
            (2, self.transpose),
            (2, self.reshape),
            (3, self.subscript),
            (1, self.slice_builtin),
            (2, self.concat),
            (2, self.broadcast_to),
            (4, self.call),
        ]
        makers += [(1, self.cumsum), (1, self.linear_scan)]
        if not large:  # (ids are literals, and kinks are avoided element by element: small tensors)
            makers += [(1, self.index), (1, self.gather), (1, self.index_add), (1, self.scatter_add)]
            makers += [(3, self.chooser), (2, self.where), (1, self.atan2), (1, self.chapter_reduction)]
            makers += [(1, self.integer_cast), (1, self.runtime_index), (1, self.nested_grad)]
        if bf16:  # (a branch or a kink that bf16's rounding could move a value across)
            kinked = (self.chooser, self.where, self.atan2, self.integer_cast, self.runtime_index)
            makers = [(w, m) for w, m in makers if m not in kinked]
        self.makers = makers

    # values and shapes

    def values(self, shape: tuple) -> np.ndarray:
        """Multiples of 1/64 in [-2, 2] (exact in f32 and f64, short as literals)."""
        if self.large:
            n = numel(shape)
            raw = np.random.default_rng(self.rng.randrange(2**32)).integers(-128, 129, size=n)
            return (raw / 64.0).reshape(shape)
        return np.array([self.rng.randint(-128, 128) / 64.0 for _ in range(numel(shape))]).reshape(shape)

    def shape(self, rank: int | None = None, cap: int | None = None) -> tuple:
        cap = cap or self.max_elements
        for _ in range(20):
            r = self.rng.choice((0, 1, 1, 2, 2, 2, 3, 3, 4)) if rank is None else rank
            s = tuple(self.rng.choice(self.sizes) for _ in range(r))
            if numel(s) <= cap:
                return s
        return (self.rng.choice((1, 2)),) if rank is None or rank == 1 else (1,) * rank

    def reduced(self, s: tuple, scope: Scope | None = None) -> tuple:
        """A shape that broadcasts to ``s`` (lower rank, size-1 axes); often one the scope has."""
        rng = self.rng
        if scope is not None and rng.random() < 0.35:
            known = [k for k in scope.shapes() if broadcasts_to(k, s) and k != s]
            if known:
                return rng.choice(known)
        drop = rng.randint(0, len(s)) if rng.random() < 0.4 else 0
        return tuple(1 if rng.random() < 0.3 else d for d in s[drop:])

    def pair(self, s: tuple, scope: Scope | None) -> tuple[tuple, tuple]:
        """Two shapes that broadcast exactly to ``s``."""
        rng = self.rng
        a = self.reduced(s, scope) if rng.random() < 0.6 else s
        pad = (None,) * (len(s) - len(a)) + tuple(a)
        b = [d if (p != d or rng.random() < 0.5) else 1 for p, d in zip(pad, s)]
        if len(a) == len(s):
            while b and b[0] == 1 and rng.random() < 0.5:
                b.pop(0)
        return (a, tuple(b)) if rng.random() < 0.5 else (tuple(b), a)

    # expressions

    def expr(self, scope: Scope, s: tuple, depth: int, top: bool = False) -> Node:
        """A tree of shape ``s`` at most ``depth`` deep (not a bare name where ``top``)."""
        rng = self.rng
        fits = any(f.ret.shape == s for f in self.defs.values())
        for attempt in range(8):
            if depth <= 0 or (not top and rng.random() < (0.08 if depth >= 3 else 0.25)):
                break
            if fits and attempt < 2 and rng.random() < 0.35:
                maker = self.call
            else:
                maker = rng.choices([m for _, m in self.makers], [w for w, _ in self.makers])[0]
            try:
                node = maker(scope, s, depth - 1)
                if node is None:
                    continue
                scope.value(node)
            except Reject:
                continue
            return node
        node = scope.leaf(s)
        scope.value(node)
        return node

    def positive(self, scope: Scope, x: Node) -> Node:
        """``x`` made positive (at least 0.5, or exp), for log, sqrt, a denominator, a base."""
        s, rng = x.shape, self.rng
        forms = ["exp"] + ([] if self.bf16 else ["abs"]) + ["tanh"] + (["square"] * 3 if x.size() <= 3 else [])
        form = rng.choice(forms)
        if form == "square":
            return Node("x * x + 0.5", s, (x,), "({0} * {0} + 0.5)", "({0} * {0} + 0.5)")
        if form == "exp":
            return Node("exp", s, (x,), "exp({0})", "np.exp({0})")
        if form == "abs":
            inner = Node("abs", s, (x,), "abs({0})", "np.abs({0})", "kink0")
            return Node("number", s, (inner,), "({0} + 0.5)", "({0} + 0.5)")
        return Node("number", s, (self.tanh(x),), "({0} + 1.5)", "({0} + 1.5)")

    def tanh(self, x: Node) -> Node:
        """``tanh(x)``; in a bf16 program, of an ``x`` where it does not flatten (its rule
        ``1 - tanh(x) ** 2`` would cancel)."""
        return Node("tanh", x.shape, (x,), "tanh({0})", "np.tanh({0})", "unsaturated" if self.bf16 else "")

    def binary(self, scope, s, depth):
        a, b = self.pair(s, scope)
        op = self.rng.choice("+-*/")
        x, y = self.expr(scope, a, depth), self.expr(scope, b, depth)
        if op == "/":
            if self.rng.random() < 0.6 or self.bf16:
                y = self.positive(scope, y)
                return Node("/", s, (x, y), "({0} / {1})", "({0} / {1})")
            return Node("/", s, (x, y), "({0} / {1})", "({0} / {1})", "denominator")
        return Node(op, s, (x, y), f"({{0}} {op} {{1}})", f"({{0}} {op} {{1}})")

    def with_number(self, scope, s, depth):
        x, c, rng = self.expr(scope, s, depth), number(self.rng.choice(NUMBERS)), self.rng
        form = rng.choice(["x + c", "x - c", "c - x", "x * c", "c * x", "x / c", "c / x", "-x"])
        if form == "-x":
            return Node("neg", s, (x,), "(-{0})", "(-{0})")
        text = "(" + form.replace("x", "{0}").replace("c", c) + ")"
        return Node("number", s, (x,), text, text, "nonzero" if form == "c / x" else "")

    def unary(self, scope, s, depth):
        functions = ["exp", "tanh", "sin", "cos"] + ([] if self.large or self.bf16 else ["abs", "relu"])
        f = self.rng.choice(functions)
        x = self.expr(scope, s, depth)
        if f == "relu":
            return Node("relu", s, (x,), "relu({0})", "np.maximum({0}, 0.0)", "kink0")
        if f == "abs":
            return Node("abs", s, (x,), "abs({0})", "np.abs({0})", "kink0")
        if f == "tanh":
            return self.tanh(x)
        return Node(f, s, (x,), f"{f}({{0}})", f"np.{f}({{0}})")

    def domain_unary(self, scope, s, depth):
        f = self.rng.choice(["log", "sqrt", "rsqrt", "asin", "acos"])
        x = self.expr(scope, s, depth)
        if f in ("asin", "acos"):
            inner = self.tanh(x)
            squeezed = Node("number", s, (inner,), f"({{0}} * {self.squeeze})", f"({{0}} * {self.squeeze})")
            return Node(f, s, (squeezed,), f"{f}({{0}})", f"np.arc{f[1:]}({{0}})")
        x = self.positive(scope, x)
        if f == "rsqrt":
            return Node("rsqrt", s, (x,), "rsqrt({0})", "(1.0 / np.sqrt({0}))")
        return Node(f, s, (x,), f"{f}({{0}})", f"np.{f}({{0}})")

    def power(self, scope, s, depth):
        rng = self.rng
        form = rng.choice(["pow", "**", "x ** n", "n ** x"])
        if form in ("pow", "**"):
            a, b = self.pair(s, scope)
            base, exponent = self.positive(scope, self.expr(scope, a, depth)), self.expr(scope, b, depth)
            mg = "pow({0}, {1})" if form == "pow" else "({0} ** {1})"
            return Node("pow", s, (base, exponent), mg, "np.power({0}, {1})")
        x = self.expr(scope, s, depth)
        if form == "x ** n":
            n = rng.choice(["2.0", "3.0", "2", "0.5"])
            if n == "0.5":
                x = self.positive(scope, x)
            return Node("x ** n", s, (x,), f"({{0}} ** {n})", f"({{0}} ** {n})")
        n = rng.choice(["2.0", "1.5", "0.5"])
        return Node("n ** x", s, (x,), f"({n} ** {{0}})", f"({n} ** {{0}})")

    def cast_round_trip(self, scope, s, depth):
        x = self.expr(scope, s, depth)
        return Node("cast", s, (x,), "cast(cast({0}, {other}), {dt})", "{0}.astype(np.{other}).astype(np.{dt})")

    def integer_cast(self, scope, s, depth):
        """``cast`` to an integer and back: a constant (its gradient is zero)."""
        x = self.expr(scope, s, depth)
        t = self.rng.choice(["i32", "i64"])
        py = f"({{0}} * 3.0).astype(np.int{t[1:]}).astype(np.{{dt}})"
        return Node("cast to an integer", s, (x,), f"cast(cast({{0}} * 3.0, {t}), {{dt}})", py, "integer")

    def cumsum(self, scope, s, depth):
        if not s:
            return None
        axis = self.rng.randrange(len(s))
        x = self.expr(scope, s, depth)
        shown = axis - len(s) if self.rng.random() < 0.3 else axis
        return Node("cumsum", s, (x,), f"cumsum({{0}}, axis={shown})", f"cumsum({{0}}, {axis})")

    def linear_scan(self, scope, s, depth):
        if not s:
            return None
        rng = self.rng
        axis, reverse = rng.randrange(len(s)), rng.random() < 0.4
        a, b = self.pair(s, scope)
        x = Node("number", a, (self.tanh(self.expr(scope, a, depth)),))
        x.mg = x.py = f"({{0}} * {self.squeeze})"  # (|a| < 1: the recurrence stays bounded)
        y = self.expr(scope, b, depth)
        keywords = f", axis={axis}" + (", reverse=true" if reverse else "")
        mg = f"linear_scan({{0}}, {{1}}{keywords})"
        py = f"linear_scan({{0}}, {{1}}, {axis - len(s)}, {reverse})"
        return Node("linear_scan", s, (x, y), mg, py)

    def ids(self, shape: tuple, n: int) -> str:
        values = np.array([self.rng.randrange(n) for _ in range(numel(shape))]).reshape(shape)
        return literal(values.astype(float)).replace(".0", "")

    def index(self, scope, s, depth):
        """``index(table, ids)``: rows of ``table`` (repeated ids add up in the gradient)."""
        if not s:
            return None
        rng = self.rng
        k = rng.randint(1, len(s))  # the ids' rank
        n = rng.choice((1, 2, 3, 4))
        table = (n, *s[k:])
        if numel(table) > self.max_operand:
            return None
        x = self.expr(scope, table, depth)
        ids, t = self.ids(s[:k], n), rng.choice(["i32", "i64"])
        return Node("index", s, (x,), f"index({{0}}, cast({ids}, {t}))", f"{{0}}[np.array({ids})]")

    def gather(self, scope, s, depth):
        if not s:
            return None
        rng = self.rng
        axis = rng.randrange(len(s))
        operand = list(s)
        operand[axis] = rng.choice((1, 2, 3, 4))
        x = self.expr(scope, tuple(operand), depth)
        idx = self.ids(s, operand[axis])
        shown = axis - len(s) if rng.random() < 0.3 else axis
        mg = f"gather({{0}}, cast({idx}, i64), axis={shown})"
        return Node("gather", s, (x,), mg, f"np.take_along_axis({{0}}, np.array({idx}), axis={axis})")

    def index_add(self, scope, s, depth):
        if not s:
            return None
        rng = self.rng
        k = rng.randint(1, 2)
        ids_shape = tuple(rng.choice((1, 2, 3)) for _ in range(k))
        values = (*ids_shape, *s[1:])
        if len(values) > 4 or numel(values) > self.max_operand:
            return None
        base, add = self.expr(scope, s, depth), self.expr(scope, values, depth)
        ids = self.ids(ids_shape, s[0])
        mg = f"index_add({{0}}, cast({ids}, i64), {{1}})"
        return Node("index_add", s, (base, add), mg, f"index_add({{0}}, np.array({ids}), {{1}})")

    def scatter_add(self, scope, s, depth):
        if not s:
            return None
        rng = self.rng
        axis = rng.randrange(len(s))
        shape = list(s)
        shape[axis] = rng.choice((1, 2, 3, 4))
        base, add = self.expr(scope, s, depth), self.expr(scope, tuple(shape), depth)
        idx = self.ids(tuple(shape), s[axis])
        shown = axis - len(s) if rng.random() < 0.3 else axis
        mg = f"scatter_add({{0}}, cast({idx}, i64), {{1}}, axis={shown})"
        py = f"scatter_add({{0}}, np.array({idx}), {{1}}, {axis})"
        return Node("scatter_add", s, (base, add), mg, py)

    def runtime_index(self, scope, s, depth):
        """``x[argmax(v)]`` (a row chosen when the program runs) or the mini-batch form
        ``x[argmax(v) * k : argmax(v) * k + k]``."""
        rng = self.rng
        n = rng.choice((2, 3, 4))
        v = scope.leaf((n,))
        if rng.random() < 0.5 and len(s) < 4:
            operand = (n, *s)
            if numel(operand) > self.max_operand:
                return None
            x = self.expr(scope, operand, depth)
            node = Node("x[argmax(v)]", s, (x, v), "{0}[argmax({1})]", "{0}[np.argmax({1})]", "argmax")
        else:
            if not s:
                return None
            k = s[0]
            operand = (n * k, *s[1:])
            if numel(operand) > self.max_operand:
                return None
            x = self.expr(scope, operand, depth)
            mg = f"{{0}}[argmax({{1}}) * {k} : argmax({{1}}) * {k} + {k}]"
            node = Node("x[i * k : i * k + k]", s, (x, v), mg, f"rows({{0}}, np.argmax({{1}}) * {k}, {k})", "argmax")
        return node

    def nested_grad(self, scope, s, depth):
        """``grad(sum(EXPR), wrt=[w])`` inside the loss: the loss's gradient goes through a
        gradient (second derivatives). ``EXPR`` reads no let (JAX's inner function would
        take it for a constant, mg's gradient goes through it)."""
        fresh = [n for n, shape, kind in scope.names if kind == "new" and shape == s]
        name = self.rng.choice(fresh) if fresh and self.rng.random() < 0.7 else scope.new(s).p["name"]
        inner = self.expr(scope, s, depth)
        names = {n.p["name"] for n in inner.walk() if n.op == "name"}
        lets = {n for n, _, kind in scope.names if kind == "let"}
        if names & lets or any(n.op == "grad (nested)" for n in inner.walk()):
            return None
        if name not in names:
            inner = Node("*", s, (inner, leaf(name, s)), "({0} * {1})", "({0} * {1})")
        mg = "grad(sum({0}), wrt=[{wrt}])"  # ({wrt}: the name, renamed with the tree's)
        py = "jax.grad(lambda {wrt}: np.sum({0}))({wrt})"
        return Node("grad (nested)", s, (inner,), mg, py, p={"wrt": name})

    def chooser(self, scope, s, depth):
        f = self.rng.choice(["maximum", "minimum"])
        if self.rng.random() < 0.3:
            c = self.rng.choice((0.5, -0.25, 0.0, 1.0))
            x = self.expr(scope, s, depth)
            node = Node(f, s, (x,), f"{f}({{0}}, {number(c)})", f"np.{f}({{0}}, {number(c)})", "apart_number")
            node.p["number"] = c
            return node
        a, b = self.pair(s, scope)
        x, y = self.expr(scope, a, depth), self.expr(scope, b, depth)
        return Node(f, s, (x, y), f"{f}({{0}}, {{1}})", f"np.{f}({{0}}, {{1}})", "apart")

    def atan2(self, scope, s, depth):
        a, b = self.pair(s, scope)
        y, x = self.expr(scope, a, depth), self.expr(scope, b, depth)
        return Node("atan2", s, (y, x), "atan2({0}, {1})", "np.arctan2({0}, {1})", "atan2")

    def where(self, scope, s, depth):
        rng = self.rng
        m = self.reduced(s, scope)
        two = rng.random() < 0.25
        compared = []
        for _ in range(2 if two else 1):
            p, q = self.pair(m, scope) if m else ((), ())
            compared += [self.expr(scope, p, max(depth - 1, 0)), self.expr(scope, q, max(depth - 1, 0))]
        ops = [rng.choice([">", "<", ">=", "<="]) for _ in range(2)]
        if two:
            mg_mask = f"(({{0}} {ops[0]} {{1}}) and ({{2}} {ops[1]} {{3}}))"
            py_mask = f"np.logical_and({{0}} {ops[0]} {{1}}, {{2}} {ops[1]} {{3}})"
        else:
            mg_mask = py_mask = f"({{0}} {ops[0]} {{1}})"
        k = len(compared)
        if rng.random() < 0.25:  # a number for one branch: the other gives the shape
            a = self.expr(scope, s, depth)
            c = number(rng.choice((0.0, 0.5, -1.0)))
            mg = f"where({mg_mask}, {{{k}}}, {c})"
            py = f"np.where({py_mask}, {{{k}}}, {c})"
            node = Node("where", s, (*compared, a), mg, py, "mask")
        else:
            a, b = self.pair(s, scope)
            x, y = self.expr(scope, a, depth), self.expr(scope, b, depth)
            mg = f"where({mg_mask}, {{{k}}}, {{{k + 1}}})"
            py = f"np.where({py_mask}, {{{k}}}, {{{k + 1}}})"
            node = Node("where", s, (*compared, x, y), mg, py, "mask")
        node.p["compared"] = k
        return node

    def reduction(self, scope, s, depth):
        rng = self.rng
        kinds = ["sum", "sum", "mean"] + ([] if self.large or self.bf16 else ["max", "min", "prod"])
        kind = rng.choice(kinds)
        keep = rng.random() < 0.35
        if keep:
            ones = [i for i, d in enumerate(s) if d == 1]
            if not ones:
                return None
            axes = sorted(rng.sample(ones, rng.randint(1, len(ones))))
            operand = list(s)
            for a in axes:
                operand[a] = rng.choice([d for d in self.sizes if d > 1])
        else:
            if len(s) >= 4:
                return None
            k = rng.randint(1, 4 - len(s))
            rank = len(s) + k
            axes = sorted(rng.sample(range(rank), k))
            rest = iter(s)
            operand = [rng.choice(self.sizes) if i in axes else next(rest) for i in range(rank)]
        operand = tuple(operand)
        if numel(operand) > self.max_operand:
            return None
        if kind == "prod" and numel(operand) // max(numel(s), 1) > 4:
            return None
        x = self.expr(scope, operand, depth)
        rank = len(operand)
        if not keep and len(axes) == rank and rng.random() < 0.5:
            mg = f"{kind}({{0}})"
        else:
            shown = [a - rank if rng.random() < 0.3 else a for a in axes]
            mg = f"{kind}({{0}}, axes=[{', '.join(map(str, shown))}]" + (", keepdims=true)" if keep else ")")
        py = f"np.{kind}({{0}}, axis={tuple(axes)}, keepdims={keep})"
        check = {"max": "gap", "min": "gap", "prod": "prod"}.get(kind, "")
        return Node(kind, s, (x,), mg, py, check, {"axes": tuple(axes), "kind": kind, "keep": keep})

    def chapter_reduction(self, scope, s, depth):
        if len(s) != 2 or 1 not in s:
            return None
        kind = self.rng.choice(["sum", "max", "mean"])
        if self.bf16 and kind == "max":
            kind = "sum"
        axis = 1 if s[1] == 1 else 0
        operand = list(s)
        operand[axis] = self.rng.choice((2, 3, 4))
        x = self.expr(scope, tuple(operand), depth)
        name = ("row_" if axis == 1 else "col_") + kind
        py = f"np.{kind}({{0}}, axis={axis}, keepdims=True)"
        return Node(
            name, s, (x,), f"{name}({{0}})", py, "gap" if kind == "max" else "", {"axes": (axis,), "kind": kind}
        )

    def matmul(self, scope, s, depth):
        rng = self.rng
        k = rng.choice(self.sizes)
        r = len(s)
        if r == 0:
            a, b, op = (k,), (k,), "@ vector"
        elif r == 1:
            if rng.random() < 0.5:
                a, b, op = (k,), (k, s[0]), "@ vector"
            else:
                a, b, op = (s[0], k), (k,), "@ vector"
        else:
            form = rng.random()
            if form < 0.15 and r <= 3:
                a, b, op = (*s, k), (k,), "@ vector"
            elif form < 0.3 and r <= 3:
                a, b, op = (k,), (*s[:-1], k, s[-1]), "@ vector"
            else:
                batch_a, batch_b = self.pair(s[:-2], None) if r > 2 else ((), ())
                a, b = (*batch_a, s[-2], k), (*batch_b, k, s[-1])
                op = "@ batched" if r > 2 else "@ 2-D"
        if numel(a) > self.max_operand or numel(b) > self.max_operand:
            return None
        x, y = self.expr(scope, a, depth), self.expr(scope, b, depth)
        return Node(op, s, (x, y), "({0} @ {1})", "({0} @ {1})")

    def transpose(self, scope, s, depth):
        r = len(s)
        if r < 2:
            return None
        perm = list(range(r))
        while perm == list(range(r)):
            self.rng.shuffle(perm)
        operand = [0] * r
        for i, p in enumerate(perm):
            operand[p] = s[i]
        x = self.expr(scope, tuple(operand), depth)
        if perm == list(range(r))[::-1] and self.rng.random() < 0.5:
            mg = "transpose({0})"
        else:
            shown = [p - r if self.rng.random() < 0.2 else p for p in perm]
            mg = f"transpose({{0}}, [{', '.join(map(str, shown))}])"
        return Node("transpose", s, (x,), mg, f"np.transpose({{0}}, {tuple(perm)})", p={"perm": tuple(perm)})

    def reshape(self, scope, s, depth):
        rng = self.rng
        n = numel(s)
        factors = []
        m, f = n, 2
        while m > 1:
            while m % f == 0:
                factors.append(f)
                m //= f
            f += 1
        rank = rng.randint(max(1, min(len(factors), 1)), 4) if n > 1 else rng.randint(0, 2)
        dims = [1] * rank
        for f in factors:
            dims[rng.randrange(rank)] *= f
        operand = tuple(dims)
        if operand == s:
            return None
        x = self.expr(scope, operand, depth)
        shown = list(s)
        if shown and rng.random() < 0.3:
            shown[rng.randrange(len(shown))] = -1
        mg = f"reshape({{0}}, [{', '.join(map(str, shown))}])"
        return Node("reshape", s, (x,), mg, f"np.reshape({{0}}, {tuple(s)})")

    def subscript(self, scope, s, depth):
        """``x[...]``: slices of some axes, integer indices of others (which drop them)."""
        rng = self.rng
        extra = rng.randint(0, 4 - len(s)) if len(s) < 4 else 0
        if not s:
            extra = max(extra, 1)
        rank = len(s) + extra
        indexed = set(rng.sample(range(rank), extra))
        rest = iter(s)
        items, operand, changed = [], [], bool(extra)
        for i in range(rank):
            if i in indexed:
                size = rng.choice(self.sizes)
                at = rng.randrange(size)
                operand.append(size)
                items.append(str(at - size if rng.random() < 0.3 else at))
                continue
            d = next(rest)
            if rng.random() < 0.5:
                grow = rng.randint(1, 2)
                start = rng.randint(0, grow)
                size = d + grow
                items.append(self.slice_text(start, start + d, size))
                operand.append(size)
                changed = True
            else:
                items.append(":")
                operand.append(d)
        if not changed or numel(operand) > self.max_operand:
            return None
        while items and items[-1] == ":" and len(items) > 1 and rng.random() < 0.6:
            items.pop()
        x = self.expr(scope, tuple(operand), depth)
        text = ", ".join(items)
        op = "x[i, j] (element)" if not s else ("x[index]" if extra else "x[a:b]")
        return Node(op, s, (x,), f"{{0}}[{text}]", f"{{0}}[{text}]", p={"items": tuple(items)})

    def slice_text(self, start: int, stop: int, size: int) -> str:
        rng = self.rng
        a = "" if start == 0 and rng.random() < 0.5 else str(start - size if rng.random() < 0.3 else start)
        b = (
            ""
            if stop == size and rng.random() < 0.5
            else str(stop - size if stop < size and rng.random() < 0.3 else stop)
        )
        return f"{a}:{b}"

    def slice_builtin(self, scope, s, depth):
        if not s:
            return None
        rng = self.rng
        axis = rng.randrange(len(s))
        grow = rng.randint(1, 2)
        start = rng.randint(0, grow)
        operand = list(s)
        operand[axis] += grow
        if numel(operand) > self.max_operand:
            return None
        x = self.expr(scope, tuple(operand), depth)
        py = "{0}[" + ", ".join([":"] * axis + [f"{start}:{start + s[axis]}"]) + "]"
        mg = f"slice({{0}}, {axis}, {start}, {start + s[axis]})"
        return Node("slice()", s, (x,), mg, py, p={"axis": axis})

    def concat(self, scope, s, depth):
        rng = self.rng
        axes = [i for i, d in enumerate(s) if d >= 2]
        if not axes:
            return None
        axis = rng.choice(axes)
        parts = 3 if s[axis] >= 3 and rng.random() < 0.3 else 2
        cuts = sorted(rng.sample(range(1, s[axis]), parts - 1))
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, s[axis]])]
        kids = []
        for n in sizes:
            shape = list(s)
            shape[axis] = n
            kids.append(self.expr(scope, tuple(shape), depth))
        holes = ", ".join(f"{{{i}}}" for i in range(len(kids)))
        shown = axis - len(s) if rng.random() < 0.3 else axis
        py = f"np.concatenate([{holes}], axis={axis})"
        return Node("concat", s, tuple(kids), f"concat({shown}, [{holes}])", py, p={"axis": axis})

    def broadcast_to(self, scope, s, depth):
        if not s:
            return None
        a = self.reduced(s, scope)
        if a == s:
            return None
        x = self.expr(scope, a, depth)
        mg = f"broadcast_to({{0}}, [{', '.join(map(str, s))}])"
        return Node("broadcast_to", s, (x,), mg, f"np.broadcast_to({{0}}, {tuple(s)})")

    def call(self, scope, s, depth):
        fits = [f for f in self.defs.values() if f.ret.shape == s]
        if not fits:
            return None
        f = self.rng.choice(fits)
        kids = tuple(self.expr(scope, shape, depth) for _, shape in f.params)
        holes = ", ".join(f"{{{i}}}" for i in range(len(kids)))
        return Node("call", s, kids, f"{f.name}({holes})", f"{f.name}({holes})", p={"def": f.name})

    # defs and programs

    def make_def(self, name: str, s: tuple, lets: int, depth: int, prefix: str = "") -> tuple[Def, Scope]:
        """A def of result shape ``s``: ``lets`` lets (t0, t1), then the returned tree; its
        parameters are made as its trees ask for names (the unused dropped)."""
        scope = Scope(self, prefix or "p", max_new=4)
        bound = []
        for i in range(lets):
            shape = s if self.rng.random() < 0.4 else self.shape()
            node = self.expr(scope, shape, depth)
            scope.bind(f"t{i}", node)
            bound.append((f"t{i}", node))
        ret = self.expr(scope, s, depth, top=True)
        used = used_names(ret, bound)
        params = [(n, shape) for n, shape, kind in scope.names if kind == "new" and n in used]
        bound = [(n, node) for n, node in bound if n in used]
        return Def(name, params, bound, ret), scope


def py_def(f: Def, dtype: str) -> list[str]:
    """``f`` as a Python function over ``np``."""
    lines = [f"def {f.name}({', '.join(n for n, _ in f.params)}):"]
    lines += [f"    {n} = {render(node, 'py', dtype)}" for n, node in f.lets]
    lines.append(f"    return {render(f.ret, 'py', dtype)}")
    return lines + [""]


def used_names(ret: Node, lets: list) -> set[str]:
    """The names ``ret`` needs, through the lets it uses."""
    used = {n.p["name"] for n in ret.walk() if n.op == "name"}
    for name, node in reversed(lets):
        if name in used:
            used |= {n.p["name"] for n in node.walk() if n.op == "name"}
    return used


# -- programs --------------------------------------------------------------------------------

MODES = ("grad", "value_and_grad", "loss def", "grad in a def", "training loop")


@dataclass
class GradientProgram:
    """One program in one element type. ``source``: the mg text (it saves ``outputs``);
    ``reference``: Python over ``np`` defining ``program(*names)``, the loss; ``names`` and
    ``inputs``: its arguments' names and values (``dtype``); ``wrt``: the indices of the
    arguments differentiated; ``files``: the ``.npy`` files the program loads;
    ``outputs``: the files it saves (``value.npy`` first where it computes the loss too);
    ``training``: (steps, rate) of a training loop, whose outputs are the variables after it
    (``v0.npy``...) and the loss of its last step."""

    seed: int
    dtype: str
    source: str
    reference: str
    names: list[str]
    inputs: list[np.ndarray]
    wrt: list[int]
    files: dict[str, np.ndarray]
    outputs: list[str]
    with_value: bool
    ops: Counter
    features: Counter
    large: bool = False
    training: tuple | None = None

    def write(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "prog.mg").write_text(self.source)
        (folder / "reference.py").write_text(self.reference)
        for name, value in self.files.items():
            np.save(folder / name, value)


@dataclass
class Generated:
    """A program's parts, written in each of its element types (``dtypes``) by
    ``program(dtype)``. ``input_dims`` and ``grad_def_dims``: the '?' axes of main's inputs
    (loaded ones) and of the gradient def's parameters (the defs hold their own)."""

    seed: int
    large: bool
    defs: list[Def]
    inputs: list[tuple[str, np.ndarray, bool]]  # name, value (f64), loaded from a file
    lets: list[tuple[str, Node]]  # main's
    loss: Node  # over main's names (or the loss def's, or the gradient def's, parameters)
    mode: str
    wrt: list[str]
    with_value: bool
    loss_def: Def | None  # "loss def": called with main's inputs
    grad_def_params: list  # "grad in a def": its parameters (named as main's inputs)
    grad_def_lets: list
    features: Counter
    loss_value: float = 0.0  # the loss, as the generator computed it (NumPy, f64)
    training: tuple | None = None  # (steps, rate): gradient descent on the variables
    bf16: bool = False  # a bf16 program (smooth operations only), run in BF16_DTYPES
    input_dims: dict = field(default_factory=dict)
    grad_def_dims: dict = field(default_factory=dict)

    @property
    def dtypes(self) -> tuple[str, ...]:
        return BF16_DTYPES if self.bf16 else DTYPES

    def input_type(self, name: str, shape: tuple, dtype: str) -> str:
        return mg_type(shape, dtype, self.input_dims.get(name, ()))

    def grad_def_type(self, name: str, shape: tuple, dtype: str) -> str:
        return mg_type(shape, dtype, self.grad_def_dims.get(name, ()))

    def nodes(self):
        for f in self.defs:
            yield from f.nodes()
        if self.loss_def:
            yield from self.loss_def.nodes()
        for _, n in self.lets + self.grad_def_lets:
            yield from n.walk()
        yield from self.loss.walk()

    def ops(self) -> Counter:
        return Counter(n.op for n in self.nodes() if n.op != "name")

    def program(self, dtype: str) -> GradientProgram:
        mg, py = self.mg_source(dtype), self.py_source(dtype)
        names = [n for n, _, _ in self.inputs]
        values = [v.astype(STORED[dtype]) for _, v, _ in self.inputs]  # (exact in each type)
        files = {f"{n}.npy": v.astype(STORED[dtype]) for n, v, loaded in self.inputs if loaded}
        saved = "v" if self.training else "g"
        outputs = (["value.npy"] if self.with_value else []) + [f"{saved}{i}.npy" for i in range(len(self.wrt))]
        wrt = [names.index(w) for w in self.wrt]
        return GradientProgram(
            self.seed,
            dtype,
            mg,
            py,
            names,
            values,
            wrt,
            files,
            outputs,
            self.with_value,
            self.ops(),
            self.features,
            self.large,
            self.training,
        )

    # mg

    def mg_def(self, f: Def, dtype: str) -> list[str]:
        params = ", ".join(f"{n}: {mg_type(s, dtype, f.param_dims(n, s))}" for n, s in f.params)
        lines = [f"def {f.name}({params}) -> {mg_type(f.ret.shape, dtype, f.result_dims())}:"]
        lines += [f"    let {n} = {render(node, 'mg', dtype)}" for n, node in f.lets]
        lines.append(f"    return {render(f.ret, 'mg', dtype)}")
        return lines

    def mg_source(self, dtype: str) -> str:
        lines = [f"# a random differentiable program (gradients, seed {self.seed}, {dtype}): {self.mode}"]
        for f in self.defs:
            lines += self.mg_def(f, dtype)
        if self.loss_def:
            lines += self.mg_def(self.loss_def, dtype)
        results = (["l"] if self.with_value else []) + [f"g{i}" for i in range(len(self.wrt))]
        function = "value_and_grad" if self.with_value else "grad"
        loss = render(self.loss, "mg", dtype)
        if self.mode == "grad in a def":
            params = ", ".join(f"{n}: {self.grad_def_type(n, s, dtype)}" for n, s in self.grad_def_params)
            types = [mg_type((), dtype)] if self.with_value else []
            shapes = dict(self.grad_def_params)
            types += [self.grad_def_type(w, shapes[w], dtype) for w in self.wrt]  # (the variables' types)
            result = types[0] if len(types) == 1 else "(" + ", ".join(types) + ")"
            lines.append(f"def gradient({params}) -> {result}:")
            lines += [f"    let {n} = {render(node, 'mg', dtype)}" for n, node in self.grad_def_lets]
            lines.append(f"    let {', '.join(results)} = {function}({loss}, wrt=[{', '.join(self.wrt)}])")
            lines.append(f"    return {', '.join(results)}")
        for name, value, loaded in self.inputs:
            if loaded and dtype == "bf16":  # (a .npy file has no bf16: f32, then cast)
                lines.append(f'let {name}_f32: {self.input_type(name, value.shape, "f32")} = load("{name}.npy")')
                lines.append(f"let {name} = cast({name}_f32, bf16)")
                continue
            init = f'load("{name}.npy")' if loaded else literal(value)
            lines.append(f"let {name}: {self.input_type(name, value.shape, dtype)} = {init}")
        for name, node in self.lets:
            lines.append(f"let {name} = {render(node, 'mg', dtype)}")
        if self.training:
            return "\n".join(lines + self.mg_training(dtype)) + "\n"
        if self.mode == "grad in a def":
            args = ", ".join(n for n, _ in self.grad_def_params)
            lines.append(f"let {', '.join(results)} = gradient({args})")
        else:
            lines.append(f"let {', '.join(results)} = {function}({loss}, wrt=[{', '.join(self.wrt)}])")
        outputs = (["value"] if self.with_value else []) + [f"g{i}" for i in range(len(self.wrt))]
        for out, name in zip(outputs, results, strict=True):
            lines.append(save(out, name, dtype))
        return "\n".join(lines) + "\n"

    def mg_training(self, dtype: str) -> list[str]:
        """The variables (as vars v0, v1...) trained by gradient descent."""
        assert self.training is not None
        steps, rate = self.training
        v = {w: f"v{i}" for i, w in enumerate(self.wrt)}
        lines = [f"var {v[w]} = {w}" for w in self.wrt]
        if self.with_value:
            lines.append(f"var last: {mg_type((), dtype)} = 0.0")
        lines.append(f"for step in range({steps}):")
        results = (["l"] if self.with_value else []) + [f"g{i}" for i in range(len(self.wrt))]
        function = "value_and_grad" if self.with_value else "grad"
        loss = render(copy_tree(self.loss, v), "mg", dtype)
        lines.append(f"    let {', '.join(results)} = {function}({loss}, wrt=[{', '.join(v.values())}])")
        lines += [f"    {v[w]} -= {rate} * g{i}" for i, w in enumerate(self.wrt)]
        if self.with_value:
            lines.append("    last = l")
            lines.append(save("value", "last", dtype))
        lines += [save(v[w], v[w], dtype) for w in self.wrt]
        return lines

    # Python (np: NumPy or jax.numpy)

    def py_source(self, dtype: str) -> str:
        lines = [f"# the program as Python over np (jax.numpy): seed {self.seed}, {dtype}, {self.mode}", ""]
        for f in self.defs:
            lines += py_def(f, dtype)
        if self.loss_def:
            lines += py_def(self.loss_def, dtype)
        names = [n for n, _, _ in self.inputs]
        lines.append(f"def program({', '.join(names)}):")
        for name, node in self.lets + self.grad_def_lets:
            lines.append(f"    {name} = {render(node, 'py', dtype)}")
        lines.append(f"    return {render(self.loss, 'py', dtype)}")
        if self.training:
            steps, rate = self.training
            wrt = tuple(names.index(w) for w in self.wrt)
            lines += [
                "",
                "",
                f"def trained({', '.join(names)}):",
                f"    args = [{', '.join(names)}]",
                f"    for step in range({steps}):",
                f"        value, grads = jax.value_and_grad(program, argnums={wrt})(*args)",
                f"        for i, g in zip({wrt}, grads):",
                f"            args[i] = args[i] - {rate} * g",
                f"    return value, [args[i] for i in {wrt}]",
            ]
        body = "\n".join(lines) + "\n"
        helpers = prelude_for(body)
        return body.replace("\n\n", f"\n\n{helpers}\n\n", 1) if helpers else body


def save(file: str, name: str, dtype: str) -> str:
    """``save("FILE.npy", NAME)``; a bf16 tensor as the f32 it widens to (exactly)."""
    return f'save("{file}.npy", {f"cast({name}, f32)" if dtype == "bf16" else name})'


def generate(seed: int, large: bool = False) -> Generated:
    """The program of ``seed`` (the same on every run). Whether it is a bf16 program and
    which sizes are '?' come from random streams of their own, so that the rest of a program
    is as it would be without them."""
    bf16 = not large and random.Random(f"gradients bf16:{seed}").random() < BF16_SHARE
    for attempt in range(100):
        rng = random.Random(f"gradients:{seed}:{attempt}:{large}")
        try:
            generated = _generate(rng, seed, large, bf16)
        except Reject:
            continue
        choose_dims(generated, random.Random(f"gradients dims:{seed}:{attempt}:{large}"))
        return generated
    raise RuntimeError(f"no program for seed {seed}")


def _generate(rng: random.Random, seed: int, large: bool, bf16: bool = False) -> Generated:
    g = Generator(rng, large, bf16)
    depth = rng.choice((4, 5)) if large else rng.choice((4, 4, 5, 5, 6))
    if bf16:
        depth = rng.choice(BF16_DEPTHS)
    mode = rng.choice(MODES)
    with_value = mode == "value_and_grad" or (mode != "grad" and rng.random() < 0.5)
    loss_shape = g.shape()
    while large and numel(loss_shape) < 65536:  # (enough work for the optimised pipeline's threads)
        loss_shape = g.shape(rng.choice((2, 3)))
    for i in range(0 if large else rng.choice((0, 1, 1, 2, 3))):
        shape = loss_shape if rng.random() < 0.4 else g.shape()
        f, _ = g.make_def(f"f{i}", shape, rng.choice((1, 1, 2)), rng.choice((2, 3)))
        g.defs[f.name] = rename(f, {n: "abcdefgh"[i] for i, (n, _) in enumerate(f.params)})
    main = Scope(g, "w", max_new=6)
    lets: list = []
    loss_def = None
    grad_def_params: list = []
    grad_def_lets: list = []
    if mode in ("grad", "value_and_grad"):
        for i in range(rng.choice((0, 0, 0, 1, 2))):
            node = g.expr(main, g.shape(), depth - 2, top=True)
            main.bind(f"h{i}", node)
            lets.append((f"h{i}", node))
        loss = reduce_to_loss(g, main, g.expr(main, loss_shape, depth, top=True))
        loss_value = float(main.value(loss))
        lets = [(n, node) for n, node in lets if n in used_names(loss, lets)]
        direct = {n.p["name"] for n in loss.walk() if n.op == "name"}
        candidates = [n for n, _, kind in main.names if kind == "new" and n in direct]
    else:
        scope = Scope(g, "w", max_new=6)
        bound = []
        for i in range(rng.choice((0, 1, 2))):
            node = g.expr(scope, g.shape(), depth - 1, top=True)
            scope.bind(f"t{i}", node)
            bound.append((f"t{i}", node))
        ret = reduce_to_loss(g, scope, g.expr(scope, loss_shape, depth, top=True))
        loss_value = float(scope.value(ret))
        used = used_names(ret, bound)
        bound = [(n, node) for n, node in bound if n in used]
        params = [(n, s) for n, s, kind in scope.names if kind == "new" and n in used]
        main.env.update({n: scope.env[n] for n, _ in params})
        main.names += [(n, s, "new") for n, s in params]
        if mode in ("loss def", "training loop"):
            loss_def = rename(Def("loss", params, bound, ret), {n: f"p{i}" for i, (n, _) in enumerate(params)})
            g.defs["loss"] = loss_def
            holes = ", ".join(f"{{{i}}}" for i in range(len(params)))
            kids = tuple(leaf(n, s) for n, s in params)
            loss = Node("call", (), kids, f"loss({holes})", f"loss({holes})", p={"def": "loss"})
            main.value(loss)
        else:
            grad_def_params, grad_def_lets, loss = params, bound, ret
        direct = {n.p["name"] for n in ret.walk() if n.op == "name"}  # (wrt names appear in it)
        candidates = [n for n, _ in params if mode != "grad in a def" or n in direct]
    if not candidates:
        raise Reject
    # main's inputs, renamed w0, w1... in the order they were made
    used = used_names(loss, lets + grad_def_lets) | {n for n, _ in grad_def_params}
    made = [(n, s) for n, s, kind in main.names if kind == "new" and n in used]
    names = {n: f"w{i}" for i, (n, _) in enumerate(made)}
    loaded = large or rng.random() < 0.25
    inputs = [(names[n], main.env[n], loaded and (large or rng.random() < 0.7)) for n, _ in made]
    loss = copy_tree(loss, names)
    lets = [(n, copy_tree(node, names)) for n, node in lets]
    grad_def_lets = [(n, copy_tree(node, names)) for n, node in grad_def_lets]
    grad_def_params = [(names[n], s) for n, s in grad_def_params]
    candidates = [names[n] for n in candidates]
    wrt = sorted(rng.sample(candidates, rng.randint(1, min(3, len(candidates)))), key=candidates.index)
    # the defs called (from the loss, main's lets, the loss def, other defs), in order
    called: set[str] = set()
    roots = [loss, *(n for _, n in lets + grad_def_lets), *(loss_def.nodes() if loss_def else ())]
    stack = [n for r in roots for n in r.walk()]
    while stack:
        n = stack.pop()
        if n.op == "call" and n.p["def"] not in called:
            called.add(n.p["def"])
            stack.extend(g.defs[n.p["def"]].nodes())
    defs = [f for name, f in g.defs.items() if name in called and name != "loss"]
    generated = Generated(
        seed,
        large,
        defs,
        inputs,
        lets,
        loss,
        mode,
        wrt,
        with_value,
        loss_def,
        grad_def_params,
        grad_def_lets,
        Counter(),
        loss_value,
        (rng.choice((2, 3, 4)), rng.choice((0.01, 0.05))) if mode == "training loop" else None,
        bf16,
    )
    if generated.training and bf16:
        steps, rate = generated.training
        generated.training = (steps, BF16_RATES[rate])
    if bf16:
        check_bf16(generated)
    if generated.training:
        check_training(generated, g)
    features = generated.features
    features[("dtypes", *generated.dtypes)] += 1
    features[("mode", mode)] += 1
    features[("wrt", len(wrt))] += 1
    features[("inputs", "load" if any(x[2] for x in inputs) else "literals")] += 1
    if lets or grad_def_lets or (loss_def and loss_def.lets):
        features[("lets before the loss",)] += 1
    everywhere = Counter(n.p["name"] for r in roots for n in r.walk() if n.op == "name")
    if any(c > 1 for c in everywhere.values()):
        features[("a name used twice",)] += 1
    if any(n.op == "call" for f in defs for n in f.nodes()):
        features[("a def calls a def",)] += 1
    features[("defs called", len(defs))] += 1
    return generated


def choose_dims(generated: Generated, rng: random.Random) -> None:
    """Declares '?' for some axes of some parameters: of the defs, the loss def, the
    gradient def and main's loaded inputs (in ``DYNAMIC_SCOPES`` of the scopes, where mg's
    rules allow it: ``propose_dims``, ``scope_dims``), in the order they are written (a
    def's result type, '?' where mg infers one, is what its callers see). The values, and
    the JAX code, stay as they are."""
    defs = {f.name: f for f in generated.defs}
    if generated.loss_def:
        defs["loss"] = generated.loss_def
    scopes: list[tuple[str, list, list, Node | None, Def | None]] = [
        ("a def", f.params, f.lets, f.ret, f) for f in generated.defs
    ]
    if generated.loss_def:
        f = generated.loss_def
        scopes.append(("the loss def", f.params, f.lets, f.ret, f))
    if generated.mode == "grad in a def":
        scopes.append(("the gradient def", generated.grad_def_params, generated.grad_def_lets, generated.loss, None))
    main_ret = generated.loss if generated.mode in ("grad", "value_and_grad") else None
    scopes.append(("main's inputs", [(n, v.shape) for n, v, _ in generated.inputs], generated.lets, main_ret, None))
    loaded = {n for n, _, from_file in generated.inputs if from_file}
    chosen: list[dict] = []
    for attempt in range(4):
        share = DYNAMIC_SCOPES if attempt < 3 else 0.0  # (all static: always allowed)
        chosen = []
        try:
            for kind, params, lets, ret, f in scopes:
                static = {n: (False,) * len(shape) for n, shape in params}
                free = [(n, shape) for n, shape in params if kind != "main's inputs" or n in loaded]

                def fits(mask: dict, lets=lets, ret=ret) -> bool:
                    try:
                        scope_dims(mask, lets, ret, defs)
                    except Fixed:
                        return False
                    return True

                mask = propose_dims(static, free, fits, rng) if free and rng.random() < share else static
                result = scope_dims(mask, lets, ret, defs)  # (Fixed: even static parameters meet a '?')
                if f is not None:
                    f.dims, f.ret_dims = mask, result
                chosen.append(mask)
            break
        except Fixed:
            for f in defs.values():
                f.dims, f.ret_dims = {}, None
    generated.grad_def_dims = chosen[-2] if generated.mode == "grad in a def" else {}
    generated.input_dims = chosen[-1]
    features, seen = generated.features, Counter()
    for (kind, params, lets, ret, f), mask in zip(scopes, chosen, strict=True):
        scope_dims(mask, lets, ret, defs, seen)
        dynamic = [m for m in mask.values() if any(m)]
        if dynamic:
            features[("?", kind)] += 1
        for m in dynamic:
            features[("? axes", "every" if all(m) else "some")] += 1
        if f is not None and any(f.result_dims()):
            features[("?", "a def's result")] += 1
    for op, n in seen.items():
        features[("? op", op)] += n


def check_training(generated: Generated, g: Generator) -> None:
    """``Reject`` a training loop that leaves the domain at some step (its variables'
    values, by JAX's gradients in f64, each step's loss checked as the first's was)."""
    import jax

    program = generated.program("f64")
    namespace = jax_namespace(g.defs.values())
    exec(program.reference, namespace)
    step = jax.jit(jax.value_and_grad(namespace["program"], argnums=tuple(program.wrt)))
    args = list(program.inputs)
    assert generated.training is not None
    steps, rate = generated.training
    for _ in range(steps):
        env = dict(zip(program.names, args, strict=True))
        evaluate(generated.loss, env, {}, g.defs, g.limit)
        _, grads = step(*args)
        for i, grad in zip(program.wrt, grads, strict=True):
            args[i] = args[i] - rate * np.asarray(grad)
    for i in program.wrt:
        if not np.all(np.isfinite(args[i])) or np.max(np.abs(args[i]), initial=0.0) > g.limit:
            raise Reject


def copy_tree(n: Node, names: dict[str, str]) -> Node:
    """``n`` with the names in ``names`` renamed (a copy)."""
    if n.op == "name":
        name: str = n.p["name"]
        return leaf(names.get(name, name), n.shape)
    p = dict(n.p)
    if "wrt" in p:
        p["wrt"] = names.get(p["wrt"], p["wrt"])
    return Node(n.op, n.shape, tuple(copy_tree(k, names) for k in n.kids), n.mg, n.py, n.check, p)


def reduce_to_loss(g: Generator, scope: Scope, tree: Node) -> Node:
    """The scalar loss of ``tree``: its sum or mean, maybe weighted by a constant tensor. (In
    a bf16 program, a sum whose terms do not cancel much: ``BF16_CANCEL``.)"""
    rng, s = g.rng, tree.shape
    if not s:
        if rng.random() < 0.5:
            return Node("number", (), (tree,), "({0} * 2.0)", "({0} * 2.0)")
        return tree
    kind = rng.choice(["sum", "mean"])
    if rng.random() < 0.35:
        weight = scope.new(s)
        tree = Node("*", s, (tree, weight), "({0} * {1})", "({0} * {1})")
    if g.bf16:
        terms = scope.value(tree)
        if np.sum(np.abs(terms)) > BF16_CANCEL * abs(np.sum(terms)):
            raise Reject
    return Node(kind, (), (tree,), f"{kind}({{0}})", f"np.{kind}({{0}})", p={"axes": tuple(range(len(s)))})


def rename(f: Def, names: dict[str, str]) -> Def:
    """``f`` with its parameters renamed (``names``), in its trees too (a copy)."""
    lets = [(n, copy_tree(x, names)) for n, x in f.lets]
    return Def(f.name, [(names.get(n, n), s) for n, s in f.params], lets, copy_tree(f.ret, names))


# -- the reference and the comparison --------------------------------------------------------


def jax_reference(program: GradientProgram, dtype: str | None = None) -> list[np.ndarray]:
    """What ``program`` saves, by JAX: the loss (where it computes it) and the gradients (or
    the trained variables), computed in ``dtype`` (the program's by default), with 64-bit
    types enabled."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    namespace: dict = {"np": jnp, "jax": jax}
    exec(compile(program.reference, f"<gradients {program.seed}>", "exec"), namespace)
    kind = NUMPY_DTYPE[dtype or program.dtype]
    args = [jnp.asarray(v, dtype=getattr(jnp, kind)) for v in program.inputs]
    if program.training:
        value, out = jax.jit(namespace["trained"])(*args)
    else:
        value, out = jax.jit(jax.value_and_grad(namespace["program"], argnums=tuple(program.wrt)))(*args)
    outputs = ([np.asarray(value)] if program.with_value else []) + [np.asarray(g) for g in out]
    return [o.astype(np.float32) if kind == "bfloat16" else o for o in outputs]  # (bf16 values, exactly)


BF16_ERRORS = 8  # roundings of bf16's epsilon, relative to the output's largest magnitude


def bf16_tolerance(want: np.ndarray, want64: np.ndarray) -> np.ndarray:
    """How far a bf16 output may be from the exact one (JAX's f64, ``want64``): ``BF16_ERRORS``
    times bf16's epsilon relative to its largest magnitude, plus twice the distance between
    JAX's own bf16 (``want``) and ``want64`` (where a sum of contributions of both signs
    cancels, rounding moves it further, JAX's as mg's). (In the 54 bf16 programs of a
    300-program campaign, seed 11, the largest error was 0.40 of this, the median 0.06; mg's
    largest error relative to an output's largest magnitude is about 10 epsilons where JAX's
    is as large, 2 in nine programs of ten.)"""
    scale = float(np.max(np.abs(want64), initial=0.0))
    return BF16_ERRORS * BF16_EPSILON * scale + 2 * np.abs(want - want64)


def difference(program: GradientProgram, got: list, want: list, want64: list | None = None) -> str | None:
    """Why ``got`` (mg's outputs, in ``program.outputs``' order) differs from ``want``
    (JAX's in the program's type), or None. ``f64``: within 1e-10 of the output's largest
    magnitude (at least 1). ``f32``: within 5e-4 of it, plus 4 times the distance between
    JAX's ``f32`` and ``f64`` values (how far rounding alone moves it). (Over 250 programs
    the largest errors were 1.4e-14 and 7.4e-6: a wrong rule is off by far more.) ``bf16``:
    bf16 values (saved as ``f32``), within ``bf16_tolerance`` of ``want64``, JAX's ``f64``."""
    for name, g, w, w64 in zip(program.outputs, got, want, want64 or want, strict=True):
        if g is None:
            return f"{name}: not saved"
        if g.shape != w.shape:
            return f"{name}: shape {g.shape}, JAX's is {w.shape}"
        if g.dtype != np.dtype(STORED[program.dtype]):
            return f"{name}: element type {g.dtype}, expected {STORED[program.dtype]}"
        w, w64 = w.astype(np.float64), np.asarray(w64, dtype=np.float64)
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        if program.dtype == "f64":
            tolerance = 1e-10 * scale
        elif program.dtype == "f32":
            tolerance = 5e-4 * scale + 4 * np.abs(w - w64)
        else:
            import ml_dtypes

            if not np.array_equal(g, g.astype(ml_dtypes.bfloat16).astype(np.float32)):
                return f"{name}: not bf16 values (saved as cast(x, f32))"
            w = w64  # (mg's bf16 against the exact gradient)
            tolerance = bf16_tolerance(np.asarray(want[program.outputs.index(name)], dtype=np.float64), w64)
        error = np.abs(g.astype(np.float64) - w)
        if not np.all(error <= tolerance):
            where = np.unravel_index(int(np.argmax(error - tolerance)), error.shape) if error.ndim else ()
            return (
                f"{name}: at {tuple(int(i) for i in where)} mg gives {g[where]!r}, JAX {w[where]!r} "
                f"(error {error[where]:.3g}, tolerance {np.broadcast_to(tolerance, error.shape)[where]:.3g}); "
                f"largest error {np.max(error):.3g}"
            )
    return None


# -- running programs: in a process of their own ---------------------------------------------
#
# JAX starts threads, and a process with threads must not fork. So mg runs in a server
# process started with ``spawn`` (it never imports JAX): for each program it forks a child
# that compiles as ``mgc run --no-cache`` does (``Compilation.jit_object``) and runs the object
# code at each thread count in a grandchild of its own (``MG_NUM_THREADS``), the outputs of
# each moved to ``FOLDER/t<threads>/``. A crash or a failed check ends only a grandchild.


@dataclass
class MgRun:
    """How one program ran in one pipeline. ``phase``: ``ran``, ``compile_error`` (the
    checker refused it: ``message``), ``ice`` (the compiler raised: ``message`` is the
    traceback), ``crash`` (the compiling child died), ``timeout``; ``runs``: per thread
    count, (exit status, what it wrote on stdout and stderr, the outputs or None)."""

    phase: str
    message: str = ""
    runs: dict = field(default_factory=dict)
    seconds: float = 0.0


def warm_up() -> None:
    """Compile a small program with a gradient in this process, so that forked children
    start warm."""
    from mg_xdsl.driver import Compilation

    source = "let w = [1.0, 2.0]\nlet g = grad(sum(tanh(w) * w), wrt=[w])\nprint g\n"
    for optimise in (True, False):
        Compilation(source, "<warm>", keep_dir=None, optimise=optimise).jit_object()


def _compile_and_run(source: str, folder: str, optimise: bool, threads: tuple, outputs: tuple) -> None:
    """In a child (its own process group): compile, then run at each thread count in a
    grandchild; ``folder/result.txt`` says what happened. Never returns."""
    import traceback

    status = 1
    try:
        import faulthandler

        faulthandler.disable()
        os.chdir(folder)  # (the program's relative paths are relative to it)
        from mg_xdsl.driver import Compilation
        from mg_xdsl.language.frontend import MgError

        try:
            obj = Compilation(source, "prog.mg", keep_dir=None, optimise=optimise).jit_object()
        except MgError as e:
            Path("result.txt").write_text("compile_error\n" + str(e))
            status = 0
            return
        except BaseException:  # noqa: BLE001  (anything else is an internal compiler error)
            Path("result.txt").write_text("ice\n" + traceback.format_exc())
            status = 0
            return
        lines = ["ran"]
        for t in threads:
            os.environ["MG_NUM_THREADS"] = str(t)
            out = os.open(f"t{t}.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    os.dup2(out, 1)
                    os.dup2(out, 2)
                    from mg_xdsl.backend import runtime
                    from mg_xdsl.backend.jit import ObjectEngine

                    runtime._output.append(typing.cast(typing.TextIO, _FdWriter(1)))
                    program = ObjectEngine(obj)
                    program.run_main([])
                    program.close()
                    code = 0
                finally:
                    os._exit(code)
            os.close(out)
            _, wait = os.waitpid(pid, 0)
            Path(f"t{t}").mkdir(exist_ok=True)
            for name in outputs:
                if Path(name).exists():
                    shutil.move(name, Path(f"t{t}") / name)
            lines.append(f"{t} {os.waitstatus_to_exitcode(wait)}")
        Path("result.txt").write_text("\n".join(lines) + "\n")
        status = 0
    finally:
        os._exit(status)


class _FdWriter:
    """A text stream straight to a file descriptor (nothing is lost if the process aborts)."""

    def __init__(self, fd: int):
        self.fd = fd

    def write(self, text: str) -> int:
        os.write(self.fd, text.encode())
        return len(text)

    def flush(self) -> None:
        pass


def _serve(conn, parallel: int) -> None:
    """The server: jobs ``(ticket, source, folder, optimise, threads, outputs, timeout)`` in, at most
    ``parallel`` at once, ``(ticket, outcome, seconds)`` out; ``None`` ends it."""
    import mg_xdsl  # noqa: F401  (first: it defers xDSL's formats before xDSL is imported)

    warm_up()
    queue: list = []
    running: dict[int, tuple] = {}
    open_ = True
    while open_ or queue or running:
        if open_ and conn.poll(0.005 if running or queue else None):
            job = conn.recv()
            if job is None:
                open_ = False
            else:
                queue.append(job)
            continue
        while queue and len(running) < parallel:
            ticket, source, folder, optimise, threads, outputs, timeout = queue.pop(0)
            pid = os.fork()
            if pid == 0:
                os.setpgid(0, 0)
                _compile_and_run(source, folder, optimise, threads, outputs)
            running[pid] = (ticket, time.monotonic(), timeout)
        for pid, (ticket, started, timeout) in list(running.items()):
            done, wait = os.waitpid(pid, os.WNOHANG)
            seconds = time.monotonic() - started
            if done == 0 and seconds < timeout:
                continue
            if done == 0:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                conn.send((ticket, "timeout", seconds))
            else:
                conn.send((ticket, os.waitstatus_to_exitcode(wait), seconds))
            del running[pid]


class Runner:
    """Compiles and runs programs in the server process (``parallel`` at a time):
    ``submit`` one, ``wait`` for it. Use it as a context manager, or ``close`` it."""

    def __init__(self, parallel: int = 2):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, parallel), daemon=True)
        self.process.start()
        theirs.close()
        self.tickets = 0
        self.jobs: dict[int, tuple] = {}
        self.done: dict[int, MgRun] = {}

    def submit(
        self, program: GradientProgram, folder: Path, optimise: bool, threads: tuple = (1,), timeout: float = 120
    ) -> int:
        folder = Path(folder).resolve()
        program.write(folder)
        (folder / "result.txt").unlink(missing_ok=True)
        self.tickets += 1
        self.jobs[self.tickets] = (program, folder)
        job = (self.tickets, program.source, str(folder), optimise, tuple(threads), tuple(program.outputs), timeout)
        self.conn.send(job)
        return self.tickets

    def wait(self, ticket: int) -> MgRun:
        while ticket not in self.done:
            got, outcome, seconds = self.conn.recv()
            program, folder = self.jobs.pop(got)
            self.done[got] = _read(program, folder, outcome, seconds)
        return self.done.pop(ticket)

    def close(self) -> None:
        if self.process.is_alive():
            self.conn.send(None)
            self.process.join(30)
        if self.process.is_alive():
            self.process.kill()

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read(program: GradientProgram, folder: Path, outcome, seconds: float) -> MgRun:
    """What a job left in ``folder``."""
    if outcome == "timeout":
        return MgRun("timeout", f"still running after {seconds:.0f} s", seconds=seconds)
    result = folder / "result.txt"
    if not result.exists():
        return MgRun("crash", f"the compiling child ended with status {outcome}", seconds=seconds)
    head, _, rest = result.read_text().partition("\n")
    if head != "ran":
        return MgRun(head, rest, seconds=seconds)
    runs = {}
    for line in rest.split("\n"):
        if line:
            t, status = (int(x) for x in line.split())
            printed = (folder / f"t{t}.txt").read_text(errors="replace")
            outs = [np.load(folder / f"t{t}" / n) if (folder / f"t{t}" / n).exists() else None for n in program.outputs]
            runs[t] = (status, printed, outs)
    return MgRun("ran", runs=runs, seconds=seconds)


# What the tests need of the programs, computed where JAX may be imported: in a process of the
# tests' own, spawned, never in a pytest worker (JAX is multithreaded, and a worker forks to
# run programs: tests/conftest.py's run_forked). Each returns only plain, picklable data.


@functools.cache
def prepared(seed: int, large: bool = False) -> tuple[dict, dict, float, bool]:
    """Program ``seed`` in each of its types, JAX's outputs of each (f64 among them), the
    loss the generator evaluated, and whether the comparison of losses applies (a loss is
    saved and no training loop moves it). (Made once in a process: the tests ask again.)"""
    generated = generate(seed, large=large)
    programs = {dtype: generated.program(dtype) for dtype in generated.dtypes}
    references = {dtype: jax_reference(program) for dtype, program in programs.items()}
    f64 = programs["f64"]
    return programs, references, generated.loss_value, f64.with_value and not f64.training


def coverage(seeds: range) -> tuple[Counter, Counter]:
    """The operations and features of the programs ``seeds`` (made, not run)."""
    ops: Counter = Counter()
    features: Counter = Counter()
    for seed in seeds:
        generated = generate(seed)
        ops += generated.ops()
        features += generated.features
    return ops, features


def sources(cases: list[tuple[int, bool, str]]) -> list[str]:
    """The text of each (seed, large, type)'s program."""
    return [generate(seed, large=large).program(dtype).source for seed, large, dtype in cases]


def checked(seeds: range) -> list[str]:
    """What mg's checker says of the programs ``seeds`` in each of their types (made, not
    compiled or run): an error or a warning, with the program's text."""
    from mg_xdsl.language.frontend import MgError, parse_program

    problems = []
    for seed in seeds:
        generated = generate(seed)
        for dtype in generated.dtypes:
            source = generated.program(dtype).source
            try:
                said = "\n".join(parse_program(source, "prog.mg").warnings)
            except MgError as e:
                said = str(e)
            if said:
                problems.append(f"seed {seed} ({dtype}): {said}\n{source}")
    return problems
