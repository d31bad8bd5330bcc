"""The benchmark workloads: an mg program, its NumPy, JAX and Numba forms, its inputs and its
work count.

Each workload is one ``def f(...)`` (with the defs it calls) compiled through the Python API
and the natural allocating NumPy expression that computes the same array (mg allocates its
result too). Shapes are static wherever broadcasting is involved (a ``?`` dimension never
broadcasts).

The other sides, each optional (``None``: the column says the workload has no such form):

* ``jax``: given a module of NumPy's interface (``jax.numpy``), the function that JAX
  ``jit``s. Most forms are written once over that module ``xp`` and give the NumPy form too
  (``xp = numpy``), so the two compute the same expression.
* ``numba``: given ``prange``, the plain-Python loops that Numba ``njit``s, written as a user
  writes them (an output from ``np.empty``, a ``prange`` over the rows, ``range`` inside;
  Numba's default options, so no ``fastmath``: reductions keep their order). Compiled with
  ``parallel=False`` at one thread, where ``prange`` is ``range``, and ``parallel=True`` at
  more. Elementwise operations, broadcasts, row reductions, softmax and layer norm have one;
  column reductions (whose parallel axis is the inner one) and matrix products do not.

Work per call, for the rate columns:

* matrix products: 2*m*n*k flops per product (the additions and relus of an epilogue, the
  softmax of attention, are not counted), reported in GFLOP/s;
* everything else: the bytes of the inputs read plus the output written, once each, in GB/s
  (what a single streaming pass would move; caches and write-allocate traffic not counted).

Tolerance. Every side's result is checked against NumPy's with ``np.testing.assert_allclose``.
Elementwise results and maxima are exact in any order. A sum of K terms computed in any order
is within about K * eps * sum|term| of the exact value, and the same bound carries through a
chain of products (relu and max never increase an error). Evaluating the NumPy expression on
the absolute values of the inputs bounds every intermediate magnitude, so the check uses
``rtol`` (1e-9 for f64, 1e-5 for f32: each f32 step rounds at 2^-24) and ``atol = 2 * terms *
eps * max|f(|inputs|)|`` where ``terms`` is the total length of the chained reductions (0 for
exact workloads; 1 for ``relu_chain``, whose ``... * c - 0.5 * a`` a compiler may contract
into one fused multiply-add, rounding once where NumPy rounds twice: XLA does). ``exp`` is
not exact: NumPy, mg, JAX (XLA's own polynomial) and Numba
(libm) may each round differently, by a few units in the last place (ULPs); in f64 that is
far inside 1e-9, and in f32 the check's ``rtol=1e-5`` is 84 to 168 f32 ULPs (measured: at
most a few). For softmax and attention the absolute-value bound is an upper bound of the
weights' magnitudes (``exp`` grows with its argument), so the same ``atol`` rule holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

EPS = float(np.finfo(np.float64).eps)
RTOL = 1e-9
# Per element type: the relative tolerance of the check (f32 rounds each step at 2^-24).
RTOLS = {"float64": RTOL, "float32": 1e-5, "int32": 0.0}


@dataclass(frozen=True)
class Workload:
    name: str  # e.g. "relu_add"; several sizes share a name
    size: str  # a label, e.g. "1000x1000"
    source: str  # mg source defining f
    shapes: tuple[tuple[int, ...], ...]  # the input shapes, in parameter order
    reference: Callable[..., Any]  # the NumPy form
    flops: int = 0  # > 0: a GFLOP/s workload
    terms: int = 0  # chained reduction length, for the tolerance
    out_shape: tuple[int, ...] | None = None  # for the GB/s count
    dtype: str = "float64"  # of every input and of the result
    jax: Callable[[Any], Callable[..., Any]] | None = None  # jax.numpy -> the function to jit
    numba: Callable[[Any], Callable[..., Any]] | None = None  # prange -> the loops to njit

    @property
    def id(self) -> str:
        return f"{self.name} {self.size}"

    @property
    def unit(self) -> str:
        return "GFLOP/s" if self.flops else "GB/s"

    @property
    def rtol(self) -> float:
        return RTOLS[self.dtype]

    def work(self) -> float:
        """Flops, or bytes moved (inputs read + output written), per call."""
        if self.flops:
            return float(self.flops)
        cells = sum(int(np.prod(s)) for s in self.shapes) + int(np.prod(self.out_shape or ()))
        return float(np.dtype(self.dtype).itemsize * cells)

    def inputs(self, seed) -> list[np.ndarray]:
        """Standard-normal inputs (integers: uniform in [-1000, 1000)); the same seed gives
        the same arrays in every process."""
        rng = np.random.default_rng(seed)
        if np.dtype(self.dtype).kind == "i":
            return [rng.integers(-1000, 1000, s).astype(self.dtype) for s in self.shapes]
        return [rng.standard_normal(s).astype(self.dtype) for s in self.shapes]

    def atol(self, inputs: list[np.ndarray]) -> float:
        if not self.terms or np.dtype(self.dtype).kind == "i":
            return 0.0
        bound = self.reference(*[np.abs(a) for a in inputs])
        return 2.0 * self.terms * float(np.finfo(self.dtype).eps) * float(np.max(np.abs(bound)))


def _dtype(element: str) -> str:
    """The NumPy dtype of a float workload's ``element`` (f64 where none is written)."""
    return "float32" if element == "f32" else "float64"


