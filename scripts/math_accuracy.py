"""The accuracy of the compiled math functions, in ULPs (docs/math-accuracy.md).

Each function is compiled by mg (the Python API, the default optimised pipeline, so through
``math-polynomial-approximation``) and run on:

- ``f32``: every one of the 2^32 bit patterns (``--exhaustive``), or a sample of them; the
  two-argument functions (``atan2``, ``pow``) on a large random sample of pairs and a grid;
- ``f64``: a random sample of bit patterns (every exponent equally likely) and of the
  ranges where the function is neither constant nor overflowing, plus the edges (0,
  subnormals, infinities, NaN, the overflow thresholds, integers for ``pow``).

The reference is the exact value to far more bits than the result has: NumPy's ``float64``
functions for ``f32`` results (an error below 2^-50 relative, 2^-27 of an f32 ULP), and
its ``longdouble`` (x87, 64-bit significand) functions for ``f64`` results (2^-63, about
2^-11 of an f64 ULP). The error of a result y against the exact value v is |y - v| in
units of the spacing of the result's type at v (its ULP); a correctly rounded result is
within 0.5. (Comparing with the reference rounded to the type instead would, in rare
double-rounding cases, call a correctly rounded result 1 ULP off.) Special values must
match exactly: NaN for NaN, an infinity or a zero of the right sign. ``sin`` and ``cos``
are measured separately beyond the bound of their exact range reduction (as the greatest
absolute error there).

    python scripts/math_accuracy.py --exhaustive          # f32: all 2^32 inputs (~1 h on 2 cores)
    python scripts/math_accuracy.py --samples 1000000     # a quicker sample of every function
    python scripts/math_accuracy.py --functions exp,log --types f32

The unit test ``tests/unit/transforms/math/test_math_accuracy.py`` runs ``measure`` on a
sample of 10^5 values of each function and type and checks the bounds in ``BOUNDS``.
"""

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

SIN_BOUND = 2.0**24 * math.pi / 2
"""sin and cos reduce their argument exactly below this (``approximations.SIN_BOUND``)."""

BANDS = [(SIN_BOUND, 2.0**26), (2.0**26, 2.0**30), (2.0**30, 2.0**40), (2.0**40, math.inf)]
"""Where sin and cos are measured beyond the bound (the error grows with |x|)."""

UNARY = ("exp", "log", "tanh", "sin", "cos", "asin", "acos", "sqrt", "rsqrt")
BINARY = ("atan2", "pow")
FUNCTIONS = UNARY + BINARY

# The documented bounds (docs/math-accuracy.md), in ULPs, that the sampled test checks: the
# measured maxima rounded up, with room for the inputs a sample has not met.
BOUNDS: dict[tuple[str, str], float] = {
    ("exp", "f32"): 1.5,
    ("log", "f32"): 1.5,
    ("tanh", "f32"): 2.5,
    ("sin", "f32"): 1.0,
    ("cos", "f32"): 1.0,
    ("asin", "f32"): 1.0,
    ("acos", "f32"): 1.0,
    ("atan2", "f32"): 1.0,
    ("pow", "f32"): 1.0,
    ("sqrt", "f32"): 0.5,
    ("rsqrt", "f32"): 1.5,
    ("exp", "f64"): 1.5,
    ("log", "f64"): 1.5,
    ("tanh", "f64"): 2.5,
    ("sin", "f64"): 1.5,
    ("cos", "f64"): 1.5,
    ("asin", "f64"): 1.5,
    ("acos", "f64"): 1.5,
    ("atan2", "f64"): 2.0,
    ("pow", "f64"): 2.0,
    ("sqrt", "f64"): 0.5,
    ("rsqrt", "f64"): 1.5,
}


def reference(name: str, args: list[np.ndarray]) -> np.ndarray:
    """The function in NumPy, in the precision of ``args`` (float64 or longdouble)."""
    with np.errstate(all="ignore"):
        if name == "rsqrt":
            return 1 / np.sqrt(args[0])
        f = {"asin": np.arcsin, "acos": np.arccos, "atan2": np.arctan2, "pow": np.power}.get(name) or getattr(np, name)
        return f(*args)


