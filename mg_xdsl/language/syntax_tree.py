"""The syntax tree of a statement: what the parser (``parser``) builds and the checker and
the IR generator walk. Each node keeps the token it is reported at, and its first and last
tokens for the caret span of an error.

A run of operators of one precedence is one ``Chain`` node and a run of minus signs one
``Negate`` node, so that a chain of any length is walked in loops, in constant stack depth.
"""

from dataclasses import dataclass, field

from xdsl.ir import Attribute

from mg_xdsl.core import element_types
from mg_xdsl.core.shapes import Shape
from mg_xdsl.language.diagnostics import Span
from mg_xdsl.language.lexer import Token

# ---------------------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorType:
    """A tensor type of any rank: its shape, with
    ``None`` for ``?``, and its element type. ``tensor[?x3xf32]`` is
    ``TensorType((None, 3), f32)``."""

    shape: Shape
    element: Attribute = element_types.DEFAULT


@dataclass(eq=False)
class Expr:
    tok: Token  # the token that names the expression (an operator's, a call's name)
    # Its first and last tokens, which the parser fills in: the caret span of an error.
    start: Token | None = field(default=None, init=False, repr=False)
    end: Token | None = field(default=None, init=False, repr=False)

    @property
    def start_token(self) -> Token:
        return self.start or self.tok

    @property
    def end_token(self) -> Token:
        return self.end or self.tok

    @property
    def span(self) -> Span:
        return between(self.start_token, self.end_token)


def between(first: Token, last: Token) -> Span:
    """The span from ``first`` to ``last`` (inclusive); to the end of ``first``'s line where
    ``last`` is on a later one."""
    if last.line != first.line:
        return Span(first.line, first.col, None)
    return Span(first.line, first.col, last.span.end)


@dataclass(eq=False)
class Number(Expr):
    """A number as written: an ``int`` where it is written as an integer (``9007199254740993``
    stays exact for an integer type), else a ``float``."""

    value: int | float


@dataclass(eq=False)
class Name(Expr):
    pass


@dataclass(eq=False)
class Str(Expr):
    """A string, as written (``"data/x.npy"``): a path for ``load``/``save``, a name for
    ``arg``; no tensor."""

    value: str


@dataclass(eq=False)
class Literal(Expr):
    """``[[1, 2], [3, 4]]``, ``[1, 2, 3]``, ``[[[1], [2]]]``, ``[true, false]``: a tensor
    written as nested lists (``tok`` is its first ``[``), as its shape and its elements in
    row-major order (``true`` is 1.0); ``boolean`` if they are all ``true``/``false``. A bare
    ``true`` or ``false`` is a literal of rank 0."""

    shape: Shape
    values: list[int | float]  # (each as ``Number.value`` is)
    boolean: bool = False


@dataclass(eq=False)
class Negate(Expr):
    """``- - x``: ``signs`` in source order; the innermost applies first."""

    signs: list[Token]
    operand: Expr


@dataclass(eq=False)
class Chain(Expr):
    """``first op x op y ...`` of one precedence, applied left to right; ``tok`` is the
    first operand's."""

    first: Expr
    rest: list[tuple[Token, Expr]]  # (operator, right operand)


@dataclass(eq=False)
class Compare(Expr):
    """``left op right`` with a comparison operator (``tok`` is the left operand's)."""

    left: Expr
    op: Token
    right: Expr


@dataclass(eq=False)
class Logical(Expr):
    """``a and b and c`` or ``a or b`` (``tok`` is the first operator) on ``i1`` values,
    element by element; ``not a`` is ``Logical`` with the one operand and ``not``."""

    operands: list[Expr]


@dataclass(eq=False)
class Call(Expr):
    """``name(args, key=value, ...)`` of a built-in or a def (``tok`` is the name); keyword
    arguments (``axes=[0, -1]``, ``keepdims=true``, ``dtype=f32``) come after the others."""

    args: list[Expr]
    keywords: dict[str, tuple[Token, Expr]] = field(default_factory=dict)