def _t(*dims: int, element: str = "") -> str:
    return f"tensor[{'x'.join([*map(str, dims), *([element] if element else [])])}]"


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def _forms(form: Callable[[Any], Callable[..., Any]]) -> dict:
    """A form written over an array module: NumPy's (the reference) and JAX's."""
    return {"reference": form(np), "jax": form}


# --- Numba's loops (given prange; compiled by numba.njit in the measuring process) ------


def _nb_elementwise(name: str):
    def make(prange):
        if name == "add":

            def add(a, b):
                out = np.empty_like(a)
                for i in prange(a.shape[0]):
                    for j in range(a.shape[1]):
                        out[i, j] = a[i, j] + b[i, j]
                return out

            return add

        def relu_add(a, b):
            out = np.empty_like(a)
            for i in prange(a.shape[0]):
                for j in range(a.shape[1]):
                    out[i, j] = max(a[i, j] + b[i, j], 0.0)
            return out

        return relu_add

    return make


def _nb_broadcast(name: str):
    def make(prange):
        if name == "add_row":

            def add_row(a, v):
                out = np.empty_like(a)
                for i in prange(a.shape[0]):
                    for j in range(a.shape[1]):
                        out[i, j] = a[i, j] + v[0, j]
                return out

            return add_row

        def add_col(a, v):
            out = np.empty_like(a)
            for i in prange(a.shape[0]):
                for j in range(a.shape[1]):
                    out[i, j] = a[i, j] + v[i, 0]
            return out

        return add_col

    return make


def _nb_row_reduction(kind: str):
    def make(prange):
        if kind == "sum":

            def row_sum(a):
                out = np.empty((a.shape[0], 1), a.dtype)
                for i in prange(a.shape[0]):
                    total = 0.0
                    for j in range(a.shape[1]):
                        total += a[i, j]
                    out[i, 0] = total
                return out

            return row_sum

        def row_max(a):
            out = np.empty((a.shape[0], 1), a.dtype)
            for i in prange(a.shape[0]):
                largest = a[i, 0]
                for j in range(1, a.shape[1]):
                    largest = max(largest, a[i, j])
                out[i, 0] = largest
            return out

        return row_max

    return make


def _nb_sum_i32(prange):
    def sum_i32(a):
        total = 0
        for i in prange(a.shape[0]):
            for j in range(a.shape[1]):
                total += a[i, j]
        out = np.empty((), np.int32)  # (a scalar would come back as a Python int)
        out[()] = total
        return out

    return sum_i32


