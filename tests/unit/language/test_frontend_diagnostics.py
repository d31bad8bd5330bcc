"""The front end's diagnostics beyond single errors: the never-broadcast warning, what
``str(MgError)`` says, the size rule for huge shapes, and programs far longer than any
written by hand (10^4 statements, expressions of 10^4 terms), which must parse without
running into Python's recursion limit."""

import sys

import pytest
from conftest import EXAMPLES

from mg_xdsl.core import shapes
from mg_xdsl.core.shapes import ShapeError
from mg_xdsl.language.frontend import MgError, MgWarning, parse_program

WARNING = (
    "warning: a '?' dimension is never broadcast: this aborts at run time unless the "
    "sizes are equal; give the dimension a static size, or grow the 1 to x's size explicitly with "
    "broadcast_to(m, shape(x))"
)


# -- the warning --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source,line",
    [
        ("def bias(x: tensor[?x5], b: tensor[1x5]) = x + b\n", 1),
        ("def bias(x: tensor[?x5], b: tensor[1x5]) = b - x\n", 1),
        ("def f(x: tensor[3x?]) = x * [[1], [2], [3]]\n", 1),
        ("let b = [[1]]\ndef f(x: tensor[?x?], b: tensor[1x1]) = b / x\n", 2),
        ("def f(x: tensor[?x2]) = x\n\nprint f([[1, 2]]) + [[3, 4]]\n", 3),
    ],
)
def test_a_question_mark_meeting_a_static_one_warns(source, line):
    program = parse_program(source, "prog.mg")
    assert program.warnings == [f"prog.mg:{line}: {WARNING}"]


@pytest.mark.parametrize(
    "source",
    [
        "def f(x: tensor[?x5], b: tensor[2x5]) = x + b\n",  # a static size: checked, not broadcast
        "def f(x: tensor[?x?], y: tensor[?x?]) = x + y\n",  # two '?': nothing to broadcast
        "def f(x: tensor[?x5]) = x + 1\n",  # a number is not a matrix
        "def f(x: tensor[2x5], b: tensor[1x5]) = x + b\n",  # an ordinary static broadcast
        "def f(x: tensor[?x1], y: tensor[?x1]) = x @ transpose(y)\n",  # @ does not broadcast
    ],
)
def test_no_warning_without_a_question_mark_against_a_one(source):
    assert parse_program(source, "prog.mg").warnings == []


def test_one_warning_per_line():
    program = parse_program(
        "def f(x: tensor[?x5], b: tensor[1x5]) = x + b + b\ndef g(x: tensor[?x5], b: tensor[1x5]) = x * b\n", "p.mg"
    )
    assert program.warnings == [f"p.mg:1: {WARNING}", f"p.mg:2: {WARNING}"]


def test_example_11_warns_and_still_compiles():
    path = EXAMPLES / "11_dynamic_no_broadcast.mg"
    program = parse_program(path.read_bytes(), "examples/11_dynamic_no_broadcast.mg")
    assert program.warnings == [f"examples/11_dynamic_no_broadcast.mg:3: {WARNING}"]
    assert "plus_bias" in program.functions


def test_the_other_examples_do_not_warn():
    for path in sorted(EXAMPLES.glob("*.mg")):
        if path.name != "11_dynamic_no_broadcast.mg":
            assert parse_program(path.read_bytes(), path.name).warnings == [], path.name


def test_mg_warning_is_a_user_warning():
    assert issubclass(MgWarning, UserWarning)


# -- MgError ------------------------------------------------------------------------------


def test_str_of_an_error_is_what_mgc_prints():
    with pytest.raises(MgError) as info:
        parse_program("let a = [[1]]\n\nprint row(a)\n", "dir/prog.mg")
    e = info.value
    message = "unknown function 'row': did you mean row_sum, row_max or row_mean?"
    assert (e.path, e.line, e.column, e.code, e.message) == ("dir/prog.mg", 3, 7, "E-NAME-001", message)
    assert (
        str(e)
        == e.render()
        == (
            f"dir/prog.mg:3: error: {message}\n"
            "  --> dir/prog.mg:3:7 [E-NAME-001]\n"
            "   |\n"
            " 3 | print row(a)\n"
            "   |       ^^^^^^"
        )
    )
    assert e.headline() == f"dir/prog.mg:3: error: {message}"


