"""Random programs with blocks, compiled in both pipelines, print what a Python/NumPy
interpreter of the same program prints.

The generator (``helpers/block_programs.py``) builds a tree of statements that is both the
Mountain Goat text and its interpreter: defs with block bodies and several results, ``for``
loops counted by numbers and by run-time values (``dim`` of a ``?`` parameter, a parameter
``n: tensor[i64]``, a loop index passed on), nested loops, ``if``/``elif``/``else`` inside loops
on run-time values, vars of ``f64 f32 i32 i64`` updated in place and rebound in loops and
carried out of them, ``?`` parameters with ``zeros/ones/full(shape(x))``,
``broadcast_to(m, shape(x))`` and ``mean`` over ``?`` axes, and ``println`` with format specs.
Each loop's result is then placed in a position: unused, printed, returned from a def, passed
to a call, reduced, or updated in place and used twice. Expressions in every position take
subscripts (static indices and slices, negative and left-out bounds, fewer indices than axes,
run-time indices, slices of ``?`` axes, the mini-batch ``d[i * n : i * n + n]`` in loops over
``range(dim(d, 0) // n)``), ``% // **``, ``and``/``or``/``not`` (in ``if`` and in masks),
``argmax``/``argmin`` (ties included), ``@`` with vectors, ``inf``, ``var best = inf`` kept by
``if loss < best:``; defs may end with ``if``/``else`` that return on every path.

Hypothesis draws the programs' seeds, derandomized as every property test is (``conftest.py``):
the same programs on every run. Each program is compiled in this process and run in a forked
child (``conftest.run_forked``), in the optimised and the reference pipeline. Larger budgets:
``MG_PROPERTY_EXAMPLES``, or the campaign's ``blocks`` kind
(``python -m tests.properties.fuzz.campaign --kinds blocks --programs 500``).
"""

import os
import random
from collections import Counter

import numpy as np
from conftest import run_forked
from helpers.block_programs import DTYPES, Out, difference, expected_text, generate
from hypothesis import HealthCheck, given, settings, strategies as st

# About 1.5 s a program (both pipelines, every stage verified): 24 and 6 run in under a minute.
EXAMPLES = min(16, int(os.environ.get("MG_PROPERTY_EXAMPLES", "16")))


def check(seed: int, dtypes=DTYPES) -> None:
    program, machine = generate(random.Random(seed), dtypes)
    for optimise in (True, False):
        out, err, status = run_forked(program.source, optimise=optimise)
        problem = difference(out, machine.out, machine.scale)
        where = (
            f"{'optimised' if optimise else 'reference'} pipeline, seed {seed}: {problem}\n--- the program\n"
            f"{program.source}--- printed (status {status})\n{out}{err}--- the interpreter\n"
            f"{expected_text(machine.out)}"
        )
        assert status == 0 and err == "" and problem is None, where


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_random_block_programs_print_what_the_interpreter_prints(seed):
    check(seed)