def source(types: tuple[str, ...]) -> str:
    """One def per function and type: ``exp_f32(x)``, ``pow_f64(x, y)``..."""
    defs = []
    for t in types:
        for f in UNARY:
            defs.append(f"def {f}_{t}(x: tensor[?x{t}]) -> tensor[?x{t}]:\n    return {f}(x)\n")
        for f in BINARY:
            defs.append(f"def {f}_{t}(x: tensor[?x{t}], y: tensor[?x{t}]) -> tensor[?x{t}]:\n    return {f}(x, y)\n")
    return "".join(defs)


def ulp_errors(got: np.ndarray, exact: np.ndarray, dtype: type) -> np.ndarray:
    """|got - exact| in ULPs of ``dtype`` at ``exact``; special values: 0 where they match
    exactly (NaN for NaN; an infinity, or a zero, of the right sign), inf where not. A
    finite result beyond the type's range counts as the infinity it rounds to."""
    info = np.finfo(dtype)
    wide = exact.dtype
    with np.errstate(all="ignore"):
        rounded = exact.astype(dtype)  # (for the special cases only)
        got_wide = got.astype(wide)
        _, e = np.frexp(exact)
        exponent = np.maximum(e.astype(np.int64) - 1, int(np.log2(info.smallest_normal)))
        ulp = np.ldexp(np.ones_like(exact), (exponent - info.nmant).astype(np.int32))
        error = np.abs(got_wide - exact) / ulp
    special = np.isnan(exact) | np.isnan(got) | np.isinf(rounded) | np.isinf(got) | (got == 0) | (rounded == 0)
    same = (np.isnan(got) & np.isnan(exact)) | ((got == rounded) & (np.signbit(got) == np.signbit(rounded)))
    # a zero or an infinity that is not the rounded result: measured as a number (with the
    # infinity as the power of two past the greatest finite), unless the signs differ
    with np.errstate(all="ignore"):
        big = np.ldexp(np.ones_like(exact), info.maxexp)
        got_number = np.where(np.isinf(got_wide), np.copysign(big, got_wide), got_wide)
        exact_number = np.where(np.isinf(exact), np.copysign(big, exact), exact)
        error_special = np.abs(got_number - exact_number) / ulp
    error_special = np.where(np.signbit(got) != np.signbit(rounded), np.inf, error_special)
    error_special = np.where(np.isnan(got) != np.isnan(exact), np.inf, error_special)
    return np.where(special, np.where(same, 0.0, error_special), error)


@dataclass
class Result:
    function: str
    t: str  # f32 or f64
    count: int = 0
    max_ulp: float = 0.0
    worst: tuple = ()
    correctly_rounded: int = 0
    beyond: dict = field(default_factory=dict)  # sin/cos beyond their bound: count, max abs error

    def add(self, args: list[np.ndarray], got: np.ndarray, exact: np.ndarray, dtype: type) -> None:
        if self.function in ("sin", "cos"):
            outside = np.abs(args[0]) >= SIN_BOUND
            if outside.any():
                self.add_beyond([a[outside] for a in args], got[outside], exact[outside], dtype)
                got, exact = got[~outside], exact[~outside]
                args = [a[~outside] for a in args]
        if got.size == 0:
            return
        # A correctly rounded result is within 0.5 ULP: the errors are measured on the others
        # (a few percent), which makes the exhaustive run several times faster.
        with np.errstate(all="ignore"):
            rounded = exact.astype(dtype)
        right = ((got == rounded) & (np.signbit(got) == np.signbit(rounded))) | (np.isnan(got) & np.isnan(rounded))
        self.count += got.size
        self.correctly_rounded += int(right.sum())
        if right.all():
            if not self.worst:
                self.max_ulp, self.worst = 0.5, tuple(float(a[0]) for a in args) + (float(got[0]), float(exact[0]))
            return
        wrong = ~right
        errors = ulp_errors(got[wrong], exact[wrong], dtype)
        i = int(np.argmax(errors))
        if errors[i] > self.max_ulp or not self.worst:
            self.max_ulp = float(errors[i])
            self.worst = tuple(float(a[wrong][i]) for a in args) + (float(got[wrong][i]), float(exact[wrong][i]))

    def add_beyond(self, args: list[np.ndarray], got: np.ndarray, exact: np.ndarray, dtype: type) -> None:
        """sin and cos beyond their bound: the greatest error in ULPs and in absolute terms
        by the size of |x|, and whether every result is in [-1, 1]."""
        errors = ulp_errors(got, exact, dtype)
        with np.errstate(all="ignore"):
            abs_err = np.abs(got.astype(exact.dtype) - exact)
        finite = np.isfinite(exact)
        self.beyond["count"] = self.beyond.get("count", 0) + got.size
        worst = float(abs_err[finite].max()) if finite.any() else 0.0
        self.beyond["max_abs"] = max(self.beyond.get("max_abs", 0.0), worst)
        in_range = bool(np.all(np.abs(got[finite]) <= 1))
        self.beyond["in_range"] = self.beyond.get("in_range", True) and in_range
        ax = np.abs(args[0])
        for lo, hi in BANDS:
            band = (ax >= lo) & (ax < hi) & finite
            if band.any():
                key = f"[{lo:.3g}, {hi:.3g})"
                ulps, absolute = float(errors[band].max()), float(abs_err[band].max())
                old = self.beyond.setdefault("bands", {}).get(key, (0.0, 0.0))
                self.beyond["bands"][key] = (max(old[0], ulps), max(old[1], absolute))


