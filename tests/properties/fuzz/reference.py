"""The language's operations on reference values (``values.Val``), written with NumPy from the
language reference's definitions (docs/language.md), independently of the compiler.

- Floats compute in their compute type (bf16 in f32, rounded to bf16 after each operation);
  reductions and matrix products go left to right along the reduced axes (``k`` ascending),
  bf16 accumulating in f32 and rounding once at the end.
- Integers wrap; ``/`` truncates toward zero; a zero divisor stops the program.
- Each result carries the bound of ``values``: 0 where the compiled code must have the same
  bits (correctly rounded operations of exact inputs, sums whose every partial sum is exact
  in any order), otherwise the spread of the function over its inputs' bounds plus a few
  units in the last place.

``Abort`` is a run-time check that fails (the compiled program stops with its message);
``Unusable`` a value the reference cannot vouch for where the program needs it exactly (an
uncertain id or divisor): the generator must not emit such a statement.
"""

import itertools

import numpy as np

from .values import COMPUTE, FLOATS, INT_RANGE, INTS, NUMPY, PRECISION, Val, exact, ulp, wrap


class Abort(Exception):
    """A run-time check fails: the compiled program prints what it printed so far, then
    stops with this message (exit status 134)."""


class Unusable(Exception):
    """The reference cannot say what the program does (an uncertain divisor or id)."""


def number(x: float, dtype: str) -> Val:
    """A compile-time number meeting a tensor of ``dtype``: it takes that type."""
    return exact(int(x) if dtype in INTS else bool(x) if dtype == "i1" else x, dtype)


# -- elementwise ------------------------------------------------------------------------------


def _relu(x):
    return np.where(np.isnan(x), x, np.maximum(x, 0)) if x.dtype.kind == "f" else np.maximum(x, 0)


# name -> (NumPy function, whether it is correctly rounded: IEEE gives both sides the same bits)
FLOAT_FUNCTIONS = {
    "+": (np.add, True),
    "-": (np.subtract, True),
    "*": (np.multiply, True),
    "/": (np.divide, True),
    "neg": (np.negative, True),
    "relu": (_relu, True),
    "abs": (np.abs, True),
    "sqrt": (np.sqrt, True),
    "maximum": (np.maximum, True),
    "minimum": (np.minimum, True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), False),
    "exp": (np.exp, False),
    "log": (np.log, False),
    "sin": (np.sin, False),
    "cos": (np.cos, False),
    "tanh": (np.tanh, False),
    "acos": (np.arccos, False),
    "asin": (np.arcsin, False),
    "pow": (np.power, False),
    "atan2": (np.arctan2, False),
}
INT_FUNCTIONS = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "neg": np.negative,
    "abs": np.abs,
    "relu": _relu,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
COMPARISONS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
# A function from a library may differ from NumPy's by a few units in the last place.
LIBRARY_ULPS = {"f64": 4, "f32": 4, "bf16": 1}


def elementwise(name: str, args: list[Val]) -> Val:
    """``name`` (an operator or function of FLOAT_FUNCTIONS / INT_FUNCTIONS, or ``/``) of
    tensors of one element type, broadcast as NumPy broadcasts."""
    dtype = args[0].dtype
    with np.errstate(all="ignore"):
        if dtype in FLOATS:
            return float_map(*FLOAT_FUNCTIONS[name], args, dtype)
        if name == "/":
            return int_divide(*args)
        v = INT_FUNCTIONS[name](*[a.v for a in args]).astype(NUMPY[dtype])
        return Val(v, uncertain_where(args, v.shape), dtype)


def uncertain_where(args: list[Val], shape) -> np.ndarray:
    """An integer result's bound: unknown wherever an input is not exact."""
    e = sum(np.broadcast_to(a.e, shape) for a in args)
    return np.where(e > 0, np.inf, 0.0)


