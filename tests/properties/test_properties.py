"""Property tests: random Part A programs, compiled and run natively, agree with NumPy.

The generator and the reference evaluator are in programs.py. The reference sums in the
language's order, so the only allowed difference is the printer's 6 significant digits.
"""

import os

import numpy as np
from conftest import mask, mgc, run_forked, run_in_process
from helpers.programs import dynamic_program, mixed_program, parse_printed, program
from hypothesis import HealthCheck, given, settings, strategies as st


def agree(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    same_special = (np.isnan(got) == np.isnan(want)).all() and (np.isinf(got) == np.isinf(want)).all()
    finite = np.isfinite(want)
    return bool(
        same_special
        and np.allclose(got[finite], want[finite], rtol=6e-6, atol=0)
        and (got[np.isinf(want)] == want[np.isinf(want)]).all()
    )


# The mutation run (tests/mutation/run.py) asks for fewer examples.
EXAMPLES = int(os.environ.get("MG_PROPERTY_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_random_programs_agree_with_numpy(case):
    source, want = case
    printed = run_in_process(source)
    (got,) = parse_printed(printed)
    assert agree(got, want), f"{source}\nprinted:\n{printed}\nNumPy:\n{want}"


@settings(max_examples=min(40, EXAMPLES), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dynamic_program(),
    st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=4),
    st.integers(0, 2**32 - 1),
)
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
    prog.write_text(
        "def f(a: tensor[?x?], b: tensor[?x?]) = a @ b\nprint f([[1, 2]], [[3], [4]])\nprint f([[1, 2]], [[3, 4]])\n"
    )
    p = mgc("run", str(prog))
    assert p.returncode in (134, -6)
    assert p.stdout.decode().endswith("[[11]]\n")
    assert p.stderr.decode() == (
        "mg.matmul: inner dimensions differ at runtime "
        "(columns of the left operand, rows of the right)\n"
        f"  at {prog}:1: sizes 2 and 1\n"
    )


# Elementwise trees mixing `?`-shaped call results, broadcast literals on either side and
# numbers: what the fusion pass turns into one loop nest with run-time shape checks. They
# found a correct program that the optimised pipeline stopped with a false check failure
# (a fused check read the sizes of a broadcast 1x1 leaf instead of its operand's).


def agree_all(printed: str, want: list[np.ndarray]) -> bool:
    got = parse_printed(printed)
    return len(got) == len(want) and all(agree(g, w) for g, w in zip(got, want))


@settings(
    max_examples=min(120, EXAMPLES),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(mixed_program())
def test_mixed_trees_agree_in_both_pipelines(case):
    """Both pipelines print what NumPy computes and, where a `?` size meets a different one,
    stop after the same prints with the check's message (run in a forked child)."""
    source, want, message = case
    for optimise in (True, False):
        out, err, status = run_forked(source, optimise=optimise)
        where = f"optimise={optimise}\n{source}\nprinted:\n{out}\nstderr: {err}\nNumPy:\n{want}, then {message}"
        assert agree_all(out, want), where
        if message is None:
            assert status == 0 and err == "", where
        else:
            assert status == -6 and err.splitlines()[:1] == [message], where


def errors(stderr: bytes) -> list[str]:
    """stderr without compile-time warnings."""
    return [line for line in stderr.decode().splitlines() if ": warning: " not in line]


@settings(max_examples=min(12, EXAMPLES), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_program())
def test_mixed_trees_stop_where_the_reference_stops(tmp_path_factory, case):
    """``mgc run`` and ``mgc run --reference`` print the same matrices as NumPy, and where a
    `?` size meets a different one, stop after the same prints with the check's message."""
    source, want, message = case
    prog = tmp_path_factory.mktemp("mixed") / "p.mg"
    prog.write_text(source)
    for flags in ((), ("--reference",)):
        p = mgc("run", *flags, str(prog))
        where = (
            f"mgc run {' '.join(flags)}\n{source}\nstdout:\n{p.stdout.decode()}\n"
            f"stderr:\n{p.stderr.decode()}\nwant: {want}, then {message}"
        )
        assert agree_all(p.stdout.decode(), want), where
        if message is None:
            assert p.returncode == 0 and errors(p.stderr) == [], where
        else:
            assert p.returncode in (134, -6) and errors(p.stderr)[:1] == [message], where


def test_the_broadcast_leaf_that_aborted_falsely(tmp_path):
    """The smallest case found: the right operand of ``-`` is 1x3, its leftmost leaf 1x1."""
    prog = tmp_path / "p.mg"
    prog.write_text(
        "def c(x: tensor[?x?]) = x\n"
        "print c([[1, 2, 3]]) - ([[4]] + [[1, 2, 3]])\n"
        "print c([[1, 2, 3], [4, 5, 6]]) / ([[1], [2]] * [[1, 2, 3]])\n"
        "print c([[1, 2, 3, 4]]) - ([[4]] + [[1, 2, 3]])\n"
    )
    for flags in ((), ("--reference",)):
        p = mgc("run", *flags, str(prog))
        out = mask(p.stdout.decode())
        assert out.count("Unranked Memref") == 2, out
        assert "[[-4,   -4,   -4]]" in out and "[[1,   1,   1], \n [2,   1.25,   1]]" in out, out
        assert p.returncode in (134, -6)
        assert errors(p.stderr)[0] == "mg.sub: operand shapes differ at runtime in dimension 1"