def _nb_softmax(prange):
    def softmax(s):
        out = np.empty_like(s)
        for i in prange(s.shape[0]):
            largest = s[i, 0]
            for j in range(1, s.shape[1]):
                largest = max(largest, s[i, j])
            total = 0.0
            for j in range(s.shape[1]):
                e = np.exp(s[i, j] - largest)
                out[i, j] = e
                total += e
            for j in range(s.shape[1]):
                out[i, j] = out[i, j] / total
        return out

    return softmax


def _nb_relu_chain(prange):
    def relu_chain(a, b, c):
        out = np.empty_like(a)
        for i in prange(a.shape[0]):
            out[i] = max(a[i] + b[i], 0.0) * c[i] - 0.5 * a[i]
        return out

    return relu_chain


def _nb_layer_norm(prange):
    def layer_norm(x):
        out = np.empty_like(x)
        n = x.shape[1]
        for i in prange(x.shape[0]):
            mean = 0.0
            for j in range(n):
                mean += x[i, j]
            mean /= n
            var = 0.0
            for j in range(n):
                d = x[i, j] - mean
                var += d * d
            var /= n
            scale = np.sqrt(var + 1e-5)
            for j in range(n):
                out[i, j] = (x[i, j] - mean) / scale
        return out

    return layer_norm


def _nb_exp(prange):
    def exp(a):
        out = np.empty_like(a)
        for i in prange(a.shape[0]):
            out[i] = np.exp(a[i])
        return out

    return exp


# --- the workloads -----------------------------------------------------------------------


def elementwise(name: str, r: int, c: int) -> Workload:
    body = {"add": "a + b", "relu_add": "relu(a + b)"}[name]
    form = {
        "add": lambda xp: lambda a, b: a + b,
        "relu_add": lambda xp: lambda a, b: xp.maximum(a + b, 0),
    }[name]
    return Workload(
        name,
        f"{r}x{c}",
        f"def f(a: {_t(r, c)}, b: {_t(r, c)}) = {body}",
        ((r, c), (r, c)),
        out_shape=(r, c),
        numba=_nb_elementwise(name),
        **_forms(form),
    )


def broadcast(name: str, n: int, m: int) -> Workload:
    small = (1, m) if name == "add_row" else (n, 1)
    label = f"{n}x{m} + {small[0]}x{small[1]}"
    return Workload(
        name,
        label,
        f"def f(a: {_t(n, m)}, v: {_t(*small)}) = a + v",
        ((n, m), small),
        out_shape=(n, m),
        numba=_nb_broadcast(name),
        **_forms(lambda xp: lambda a, v: a + v),
    )


def reduction(name: str, n: int, m: int) -> Workload:
    axis, kind = (1 if name.startswith("row") else 0), name.split("_")[1]
    out = (n, 1) if axis == 1 else (1, m)
    if kind == "sum":
        form = lambda xp: lambda a: a.sum(axis=axis, keepdims=True)  # noqa: E731
    else:
        form = lambda xp: lambda a: a.max(axis=axis, keepdims=True)  # noqa: E731
    return Workload(
        name,
        f"{n}x{m}",
        f"def f(a: {_t(n, m)}) = {name}(a)",
        ((n, m),),
        terms=(m if axis == 1 else n) if kind == "sum" else 0,
        out_shape=out,
        numba=_nb_row_reduction(kind) if axis == 1 else None,
        **_forms(form),
    )


def matmul(n: int) -> Workload:
    return Workload(
        "matmul",
        f"n={n}",
        f"def f(a: {_t(n, n)}, b: {_t(n, n)}) = a @ b",
        ((n, n), (n, n)),
        flops=2 * n**3,
        terms=n,
        **_forms(lambda xp: lambda a, b: a @ b),
    )


