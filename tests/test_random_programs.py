"""Random whole programs (``tests/fuzz``) compiled in both pipelines agree with the NumPy
reference: a fixed set (the same programs on every run), each value placed in every
position (dead, printed, returned from a def, passed to a call, reduced, viewed again,
updated in place, bound to a var, used twice), in every element type and ``?`` pattern,
from a few statements to a hundred.

Each program is compiled and run in a forked child, two at a time; a failure says how to
run it again (``python -m tests.fuzz.campaign --check KIND SEED``). Larger budgets with new
seeds: ``python -m tests.fuzz.campaign --help``.
"""

from collections import Counter

import pytest

from fuzz.execute import PIPELINES, run_many, warm_up
from fuzz.generator import KINDS, generate
from fuzz.oracle import judge

# How many programs of each kind: about 2-3 minutes on two cores.
COUNTS = {"static": 120, "question": 120, "dtypes": 120, "long": 24}
CASES = [(kind, seed) for kind, count in COUNTS.items() for seed in range(count)]


@pytest.fixture(scope="module")
def runs():
    """Every case run in both pipelines, two children at a time."""
    warm_up()
    programs = {case: generate(*case) for case in CASES}
    jobs = [(programs[case].source, optimise) for case in CASES for optimise in PIPELINES.values()]
    results = iter(run_many(jobs, parallel=2, timeout=120))
    return programs, {(case, pipeline): next(results) for case in CASES for pipeline in PIPELINES}


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("kind, seed", CASES)
def test_a_random_program_prints_what_numpy_computes(runs, kind, seed, pipeline):
    programs, results = runs
    program = programs[(kind, seed)]
    verdict = judge(results[((kind, seed), pipeline)], program.expected, program.statements, program.abort)
    assert verdict.ok, (f"{verdict.outcome} in the {pipeline} pipeline: {verdict.detail}\n--- the program\n"
                        f"{program.source}--- again: python -m tests.fuzz.campaign --check {kind} {seed}")


def test_the_programs_are_the_same_on_every_run():
    assert generate("dtypes", 3).source == generate("dtypes", 3).source
    assert generate("dtypes", 3).source != generate("dtypes", 4).source


def test_the_fixed_programs_cover_each_position_in_each_element_type(runs):
    """The generator's coverage, which a change to it must keep: every position of a value
    in every element type (i1 has no arithmetic: no reductions or updates in place of it),
    '?' patterns of def parameters, long programs."""
    programs, _ = runs
    coverage = sum((p.coverage for p in programs.values()), start=Counter())
    positions = {"op", "print", "dead", "def", "call", "var", "update", "view", "twice", "print late", "reduce"}
    for dtype in KINDS["dtypes"].dtypes:
        seen = {k[2] for k in coverage if k[0] == "dtype" and k[1] == dtype}
        expected = positions - ({"reduce"} if dtype == "i1" else set())
        assert expected <= seen, (dtype, expected - seen)
    patterns = {k[1] for k in coverage if k[0] == "pattern"}
    assert {"tensor[?]", "tensor[?x?]"} <= patterns and any("?x" in p and "x?" not in p for p in patterns)
    assert max(len(p.statements) for p in programs.values()) >= 60
