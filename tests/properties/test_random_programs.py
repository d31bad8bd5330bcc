"""Random whole programs (``tests/properties/fuzz``) compiled in both pipelines agree with the NumPy
reference: a fixed set (the same programs on every run), each value placed in every
position (dead, printed, returned from a def, passed to a call, reduced, viewed again,
updated in place, bound to a var, used twice), in every element type and ``?`` pattern,
from a few statements to a hundred.

Each program is compiled and run in a forked child, two at a time; a failure says how to
run it again (``python -m tests.properties.fuzz.campaign --check KIND SEED``). Larger budgets with new
seeds: ``python -m tests.properties.fuzz.campaign --help``.
"""

from collections import Counter

import pytest
from fuzz.execute import PIPELINES, run_many, warm_up
from fuzz.generator import KINDS, generate
from fuzz.oracle import judge

# How many programs of each kind: about two minutes on two cores, and each element type's
# every position at least six times (the campaign runs thousands: docs/testing.md).
COUNTS = {"static": 60, "question": 60, "dtypes": 80, "long": 12}
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
    assert verdict.ok, (
        f"{verdict.outcome} in the {pipeline} pipeline: {verdict.detail}\n--- the program\n"
        f"{program.source}--- again: python -m tests.properties.fuzz.campaign --check {kind} {seed}"
    )


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


# -- the reference itself ------------------------------------------------------------------------


def test_the_reference_divides_integers_as_c_does_and_stops_at_zero():
    from fuzz.reference import Abort, int_divide
    from fuzz.values import exact

    a = exact([-7, 7, -(2**31), 5], "i32")
    assert int_divide(a, exact([2, -2, -1, 3], "i32")).v.tolist() == [-3, -3, -(2**31), 1]
    with pytest.raises(Abort, match="mg.div: integer division by zero"):
        int_divide(a, exact([1, 0, 1, 1], "i32"))


def test_the_reference_rounds_bf16_after_each_operation_and_sums_in_f32():
    import ml_dtypes
    import numpy as np
    from fuzz.reference import elementwise, reduce
    from fuzz.values import exact

    x = exact([256, 1, 1], "bf16")
    step = elementwise("+", [exact(256, "bf16"), exact(1, "bf16")])  # 257 is no bf16: 256
    assert float(step.v) == 256 and not step.e.any()
    total = reduce("sum", x, [0], False)  # 258 in f32, a bf16 at the end
    assert total.v == np.array(258, np.float32).astype(ml_dtypes.bfloat16) and not total.e.any()


def test_inexact_values_carry_a_bound_and_close_comparisons_are_unknown():
    import numpy as np
    from fuzz.reference import compare, elementwise
    from fuzz.values import exact

    third = elementwise("/", [exact([1.0], "f64"), exact([3.0], "f64")])
    assert not third.e.any()  # (correctly rounded: the compiled code has the same bits)
    e = elementwise("exp", [exact([1.0], "f64")])
    assert 0 < e.e[0] < 1e-14  # (another library's exp may differ in the last places)
    assert np.isinf(compare("<", e, exact([float(e.v[0])], "f64")).e).all()
    assert not compare("<", e, exact([2.0], "f64")).e.any()


def test_printed_integers_are_read_exactly():
    from fuzz.oracle import compare, parse_printed
    from fuzz.values import exact

    text = (
        "Unranked Memref base@ = 0x1 rank = 1 offset = 0 sizes = [2] strides = [1] data = \n[9223372036854775000,  3]\n"
    )
    assert compare(parse_printed(text), [exact([9223372036854775000, 3], "i64")]) is None
    assert compare(parse_printed(text), [exact([9223372036854774784, 3], "i64")]) is not None