def edges(dtype: type) -> np.ndarray:
    info = np.finfo(dtype)
    values = [
        0.0,
        info.smallest_subnormal,
        info.smallest_subnormal * 3,
        info.smallest_normal,
        info.smallest_normal * 0.75,
        info.max,
        info.eps,
        1.0,
        0.5,
        2.0,
        math.pi,
        math.pi / 2,
        math.pi / 4,
        1e-8,
        1e-30,
        0.625,
        0.6,
        1 - 2**-20,
        1 + 2**-20,
        88.72283935546875,
        88.7228,
        89.0,
        -87.33654,
        -103.97,
        -104.0,
        709.782712893384,
        709.79,
        -708.4,
        -745.13,
        -745.14,
        1e6,
        1e300,
        np.inf,
        np.nan,
    ]
    with np.errstate(all="ignore"):  # (1e300 is inf in f32; the next float after max is inf)
        a = np.array(values, dtype=np.float64).astype(dtype)
        return np.concatenate([a, -a, np.nextafter(a, dtype(np.inf)), np.nextafter(a, dtype(-np.inf))])


def random_bits(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    unsigned = np.uint32 if dtype == np.float32 else np.uint64
    return rng.integers(0, np.iinfo(unsigned).max, size=n, dtype=unsigned, endpoint=True).view(dtype)


def sample(name: str, dtype: type, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Inputs for one function: edges, random bit patterns, and its interesting ranges."""
    k = max(n // 4, 1)
    f64 = dtype == np.float64
    ranges = {
        "exp": [(-750.0 if f64 else -105.0, 710.0 if f64 else 89.0), (-1.0, 1.0)],
        "log": [(0.0, 4.0), (0.5, 2.0)],
        "tanh": [(-20.0, 20.0), (-1.0, 1.0)],
        "sin": [(-10.0, 10.0), (-SIN_BOUND, SIN_BOUND)],
        "cos": [(-10.0, 10.0), (-SIN_BOUND, SIN_BOUND)],
        "asin": [(-1.0, 1.0), (-0.6, 0.6)],
        "acos": [(-1.0, 1.0), (-0.6, 0.6)],
        "sqrt": [(0.0, 100.0), (0.0, 1.0)],
        "rsqrt": [(0.0, 100.0), (0.0, 1.0)],
        "atan2": [(-10.0, 10.0), (-1.0, 1.0)],
        "pow": [(0.0, 4.0), (-60.0, 60.0)],
    }[name]
    if name in BINARY:
        e = edges(dtype)
        ex, ey = np.meshgrid(e, e)
        xs = [ex.ravel(), random_bits(rng, k, dtype), rng.uniform(*ranges[0], size=2 * k).astype(dtype)]
        ys = [ey.ravel(), random_bits(rng, k, dtype), rng.uniform(*ranges[1], size=2 * k).astype(dtype)]
        if name == "pow":  # negative bases with integer exponents; results near the range's ends
            xs.append(-rng.uniform(0, 3, size=k).astype(dtype))
            ys.append(rng.integers(-60, 60, size=k).astype(dtype))
            big = 700.0 if f64 else 88.0
            x = rng.uniform(1.0001, 3, size=k)
            xs.append(x.astype(dtype))
            ys.append((rng.uniform(-big, big, size=k) / np.log(x.astype(dtype).astype(np.float64))).astype(dtype))
        return [np.concatenate(xs), np.concatenate(ys)]
    parts = [edges(dtype), random_bits(rng, k, dtype)]
    for lo, hi in ranges:
        parts.append(rng.uniform(lo, hi, size=k).astype(dtype))
    return [np.concatenate(parts)]


def measure(
    lib, name: str, t: str, args: list[np.ndarray], result: Result | None = None, chunk: int = 1 << 22
) -> Result:
    """Run ``name`` of type ``t`` on ``args`` (in chunks) and add its errors to ``result``."""
    dtype = np.float32 if t == "f32" else np.float64
    wide = np.float64 if t == "f32" else np.longdouble
    result = result or Result(name, t)
    f = getattr(lib, f"{name}_{t}")
    for start in range(0, args[0].size, chunk):
        part = [a[start : start + chunk] for a in args]
        got = f(*part)
        with np.errstate(all="ignore"):  # (signalling NaNs among the random bits)
            exact = reference(name, [a.astype(wide) for a in part])
        result.add(part, got, exact, dtype)
    return result


def exhaustive_f32(lib, name: str, chunk: int = 1 << 24, progress: Callable[[str], None] | None = None) -> Result:
    """Every f32 bit pattern."""
    result = Result(name, "f32")
    for start in range(0, 1 << 32, chunk):
        x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
        measure(lib, name, "f32", [x], result)
        if progress and start % (1 << 28) == 0:
            progress(f"{name}: {start >> 24}/256")
    return result


def table(results: list[Result]) -> str:
    lines = [
        "| function | type | inputs | max error (ULP) | correctly rounded | worst input | bound checked |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        worst = ", ".join(f"{v:.17g}" for v in r.worst[:-2])
        bound = BOUNDS.get((r.function, r.t), float("nan"))
        cr = 100.0 * r.correctly_rounded / max(r.count, 1)
        lines.append(f"| {r.function} | {r.t} | {r.count} | {r.max_ulp:.3f} | {cr:.2f}% | {worst} | {bound} |")
    for r in results:
        if r.beyond:
            lines.append(
                f"\n{r.function} {r.t} beyond |x| >= 2^24 pi/2: {r.beyond['count']} inputs, "
                f"greatest absolute error {r.beyond['max_abs']:.3g}, all in [-1, 1]: {r.beyond['in_range']}"
            )
            for key, (ulps, absolute) in sorted(
                r.beyond.get("bands", {}).items(), key=lambda kv: float(kv[0][1:].split(",")[0])
            ):
                lines.append(f"  |x| in {key}: {ulps:.3g} ULP, absolute {absolute:.3g}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exhaustive", action="store_true", help="every f32 input of the one-argument functions")
    parser.add_argument("--samples", type=int, default=1_000_000, help="sampled inputs per function and type")
    parser.add_argument("--functions", default=",".join(FUNCTIONS))
    parser.add_argument("--types", default="f32,f64")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import mg_xdsl

    types = tuple(args.types.split(","))
    lib = mg_xdsl.compile(source(types))
    rng = np.random.default_rng(args.seed)
    results = []
    for t in types:
        for name in args.functions.split(","):
            start = time.perf_counter()
            if t == "f32" and args.exhaustive and name in UNARY:
                r = exhaustive_f32(lib, name, progress=lambda s: print(s, file=sys.stderr, flush=True))
            else:
                dtype = np.float32 if t == "f32" else np.float64
                r = measure(lib, name, t, sample(name, dtype, args.samples, rng))
            results.append(r)
            print(
                f"{name} {t}: {r.max_ulp:.3f} ULP at {r.worst} ({r.count} inputs, {time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    print(table(results))


if __name__ == "__main__":
    main()
