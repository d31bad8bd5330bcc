"""The benchmark workloads: an mg program, its NumPy form, its inputs and its work count.

Each workload is one ``def f(...)`` compiled through the Python API and the natural
allocating NumPy expression that computes the same matrix (mg allocates its result too).
Shapes are static wherever broadcasting is involved (a ``?`` dimension never broadcasts).

Work per call, for the rate columns:

* matrix products: 2*m*n*k flops per product (the additions and relus of an epilogue are
  negligible and not counted), reported in GFLOP/s;
* everything else: the bytes of the inputs read plus the output written, once each, in GB/s
  (what a single streaming pass would move; caches and write-allocate traffic not counted).

Tolerance. Elementwise results and maxima are exact in any order. A sum of K terms computed
in any order is within about K * eps * sum|term| of the exact value, and the same bound
carries through a chain of products (relu and max never increase an error). Evaluating the
NumPy expression on the absolute values of the inputs bounds every intermediate magnitude,
so the check uses ``rtol=1e-9`` and ``atol = 2 * terms * eps * max|f(|inputs|)|`` where
``terms`` is the total length of the chained reductions (0 for exact workloads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

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
    reference: Callable[..., np.ndarray]  # the NumPy form
    flops: int = 0  # > 0: a GFLOP/s workload
    terms: int = 0  # chained reduction length, for the tolerance
    out_shape: tuple[int, ...] | None = None  # for the GB/s count
    dtype: str = "float64"  # of every input and of the result

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
        cells = sum(int(np.prod(s)) for s in self.shapes) + int(np.prod(self.out_shape))
        return float(np.dtype(self.dtype).itemsize * cells)

    def inputs(self, seed: int) -> list[np.ndarray]:
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


def _t(*dims: int, element: str = "") -> str:
    return f"tensor[{'x'.join([*map(str, dims), *([element] if element else [])])}]"


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def elementwise(name: str, r: int, c: int) -> Workload:
    body = {"add": "a + b", "relu_add": "relu(a + b)"}[name]
    ref = {"add": lambda a, b: a + b, "relu_add": lambda a, b: np.maximum(a + b, 0)}[name]
    return Workload(
        name, f"{r}x{c}", f"def f(a: {_t(r, c)}, b: {_t(r, c)}) = {body}", ((r, c), (r, c)), ref, out_shape=(r, c)
    )


def broadcast(name: str, n: int, m: int) -> Workload:
    small = (1, m) if name == "add_row" else (n, 1)
    label = f"{n}x{m} + {small[0]}x{small[1]}"
    return Workload(
        name,
        label,
        f"def f(a: {_t(n, m)}, v: {_t(*small)}) = a + v",
        ((n, m), small),
        lambda a, v: a + v,
        out_shape=(n, m),
    )


def reduction(name: str, n: int, m: int) -> Workload:
    axis, kind = (1 if name.startswith("row") else 0), name.split("_")[1]
    out = (n, 1) if axis == 1 else (1, m)
    if kind == "sum":
        ref = lambda a: a.sum(axis=axis, keepdims=True)  # noqa: E731
    else:
        ref = lambda a: a.max(axis=axis, keepdims=True)  # noqa: E731
    return Workload(
        name,
        f"{n}x{m}",
        f"def f(a: {_t(n, m)}) = {name}(a)",
        ((n, m),),
        ref,
        terms=(m if axis == 1 else n) if kind == "sum" else 0,
        out_shape=out,
    )


def matmul(n: int) -> Workload:
    return Workload(
        "matmul",
        f"n={n}",
        f"def f(a: {_t(n, n)}, b: {_t(n, n)}) = a @ b",
        ((n, n), (n, n)),
        lambda a, b: a @ b,
        flops=2 * n**3,
        terms=n,
    )


def layer(n: int) -> Workload:
    """relu(x @ w + b), b a 1xn row bias."""
    return Workload(
        "layer",
        f"n={n}",
        f"def f(x: {_t(n, n)}, w: {_t(n, n)}, b: {_t(1, n)}) = relu(x @ w + b)",
        ((n, n), (n, n), (1, n)),
        lambda x, w, b: np.maximum(x @ w + b, 0),
        flops=2 * n**3,
        terms=n,
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

    def ref(x, w1, b1, w2, b2, w3):
        return (relu(relu(x @ w1 + b1) @ w2 + b2) @ w3).max(axis=1, keepdims=True)

    return Workload(
        "two_layers",
        f"n={n}",
        src,
        ((n, n), (n, n), (1, n), (n, 1), (1, 1), (1, n)),
        ref,
        flops=2 * n**3 + 2 * n * n + 2 * n * n,
        terms=2 * n + 1,
    )


def relu_add_f32(r: int, c: int) -> Workload:
    t = _t(r, c, element="f32")
    return Workload(
        "relu_add_f32",
        f"{r}x{c}",
        f"def f(a: {t}, b: {t}) = relu(a + b)",
        ((r, c), (r, c)),
        lambda a, b: np.maximum(a + b, np.float32(0)),
        out_shape=(r, c),
        dtype="float32",
    )


def sum_i32(r: int, c: int) -> Workload:
    """Every element summed, in i32 (NumPy told so: its default would widen to int64)."""
    return Workload(
        "sum_i32",
        f"{r}x{c}",
        f"def f(a: {_t(r, c, element='i32')}) = sum(a)",
        ((r, c),),
        lambda a: np.asarray(a.sum(dtype=np.int32)),
        out_shape=(),
        dtype="int32",
    )


def matmul_f32(n: int) -> Workload:
    t = _t(n, n, element="f32")
    return Workload(
        "matmul_f32",
        f"n={n}",
        f"def f(a: {t}, b: {t}) = a @ b",
        ((n, n), (n, n)),
        lambda a, b: a @ b,
        flops=2 * n**3,
        terms=n,
        dtype="float32",
    )


def batched_matmul(b: int, n: int) -> Workload:
    t = _t(b, n, n)
    return Workload(
        "batched_matmul",
        f"{b}x{n}x{n}",
        f"def f(a: {t}, c: {t}) = a @ c",
        ((b, n, n), (b, n, n)),
        lambda a, c: a @ c,
        flops=2 * b * n**3,
        terms=n,
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
)


def workloads(quick: bool) -> list[Workload]:
    """Every workload: the issue's sizes, or tiny ones (uneven, to exercise remainders)."""
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
    return out