def layer(n: int, element: str = "") -> Workload:
    """relu(x @ w + b), b a 1xn row bias (f64, or f32 with ``element="f32"``)."""
    return Workload(
        "layer" + (f"_{element}" if element else ""),
        f"n={n}",
        f"def f(x: {_t(n, n, element=element)}, w: {_t(n, n, element=element)}, "
        f"b: {_t(1, n, element=element)}) = relu(x @ w + b)",
        ((n, n), (n, n), (1, n)),
        flops=2 * n**3,
        terms=n,
        dtype=_dtype(element),
        **_forms(lambda xp: lambda x, w, b: xp.maximum(x @ w + b, 0)),
    )


def two_layers(n: int) -> Workload:
    """examples/08_two_layers.mg with its size-2 dimensions scaled to n (the size-1 ones kept):
    row_max(relu(relu(x @ w1 + b1) @ w2 + b2) @ w3), x and w1 nxn, b1 1xn, w2 nx1, b2 1x1,
    w3 1xn. Its products: n*n*n, n*1*n, and the outer product n*n*1."""
    src = (
        f"def f(x: {_t(n, n)}, w1: {_t(n, n)}, b1: {_t(1, n)}, w2: {_t(n, 1)}, "
        f"b2: {_t(1, 1)}, w3: {_t(1, n)}) = "
        "row_max(relu(relu(x @ w1 + b1) @ w2 + b2) @ w3)"
    )

    def form(xp):
        def two_layers(x, w1, b1, w2, b2, w3):
            h = xp.maximum(x @ w1 + b1, 0)
            return (xp.maximum(h @ w2 + b2, 0) @ w3).max(axis=1, keepdims=True)

        return two_layers

    return Workload(
        "two_layers",
        f"n={n}",
        src,
        ((n, n), (n, n), (1, n), (n, 1), (1, 1), (1, n)),
        flops=2 * n**3 + 2 * n * n + 2 * n * n,
        terms=2 * n + 1,
        **_forms(form),
    )


def relu_add_f32(r: int, c: int) -> Workload:
    t = _t(r, c, element="f32")
    return Workload(
        "relu_add_f32",
        f"{r}x{c}",
        f"def f(a: {t}, b: {t}) = relu(a + b)",
        ((r, c), (r, c)),
        out_shape=(r, c),
        dtype="float32",
        numba=_nb_elementwise("relu_add"),
        **_forms(lambda xp: lambda a, b: xp.maximum(a + b, xp.float32(0))),
    )


def sum_i32(r: int, c: int) -> Workload:
    """Every element summed, in i32 (NumPy told so: its default would widen to int64)."""
    return Workload(
        "sum_i32",
        f"{r}x{c}",
        f"def f(a: {_t(r, c, element='i32')}) = sum(a)",
        ((r, c),),
        out_shape=(),
        dtype="int32",
        numba=_nb_sum_i32,
        **_forms(lambda xp: lambda a: xp.asarray(a.sum(dtype=xp.int32))),
    )


def matmul_f32(n: int) -> Workload:
    t = _t(n, n, element="f32")
    return Workload(
        "matmul_f32",
        f"n={n}",
        f"def f(a: {t}, b: {t}) = a @ b",
        ((n, n), (n, n)),
        flops=2 * n**3,
        terms=n,
        dtype="float32",
        **_forms(lambda xp: lambda a, b: a @ b),
    )


def batched_matmul(b: int, n: int) -> Workload:
    t = _t(b, n, n)
    return Workload(
        "batched_matmul",
        f"{b}x{n}x{n}",
        f"def f(a: {t}, c: {t}) = a @ c",
        ((b, n, n), (b, n, n)),
        flops=2 * b * n**3,
        terms=n,
        **_forms(lambda xp: lambda a, c: a @ c),
    )


