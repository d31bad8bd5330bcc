"""Fit the polynomials of ``math-polynomial-approximation``, and print them as the module
``mg_xdsl/transforms/math/coefficients.py``.

Each function is approximated on a reduced interval by an auxiliary function that is
smooth, far from zero and even where it can be (``exp(r) = 1 + r + r^2 P(r)``,
``sin(r) = r + r^3 S(r^2)``, ...). The auxiliary function is fitted by least squares at
twice as many Chebyshev nodes of the interval as it has terms (near-minimax for functions analytic around it), in exact
rational arithmetic on values computed to 60 digits with ``decimal``; the coefficients are
then rounded to the type the polynomial is evaluated in, and the error of the *whole*
function with the rounded coefficients (evaluated exactly) measured on 3000 points. The
degree printed is the least whose error is under the target: 2^-29 of the result for a
polynomial evaluated in ``f32`` (an ``f32`` ULP is 2^-23), 2^-58 for ``f64`` (an ``f64``
ULP is 2^-52), 2^-33 for the ``f64`` polynomials of functions whose ``f32`` form is
computed in ``f64`` (``f32`` ``sin``, ``cos``, ``asin``, ``acos``, ``atan2``, ``pow``), and
2^-70 for the part of ``pow``'s double-double logarithm computed in double; ``OWN_TARGETS``
names the exceptions (f32 ``exp``: a lower target, fitted to the whole function's error).

    python scripts/math_coefficients.py > mg_xdsl/transforms/math/coefficients.py   # (minutes;
    ruff format mg_xdsl/transforms/math/coefficients.py                              #  then format it)
    python scripts/math_coefficients.py f64:exp f32:log     # only these

No third-party package is needed: the reference values are power series summed with
``decimal`` (60 digits), or ``decimal``'s ``exp``.
"""

import math
import struct
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 60
D = Decimal
PI = D("3.14159265358979323846264338327950288419716939937510582097494459")


def series(terms: Callable[[int], Fraction], v: Decimal, count: int = 80) -> Decimal:
    """sum_k terms(k) v^k."""
    total, power = D(0), D(1)
    for k in range(count):
        total += D(terms(k).numerator) / D(terms(k).denominator) * power
        power *= v
        if power == 0:
            break
    return total


def factorial(n: int) -> int:
    f = 1
    for i in range(2, n + 1):
        f *= i
    return f


def binomial_half(k: int) -> Fraction:
    """(2k)! / (4^k (k!)^2 (2k+1)): asin's k-th coefficient."""
    return Fraction(factorial(2 * k), 4**k * factorial(k) ** 2 * (2 * k + 1))


def tanh_aux(z: Decimal) -> Decimal:
    if z == 0:
        return D(-1) / 3
    x = z.sqrt()
    e = (2 * x).exp()
    return ((e - 1) / (e + 1) - x) / (x * z)


# name: (auxiliary function of v, interval of v, weight: the whole function's relative
# error per unit error of the auxiliary function at v)
AUXILIARY: dict[str, tuple[Callable[[Decimal], Decimal], tuple[Decimal, Decimal], Callable[[Decimal], Decimal]]] = {
    # exp(r) = 1 + r + r^2 P(r), |r| <= ln2/2 (with a margin for the rounded reduction)
    "exp": (
        lambda r: series(lambda k: Fraction(1, factorial(k + 2)), r),
        (D("-0.3467"), D("0.3467")),
        lambda r: r * r / r.exp(),
    ),
    # log((1+s)/(1-s)) = 2s + s^3 L(s^2), |s| <= (sqrt2-1)/(sqrt2+1) = 0.17157
    "log": (
        lambda z: series(lambda k: Fraction(2, 2 * k + 3), z),
        (D(0), D("0.029438")),
        lambda z: z / 2,
    ),
    # the same after its first term: log((1+s)/(1-s)) = 2s + 2s^3/3 + s^5 L5(s^2) (pow's log,
    # which adds 2s^3/3 in double-double)
    "log5": (
        lambda z: series(lambda k: Fraction(2, 2 * k + 5), z),
        (D(0), D("0.029438")),
        lambda z: z * z / 2,
    ),
    # sin(r) = r + r^3 S(r^2), |r| <= pi/4 (and a margin)
    "sin": (
        lambda z: series(lambda k: Fraction((-1) ** (k + 1), factorial(2 * k + 3)), z),
        (D(0), D("0.6170")),
        lambda z: z,
    ),
    # cos(r) = 1 - r^2/2 + r^4 C(r^2)
    "cos": (
        lambda z: series(lambda k: Fraction((-1) ** k, factorial(2 * k + 4)), z),
        (D(0), D("0.6170")),
        lambda z: z * z / D("0.7071"),
    ),
    # atan(t) = t + t^3 A(t^2), |t| <= 7/16
    "atan": (
        lambda z: series(lambda k: Fraction((-1) ** (k + 1), 2 * k + 3), z, 120),
        (D(0), D("0.19141")),
        lambda z: z,
    ),
    # asin(x) = x + x^3 B(x^2), |x| <= 1/2
    "asin": (
        lambda z: series(lambda k: binomial_half(k + 1), z, 120),
        (D(0), D("0.25")),
        lambda z: z,
    ),
    # tanh(x) = x + x^3 T(x^2), |x| <= 0.625
    "tanh": (tanh_aux, (D(0), D("0.390625")), lambda z: z),
}


