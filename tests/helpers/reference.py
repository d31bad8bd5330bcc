"""NumPy computing what the language computes, where NumPy's own operator differs, for the
tests that compare the two."""

import numpy as np


def divide(a, b):
    """The language's division: true division for floats; for integers C's, truncating
    toward zero (NumPy's ``//`` floors), wrapping ``MIN / -1`` to ``MIN``."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "fV":  # (bfloat16's kind is V)
        return a / b
    with np.errstate(over="ignore"):
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)
