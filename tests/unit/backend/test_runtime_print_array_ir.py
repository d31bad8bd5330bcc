"""println of a whole tensor (``runtime_print_array_ir``): ``mgrt_println_array_T`` called
directly on memref descriptors built from NumPy arrays (strided views too), the line ended with
``mgrt_println_end``, must print ``str(array)`` byte for byte, as NumPy 2 prints it with its
default options: every element type, ranks 1 to 4, empty and summarised arrays, wrapped rows,
both float forms, non-finite values, and a seeded sweep of random arrays."""

import ctypes

import ml_dtypes
import numpy as np
import pytest

from mg_xdsl.backend import runtime
from mg_xdsl.backend.jit import Engine

TYPES = {
    "f64": np.float64,
    "f32": np.float32,
    "bf16": ml_dtypes.bfloat16,
    "i64": np.int64,
    "i32": np.int32,
    "i1": np.bool_,
}

# Entry points under names of this test's own, so that the JIT keeps the library's functions.
_CALLERS = "".join(
    f"""
declare void @mgrt_println_array_{t}(i64, ptr)

define void @print_{t}(i64 %rank, ptr %d) {{
  call void @mgrt_println_array_{t}(i64 %rank, ptr %d)
  ret void
}}
"""
    for t in TYPES
) + (
    """
declare void @mgrt_println_end()

define void @end() {
  call void @mgrt_println_end()
  ret void
}
"""
)

_PRINT = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(_CALLERS, level=1)


def expected(a: np.ndarray) -> str:
    if a.dtype == ml_dtypes.bfloat16:
        a = a.astype(np.float32)
    return str(a) + "\n"


