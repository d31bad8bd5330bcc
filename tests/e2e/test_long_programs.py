"""Long programs: 10^4 statements and expressions of 10^4 terms compile and run, 1,500 of
each with the reference pipeline, and a def of 2,500 terms with '?' sizes through the Python
API. Every walk over the
program must be iterative (a left-associative chain of 10^4 additions is a tree 10^4 deep) and
every pass linear in the program's size. The results are checked against values computed here.

The reference pipeline makes a loop nest of each statement (no fusion), which its passes
lower at some 1.8 ms a statement: 10^4 of them took a minute and a half of CI each. Its own
passes walk flat lists of nests, and 1,500 levels still exceed Python's recursion limit
(1,000) in every walk the two pipelines share. The def's '?' sizes give each term a run-time
check: 10^4 of them took 40 s, where 2,500 are as deep for the walks."""

import numpy as np
import pytest
from conftest import mgc, run_forked
from helpers.printed import printed_arrays
from helpers.programs import parse_printed

N = 10_000
N_REFERENCE = 1_500
N_API = 2_500
START = [[1, 2], [3, 4]]


@pytest.fixture(scope="module")
def long_programs(tmp_path_factory):
    root = tmp_path_factory.mktemp("long")
    programs = {}
    for n in (N, N_REFERENCE):
        terms = root / f"terms{n}.mg"
        terms.write_text(f"let a = {START}\nprint {' + '.join(['a'] * n)}\n")
        statements = root / f"statements{n}.mg"
        statements.write_text(f"let a = {START}\n" + "let a = a + 1\n" * n + "print a\n")
        programs["terms", n] = (terms, n * np.array(START, float))
        programs["statements", n] = (statements, np.array(START, float) + n)
    return programs


@pytest.mark.parametrize("flags", [(), ("--reference",)], ids=["optimised", "reference"])
@pytest.mark.parametrize("kind", ["terms", "statements"])
def test_long_program_runs(long_programs, kind, flags):
    path, want = long_programs[kind, N_REFERENCE if flags else N]
    p = mgc("run", "--no-cache", *flags, str(path), timeout=900)
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    assert p.stderr == b""
    (got,) = parse_printed(p.stdout.decode())
    assert (got == want).all(), got


def test_long_expression_through_the_api():
    import mg_xdsl

    terms = " - ".join(["a"] * N_API)  # ((a - a) - a) - ...: a * (2 - N_API)
    lib = mg_xdsl.compile(f"def f(a: tensor[?x?]) = {terms}\n")
    a = np.arange(6.0).reshape(2, 3)
    assert (lib.f(a) == a * (2 - N_API)).all()


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("updates", [31, 32, 33, 64, 100])
def test_a_print_after_32_loop_nests_prints_its_value(updates, optimise):
    """`outline-loop-nests` moves each run of 32 loop nests into a function of its own; a
    value printed before and after such a run (one cast to an unranked memref, shared by the
    two prints) once printed garbage or nothing, with exit status 0, after the first run."""
    source = "let x = [1, 2, 3] * 2\nprint x\nvar c = x\n" + "c = cumsum(c)\n" * updates + "print x\nprint c\n"
    out, err, status = run_forked(source, optimise=optimise)
    assert (status, err) == (0, "")
    first, again, c = printed_arrays(out)
    want_c = np.array([2.0, 4, 6])
    for _ in range(updates):
        want_c = np.cumsum(want_c)
    np.testing.assert_array_equal(first, [2, 4, 6])
    np.testing.assert_array_equal(again, [2, 4, 6])
    np.testing.assert_array_equal(c, want_c)