@dataclass(eq=False)
class Index(Expr):
    """``x[1, -1]``: one element of ``base``, an index per axis (``tok`` is the ``[``); with
    a ``SliceItem`` for some axis, or fewer indices than axes, a part of it
    (``x[1:3, :, 2]``, ``x[i]``)."""

    base: Expr
    indices: "list[Expr]"


@dataclass(eq=False)
class SliceItem(Expr):
    """``LOWER:UPPER`` in a subscript (``tok`` is the ``:``); either may be left out."""

    lower: Expr | None
    upper: Expr | None


@dataclass(eq=False)
class ExprList(Expr):
    """``[a, b, c]`` of expressions that are not all numbers (``tok`` is the ``[``): the
    tensors ``concat`` joins; or ``[]``, the empty list, which is no tensor (no dimension
    has size 0) but is a list where one is expected: no axes, a rank-0 shape."""

    items: list[Expr]


@dataclass(eq=False)
class Let:
    """``let NAME = EXPR`` (``let NAME: TYPE = EXPR``); with ``var`` instead of ``let``, a
    name that later statements may update (``mutable``)."""

    head: Token
    name: Token
    value: Expr
    declared: TensorType | None = None  # ``let NAME: TYPE = ...``
    mutable: bool = False


@dataclass(eq=False)
class Assign:
    """``NAME += EXPR`` (``-=``, ``*=``, ``/=``: ``op`` is the operator), updating a ``var``
    in place, or ``NAME = EXPR`` rebinding it (``op`` is ``=``)."""

    head: Token
    op: Token
    value: Expr


@dataclass(eq=False)
class Print:
    head: Token
    value: Expr


@dataclass(eq=False)
class Def:
    """``def NAME(P: TYPE, ...) = EXPR`` (``body`` is the expression), or with a block body
    (``def NAME(...):`` and indented statements ending in ``return``: ``block``)."""

    head: Token
    name: Token
    params: list[tuple[Token, TensorType]]  # (name, type)
    body: Expr | None
    declared: TensorType | None = None  # ``def f(...) -> TYPE ...``
    block: "list[Statement] | None" = None
    # ``-> (T1, T2)``: the declared types of several results (``declared`` stays None)
    declared_results: list[TensorType] | None = None


@dataclass(eq=False)
class LetMany:
    """``let a, b = f(...)``: the results of a def that returns several values, each bound
    to a name in order (``var a, b = ...`` binds vars)."""

    head: Token
    names: list[Token]
    value: Expr
    mutable: bool = False


@dataclass(eq=False)
class Return:
    """``return EXPR`` or ``return a, b`` (several results), the last statement of a def."""

    head: Token
    values: list[Expr]


@dataclass(eq=False)
class For:
    """``for NAME in range(STOP):`` (``range(START, STOP)``, ``range(START, STOP, STEP)``)
    and its indented body; ``NAME`` is the iteration's number, a rank-0 ``i64``."""

    head: Token
    name: Token
    range: Call
    body: "list[Statement]"


@dataclass(eq=False)
class If:
    """``if COND:`` ... ``elif COND:`` ... ``else:`` ...: each branch's head (``if``,
    ``elif``, ``else``), its condition (None for ``else``) and its body."""

    head: Token
    branches: "list[tuple[Token, Expr | None, list[Statement]]]"


@dataclass(eq=False)
class Println:
    """``println("text {EXPR} more {EXPR:SPEC}")``: the literal texts (one more than the
    values), each interpolated expression and its format spec (``""`` for none)."""

    head: Token
    pieces: list[str]
    values: list[Expr]
    specs: list[str]


@dataclass(eq=False)
class Do:
    """A call made for what it does, not for a value: ``save("w.npy", w)``."""

    head: Token
    call: Call


Statement = Let | Assign | Print | Def | LetMany | Return | For | If | Println | Do
