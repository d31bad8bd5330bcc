"""Property tests: random Part A programs, compiled and run natively, agree with NumPy.

The generator and the reference evaluator are in programs.py. The reference sums in the
language's order, so the only allowed difference is the printer's 6 significant digits.
"""

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_in_process
from programs import dynamic_program, parse_printed, program


def agree(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    same_special = (np.isnan(got) == np.isnan(want)).all() and (
        np.isinf(got) == np.isinf(want)).all()
    finite = np.isfinite(want)
    return bool(same_special and np.allclose(got[finite], want[finite], rtol=6e-6, atol=0)
                and (got[np.isinf(want)] == want[np.isinf(want)]).all())


# The mutation run (tests/mutation/run.py) asks for fewer examples.
EXAMPLES = int(os.environ.get("MG_PROPERTY_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_random_programs_agree_with_numpy(case):
    source, want = case
    printed = run_in_process(source)
    (got,) = parse_printed(printed)
    assert agree(got, want), f"{source}\nprinted:\n{printed}\nNumPy:\n{want}"


@settings(max_examples=min(60, EXAMPLES), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_program(), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=4),
       st.integers(0, 2**32 - 1))
def test_dynamic_programs_at_several_sizes(case, sizes, seed):
    """One compiled ``?x?`` function, called at several sizes, agrees with NumPy each time,
    and raises the run-time check's message when the two arguments' sizes differ."""
    import mg_xdsl
    from mg_xdsl.api import RuntimeCheckFailed

    source, body = case
    f = mg_xdsl.compile(source).f
    rng = np.random.default_rng(seed)
    for m, n in sizes:
        a = rng.integers(-4, 5, size=(m, n)) / 2
        b = rng.integers(-4, 5, size=(m, n)) / 2
        want = body.eval({"a": a, "b": b})
        got = f(a, b)
        assert agree(got, want), f"{source} at {m}x{n}:\n{got}\nNumPy:\n{want}"
    m, n = sizes[0]
    try:
        f(np.ones((m, n)), np.ones((m + 1, n + 1)))
    except RuntimeCheckFailed as e:
        assert str(e).startswith("mg.") and "at runtime" in str(e), str(e)
    else:
        raise AssertionError(f"{source}: sizes {m}x{n} and {m + 1}x{n + 1} were accepted")


def test_mismatch_aborts_mgc_run_with_the_message(tmp_path):
    from conftest import mgc

    prog = tmp_path / "p.mg"
    prog.write_text("def f(a: tensor[?x?], b: tensor[?x?]) = a @ b\n"
                    "print f([[1, 2]], [[3], [4]])\n"
                    "print f([[1, 2]], [[3, 4]])\n")
    p = mgc("run", str(prog))
    assert p.returncode in (134, -6)
    assert p.stdout.decode().endswith("[[11]]\n")
    assert p.stderr.decode() == ("mg.matmul: inner dimensions differ at runtime "
                                 "(columns of the left operand, rows of the right)\n")
