"""The parser: the tokens of one statement -> its syntax tree. Only the syntax is checked
here (what is written where); names, shapes and types are the checker's.

Grammar, with Python's precedence (``or`` loosest, then ``and``, ``not``, one comparison,
which does not chain, ``+ -``, ``@ * / % //``, unary minus, then ``**``, tightest and from
the right; the others left-associative)::

    statement := "let" NAME (":" type)? "=" expr | ("let" | "var") NAME ("," NAME)+ "=" call
               | "print" expr | "println" "(" STRING ")" | NAME ("+=" | "-=" | "*=" | "/=" | "=") expr
               | "def" NAME "(" params ")" ("->" type)? "=" expr
               | "def" NAME "(" params ")" ("->" (type | "(" type ("," type)* ")"))? ":"
               | "for" NAME "in" "range" "(" args ")" ":" | ("if" | "elif") expr ":" | "else" ":"
               | "return" expr ("," expr)* | NAME "(" args ")"
    expr      := conj ("or" conj)*          conj := neg ("and" neg)*      neg := "not"* cmp
    cmp       := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
    sum       := term (("+" | "-") term)*
    term      := unary (("@" | "*" | "/" | "%" | "//") unary)*
    unary     := "-"* atom ("**" unary)?
    atom      := primary ("[" item ("," item)* "]")*       item := expr | expr? ":" expr?
    primary   := NUMBER | "inf" | "nan" | "true" | "false" | STRING | NAME | NAME "(" args ")"
               | "(" expr ")" | literal | list
    list      := "[" "]" | "[" expr ("," expr)* "]"     (concat's tensors; [] no axes, rank 0)
    type      := "tensor" "[" DIM ("x" DIM)* ("x" ELEMENT)? "]" | "tensor" "[" ELEMENT? "]"
    DIM       := a positive integer | "?"       ELEMENT := f64 | f32 | bf16 | i32 | i64 | i1
    literal   := "[" (ELEMENT ("," ELEMENT)* | literal ("," literal)*) "]"
    ELEMENT   := "-"? (NUMBER | "inf" | "nan") | "true" | "false"   (all numbers, or all true/false)

A line ending in ``:`` is a block's header: the front end (``frontend.Blocks``) gives it the
lines indented under it as its body, and joins an ``elif``/``else`` to the ``if`` before it.
A string's ``{EXPR:SPEC}`` parts (``println``) are parsed from their own tokens
(``interpolated``), so an error in one points into the string.

A run of operators of one precedence is one ``Chain`` node and a run of minus signs one
``Negate`` node (``syntax_tree``), so a chain of any length (``a + a + ... + a`` with 10^4 terms, ``- - - a``)
is parsed, checked and emitted in loops, in constant stack depth; only parentheses and calls
nest, up to ``MAX_NESTING`` levels. Each node keeps the token it is reported at.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import MAX_DIMENSION, Shape, ShapeError
from mg_xdsl.language.diagnostics import MgError, Span
from mg_xdsl.language.lexer import Token, tokenize
from mg_xdsl.language.syntax_tree import (
    Assign,
    Call,
    Chain,
    Compare,
    Def,
    Do,
    Expr,
    ExprList,
    For,
    If,
    Index,
    Let,
    LetMany,
    Literal,
    Logical,
    Name,
    Negate,
    Number,
    Print,
    Println,
    Return,
    SliceItem,
    Statement,
    Str,
    TensorType,
    between,
)

MAX_LITERAL_ELEMENTS = 100_000
# Parentheses and calls nest by recursion in the parser (and the checker and the IR
# generator); this bound keeps them far from Python's recursion limit wherever the compiler
# is called from.
MAX_NESTING = 100

# ---------------------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------------------

# The statements that update a ``var`` (``w += g``) or rebind it (``w = EXPR``).
ASSIGNMENTS = ("+=", "-=", "*=", "/=", "=")
KEYWORDS = {
    "let", "var", "print", "println", "def", "tensor", "true", "false",
    "for", "in", "if", "elif", "else", "return", "and", "or", "not", "inf", "nan",
}  # fmt: skip
# The statements that open an indented block: their line ends with ':'.
BLOCK_HEADS = ("def", "for", "if", "elif", "else")
COMPARISON_OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
BOOLEANS = {"true": 1.0, "false": 0.0}
SPECIAL_NUMBERS = {"inf": math.inf, "nan": math.nan}  # (-inf is a minus and inf)


def negated(value: int | float) -> int | float:
    """``-value``; the negative of an integer zero is the float ``-0.0``, as in ``f64``."""
    return -value if value or isinstance(value, float) else -0.0


def shorten(text: str, limit: int = 60) -> str:
    """``text``, or its two ends if it is longer than ``limit``: for runaway input in messages."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 2) :]} ({len(text)} characters)"