def printed(engine: Engine, a: np.ndarray, base: np.ndarray | None = None) -> str:
    """What ``mgrt_println_array_T`` prints of ``a`` (a view of ``base``, if given: the
    descriptor then points at ``base``'s data with an offset)."""
    t = next(name for name, dtype in TYPES.items() if a.dtype == dtype)
    item = a.itemsize
    start = a.__array_interface__["data"][0]
    origin = start if base is None else base.__array_interface__["data"][0]
    words = [origin, origin, (start - origin) // item, *a.shape, *(s // item for s in a.strides)]
    descriptor = (ctypes.c_int64 * len(words))(*words)
    with runtime.capture() as out:
        _PRINT(engine.address(f"print_{t}"))(a.ndim, ctypes.addressof(descriptor))
        ctypes.CFUNCTYPE(None)(engine.address("end"))()
    return out.getvalue()


def check(engine: Engine, a: np.ndarray, base: np.ndarray | None = None) -> None:
    assert printed(engine, a, base) == expected(a), f"{a.dtype} {a.shape}"


def make(values, t: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.array(values, dtype=np.float64).astype(TYPES[t]) if t != "i1" else np.array(values, dtype=np.bool_)


FLOAT_CASES = {
    "simple": [1.5, -2.0, 0.25, 3.0],
    "whole": [1.0, 2.0, -3.0],
    "thirds": [0.1, 1 / 3, 2 / 3, 0.2],
    "tiny": [1e-5, 1.0, 2.0],
    "huge": [1e9, 1.0],
    "ratio": [1.0, 1001.0],
    "ratio_exact": [1.0, 1000.0],
    "big_exponent": [1e-100, 1.0, 1e100],
    "specials": [np.nan, np.inf, -np.inf, 1.5, -0.0],
    "only_specials": [np.nan, -np.inf, np.inf],
    "only_nan": [np.nan, np.nan],
    "specials_exp": [np.nan, 1e-7, -np.inf],
    "negative_zero": [-0.0, 0.0, 1.0],
    "zeros": [0.0, 0.0],
    "just_below_1e8": [99999999.0, 0.5],
    "edge_1e-4": [1e-4, 0.5],
    "f32_edge": [999999.9, 1e6],
    "many_digits": [123456.789, 0.000123, 7.0],
    "subnormal": [5e-324, 1.0],
    "largest": [1.7976931348623157e308, -1.0],
    # float32 powers of two where Dragon4 rounds up to the only unique digits (2**-96, 2**87)
    "powers_of_two": [2.0**-96, 2.0**87, 2.0**90, 1.5],
}


@pytest.mark.parametrize("t", ["f64", "f32", "bf16"])
@pytest.mark.parametrize("case", list(FLOAT_CASES))
def test_floats(engine: Engine, t: str, case: str) -> None:
    check(engine, make(FLOAT_CASES[case], t))


@pytest.mark.parametrize("t", ["i64", "i32"])
def test_integers(engine: Engine, t: str) -> None:
    info = np.iinfo(TYPES[t])
    for values in [[0], [1, 2, 3], [-1, 5, 10], [7, -100, 3], [info.min, info.max, 0], [info.max, 1], [-5]]:
        check(engine, np.array(values, dtype=TYPES[t]))


def test_booleans(engine: Engine) -> None:
    for values in [[True], [False], [True, False, True], [False] * 40]:
        check(engine, np.array(values))
    check(engine, np.arange(24).reshape(2, 3, 4) % 3 == 0)


@pytest.mark.parametrize("t", list(TYPES))
@pytest.mark.parametrize(
    "shape",
    [(1,), (5,), (0,), (3, 0), (0, 2, 2), (1, 1), (2, 3), (2, 3, 4), (2, 1, 3, 2), (1, 1, 1, 1)],
)
def test_shapes(engine: Engine, t: str, shape: tuple[int, ...]) -> None:
    n = int(np.prod(shape))
    check(engine, make(np.arange(n).reshape(shape) * 1.25 - 3, t))


@pytest.mark.parametrize("t", list(TYPES))
@pytest.mark.parametrize("shape", [(2000,), (1000, 2), (3, 400), (7, 7, 30), (1001,), (2, 501), (8, 8, 8, 8)])
def test_summarised(engine: Engine, t: str, shape: tuple[int, ...]) -> None:
    """More than 1000 elements: the axes longer than 6 show 3 and 3, the widths only theirs."""
    n = int(np.prod(shape))
    values = np.arange(n, dtype=np.float64).reshape(shape)
    values.flat[n // 2] = 1e12  # hidden: must not widen the shown elements
    check(engine, make(values * 0.5 - 7, t))


@pytest.mark.parametrize("t", list(TYPES))
def test_long_rows_wrap(engine: Engine, t: str) -> None:
    rng = np.random.default_rng(5)
    for shape in [(40,), (3, 30), (2, 2, 25), (100,), (2, 2, 2, 20)]:
        check(engine, make(rng.standard_normal(shape) * 100, t))
    check(engine, make(np.full((3, 30), 1e-5), t))


@pytest.mark.parametrize("t", ["f64", "i32"])
def test_many_axes(engine: Engine, t: str) -> None:
    """Rank 32 (its rows wrap at 75 - 32), and 2**11 elements: summarised, though no axis is cut."""
    check(engine, make(np.arange(40.0).reshape((1,) * 31 + (40,)) - 20, t))
    check(engine, make(np.arange(2.0**11).reshape((2,) * 11) / 4, t))


def test_strided_views(engine: Engine) -> None:
    base = np.arange(60.0).reshape(6, 10) / 7
    for view in [base.T, base[::2], base[:, ::3], base[1:, ::-1], base[2], base[:, 4], base[1:5, 2:9:2]]:
        check(engine, view, base)
    row = np.arange(5, dtype=np.int32)
    check(engine, np.broadcast_to(row, (3, 5)), row)
    check(engine, np.broadcast_to(np.float32(2.5), (4, 3)))
    check(engine, np.broadcast_to(np.arange(3.0)[:, None], (3, 2000)))
    bits = np.arange(12).reshape(3, 4) % 2 == 1
    check(engine, bits.T, bits)


def random_values(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = int(rng.integers(0, 7))
    if kind == 0:
        pool = [0.1, 1 / 3, 2 / 3, 0.5, 1.0, 10.0, 1e-5, 1e9, 123456.789, 0.0, -0.0, np.nan, np.inf, -np.inf]
        return rng.choice(pool, n)
    if kind == 1:
        return rng.standard_normal(n) * 10.0 ** int(rng.integers(-12, 12))
    if kind == 2:
        return np.round(rng.standard_normal(n) * 1000, int(rng.integers(0, 6)))
    if kind == 3:
        return rng.uniform(0, 1, n) * 10.0 ** rng.integers(-40, 40, n)
    if kind == 4:
        return rng.integers(-1000, 1000, n) / rng.integers(1, 1000, n)
    if kind == 5:
        return rng.integers(-(2**40), 2**40, n) * (rng.integers(0, 2, n) * 2.0 - 1)
    return np.ldexp(1.0, rng.integers(-140, 120, n)) * rng.choice([-1.0, 1.0], n)


def test_random_sweep(engine: Engine) -> None:
    rng = np.random.default_rng(20240611)
    for _ in range(400):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(s) for s in rng.integers(1, [40, 12, 8, 6][rank - 1] + 1, rank))
        if rng.random() < 0.05:
            shape = (*shape[:-1], 1200)
        t = str(rng.choice(list(TYPES)))
        if t in ("i64", "i32"):
            info = np.iinfo(TYPES[t])
            high = min(int(info.max), 10 ** int(rng.integers(1, 20)))
            low = -high if rng.random() < 0.7 else 0
            a = rng.integers(low, high, shape, dtype=TYPES[t], endpoint=True)
        else:
            a = make(random_values(rng, int(np.prod(shape))).reshape(shape), t)
        if rng.random() < 0.2 and a.ndim >= 2:
            a = a.T
        check(engine, np.ascontiguousarray(a) if rng.random() < 0.5 else a)