def float_map(f, correctly_rounded: bool, args: list[Val], dtype: str) -> Val:
    """``f`` of float tensors as the compiled code computes it: in the compute type, then
    rounded to ``dtype``; bounded by ``f``'s spread over its inputs' bounds."""
    r = np.asarray(f(*[a.v.astype(COMPUTE[dtype]) for a in args])).astype(NUMPY[dtype])
    inputs_exact = sum(np.broadcast_to(a.e, r.shape) for a in args) == 0
    spread = corner_spread(f, args, r)
    slack = ulp(r, dtype) * np.where(inputs_exact, 0 if correctly_rounded else LIBRARY_ULPS[dtype], 2)
    e = np.where(inputs_exact & correctly_rounded, 0.0, spread + slack)
    e = np.where(np.isnan(e) | (np.isnan(r.astype(np.float64)) & (e > 0)), np.inf, e)
    return Val(r, e, dtype)


def corner_spread(f, args: list[Val], r: np.ndarray) -> np.ndarray:
    """How far ``f`` (in f64) moves from ``r`` when each input moves to either end of its
    bound: the bound of a function that is monotonic over such small intervals."""
    ends = [[a.wide()] if not a.e.any() else [a.wide() - a.e, a.wide() + a.e] for a in args]
    wide_r = r.astype(np.float64)
    spread = np.zeros(r.shape)
    for corner in itertools.product(*ends):
        spread = np.maximum(spread, np.abs(np.asarray(f(*corner), dtype=np.float64) - wide_r))
    return spread


def trunc_divide(x: int, y: int) -> int:
    """C's integer division: the quotient truncated toward zero."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def int_divide(a: Val, b: Val) -> Val:
    """Integer ``/``: truncating toward zero, wrapping (``MIN / -1`` is ``MIN``); a zero
    divisor stops the program."""
    if not b.certain():
        raise Unusable("an uncertain integer divisor")
    x, y = np.broadcast_arrays(a.v, b.v)
    if (y == 0).any():
        raise Abort("mg.div: integer division by zero")
    q = np.array([trunc_divide(int(p), int(d)) for p, d in zip(x.ravel(), y.ravel())], dtype=object)
    v = wrap(q.reshape(x.shape), a.dtype)
    return Val(v, uncertain_where([a, b], v.shape), a.dtype)


def compare(op: str, a: Val, b: Val) -> Val:
    """``a op b``, an i1 tensor; unknown where the two are closer than their bounds."""
    with np.errstate(all="ignore"):
        v = COMPARISONS[op](a.v, b.v)
        margin = a.e + b.e
        close = np.abs(a.wide() - b.wide()) <= margin
    return Val(v, np.where((margin > 0) & close | np.isnan(margin), np.inf, 0.0), "i1")


def where(mask: Val, a: Val, b: Val) -> Val:
    v = np.where(mask.v, a.v, b.v).astype(NUMPY[a.dtype])
    e = np.where(mask.e > 0, np.inf, np.where(mask.v, a.e, b.e))
    return Val(v, np.broadcast_to(e, v.shape).copy(), a.dtype)


# -- casts -----------------------------------------------------------------------------------


def cast(x: Val, to: str) -> Val:
    """``cast(x, to)``: floats round to nearest; float to integer truncates toward zero and
    saturates; to i1 is ``!= 0``; from i1, 0 and 1."""
    if x.dtype == to:
        return x
    if to == "i1":
        with np.errstate(invalid="ignore"):
            near_zero = np.abs(x.wide()) <= x.e
        return Val(x.v != 0, np.where((x.e > 0) & near_zero, np.inf, 0.0), "i1")
    if x.dtype == "i1":
        return Val(x.v.astype(NUMPY[to]), x.e.copy(), to)
    if to in INTS and x.dtype in INTS:
        return Val(wrap(x.v.astype(object), to), x.e.copy(), to)
    if to in INTS:
        return float_to_int(x, to)
    return to_float(x, to)


def saturate(value: float, to: str) -> int:
    low, high = INT_RANGE[to]
    return (
        0
        if np.isnan(value)
        else int(min(max(np.trunc(value), low), high))
        if np.isfinite(value)
        else (high if value > 0 else low)
    )


def float_to_int(x: Val, to: str) -> Val:
    wide = x.wide().ravel()
    v = np.array([saturate(w, to) for w in wide], dtype=object).astype(NUMPY[to]).reshape(x.shape)
    lo = np.array([saturate(w, to) for w in wide - x.e.ravel()]).reshape(x.shape)
    hi = np.array([saturate(w, to) for w in wide + x.e.ravel()]).reshape(x.shape)
    return Val(v, np.where(lo != hi, np.inf, 0.0), to)


def to_float(x: Val, to: str) -> Val:
    """A float or integer tensor converted to a float type, rounding to nearest."""
    v = (
        x.v.astype(NUMPY[to])
        if x.dtype not in INTS
        else np.array([float(i) for i in x.v.ravel()], dtype=np.float64).astype(NUMPY[to]).reshape(x.shape)
    )
    if x.dtype in INTS:
        changed = (
            np.array(
                [int(a) != int(b) for a, b in zip(v.astype(np.float64).ravel().tolist(), x.v.ravel())], dtype=bool
            ).reshape(x.shape)
            if x.v.size
            else np.zeros(x.shape, bool)
        )
    else:
        changed = v.astype(np.float64) != x.wide()
    changed = changed & ~np.isnan(x.wide())
    e = np.where(changed | (x.e > 0), x.e + ulp(v, to), 0.0)
    return Val(v, e, to)


# -- exactness of sums and products in any order -------------------------------------------------


def _mantissa(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each element: the exponent of its lowest set bit, and its number of significant
    bits (from the highest set bit to the lowest); zeros give (large, 0)."""
    m, e = np.frexp(np.where(np.isfinite(x), np.abs(x), 0.0))
    whole = (m * 2.0**53).astype(np.int64)
    low = np.where(whole == 0, 0, np.log2(np.where(whole == 0, 1, whole & -whole))).astype(np.int64)
    bits = np.where(whole == 0, 0, 53 - low)
    lsb = np.where(whole == 0, 10**6, e.astype(np.int64) - 53 + low)
    return lsb, bits