def test_str_of_an_error_without_a_path():
    e = MgError(2, "something", code="E-SYN-002")
    assert str(e) == "<input>:2: error: something\n  --> <input>:2 [E-SYN-002]"
    assert e.args == ("something",)
    assert e.column is None


# -- the size rule --------------------------------------------------------------------------


def test_size_rule():
    shapes.check_size((shapes.MAX_DIMENSION, 1))
    shapes.check_size((None, shapes.MAX_DIMENSION))
    shapes.check_size((2**30, 2**30 - 1))  # 2^63 - 2^33 bytes
    with pytest.raises(ShapeError, match=r"^tensor\[1073741824x1073741824\] is too large: 1.15e\+18 elements"):
        shapes.check_size((2**30, 2**30))  # 2^63 bytes: one byte too many
    with pytest.raises(ShapeError, match="^dimension 1099511627777 is too large: at most 2"):
        shapes.check_size((shapes.MAX_DIMENSION + 1, None))
    shapes.check_size((0, 2**40))  # the IR allows an empty tensor


def test_the_largest_shapes_compile():
    big = shapes.MAX_DIMENSION
    parse_program(f"def f(a: tensor[{big}x1]) = a + 1\n")
    parse_program(f"def f(a: tensor[{2**30}x{2**30 - 1}]) = a + 1\n")
    # '?' sizes are not known here: a huge product of them fails when it is allocated.
    parse_program(f"def f(a: tensor[{big}x?], b: tensor[?x{big}]) = a\n")


def test_never_broadcast_rule():
    assert shapes.never_broadcast((None, 5), (1, 5))
    assert shapes.never_broadcast((1, 1), (3, None))
    assert not shapes.never_broadcast((None, 5), (2, 5))
    assert not shapes.never_broadcast((None, None), (None, None))
    assert not shapes.never_broadcast((1, 5), (4, 5))


# -- long programs ----------------------------------------------------------------------

N = 10_000


def count_ops(program, name: str) -> int:
    return sum(op.name == name for op in program.module.walk())


def test_an_expression_of_ten_thousand_terms():
    program = parse_program("let a = [[1, 2]]\nprint " + " + ".join(["a"] * N) + "\n")
    assert count_ops(program, "mg.add") == N - 1


def test_ten_thousand_statements():
    program = parse_program("let a = [[1]]\n" + "let a = a + 1\n" * N + "print a\n")
    assert count_ops(program, "mg.scalar") == N
    *_, last = (op for op in program.module.walk() if op.name == "mg.print")
    assert last.location.line.data == N + 2


@pytest.mark.parametrize("term", ["a", "2"])
def test_ten_thousand_minus_signs(term):
    program = parse_program("let a = [[1]]\nprint " + "- " * N + term + " * a\n")
    # On a number the signs fold (an even count leaves it positive); on a matrix each
    # is one mg.neg.
    assert count_ops(program, "mg.neg") == (N if term == "a" else 0)


def test_ten_thousand_products_and_a_ten_thousand_element_def():
    terms = " @ ".join(["a"] * N)
    program = parse_program(f"def f(a: tensor[2x2]) = {terms} * 2 - a / 3\nprint f([[1, 2], [3, 4]])\n")
    assert count_ops(program, "mg.matmul") == N - 1


def test_long_programs_need_no_deeper_stack():
    """A chain of 10^4 terms parses within 100 frames of the caller's stack: it is a loop."""
    source = "let a = [[1]]\n" + "print " + " - ".join(["a"] * N) + "\n"
    depth, frame = 0, sys._getframe()
    while frame:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 100)
    try:
        parse_program(source)
    finally:
        sys.setrecursionlimit(limit)


def test_nesting_is_bounded_before_python_is():
    parse_program("print " + "(" * 100 + "[[1]]" + ")" * 100 + "\n")
    with pytest.raises(MgError, match=r"^<input>:1: error: expression is nested too deeply \(more than 100"):
        parse_program("print " + "(" * 3000 + "[[1]]" + ")" * 3000 + "\n")
