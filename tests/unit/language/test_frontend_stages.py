"""The front end's stages one at a time (mg_xdsl/language/): the parser builds a syntax tree
and reports only syntax; the checker types every expression of it, folds numbers and
reports the rest; IR generation emits what the checker typed. The end-to-end messages are
tests/unit/language/test_frontend_diagnostics.py's and the examples'."""

import pytest

from mg_xdsl.language.checker import Checker, TensorType
from mg_xdsl.language.frontend import MgError, parse_program
from mg_xdsl.language.lexer import statements
from mg_xdsl.language.parser import parse_statement
from mg_xdsl.language.syntax_tree import (
    Call,
    Chain,
    Expr,
    Let,
    Literal,
    Name,
    Negate,
    Number,
)


def tree(text: str):
    (tokens,) = statements(text)
    return parse_statement(tokens)


def expressions(e: Expr):
    """Every expression node under ``e``, ``e`` included."""
    yield e
    children = {
        Negate: lambda: [e.operand],
        Call: lambda: e.args,
        Chain: lambda: [e.first, *(x for _, x in e.rest)],
    }.get(type(e), list)()
    for c in children:
        yield from expressions(c)


def test_the_parser_alone_builds_the_tree_with_precedence():
    s = tree("let y = -(a + 2) @ relu(b) * 3 - [[1, 2]]")
    assert isinstance(s, Let) and s.name.text == "y"
    top = s.value  # (... @ ... * 3) - [[1, 2]]
    assert isinstance(top, Chain) and [t.text for t, _ in top.rest] == ["-"]
    product = top.first
    assert isinstance(product, Chain) and [t.text for t, _ in product.rest] == ["@", "*"]
    assert isinstance(product.first, Negate) and isinstance(product.first.operand, Chain)
    assert isinstance(product.rest[0][1], Call) and product.rest[0][1].tok.text == "relu"
    assert isinstance(product.rest[1][1], Number) and product.rest[1][1].value == 3.0
    assert isinstance(top.rest[0][1], Literal) and top.rest[0][1].shape == (1, 2)
    assert top.rest[0][1].values == [1.0, 2.0]


def test_the_parser_knows_no_names_and_no_shapes():
    # An unknown function of matrices that cannot be added is still a well-formed statement.
    s = tree("print nothing([[1, 2, 3]] + [[1, 2]], x)")
    assert isinstance(s.value, Call) and len(s.value.args) == 2


def test_the_checker_types_every_expression_and_folds_numbers():
    checker = Checker()
    checker.statement(tree("let a = [[1, 2, 3]]"))
    s = tree("let b = -(2 * 3 + 1) * transpose(a) @ a + col_sum(a)")
    checker.statement(s)
    for e in expressions(s.value):
        assert e in checker.types, e
    assert checker.types[s.value] == TensorType((3, 3))
    folded = s.value.first.first  # -(2 * 3 + 1)
    assert isinstance(folded, Negate) and checker.types[folded] == -7.0
    assert [checker.types[n] for n in expressions(s.value) if isinstance(n, Name)] == [TensorType((1, 3))] * 3


def test_within_a_statement_syntax_is_reported_before_types():
    # The statement is parsed whole before it is checked.
    with pytest.raises(MgError, match="expected an expression, found the end of the line"):
        parse_program("print [[1, 2, 3]] + [[1, 2]] +\n")
    # Statements are still compiled one by one: the first wrong one is reported.
    with pytest.raises(MgError, match=r"^p.mg:1: error: cannot add shapes 1x3 and 1x2"):
        parse_program("print [[1, 2, 3]] + [[1, 2]]\nprint (\n", "p.mg")


def test_signatures_carry_types():
    program = parse_program("def f(a: tensor[?x3], b: tensor[3x2]) = relu(a @ b)\n", with_main=False)
    sig = program.functions["f"]
    assert sig.names == ["a", "b"] and sig.types == [TensorType((None, 3)), TensorType((3, 2))]
    assert sig.result_type == TensorType((None, 2)) and str(sig.result_type.element) == "f64"
    assert sig.params == [("a", (None, 3)), ("b", (3, 2))] and sig.result == (None, 2)