def solve(matrix: Sequence[Sequence[Fraction | int]], rhs: Sequence[Fraction | int]) -> list[Fraction]:
    """Gaussian elimination in exact arithmetic."""
    n = len(rhs)
    a = [[Fraction(x) for x in row] + [Fraction(b)] for row, b in zip(matrix, rhs)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def chebyshev_nodes(lo: Decimal, hi: Decimal, count: int) -> list[Decimal]:
    return [
        (lo + hi) / 2 + (hi - lo) / 2 * D(repr(math.cos(math.pi * (2 * i + 1) / (2 * count)))) for i in range(count)
    ]


def fit(name: str, degree: int, kind: str, weighted: bool = False) -> list[float]:
    """The least-squares fit of degree ``degree`` at Chebyshev nodes, lowest term first, its
    coefficients rounded to ``kind`` one at a time: each rounding's error is made up by
    fitting the higher terms again to what is left. ``weighted``: each node's error counted
    as the whole function's (times AUXILIARY's weight there), not the auxiliary function's."""
    aux, (lo, hi), weight = AUXILIARY[name]
    nodes = chebyshev_nodes(lo, hi, 2 * degree + 2)  # (an even count: never 0)
    vs = [Fraction(v) for v in nodes]
    ys = [Fraction(aux(v)) for v in nodes]
    ws = [Fraction(weight(v)) if weighted else Fraction(1) for v in nodes]
    rounded: list[float] = []
    for j in range(degree + 1):
        rest = [w * (y - sum(Fraction(c) * v**i for i, c in enumerate(rounded))) for v, y, w in zip(vs, ys, ws)]
        rows = [[w * v ** (i + j) for i in range(degree + 1 - j)] for v, w in zip(vs, ws)]
        # least squares: the normal equations, exactly
        normal = [[sum(r[a] * r[b] for r in rows) for b in range(len(rows[0]))] for a in range(len(rows[0]))]
        cs = solve(normal, [sum(r[a] * y for r, y in zip(rows, rest)) for a in range(len(rows[0]))])
        rounded.append(round_to(cs[0], kind))
    return rounded


def round_to(value: Fraction, kind: str) -> float:
    x = float(value)
    if kind == "f32":
        x = struct.unpack("f", struct.pack("f", x))[0]
    return x


def error(name: str, coefficients: list[float], points: int = 3000) -> float:
    """The greatest relative error of the whole function, with these coefficients."""
    aux, (lo, hi), weight = AUXILIARY[name]
    worst = D(0)
    cs = [D(c) for c in coefficients]
    for i in range(points + 1):
        v = lo + (hi - lo) * i / points
        p = D(0)
        for c in reversed(cs):
            p = p * v + c
        worst = max(worst, abs((p - aux(v)) * weight(v)))
    return float(worst)


TARGETS = {"f32": 2.0**-29, "f64": 2.0**-58, "f64-for-f32": 2.0**-33, "f64-dd": 2.0**-70}
# Polynomials fitted otherwise: (target, weighted). f32 exp's is the longest dependency chain
# of a softmax's loop; fitted to the whole function's error, one degree less than the f32
# target asks for gives 2^-28 (its greatest error over all f32 inputs 0.981 -> 1.010 ULP) for
# an eighth less time. (The other fits are not weighted: they predate the option, and a new
# fit changes their bits, to be measured again over all inputs.)
OWN_TARGETS = {("exp", "f32"): (2.0**-27.5, True)}
KIND = {"f32": "f32", "f64": "f64", "f64-for-f32": "f64", "f64-dd": "f64"}
WANTED = {
    "f32": ("exp", "log", "tanh"),
    "f64": ("exp", "log", "sin", "cos", "atan", "asin", "tanh"),
    "f64-for-f32": ("exp", "log", "sin", "cos", "atan", "asin"),
    "f64-dd": ("log5",),  # pow's double-double logarithm
}


HEADER = '''"""The polynomials of ``math-polynomial-approximation``, lowest term first, by function and
the precision they are evaluated to: ``f32`` (in f32), ``f64``, ``f64-for-f32`` (in f64, for
an f32 result) and ``f64-dd`` (the double part of pow's double-double logarithm), each with
the error of the whole function it gives (with the coefficients as rounded). Generated by
``scripts/math_coefficients.py``, which says how: ``python scripts/math_coefficients.py >
mg_xdsl/transforms/math/coefficients.py``."""
'''


def main() -> None:
    only = set(sys.argv[1:])  # (PRECISION:NAME ...: only these)
    print(HEADER)
    print("COEFFICIENTS: dict[tuple[str, str], tuple[float, ...]] = {")
    for precision, names in WANTED.items():
        for name in names:
            if only and f"{precision}:{name}" not in only:
                continue
            target, weighted = OWN_TARGETS.get((name, precision), (TARGETS[precision], False))
            degree, cs, e = 0, [], math.inf
            while e > target and degree < 30:
                degree += 1
                cs = fit(name, degree, KIND[precision], weighted)
                e = error(name, cs)
            print(f"    # {name}, degree {degree}: error 2^{math.log2(e):.1f} of the result", flush=True)
            print(f"    ({name!r}, {precision!r}): ({', '.join(repr(c) for c in cs)}),")
            print(f"{precision} {name}: degree {degree}, 2^{math.log2(e):.1f}", file=sys.stderr)
    print("}")


if __name__ == "__main__":
    main()