def sum_exact(terms: np.ndarray, precision: int) -> np.ndarray:
    """Whether the terms (f64, reduced along the last axis) add up exactly in every order:
    each is a multiple of the smallest one's last bit ``g``, and so is every partial sum,
    which is at most the sum of the magnitudes: exact if that is below ``2^precision * g``."""
    with np.errstate(all="ignore"):
        lsb, _ = _mantissa(terms)
        g = lsb.min(axis=-1)
        total = np.abs(terms).sum(axis=-1)
        return (total == 0) | (total < np.ldexp(1.0, np.minimum(precision + g, 1000)))


def product_exact(terms: np.ndarray, precision: int) -> np.ndarray:
    """Whether the terms multiply exactly in every order: their significant bits together
    fit, or one of them is zero."""
    _, bits = _mantissa(terms)
    return (bits.sum(axis=-1) <= precision) | (terms == 0).any(axis=-1)


def accumulate_bound(exact_mask: np.ndarray, count: int, magnitude: np.ndarray, dtype: str) -> np.ndarray:
    """Rounding of a sum of ``count`` terms of total ``magnitude``, in any two orders."""
    u = np.ldexp(1.0, -PRECISION["f32" if dtype == "bf16" else dtype] + 1)
    return np.where(exact_mask, 0.0, 2 * count * u * magnitude)


def round_bound(y: np.ndarray, bound: np.ndarray, dtype: str) -> Val:
    """An accumulated value ``y`` (compute type) with its bound, stored as ``dtype``: bf16
    rounds, and the bound grows to cover where either end of the interval rounds to."""
    r = y.astype(NUMPY[dtype])
    if COMPUTE[dtype] == NUMPY[dtype]:
        return Val(r, np.where(np.isnan(bound), np.inf, bound), dtype)
    with np.errstate(all="ignore"):
        wide, wr = y.astype(np.float64), r.astype(np.float64)
        ends = [(wide + s * bound).astype(NUMPY[dtype]).astype(np.float64) for s in (-1, 1)]
        e = np.where(bound > 0, np.maximum(np.abs(ends[0] - wr), np.abs(ends[1] - wr)), 0.0)
    return Val(r, np.where(np.isnan(e), np.inf, e), dtype)