def batched_matmul_f32(b: int, n: int, k: int) -> Workload:
    """b products of (n x k) @ (k x n), f32: attention's q @ kt alone."""
    return Workload(
        "batched_matmul_f32",
        f"{b}x({n}x{k} @ {k}x{n})",
        f"def f(a: {_t(b, n, k, element='f32')}, c: {_t(b, k, n, element='f32')}) = a @ c",
        ((b, n, k), (b, k, n)),
        flops=2 * b * n * n * k,
        terms=k,
        dtype="float32",
        **_forms(lambda xp: lambda a, c: a @ c),
    )


# The softmax and attention are f32; their f64 forms are named for their element type.
def _named(name: str, element: str) -> str:
    return name if element == "f32" else f"{name}_{element}"


SOFTMAX = """def f(s: {t}) -> {t}:
    let e = exp(s - max(s, axes=[1], keepdims=true))
    return e / sum(e, axes=[1], keepdims=true)"""


def softmax(r: int, c: int, element: str = "f32") -> Workload:
    """Softmax over rows, f32 (or ``element``), as users write it (the row maximum
    subtracted first)."""

    def form(xp):
        def softmax(s):
            e = xp.exp(s - s.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        return softmax

    return Workload(
        _named("softmax", element),
        f"{r}x{c} {element}",
        SOFTMAX.format(t=_t(r, c, element=element)),
        ((r, c),),
        terms=c,
        out_shape=(r, c),
        dtype=_dtype(element),
        numba=_nb_softmax,
        **_forms(form),
    )


ATTENTION = """def softmax(s: {s}) -> {s}:
    let e = exp(s - max(s, axes=[-1], keepdims=true))
    return e / sum(e, axes=[-1], keepdims=true)

def f(q: {q}, kt: {kt}, v: {q}) -> {q}:
    return softmax(q @ kt * {scale}) @ v"""


def attention(heads: int, n: int, d: int, element: str = "f32") -> Workload:
    """softmax(q @ kt * d^-1/2) @ v, f32 (or ``element``), ``heads`` heads of n x d (kt: d x n)."""
    scale = 1.0 / d**0.5

    def form(xp):
        def attention(q, kt, v):
            s = q @ kt * scale
            e = xp.exp(s - s.max(axis=-1, keepdims=True))
            return (e / e.sum(axis=-1, keepdims=True)) @ v

        return attention

    return Workload(
        _named("attention", element),
        f"{heads} heads of {n}x{d}" + ("" if element == "f32" else f" {element}"),
        ATTENTION.format(
            s=_t(heads, n, n, element=element),
            q=_t(heads, n, d, element=element),
            kt=_t(heads, d, n, element=element),
            scale=scale,
        ),
        ((heads, n, d), (heads, d, n), (heads, n, d)),
        flops=2 * 2 * heads * n * n * d,
        terms=d + 2 * n,
        dtype=_dtype(element),
        **_forms(form),
    )


def relu_chain(n: int) -> Workload:
    """relu(a + b) * c - 0.5 * a over n f64 elements: one fused pass in mg, four in NumPy."""
    t = _t(n)
    return Workload(
        "relu_chain",
        f"{n:.0e}".replace("e+0", "e") if n >= 10**6 else str(n),
        f"def f(a: {t}, b: {t}, c: {t}) = relu(a + b) * c - 0.5 * a",
        ((n,), (n,), (n,)),
        terms=1,  # (no sum: one rounding, where an FMA contracts the multiply-subtract, as XLA's does)
        out_shape=(n,),
        numba=_nb_relu_chain,
        **_forms(lambda xp: lambda a, b, c: xp.maximum(a + b, 0) * c - 0.5 * a),
    )


LAYER_NORM = """def f(x: {t}) -> {t}:
    let m = mean(x, axes=[1], keepdims=true)
    let d = x - m
    return d / sqrt(mean(d * d, axes=[1], keepdims=true) + 1e-5)"""


def layer_norm(r: int, c: int) -> Workload:
    """(x - mean) / sqrt(var + 1e-5) over rows, f64 (NumPy's and JAX's: x.mean, x.var)."""

    def form(xp):
        def layer_norm(x):
            return (x - x.mean(axis=1, keepdims=True)) / xp.sqrt(x.var(axis=1, keepdims=True) + 1e-5)

        return layer_norm

    return Workload(
        "layer_norm",
        f"{r}x{c}",
        LAYER_NORM.format(t=_t(r, c)),
        ((r, c),),
        terms=2 * c,
        out_shape=(r, c),
        numba=_nb_layer_norm,
        **_forms(form),
    )


def exp_f32(n: int) -> Workload:
    label = f"{n // 2**20}M f32" if n % 2**20 == 0 else f"{n} f32"
    return Workload(
        "exp_f32",
        label,
        f"def f(a: {_t(n, element='f32')}) = exp(a)",
        ((n,),),
        out_shape=(n,),
        dtype="float32",
        numba=_nb_exp,
        **_forms(lambda xp: lambda a: xp.exp(a)),
    )


#: The workload names in table order (the tests check that every one is reported).
NAMES = (
    "add",
    "relu_add",
    "add_row",
    "add_col",
    "row_sum",
    "col_sum",
    "row_max",
    "col_max",
    "matmul",
    "layer",
    "two_layers",
    "relu_add_f32",
    "sum_i32",
    "matmul_f32",
    "batched_matmul",
    # The JAX/Numba issue's workloads (with layer n=1024 and row_sum 4096x4096 above).
    "layer_f32",
    "softmax",
    "attention",
    "batched_matmul_f32",
    "softmax_f64",
    "attention_f64",
    "relu_chain",
    "layer_norm",
    "exp_f32",
)


def workloads(quick: bool) -> list[Workload]:
    """Every workload: the issues' sizes, or tiny ones (uneven, to exercise remainders)."""
    if quick:
        elem, bcast, red, mms, net = [(64, 64), (100, 37)], (64, 72), [(67, 64)], (24, 32, 37), 32
    else:
        # Reductions at 1e6 elements (in the caches' reach) and at 1.7e7 (memory's speed).
        elem, bcast, red, mms, net = (
            [(1000, 1000), (10000, 1000)],
            (4096, 4096),
            [(1000, 1000), (4096, 4096)],
            (256, 512, 1024),
            1024,
        )
    out = [elementwise(name, r, c) for name in ("add", "relu_add") for r, c in elem]
    out += [broadcast(name, *bcast) for name in ("add_row", "add_col")]
    out += [reduction(name, *size) for name in ("row_sum", "col_sum", "row_max", "col_max") for size in red]
    out += [matmul(n) for n in mms]
    out += [layer(net), two_layers(net)]
    # Element types other than f64, and batches.
    if quick:
        out += [relu_add_f32(100, 37), sum_i32(67, 64), matmul_f32(37), batched_matmul(2, 24)]
    else:
        out += [
            relu_add_f32(1000, 1000),
            relu_add_f32(10000, 1000),
            sum_i32(4096, 4096),
            matmul_f32(1024),
            batched_matmul(8, 256),
        ]
    # The JAX/Numba issue's table (its relu(x @ w + b) f64 is layer n=1024 and its row_sum
    # 4096x4096 is above).
    if quick:
        out += [
            layer(37, "f32"),
            softmax(67, 50),
            attention(2, 24, 16),
            batched_matmul_f32(2, 24, 16),
            relu_chain(1001),
            layer_norm(67, 50),
            exp_f32(1001),
            softmax(67, 50, "f64"),
            attention(2, 24, 16, "f64"),
        ]
    else:
        out += [
            layer(1024, "f32"),
            softmax(4096, 1024),
            attention(8, 256, 64),
            batched_matmul_f32(8, 256, 64),
            relu_chain(10**7),
            layer_norm(4096, 1024),
            exp_f32(4 * 2**20),
            # The issue asks for softmax and attention as fast as JAX's in f64 too.
            softmax(4096, 1024, "f64"),
            attention(8, 256, 64, "f64"),
        ]
    return out
