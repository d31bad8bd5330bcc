"""Element types, and the reference's values: a NumPy array with a bound on its error.

The compiled code and NumPy compute ``+ - * /`` and ``sqrt`` the same way (IEEE, correctly
rounded, in the same type and order), so where a value is computed only from those, from
exact inputs, the reference has the compiled code's exact bits. Elsewhere they may differ
a little: math functions come from different libraries (NumPy's or the C library's), and
the optimised pipeline sums and multiplies matrices in another order. A ``Val`` therefore
carries, per element, a bound ``e`` on how far the compiled value may be from the
reference's ``v``: 0 where the bits must agree, ``inf`` where nothing is known (a
comparison of two values closer than their bounds: either answer is right). The checks
compare within that bound and the printer's 6 significant digits, so an inexact value is
never a false alarm and an exact one is checked to the last printed digit.
"""

from dataclasses import dataclass

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16
NUMPY = {"f64": np.float64, "f32": np.float32, "bf16": BF16, "i32": np.int32, "i64": np.int64, "i1": np.bool_}
FLOATS = ("f64", "f32", "bf16")
INTS = ("i32", "i64")
DTYPES = (*FLOATS, *INTS, "i1")
# The type each float type computes in: bf16 is stored as 16 bits and computed in f32.
COMPUTE = {"f64": np.float64, "f32": np.float32, "bf16": np.float32}
# Significand bits (the implicit one included) and smallest normal exponent (frexp's).
PRECISION = {"f64": 53, "f32": 24, "bf16": 8}
MIN_EXPONENT = {"f64": -1021, "f32": -125, "bf16": -125}
INT_RANGE = {"i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1), "i1": (0, 1)}


def is_float(dtype: str) -> bool:
    return dtype in FLOATS


def ulp(x: np.ndarray, dtype: str) -> np.ndarray:
    """The distance between ``|x|`` and the next larger number of ``dtype``, as f64 (the
    smallest normal's for zero and subnormals)."""
    _, exponent = np.frexp(np.abs(np.asarray(x, dtype=np.float64)))
    return np.ldexp(1.0, np.maximum(exponent, MIN_EXPONENT[dtype]) - PRECISION[dtype])


@dataclass
class Val:
    """A tensor of the reference: values ``v`` (the element type's NumPy dtype, any rank; a
    0-d array for rank 0) and ``e`` (float64, ``v``'s shape): a bound on how far the
    compiled code's value may be from ``v``, per element (0: the same bits; ``inf``:
    unknown, not compared)."""

    v: np.ndarray
    e: np.ndarray
    dtype: str

    @property
    def shape(self) -> tuple[int, ...]:
        return self.v.shape

    def wide(self) -> np.ndarray:
        """The values as float64 (exact for every type but i64 beyond 2^53)."""
        return self.v.astype(np.float64)

    def certain(self) -> bool:
        """Every element known exactly (for values used as ids, divisors, sizes)."""
        return not self.e.any()

    def take(self, index) -> "Val":
        """``self[index]`` (NumPy's indexing), bounds moved with the values."""
        return Val(np.asarray(self.v[index]), np.asarray(self.e[index]), self.dtype)

    def map(self, f) -> "Val":
        """A rearrangement of the elements (a transpose, a reshape...) applied to both arrays."""
        return Val(np.asarray(f(self.v)), np.asarray(f(self.e)), self.dtype)


def exact(values, dtype: str) -> Val:
    """A ``Val`` known exactly: ``values`` converted to ``dtype`` (which must hold them)."""
    v = to_dtype(values, dtype)
    return Val(v, np.zeros(v.shape), dtype)


def to_dtype(values, dtype: str) -> np.ndarray:
    """``values`` as an array of ``dtype``; Python integers beyond f64's 2^53 stay exact."""
    if dtype in INTS:
        return (
            np.array(values, dtype=object).astype(NUMPY[dtype])
            if np.ndim(values)
            else np.array(int(values), dtype=NUMPY[dtype])
        )
    return np.asarray(values, dtype=np.float64).astype(NUMPY[dtype])


def wrap(values: np.ndarray, dtype: str) -> np.ndarray:
    """Python (or object) integers wrapped into ``dtype``'s two's complement range."""
    bits = 32 if dtype == "i32" else 64
    flat = [((int(x) + 2 ** (bits - 1)) % 2**bits) - 2 ** (bits - 1) for x in np.ravel(values)]
    return np.array(flat, dtype=object).astype(NUMPY[dtype]).reshape(np.shape(values))


def format_number(x) -> str:
    """A number as the language reads it: ``3``, ``-2.5``, ``9223372036854775000``."""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def format_literal(values: np.ndarray) -> str:
    """A NumPy array as a literal: nested brackets, or one number for rank 0."""
    if values.ndim == 0:
        item = values.item()
        return format_number(item)
    return "[" + ", ".join(format_literal(np.asarray(row)) for row in values) + "]"