def found(tok: Token) -> str:
    return "the end of the line" if tok.kind == "end" else repr(tok.text)


@dataclass
class Parser:
    """Recursive descent over the tokens of one statement (ending with an ``end`` token)."""

    tokens: list[Token]
    pos: int = 0
    depth: int = 0  # parentheses and calls open around the current position
    booleans: int = 0  # true/false elements of the literal being read

    # -- token helpers ------------------------------------------------------------------

    def peek(self, offset: int = 0) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.pos += 1
        return tok

    def error(self, message: str, at: Token | Span | None = None, code: str = "E-SYN-002") -> MgError:
        """An error at ``at`` (by default the next token); by default a token that does not
        belong where it is."""
        at = at or self.peek()
        return MgError(at if isinstance(at, Span) else at.span, message, code=code)

    def spanned(self, e: Expr, start: Token) -> Expr:
        """``e``, which the parser read from ``start`` to the token before the next one."""
        e.start, e.end = start, self.tokens[self.pos - 1]
        return e

    def expect(self, text: str, what: str | None = None) -> Token:
        tok = self.peek()
        if tok.text != text:
            raise self.error(f"expected {what or repr(text)}, found {found(tok)}")
        return self.next()

    def expect_end(self) -> None:
        tok = self.peek()
        if tok.kind != "end":
            raise self.error(f"unexpected {tok.text!r} after the end of the expression")

    def enter(self, tok: Token) -> None:
        """Open one level of parentheses or call arguments at ``tok``."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(
                f"expression is nested too deeply (more than {MAX_NESTING} levels of parentheses and calls)",
                tok,
                code="E-LIMIT-001",
            )

    # -- statements ---------------------------------------------------------------------

    def statement(self) -> Statement:
        head = self.peek()
        if head.kind == "name" and head.text == "def":
            return self.define()
        if head.kind == "name" and head.text in ("for", "if", "elif", "else"):
            return self.block_head()
        if head.kind == "name" and head.text == "return":
            self.next()
            values = [self.expr()]
            while self.peek().text == ",":
                self.next()
                values.append(self.expr())
            self.expect_end()
            return Return(head, values)
        if head.kind == "name" and head.text == "println" and self.peek(1).text == "(":
            return self.println()
        if head.kind == "name" and head.text in ("let", "var") and self.peek(2).text == ",":
            return self.let_many()
        if head.kind == "name" and head.text in ("let", "var"):
            if not (self.peek(1).kind == "name" and self.peek(2).text in ("=", ":")):
                raise self.error(
                    f"expected '{head.text} NAME = EXPR' or '{head.text} NAME: TYPE = EXPR'",
                    between(head, self.tokens[-2]),
                )
            self.pos = 2
            declared = None
            if self.next().text == ":":
                declared = self.tensor_type()
                self.expect("=", f"'=' after the type of {self.tokens[1].text}")
            value = self.expr()
            self.expect_end()
            return Let(head, self.tokens[1], value, declared, mutable=head.text == "var")
        if head.kind == "name" and self.peek(1).text in ASSIGNMENTS:
            self.pos = 2
            value = self.expr()
            self.expect_end()
            return Assign(head, self.tokens[1], value)
        if head.kind == "name" and head.text == "print":
            self.pos = 1
            value = self.expr()
            self.expect_end()
            return Print(head, value)
        if head.kind == "name" and self.peek(1).text == "(":
            self.pos = 1
            call = Call(head, *self.arguments())
            self.spanned(call, head)
            self.expect_end()
            return Do(head, call)
        raise self.error(
            "expected a statement (let, var, print, println, def, for, if, return, a call or an "
            f"assignment), found {found(head)}"
        )

    def let_many(self) -> LetMany:
        """``let a, b = f(...)``."""
        head = self.next()
        names = [self.next()]
        while self.peek().text == ",":
            self.next()
            name = self.next()
            if name.kind != "name":
                raise self.error(f"expected a name after ',' in {head.text}, found {found(name)}", name)
            names.append(name)
        self.expect("=", f"'=' after the names of {head.text}")
        value = self.expr()
        self.expect_end()
        return LetMany(head, names, value, mutable=head.text == "var")

    def block_head(self) -> For | If:
        """``for NAME in range(...):``, ``if COND:``, ``elif COND:``, ``else:``: the header
        of a block, its body left empty (the front end reads the indented lines after it).
        An ``elif`` or ``else`` is an ``If`` of one branch that the front end joins to the
        ``if`` before it."""
        head = self.next()
        if head.text == "for":
            name = self.next()
            if name.kind != "name" or name.text in KEYWORDS:
                raise self.error(f"expected a name after 'for', found {found(name)}", name)
            self.expect("in", f"'in' after 'for {name.text}'")
            start = self.peek()
            if not (start.text == "range" and self.peek(1).text == "("):
                raise self.error(
                    f"expected range(...) after 'in', found {found(start)}: a loop counts with "
                    "range(N), range(START, STOP) or range(START, STOP, STEP)",
                    code="E-FLOW-002",
                )
            self.next()
            counted = Call(start, *self.arguments())
            self.spanned(counted, start)
            self.block_colon(head)
            return For(head, name, counted, [])
        condition = None if head.text == "else" else self.expr()
        self.block_colon(head)
        return If(head, [(head, condition, [])])

    def block_colon(self, head: Token) -> None:
        """The ``:`` that ends a block's header line."""
        if self.peek().text != ":":
            raise self.error(f"expected ':' at the end of the {head.text} line, found {found(self.peek())}")
        self.next()
        self.expect_end()

    def println(self) -> Println:
        """``println("text {EXPR} and {EXPR:SPEC}")``: the string split into its texts and
        the expressions between braces, each parsed from its own tokens (so that an error
        points into the string)."""
        head = self.next()
        self.expect("(", "'(' after println")
        string = self.peek()
        if string.kind != "str":
            raise self.error(f"println takes one string, found {found(string)}", code="E-ARG-001")
        self.next()
        self.expect(")", "')' after println's string")
        self.expect_end()
        pieces, values, specs = interpolated(string)
        return Println(head, pieces, values, specs)

    def define(self) -> Def:
        """``def NAME(P: TYPE, ...) = EXPR``."""
        head = self.next()
        name = self.next()
        if name.kind != "name":
            raise self.error(f"expected a function name after 'def', found {found(name)}", name)
        self.expect("(", f"'(' after def {name.text}")
        params: list[tuple[Token, TensorType]] = []
        while self.peek().text != ")":
            pname = self.next()
            if pname.kind != "name":
                raise self.error(f"expected a parameter name, found {found(pname)}", pname)
            self.expect(":", f"':' and a type after parameter {pname.text}")
            params.append((pname, self.tensor_type()))
            if self.peek().text == ",":
                self.next()
            elif self.peek().text != ")":
                raise self.error(f"expected ',' or ')' in the parameter list, found {found(self.peek())}")
        self.next()
        declared, results = None, None
        if self.peek().text == "->":
            self.next()
            if self.peek().text == "(":  # -> (TYPE, TYPE): several results
                self.next()
                results = [self.tensor_type()]
                while self.peek().text == ",":
                    self.next()
                    results.append(self.tensor_type())
                self.expect(")", "',' or ')' after the result types")
            else:
                declared = self.tensor_type()
        if self.peek().text == ":":  # a block body: the front end reads its lines
            self.block_colon(head)
            return Def(head, name, params, None, declared, [], results)
        if results is not None:
            raise self.error(
                f"a def with several results has a block body: def {name.text}(...) -> (...): "
                "then indented lines ending in return a, b"
            )
        self.expect("=", f"'=' and the body of {name.text} (or ':' and an indented block)")
        body = self.expr()
        self.expect_end()
        return Def(head, name, params, body, declared)

    # -- expressions --------------------------------------------------------------------

    def chain(self, operators: tuple[str, ...], operand) -> Expr:
        first = operand()
        rest: list[tuple[Token, Expr]] = []
        while self.peek().text in operators and self.peek().kind == "op":
            tok = self.next()
            rest.append((tok, operand()))
        return self.spanned(Chain(first.tok, first, rest), first.start_token) if rest else first

    def expr(self) -> Expr:
        """``a or b``, ``a and b``, ``not a``, ``a < b`` and the arithmetic below them:
        ``or`` binds loosest, then ``and``, then ``not``, then one comparison (Python's).
        Read in one loop rather than a function per level, so that each level of
        parentheses costs as few Python frames as before these operators existed."""
        start = self.peek()
        disjuncts: list[Expr] = []
        conjuncts: list[Expr] = []
        or_tok: Token | None = None
        and_tok: Token | None = None
        while True:
            nots: list[Token] = []
            while self.peek().kind == "name" and self.peek().text == "not":
                nots.append(self.next())
            e = self.sum()
            if self.at_comparison():  # (one, written here: a function would be a frame more)
                op = self.next()
                right = self.sum()
                if self.at_comparison():
                    raise self.error(
                        f"comparisons do not chain: write a {op.text} b and b {self.peek().text} c "
                        f"as two comparisons (a {op.text} b is a tensor of i1)"
                    )
                e = self.spanned(Compare(e.tok, e, op, right), e.start_token)
            for tok in reversed(nots):
                e = self.spanned(Logical(tok, [e]), tok)
            conjuncts.append(e)
            if self.at_word("and"):
                and_tok = and_tok or self.peek()
                self.next()
                continue
            first = conjuncts[0]
            group = first if and_tok is None else self.spanned(Logical(and_tok, conjuncts), first.start_token)
            disjuncts.append(group)
            conjuncts, and_tok = [], None
            if self.at_word("or"):
                or_tok = or_tok or self.peek()
                self.next()
                continue
            break
        return disjuncts[0] if or_tok is None else self.spanned(Logical(or_tok, disjuncts), start)

    def at_word(self, word: str) -> bool:
        return self.peek().kind == "name" and self.peek().text == word

    def at_comparison(self) -> bool:
        return self.peek().kind == "op" and self.peek().text in COMPARISON_OPERATORS

    def sum(self) -> Expr:
        return self.chain(("+", "-"), self.term)

    def term(self) -> Expr:
        return self.chain(("@", "*", "/", "%", "//"), self.unary)

    def unary(self) -> Expr:
        signs: list[Token] = []
        while self.peek().text == "-" and self.peek().kind == "op":
            signs.append(self.next())
        start = self.peek()
        operand = self.atom()
        if self.peek().kind == "op" and self.peek().text == "**":
            # a ** b is pow(a, b): tighter than a minus on its left (-x ** 2 is -(x ** 2)),
            # and from the right (a ** b ** c is a ** (b ** c))
            op = self.next()
            exponent = self.unary()
            operand = self.spanned(Call(Token("name", "pow", op.col, op.line), [operand, exponent]), start)
        return self.spanned(Negate(signs[0], signs, operand), signs[0]) if signs else operand

    def atom(self) -> Expr:
        """A primary expression, then any element accesses of it: ``x[0, 1]``."""
        start = self.peek()
        e = self.spanned(self.primary(), start)
        while self.peek().text == "[":
            e = self.spanned(self.index(e), start)
        return e

    def index(self, base: Expr) -> Index:
        """``[i, a:b, :, ...]``: an index or a slice per axis."""
        open_, items = self.bracketed("after an index", self.subscript)
        return Index(open_, base, items)

    def subscript(self) -> Expr:
        """One item of a subscript: ``EXPR``, or ``START:STOP`` with either left out."""
        first = self.peek()
        start = None if first.text == ":" else self.expr()
        if self.peek().text != ":":
            assert start is not None
            return start
        colon = self.next()
        stop = None if self.peek().text in (",", "]") else self.expr()
        item = SliceItem(colon, start, stop)
        item.start, item.end = first, self.tokens[self.pos - 1]
        return item

    def bracketed(self, where: str, item: Callable[[], Expr] | None = None) -> tuple[Token, list[Expr]]:
        """``[e, e, ...]``: its ``[`` and its items, each an expression or what ``item`` reads
        (``where`` completes the message when the closing ``]`` is missing)."""
        item = item or self.expr
        open_ = self.next()
        self.enter(open_)
        items = [item()]
        while self.peek().text == ",":
            self.next()
            items.append(item())
        self.expect("]", f"',' or ']' {where}")
        self.depth -= 1
        return open_, items

    def primary(self) -> Expr:
        tok = self.peek()
        if tok.kind == "num":
            self.next()
            return Number(tok, self.number(tok))
        if tok.kind == "str":
            self.next()
            return Str(tok, unescaped(tok))
        if tok.kind == "name" and tok.text in BOOLEANS:
            self.next()
            return Literal(tok, (), [BOOLEANS[tok.text]], boolean=True)
        if tok.kind == "name" and tok.text in SPECIAL_NUMBERS:
            self.next()
            return Number(tok, SPECIAL_NUMBERS[tok.text])
        if tok.kind == "name":
            self.next()
            if self.peek().text == "(":
                return Call(tok, *self.arguments())
            return Name(tok)
        if tok.text == "(":
            self.next()
            self.enter(tok)
            v = self.expr()
            self.expect(")", "')' to close '('")
            self.depth -= 1
            return v
        if tok.text == "[" and self.peek(1).text == "]":  # [] (the checker says where it may be)
            self.next()
            self.next()
            return ExprList(tok, [])
        if tok.text == "[":
            return self.expression_list() if self.lists_expressions() else self.literal()
        if tok.kind == "end":
            raise self.error("expected an expression, found the end of the line")
        raise self.error(f"expected an expression, found {tok.text!r}")

    def arguments(self) -> tuple[list[Expr], dict[str, tuple[Token, Expr]]]:
        """``(a, b, key=value)``: the positional arguments, then the keyword arguments."""
        self.enter(self.expect("("))
        args: list[Expr] = []
        keywords: dict[str, tuple[Token, Expr]] = {}
        while self.peek().text != ")" or args or keywords:  # (after a ',', an argument must follow)
            if self.peek().kind == "name" and self.peek(1).text == "=":
                key = self.next()
                self.next()
                if key.text in keywords:
                    raise self.error(f"keyword argument {key.text} is given twice", key, "E-ARG-002")
                keywords[key.text] = (key, self.expr())
            elif keywords:
                raise self.error(
                    f"a positional argument cannot follow the keyword argument {list(keywords)[-1]}", code="E-ARG-002"
                )
            else:
                args.append(self.expr())
            if self.peek().text != ",":
                break
            self.next()
        self.expect(")", "',' or ')' in the argument list")
        self.depth -= 1
        return args, keywords

    def number(self, tok: Token) -> int | float:
        """The number ``tok`` writes: exact where it is an integer (``int``), else ``float``."""
        value = float(tok.text)
        if math.isinf(value):
            raise self.error(f"number {tok.text} is too large for f64", tok, "E-LIMIT-001")
        return int(tok.text) if tok.text.isdigit() else value

    def lists_expressions(self) -> bool:
        """Whether the ``[`` here opens a list of expressions (``[a, b]``): a name other than
        ``true``/``false``, or a parenthesis, directly in it (not in a list inside it: a
        literal with a name in a row is a literal that is wrong); else a literal of numbers."""
        depth = 0
        for tok in self.tokens[self.pos :]:
            depth += tok.text == "["
            depth -= tok.text == "]"
            if depth == 0 or tok.kind == "end":
                return False
            if depth == 1 and (
                (tok.kind == "name" and tok.text not in BOOLEANS and tok.text not in SPECIAL_NUMBERS) or tok.text == "("
            ):
                return True
        return False

    def expression_list(self) -> ExprList:
        return ExprList(*self.bracketed("in a list"))

    def literal(self) -> Literal:
        """Nested lists of numbers, every list of a level as long as the others and as deep:
        a matrix is a list of rows, ``[[1, 2], [3, 4]]``."""
        start = self.peek()
        values: list[int | float] = []
        self.booleans = 0
        shape = self.nested_list(values, start, 0)
        if 0 < self.booleans < len(values):
            raise self.error(
                "a literal's elements are all numbers or all true/false, not both",
                between(start, self.tokens[self.pos - 1]),
                "E-SYN-003",
            )
        return Literal(start, shape, values, boolean=self.booleans > 0)

    def nested_list(self, values: list[int | float], start: Token, depth: int) -> Shape:
        """One ``[...]`` of a literal, its numbers appended to ``values``; its shape."""
        opening = self.expect("[")
        if depth >= MAX_NESTING:
            raise self.error(f"literal nested too deeply (more than {MAX_NESTING} levels)", opening, "E-LIMIT-001")
        if self.peek().text == "]":
            raise self.error(
                "a literal's lists cannot be empty: a tensor has no dimension of size 0",
                between(opening, self.peek()),
                "E-SYN-003",
            )
        if self.peek().text != "[":  # a list of numbers
            length = 0
            while True:
                values.append(self.literal_number())
                length += 1
                if len(values) > MAX_LITERAL_ELEMENTS:
                    raise self.error(
                        f"matrix literal is too large (more than {MAX_LITERAL_ELEMENTS} elements)", start, "E-LIMIT-001"
                    )
                if self.peek().text == ",":
                    self.next()
                    continue
                self.expect("]", "',' or ']' in a row of the matrix literal")
                return (length,)
        inner: Shape | None = None
        count = 0
        while True:
            row_start = self.peek()
            shape = self.nested_list(values, start, depth + 1)
            count += 1
            if inner is not None and shape != inner:
                if len(shape) == len(inner) == 1:
                    raise self.error(
                        f"rows of a matrix literal must have equal length: row 1 has "
                        f"{inner[0]} elements, row {count} has {shape[0]}",
                        between(row_start, self.tokens[self.pos - 1]),
                        "E-SYN-003",
                    )
                raise self.error(
                    f"the lists of a literal must have equal shapes: list 1 is "
                    f"{shapes.fmt_shape(inner) or 'a number'} and list {count} "
                    f"{shapes.fmt_shape(shape)}",
                    between(row_start, self.tokens[self.pos - 1]),
                    "E-SYN-003",
                )
            inner = shape
            if self.peek().text == ",":
                self.next()
                if self.peek().text != "[":
                    raise self.error(
                        f"expected '[' after ',' in a nested literal, found {found(self.peek())}", code="E-SYN-003"
                    )
                continue
            self.expect("]", "',' or ']' after a row of the matrix literal")
            return (count, *inner)

    def literal_number(self) -> int | float:
        if self.peek().kind == "name" and self.peek().text in BOOLEANS:
            self.booleans += 1
            return BOOLEANS[self.next().text]
        negative = self.peek().text == "-"
        if negative:
            self.next()
        tok = self.peek()
        if tok.kind == "name" and tok.text in SPECIAL_NUMBERS:
            self.next()
            return -SPECIAL_NUMBERS[tok.text] if negative else SPECIAL_NUMBERS[tok.text]
        if tok.kind != "num":
            raise self.error(f"matrix literal elements must be numbers, found {found(tok)}", code="E-SYN-003")
        self.next()
        return negated(self.number(tok)) if negative else self.number(tok)

    # -- types --------------------------------------------------------------------------

    def tensor_type(self) -> TensorType:
        """``tensor[2x3]``, ``tensor[?x3]``, ``tensor[2x3x4]``, ``tensor[3]``, ``tensor[]`` (rank
        0), ``tensor[2x3xf32]``, ``tensor[i64]``: a tensor type of any rank, its element type
        last (``f64`` where none is written)."""
        tok = self.next()
        if tok.text != "tensor":
            raise self.error(f"expected a type like tensor[2x3], found {found(tok)}", tok, "E-SYN-004")
        self.expect("[", "'[' after 'tensor'")
        text = ""
        while self.peek().text != "]":
            if self.peek().kind == "end":
                raise self.error("expected ']' to close the tensor type", code="E-SYN-004")
            text += self.next().text
        written = between(tok, self.next())  # tensor[...]
        parts = text.split("x") if text else []
        element = element_types.DEFAULT
        if parts and parts[-1] in element_types.NAMES:
            element = element_types.NAMES[parts.pop()]
        elif parts and parts[-1][:1].isalpha():
            raise self.error(
                f"unknown element type {shorten(parts[-1])!r} in tensor[{shorten(text)}]: "
                f"the element types are {', '.join(element_types.NAMES)}",
                written,
                "E-SYN-004",
            )
        dims: list[int | None] = []
        for p in parts:
            digits = p.lstrip("0")
            if p == "?":
                dims.append(None)
            elif not (p.isascii() and p.isdigit()) or not digits:
                raise self.error(
                    f"a dimension is a positive integer or '?', got {shorten(p)!r} in tensor[{shorten(text)}]",
                    written,
                    "E-SYN-004",
                )
            # Compared as text first: int() refuses strings of more than 4300 digits.
            elif len(digits) > len(str(MAX_DIMENSION)) or int(digits) > MAX_DIMENSION:
                raise self.error(
                    f"dimension {shorten(p)} in tensor[{shorten(text)}] is too large: a "
                    f"dimension is at most 2^40 = {MAX_DIMENSION}",
                    written,
                    "E-LIMIT-001",
                )
            else:
                dims.append(int(digits))
        try:
            shapes.check_size(dims)
        except ShapeError as e:
            raise self.error(str(e), written, "E-LIMIT-001") from None
        return TensorType(tuple(dims), element)


ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "r": "\r", "0": "\0"}