@settings(max_examples=max(1, EXAMPLES // 4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(["f32", "i32"]))
def test_f32_and_i32_vars_updated_in_loops(seed, dtype):
    """The element types whose updates in place are most often lowered apart from f64's."""
    check(seed, (dtype,))


def test_the_generator_covers_every_position():
    """The coverage a change to the generator must keep, over a fixed set of programs (made,
    not run): each position of a loop's result, each kind of count, nesting, branches, defs
    with several results called in loops, updates of every element type, the ``?`` features."""
    coverage = Counter()
    for seed in range(300):
        coverage += generate(random.Random(seed))[0].coverage
    features = set(coverage)
    positions = {"unused", "printed", "returned from a def", "call", "reduced", "updated twice"}
    assert positions <= {f[1] for f in features if f[0] == "a loop's result"}
    assert {("count known when compiling",), ("count at run time", "dim"), ("count at run time", "param")} <= features
    assert {("range(START, STOP, STEP)",), ("nested loop",), ("elif",), ("else",), ("if", "in a loop")} <= features
    assert ("def with several results called", "in a loop") in features
    assert ("loop index passed as a run-time count",) in features
    assert ("def with a loop called at other sizes",) in features
    for dtype in DTYPES:
        updates = {f[2] for f in features if f[:2] == ("update", dtype)}
        assert {"+", "-", "*", "/", "rebind"} <= updates, (dtype, updates)
    assert ("broadcast_to(m, shape(x))", "?") in features and ("mean over a ? axis",) in features
    assert ("mean over ? axes",) in features and ("dim or numel as a value",) in features
    assert {f[1] for f in features if f[0] == "println"} >= {"f64", "f32", "i32", "i64"}
    assert {f[1] for f in features if f[0] == "var made from shape(x)"} >= {"zeros", "ones", "full", "zeros_like"}


def test_the_generator_covers_the_newer_features():
    """Subscripts of every form, ``% // **``, ``and``/``or``/``not``, ``argmax``/``argmin``
    (with ties met when run), ``@`` with vectors, ``inf``, and defs ending in ``if``/``else``
    returns: each in a loop and in a def with ``?`` parameters, and placed every way."""
    coverage, notes = Counter(), Counter()
    for seed in range(300):
        program, machine = generate(random.Random(seed))
        coverage += program.coverage
        notes += machine.notes
    features = set(coverage)
    forms = {f[1] for f in features if f[0] == "subscript"}
    assert {"static index", "negative index", "slice", "bound left out", "negative bound"} <= forms
    assert {
        "fewer indices than axes",
        "run-time index",
        "slice of a ? axis",
        "mini-batch",
        "slice in a println",
    } <= forms
    assert {("subscript", "run-time index", "loop counter"), ("subscript", "run-time index", "argmax")} <= features
    assert {("subscript", "mini-batch", "static rows"), ("subscript", "mini-batch", "? rows")} <= features
    assert {("mini-batch loop", "static rows"), ("mini-batch loop", "? rows")} <= features
    placed = {"as is", "broadcast_to", "beside a value", "reduced"}
    assert placed <= {f[1] for f in features if f[0] == "subscript placed"}
    assert {("argmax placed", "beside a value"), ("argmax placed", "reduced")} <= features
    assert {("@ placed", "beside a value"), ("@ placed", "reduced")} <= features
    assert {"%", "//", "**", "% in a condition"} <= {f[1] for f in features if f[0] == "operator" and len(f) == 2}
    assert {("operator", op, "rank 0") for op in ("%", "//", "**")} <= features
    assert {("and/or/not", "in an if"), ("and/or/not", "in a mask"), ("mask", "where"), ("mask", "cast")} <= features
    assert {"axis 0 of rank 1", "axis 0 of rank 2", "axis 1 of rank 2", "rank 0", "in a condition"} <= {
        f[1] for f in features if f[0] == "argmax"
    }
    assert notes["argmax tie"] >= 20, notes  # (NumPy's first of equals, met often)
    assert {"m @ v", "v @ x", "x @ M", "M @ x", "v @ v", "b @ v"} <= {f[1] for f in features if f[0] == "@"}
    assert {("inf", "in maximum"), ("inf", "in minimum"), ("inf", "a var's first value")} <= features
    assert {("best so far", d) for d in DTYPES} <= features
    assert {("def ends with if/else returns", "if/else"), ("def ends with if/else returns", "elif")} <= features
    for feature in ("subscript", "subscript placed", "operator", "and/or/not", "argmax", "@", "mask"):
        assert {(feature, "in a loop"), (feature, "in a def with ?")} <= features, feature
    assert ("mini-batch loop", "in a def with ?") in features and ("inf", "in a loop") in features


def test_the_programs_are_the_same_on_every_run():
    assert generate(random.Random(5))[0].source == generate(random.Random(5))[0].source
    assert generate(random.Random(5))[0].source != generate(random.Random(6))[0].source


# -- the interpreter and the comparison themselves -----------------------------------------------


def test_the_interpreter_runs_a_loop_with_a_branch_as_python_does():
    from helpers.block_programs import Bin, Cmp, For, If, Let, Name, Num, Print, Update

    w, t = Name("w", "f32"), Name("t", "f32", True)
    program = [
        Let("w", Bin("*", Name("x", "f32"), Num(1, "f32")), True),
        Let("t", Num(0, "f32"), True, ()),
        For(
            "i",
            0,
            4,
            1,
            [
                If(
                    [(Cmp("==", Name("i", "i64", True), Num(2, "i64")), [Update("t", "+", Num(1.5, "f32"), "f32")])],
                    [Update("w", "*", Num(2, "f32"), "f32")],
                )
            ],
        ),
        Print(Bin("+", w, t)),
    ]
    from helpers.block_programs import BlockProgram, Lit

    source = BlockProgram([Let("x", Lit(np.array([1.0, -0.5]), "f32"), False, (2,)), *program], Counter())
    assert source.source.splitlines()[3:6] == [
        "for i in range(4):",
        "    if i == 2:",
        "        t += 1.5",
    ]
    (printed,) = source.run().out
    assert printed.array.dtype == np.float32 and printed.array.tolist() == [9.5, -2.5]  # w * 8 + 1.5


def test_the_comparison_reads_prints_and_lines_in_order():
    stdout = (
        "Unranked Memref base@ = 0x1 rank = 1 offset = 0 sizes = [2] strides = [1] data = \n[9.5,  -2.5]\n"
        "i   2 s=0.333\n"
        "Unranked Memref base@ = 0x2 rank = 0 offset = 0 sizes = [] strides = [] data = \n[7]\n"
    )
    want = [
        Out("f32", array=np.array([9.5, -2.5], np.float32)),
        Out("text", text="i   2 s=0.333"),
        Out("i32", array=np.array(7, np.int32)),
    ]
    assert difference(stdout, want, 1.0) is None
    assert difference(stdout, [*want[:2], Out("i32", array=np.array(8, np.int32))], 1.0) is not None
    assert difference(stdout, [want[0], Out("text", text="i   3 s=0.333"), want[2]], 1.0) is not None
    assert difference(stdout, want[:2], 1.0) == "3 outputs, expected 2"