# -- reductions ------------------------------------------------------------------------------


def reduce(kind: str, x: Val, axes: list[int], keepdims: bool) -> Val:
    """``sum prod max min mean`` of ``x`` along ``axes`` (normalised), left to right in
    row-major order over them."""
    rank = x.v.ndim
    kept = [d for d in range(rank) if d not in axes]
    out_shape = (
        tuple(1 if d in axes else x.shape[d] for d in range(rank)) if keepdims else tuple(x.shape[d] for d in kept)
    )
    count = int(np.prod([x.shape[d] for d in axes]))
    terms = x.map(lambda a: np.transpose(a, kept + list(axes)).reshape(*[x.shape[d] for d in kept], count))
    with np.errstate(all="ignore"):
        r = (reduce_float if x.dtype in FLOATS else reduce_int)(kind, terms, count)
    return Val(r.v.reshape(out_shape), r.e.reshape(out_shape), x.dtype)


def reduce_int(kind: str, t: Val, count: int) -> Val:
    f = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]
    v = np.asarray(f(t.v, axis=-1, **({"dtype": t.v.dtype} if kind in ("sum", "prod") else {})))
    return Val(v, np.where((t.e > 0).any(axis=-1), np.inf, 0.0), t.dtype)


def reduce_float(kind: str, t: Val, count: int) -> Val:
    ct, wide, e = COMPUTE[t.dtype], t.wide(), t.e
    if kind in ("max", "min"):
        step = np.maximum if kind == "max" else np.minimum
        acc = t.v[..., 0].astype(ct)
        for k in range(1, count):
            acc = step(acc, t.v[..., k].astype(ct))
        return Val(acc.astype(NUMPY[t.dtype]), e.max(axis=-1), t.dtype)
    if kind == "prod":
        acc = np.ones(t.shape[:-1], ct)
        for k in range(count):
            acc = acc * t.v[..., k].astype(ct)
        reach = np.prod(np.abs(wide) + e, axis=-1)
        exact_mask = product_exact(wide, PRECISION["f32" if t.dtype == "bf16" else t.dtype]) & (e == 0).all(axis=-1)
        bound = reach - np.abs(np.prod(wide, axis=-1)) + accumulate_bound(exact_mask, count, reach, t.dtype)
        return round_bound(acc, bound, t.dtype)
    acc = np.zeros(t.shape[:-1], ct)
    for k in range(count):
        acc = acc + t.v[..., k].astype(ct)
    exact_mask = sum_exact(wide, PRECISION["f32" if t.dtype == "bf16" else t.dtype]) & (e == 0).all(axis=-1)
    bound = e.sum(axis=-1) + accumulate_bound(exact_mask, count, (np.abs(wide) + e).sum(axis=-1), t.dtype)
    if kind == "mean":
        acc = acc / ct(count)
        bound = bound / count + np.where(bound > 0, ulp(acc, t.dtype), 0.0)
    return round_bound(acc, bound, t.dtype)