def escape(string: Token, text: str, i: int) -> str:
    """The character the escape at ``text[i]`` (a backslash) of ``string``'s text stands for."""
    escaped = text[i + 1 : i + 2]
    if escaped not in ESCAPES:
        col = string.col + 1 + i
        raise MgError(Span(string.line, col, col + 2), f"unknown escape \\{escaped} in a string", code="E-SYN-001")
    return ESCAPES[escaped]


def unescaped(string: Token) -> str:
    """The text of a string without interpolation (a path): its escapes replaced."""
    text, out, i = string.text[1:-1], "", 0
    while i < len(text):
        if text[i] == "\\":
            out += escape(string, text, i)
            i += 2
        else:
            out += text[i]
            i += 1
    return out


def spec_colon(inside: str) -> int:
    """Where the format spec of ``{EXPR:SPEC}`` starts: the first ``:`` outside brackets and
    parentheses (``{x[0:2]}`` has none), or the end."""
    depth = 0
    for k, c in enumerate(inside):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ":" and depth == 0:
            return k
    return len(inside)


def interpolated(string: Token) -> tuple[list[str], list[Expr], list[str]]:
    """The texts, expressions and format specs of a string with ``{EXPR}`` and
    ``{EXPR:SPEC}`` in it (``{{`` and ``}}`` are braces); escapes as Python's."""
    text, pieces, values, specs = string.text[1:-1], [""], [], []
    i = 0
    while i < len(text):
        c = text[i]
        col = string.col + 1 + i  # the column of text[i]
        if c == "\\":
            pieces[-1] += escape(string, text, i)
            i += 2
        elif c in "{}" and text[i + 1 : i + 2] == c:
            pieces[-1] += c
            i += 2
        elif c == "}":
            raise MgError(Span(string.line, col, col + 1), "a '}' in a string is written '}}'", code="E-SYN-001")
        elif c == "{":
            close = text.find("}", i)
            if close < 0:
                raise MgError(Span(string.line, col, None), "'{' without its '}' in the string", code="E-SYN-001")
            inside = text[i + 1 : close]
            colon = spec_colon(inside)
            expression, spec = inside[:colon], inside[colon + 1 :] if colon < len(inside) else ""
            if not expression.strip():
                raise MgError(
                    Span(string.line, col, col + close - i + 1),
                    "an empty {} in a string: put a name or an expression in it ({{ for a brace)",
                    code="E-SYN-001",
                )
            tokens = tokenize(" " * (col) + expression, string.line)
            tokens.append(Token("end", "", col + 1 + len(expression), string.line))
            parser = Parser(tokens)
            values.append(parser.expr())
            parser.expect_end()
            specs.append(spec)
            pieces.append("")
            i = close + 1
        else:
            pieces[-1] += c
            i += 1
    return pieces, values, specs


def parse_statement(tokens: list[Token]) -> Statement:
    """The syntax tree of one statement's tokens (as ``lexer.statements`` yields them)."""
    return Parser(tokens).statement()
