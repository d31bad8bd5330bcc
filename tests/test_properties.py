"""Property tests: random Part A programs, compiled and run natively, agree with NumPy.

The generator and the reference evaluator are in programs.py. The reference sums in the
language's order, so the only allowed difference is the printer's 6 significant digits.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings

from conftest import run_in_process
from programs import parse_printed, program


def agree(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    same_special = (np.isnan(got) == np.isnan(want)).all() and (
        np.isinf(got) == np.isinf(want)).all()
    finite = np.isfinite(want)
    return bool(same_special and np.allclose(got[finite], want[finite], rtol=6e-6, atol=0)
                and (got[np.isinf(want)] == want[np.isinf(want)]).all())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_random_programs_agree_with_numpy(case):
    source, want = case
    printed = run_in_process(source)
    (got,) = parse_printed(printed)
    assert agree(got, want), f"{source}\nprinted:\n{printed}\nNumPy:\n{want}"