def matmul(a: Val, b: Val) -> Val:
    """``a @ b``: the last two axes multiply (``k`` ascending), the leading ones broadcast."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = a.map(lambda x: np.broadcast_to(x, (*batch, *a.shape[-2:])))
    b = b.map(lambda x: np.broadcast_to(x, (*batch, *b.shape[-2:])))
    if a.dtype in INTS:  # (wrapping sums of products: the same in any order)
        unknown = (a.e > 0).any(axis=-1)[..., :, None] | (b.e > 0).any(axis=-2)[..., None, :]
        return Val(np.matmul(a.v, b.v), np.where(unknown, np.inf, 0.0), a.dtype)
    ct, K = COMPUTE[a.dtype], a.shape[-1]
    with np.errstate(all="ignore"):
        acc = np.zeros((*batch, a.shape[-2], b.shape[-1]), ct)
        for k in range(K):
            acc = acc + a.v[..., :, k : k + 1].astype(ct) * b.v[..., k : k + 1, :].astype(ct)
        aw, bw = a.wide()[..., :, :, None], b.wide()[..., None, :, :]  # (..., M, K, N)
        ae, be = a.e[..., :, :, None], b.e[..., None, :, :]
        products = np.moveaxis(aw * bw, -2, -1)  # (..., M, N, K)
        precision = PRECISION["f32" if a.dtype == "bf16" else a.dtype]
        _, abits = _mantissa(aw)
        _, bbits = _mantissa(bw)
        exact_products = (np.moveaxis(abits + bbits, -2, -1) <= precision).all(axis=-1)
        exact_mask = exact_products & sum_exact(products, precision) & (np.moveaxis(ae + be, -2, -1) == 0).all(axis=-1)
        reach = ((np.abs(aw) + ae) * (np.abs(bw) + be)).sum(axis=-2)
        bound = reach - np.abs(products).sum(axis=-1) + accumulate_bound(exact_mask, K, reach, a.dtype)
    return round_bound(acc, bound, a.dtype)


# -- scans -----------------------------------------------------------------------------------


def linear_scan(a: Val, b: Val, axis: int, reverse: bool) -> Val:
    """``h[t] = a[t] * h[t-1] + b[t]`` from ``h = 0`` along ``axis``, carried in the compute
    type (bf16 in f32, each output rounded once)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = (x.map(lambda v: np.moveaxis(np.broadcast_to(v, shape), axis, 0)) for x in (a, b))
    ct, dtype = COMPUTE[b.dtype], b.dtype
    h, eh = np.zeros(shape[:axis] + shape[axis + 1 :], ct), np.zeros(shape[:axis] + shape[axis + 1 :])
    out, bounds = np.empty(b.shape, NUMPY[dtype]), np.empty(b.shape)
    steps = range(b.shape[0])
    with np.errstate(all="ignore"):
        for t in reversed(steps) if reverse else steps:
            at, bt = a.v[t].astype(ct), b.v[t].astype(ct)
            new = at * h + bt
            eh = np.abs(a.wide()[t]) * eh + a.e[t] * (np.abs(h.astype(np.float64)) + eh) + b.e[t]
            eh = eh + np.where(eh > 0, 2 * ulp(np.abs(at * h) + np.abs(new), "f32" if dtype == "bf16" else dtype), 0)
            h = new
            stored = round_bound(h, eh, dtype)
            out[t], bounds[t] = stored.v, stored.e
    return Val(np.moveaxis(out, 0, axis), np.moveaxis(bounds, 0, axis), dtype)


def cumsum(x: Val, axis: int) -> Val:
    """The running sum along ``axis`` (integers wrap): a linear scan with ``a = 1``."""
    if x.dtype in INTS:
        v = np.cumsum(x.v, axis=axis, dtype=x.v.dtype)
        return Val(v, np.where(np.cumsum(x.e, axis=axis) > 0, np.inf, 0.0), x.dtype)
    return linear_scan(exact(1.0, x.dtype), x, axis, False)


# -- indexing --------------------------------------------------------------------------------


def certain_ids(ids: Val) -> np.ndarray:
    if not ids.certain():
        raise Unusable("uncertain ids")
    return ids.v.astype(np.int64)


def index(table: Val, ids: Val) -> Val:
    """``table[ids]``: the rows that ``ids`` name."""
    i = certain_ids(ids)
    rows = table.shape[0]
    for bad in i.ravel():
        if not 0 <= bad < rows:
            raise Abort(f"mg.index: id {bad} is out of range for {rows} rows (0 to {rows - 1})")
    return table.take(i)


def gather(x: Val, idx: Val, axis: int) -> Val:
    """``np.take_along_axis(x, idx, axis)``."""
    i = certain_ids(idx)
    n = x.shape[axis]
    for bad in i.ravel():
        if not 0 <= bad < n:
            raise Abort(f"mg.gather: index {bad} is out of range for {n} positions along axis {axis} (0 to {n - 1})")
    off_axis = [d for d in range(x.v.ndim) if d != axis]
    if any(x.shape[d] != idx.shape[d] for d in off_axis):
        raise Abort("mg.gather: sizes differ at runtime")
    return x.map(lambda a: np.take_along_axis(a, i, axis))


def add_at(base: Val, places: list[tuple], values: Val) -> Val:
    """``base`` with ``values`` (flattened, in order) added at ``places``, one add at a time
    in the compute type and rounded to the element type after each (bf16 as np.add.at on
    bf16 does)."""
    v, e = base.v.copy(), base.e.copy()
    flat_v, flat_e = values.v.ravel(), values.e.ravel()
    ct = COMPUTE.get(base.dtype, NUMPY[base.dtype])
    with np.errstate(all="ignore"):
        for place, add, bound in zip(places, flat_v, flat_e):
            v[place] = np.asarray(np.asarray(v[place]).astype(ct) + np.asarray(add).astype(ct)).astype(
                NUMPY[base.dtype]
            )
            e[place] = e[place] + bound
    if base.dtype in INTS:
        return Val(v, np.where(e > 0, np.inf, 0.0), base.dtype)
    slack = len(places) * ulp(np.abs(base.wide()) + np.abs(values.wide()).sum(), base.dtype)
    return Val(v, np.where(e > 0, e + slack, 0.0), base.dtype)


def index_add(base: Val, ids: Val, values: Val) -> Val:
    """``base`` with each row of ``values`` added at the row its id names (``np.add.at``)."""
    index(base, ids)  # (the same range check)
    i = certain_ids(ids)
    rows = values.v.reshape(i.size, *base.shape[1:])
    row_vals = Val(rows, values.e.reshape(rows.shape), values.dtype)
    places = [(int(r),) for r in i.ravel()]
    return add_rows(base, places, row_vals)


def add_rows(base: Val, places: list[tuple], rows: Val) -> Val:
    """``add_at`` for whole rows: each row of ``rows`` added element by element."""
    out = base
    for place, k in zip(places, range(rows.shape[0])):
        row = rows.take(k)
        row_places = [place + tuple(p) for p in np.ndindex(row.shape)] or [place]
        out = add_at(out, row_places, row)
    return out


def scatter_add(base: Val, idx: Val, values: Val, axis: int) -> Val:
    """``values`` added at the places ``gather(base, idx, axis)`` reads."""
    gather(base, idx, axis)  # (the same checks)
    i = certain_ids(idx)
    places = []
    for position in np.ndindex(i.shape):
        place = list(position)
        place[axis] = int(i[position])
        places.append(tuple(place))
    return add_at(base, places, values)


# -- shapes ----------------------------------------------------------------------------------


def slice_(x: Val, axis: int, start: int, stop: int) -> Val:
    if stop > x.shape[axis]:
        raise Abort(f"mg.slice: stop {stop} is beyond the size of dimension {axis}")
    index_ = [slice(None)] * x.v.ndim
    index_[axis] = slice(start, stop)
    return x.take(tuple(index_))


def element(x: Val, indices: list[int]) -> Val:
    """``x[i, j]``: a rank-0 tensor; an index out of a ``?`` size's range stops the program."""
    for d, (i, size) in enumerate(zip(indices, x.shape)):
        if not -size <= i < size:
            raise Abort(f"mg.extract: index {i} is out of range for dimension {d}")
    return x.take(tuple(indices))


def concat(axis: int, items: list[Val]) -> Val:
    first = items[0]
    for item in items[1:]:
        if any(a != b for d, (a, b) in enumerate(zip(first.shape, item.shape)) if d != axis):
            raise Abort("mg.concat: sizes differ at runtime")
    return Val(np.concatenate([i.v for i in items], axis), np.concatenate([i.e for i in items], axis), first.dtype)


def iota(shape: list[int], axis: int, dtype: str) -> Val:
    ramp = np.arange(shape[axis]).reshape([-1 if d == axis else 1 for d in range(len(shape))])
    return exact(np.broadcast_to(ramp, shape), dtype)


def full(shape, value, dtype: str) -> Val:
    return exact(np.full(shape, int(value) if dtype in INTS else value), dtype)
