"""The Mountain Goat front end: ``.mg`` source text -> a module of the ``mg`` dialect.

A program is one statement per line (``#`` starts a comment); inside brackets or
parentheses a newline is whitespace, as in Python, so a matrix literal may have one row per
line. A UTF-8 byte-order mark is skipped, and LF, CRLF and a bare CR all end a line::

    let NAME = EXPR                      bind a value
    print EXPR                           print a matrix
    def NAME(P: tensor[RxC], ...) = EXPR a function; its result type is inferred

Each ``def`` becomes a ``func.func``; the top-level ``let``/``print`` statements become the
body of ``func.func @main()``. Values are tensors (SSA values with a shape) or compile-time
numbers; arithmetic on two numbers is folded here, a tensor with a number becomes
``mg.scalar``. Elementwise operators broadcast a static size-1 dimension by inserting an
explicit ``mg.broadcast``, so later stages only ever see operands of agreeing shapes.

Every problem with the input is an ``MgError`` carrying the line it was found on; ``mgc``
prints it as ``PATH:LINE: error: MESSAGE``. Programs that compile but are likely to abort
at run time get warnings instead, collected in ``Program.warnings`` as
``PATH:LINE: warning: MESSAGE``.
"""

import difflib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FunctionType,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    f64,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from mg_xdsl import shapes
from mg_xdsl.dialects import mg
from mg_xdsl.shapes import MAX_DIMENSION, Shape, ShapeError, fmt_shape

MAX_LITERAL_ELEMENTS = 100_000
# Parentheses and calls nest by recursion in the parser; this bound keeps it far from
# Python's recursion limit wherever the compiler is called from.
MAX_NESTING = 100

NEVER_BROADCAST = (
    "a '?' dimension is never broadcast: this aborts at run time unless the sizes are "
    "equal; give the dimension a static size"
)


class MgError(Exception):
    """A compile error in a Mountain Goat program.

    ``str()`` of it is ``PATH:LINE: error: MESSAGE``, what ``mgc`` prints; ``.message``,
    ``.line`` and ``.path`` hold the parts.
    """

    def __init__(self, line: int, message: str, path: str = "<input>"):
        super().__init__(message)
        self.line = line
        self.message = message
        self.path = path

    def render(self) -> str:
        return f"{self.path}:{self.line}: error: {self.message}"

    def __str__(self) -> str:
        # Rendered when asked, not in __init__: the path is filled in after the fact.
        return self.render()


class MgWarning(UserWarning):
    """A program that compiles but is likely wrong (see ``Program.warnings``)."""


# ---------------------------------------------------------------------------------------
# Lexer
# ---------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>[-+*/@()\[\],=:?])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op" or "end"
    text: str
    col: int
    line: int


def tokenize(text: str, line: int) -> list[Token]:
    """The tokens of one line of source (without an end token)."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        if text[pos] == "#":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise MgError(line, f"unexpected character {text[pos]!r}")
        if m.lastgroup != "ws":
            tokens.append(Token(m.lastgroup or "", m.group(), m.start() + 1, line))
        pos = m.end()
    return tokens


def split_lines(text: str) -> list[str]:
    """The lines of ``text``: CRLF and a bare CR end a line as LF does (old Mac files use CR)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


STATEMENT_KEYWORDS = {"let", "print", "def"}


def statements(text: str) -> Iterator[list[Token]]:
    """The tokens of each statement in turn, each list ending with an ``end`` token.

    A statement ends with its line unless a bracket or parenthesis is still open: then, as
    in Python, the newline is whitespace and the statement goes on. A line that starts
    with ``let``, ``print`` or ``def`` always starts a new statement, so a forgotten ``]``
    is reported on its own statement's line ("expected ... found the end of the line")
    instead of swallowing the rest of the file. Tokens keep their own line, so a message
    about any part of a long statement names the right line. Being a generator, this
    tokenizes a line only after the statements before it were compiled, so the first
    error in the file is the one reported.
    """
    current: list[Token] = []
    depth = 0  # brackets and parentheses open at the end of the line so far
    for line_no, line in enumerate(split_lines(text), start=1):
        tokens = tokenize(line, line_no)
        starts_statement = bool(tokens) and tokens[0].kind == "name" and tokens[0].text in STATEMENT_KEYWORDS
        if current and starts_statement:
            yield current + [Token("end", "", current[-1].col + len(current[-1].text), current[-1].line)]
            current, depth = [], 0
        for tok in tokens:
            if tok.kind == "op" and tok.text in "([":
                depth += 1
            elif tok.kind == "op" and tok.text in ")]":
                depth = max(depth - 1, 0)  # a mismatched pair is left for the parser to report
        current += tokens
        if current and depth == 0:
            yield current + [Token("end", "", len(line) + 1, line_no)]
            current = []
    if current:
        yield current + [Token("end", "", current[-1].col + len(current[-1].text), current[-1].line)]


# ---------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------


@dataclass
class Tensor:
    value: SSAValue
    shape: Shape


Value = Tensor | float


def describe(v: Value) -> str:
    return f"a {fmt_shape(v.shape)} matrix" if isinstance(v, Tensor) else f"the number {v:g}"


@dataclass
class Signature:
    params: list[tuple[str, Shape]]
    result: Shape


VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}
BINARY_OPS: dict[str, type[mg.ElementwiseBinaryOp]] = {
    "+": mg.AddOp,
    "-": mg.SubOp,
    "*": mg.MulOp,
    "/": mg.DivOp,
}
SCALAR_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
REDUCTIONS = {
    f"{side}_{kind}": (1 if side == "row" else 0, kind)
    for side in ("row", "col")
    for kind in ("sum", "max", "mean")
}
BUILTIN_LIST = ["relu", "transpose", *REDUCTIONS]  # in a fixed order, for suggestions
BUILTINS = set(BUILTIN_LIST)
# Symbols the generated code links against: a def with one of these names would clash.
RESERVED = {"main", "malloc", "free", "printMemrefF64", "abort"}


def fold(op: str, a: float, b: float) -> float:
    """Arithmetic on two compile-time numbers, with IEEE results for division by zero."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def shorten(text: str, limit: int = 60) -> str:
    """``text``, or its two ends if it is longer than ``limit``: for runaway input in messages."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 2):]} ({len(text)} characters)"


def did_you_mean(name: str, candidates: list[str]) -> str:
    """``": did you mean row_sum or col_sum?"`` for ``sum``, or ``""`` if nothing is near.

    A name that a candidate extends by a ``_`` part (``sum`` in ``row_sum``, ``row`` in
    ``row_max``) is the likeliest meaning; otherwise the close spellings by ``difflib``.
    """
    near = [c for c in candidates if c.endswith("_" + name) or c.startswith(name + "_")]
    if not near:
        near = difflib.get_close_matches(name, candidates, n=3)
    if not near:
        return ""
    listed = near[0] if len(near) == 1 else ", ".join(near[:-1]) + " or " + near[-1]
    return f": did you mean {listed}?"


# ---------------------------------------------------------------------------------------
# Parser and IR builder
# ---------------------------------------------------------------------------------------


@dataclass
class FunctionBuilder:
    """Collects the ops of one function and the names visible in it."""

    block: Block
    env: dict[str, Value] = field(default_factory=dict)
    name: str | None = None  # the def being built; None for the top level (main)


class Parser:
    """Recursive descent over one statement, emitting mg ops as it goes.

    Grammar, with Python's precedence (unary minus tightest, then ``@ * /``, then ``+ -``,
    each left-associative)::

        expr   := term (("+" | "-") term)*
        term   := unary (("@" | "*" | "/") unary)*
        unary  := "-"* atom
        atom   := NUMBER | NAME | NAME "(" args ")" | "(" expr ")" | literal

    The repetitions are loops, so a chain of any length (``a + a + ... + a`` with 10^4
    terms, ``- - - a``) parses in constant stack depth; only parentheses and calls recurse,
    up to ``MAX_NESTING`` levels.
    """

    def __init__(self, program: "Program", tokens: list[Token], fn: FunctionBuilder):
        self.program = program
        self.tokens = tokens
        self.pos = 0
        self.fn = fn
        self.depth = 0  # parentheses and calls open around the current position

    # -- token helpers ------------------------------------------------------------------

    def peek(self, offset: int = 0) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.pos += 1
        return tok

    def error(self, message: str, at: Token | None = None) -> MgError:
        """An error on the line of ``at`` (by default the next token)."""
        return MgError((at or self.peek()).line, message)

    def expect(self, text: str, what: str | None = None) -> Token:
        tok = self.peek()
        if tok.text != text:
            raise self.error(f"expected {what or repr(text)}, found {self.found(tok)}")
        return self.next()

    @staticmethod
    def found(tok: Token) -> str:
        return "the end of the line" if tok.kind == "end" else repr(tok.text)

    def expect_end(self) -> None:
        tok = self.peek()
        if tok.kind != "end":
            raise self.error(f"unexpected {tok.text!r} after the end of the expression")

    def loc(self, tok: Token) -> FileLineColLoc:
        return FileLineColLoc(StringAttr(self.program.path), IntAttr(tok.line), IntAttr(tok.col))

    def enter(self, tok: Token) -> None:
        """Open one level of parentheses or call arguments at ``tok``."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(
                f"expression is nested too deeply (more than {MAX_NESTING} levels of "
                "parentheses and calls)", tok
            )

    def emit(self, op: Operation, tok: Token) -> SSAValue:
        """Append ``op`` to the function being built, located at ``tok``; its result."""
        op.location = self.loc(tok)
        self.fn.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    # -- expressions --------------------------------------------------------------------

    def expr(self) -> Value:
        left = self.term()
        while self.peek().text in ("+", "-") and self.peek().kind == "op":
            tok = self.next()
            left = self.binary(tok, left, self.term())
        return left

    def term(self) -> Value:
        left = self.unary()
        while self.peek().text in ("@", "*", "/") and self.peek().kind == "op":
            tok = self.next()
            right = self.unary()
            left = self.matmul(tok, left, right) if tok.text == "@" else self.binary(tok, left, right)
        return left

    def unary(self) -> Value:
        signs: list[Token] = []
        while self.peek().text == "-" and self.peek().kind == "op":
            signs.append(self.next())
        v = self.atom()
        for tok in reversed(signs):  # the innermost minus applies first
            v = -v if isinstance(v, float) else Tensor(self.emit(mg.NegOp(v.value), tok), v.shape)
        return v

    def atom(self) -> Value:
        tok = self.peek()
        if tok.kind == "num":
            self.next()
            return self.number(tok)
        if tok.kind == "name":
            self.next()
            if self.peek().text == "(":
                return self.call(tok)
            if tok.text in self.fn.env:
                return self.fn.env[tok.text]
            if tok.text in BUILTINS or tok.text in self.program.functions:
                raise self.error(f"{tok.text!r} is a function: call it as {tok.text}(...)", tok)
            if self.fn is not self.program.main and tok.text in self.program.main.env:
                raise self.error(
                    f"unknown name {tok.text!r}: a def sees only its parameters "
                    f"({tok.text} is defined at the top level)", tok
                )
            raise self.error(f"unknown name {tok.text!r}{did_you_mean(tok.text, list(self.fn.env))}", tok)
        if tok.text == "(":
            self.next()
            self.enter(tok)
            v = self.expr()
            self.expect(")", "')' to close '('")
            self.depth -= 1
            return v
        if tok.text == "[":
            return self.literal()
        if tok.kind == "end":
            raise self.error("expected an expression, found the end of the line")
        raise self.error(f"expected an expression, found {tok.text!r}")

    def number(self, tok: Token) -> float:
        value = float(tok.text)
        if math.isinf(value):
            raise self.error(f"number {tok.text} is too large for f64", tok)
        return value

    def literal(self) -> Tensor:
        """``[[1, 2], [3, 4]]``: a matrix written row by row."""
        start = self.expect("[")
        rows: list[list[float]] = []
        count = 0
        while True:
            if self.peek().text != "[":
                raise self.error(
                    f"a matrix literal is a list of rows like [[1, 2], [3, 4]]; "
                    f"found {self.found(self.peek())}"
                )
            row_start = self.next()
            row: list[float] = []
            while True:
                row.append(self.literal_number())
                count += 1
                if count > MAX_LITERAL_ELEMENTS:
                    raise self.error(
                        f"matrix literal is too large (more than {MAX_LITERAL_ELEMENTS} elements)",
                        start,
                    )
                if self.peek().text == ",":
                    self.next()
                    continue
                self.expect("]", "',' or ']' in a row of the matrix literal")
                break
            if rows and len(row) != len(rows[0]):
                raise self.error(
                    f"rows of a matrix literal must have equal length: row 1 has "
                    f"{len(rows[0])} elements, row {len(rows) + 1} has {len(row)}",
                    row_start,
                )
            rows.append(row)
            if self.peek().text == ",":
                self.next()
                continue
            self.expect("]", "',' or ']' after a row of the matrix literal")
            break
        shape = (len(rows), len(rows[0]))
        attr = DenseIntOrFPElementsAttr.from_list(mg.tensor_type(shape), [x for r in rows for x in r])
        return Tensor(self.emit(mg.ConstantOp(attr), start), shape)

    def literal_number(self) -> float:
        sign = 1.0
        if self.peek().text == "-":
            self.next()
            sign = -1.0
        tok = self.peek()
        if tok.kind != "num":
            raise self.error(
                f"matrix literal elements must be numbers, found {self.found(tok)}"
            )
        self.next()
        return sign * self.number(tok)

    # -- operators ----------------------------------------------------------------------

    def binary(self, tok: Token, left: Value, right: Value) -> Value:
        op = tok.text
        if isinstance(left, float) and isinstance(right, float):
            return fold(op, left, right)
        if isinstance(right, float) or isinstance(left, float):
            tensor, number = (left, right) if isinstance(right, float) else (right, left)
            assert isinstance(tensor, Tensor) and isinstance(number, float)
            scalar = mg.ScalarOp(tensor.value, SCALAR_NAMES[op], number, reversed=tensor is right)
            return Tensor(self.emit(scalar, tok), tensor.shape)
        try:
            shape = shapes.broadcast_shapes(left.shape, right.shape, VERBS[op])
        except ShapeError as e:
            raise self.error(str(e), tok) from None
        self.check_result(shape, VERBS[op], left, right, tok)  # 2^40x1 + 1x2^40 grows
        if shapes.never_broadcast(left.shape, right.shape):
            self.program.warn(tok.line, NEVER_BROADCAST)
        lhs = self.grow(left, shape, tok)
        rhs = self.grow(right, shape, tok)
        result = BINARY_OPS[op](lhs, rhs)  # of type tensor<shape> (the op infers it)
        return Tensor(self.emit(result, tok), shape)

    def grow(self, v: Tensor, target: Shape, tok: Token) -> SSAValue:
        """Broadcast ``v`` to ``target`` with an explicit ``mg.broadcast`` where needed."""
        if not shapes.needs_broadcast(v.shape, target):
            return v.value
        if None in v.shape or None in target:
            raise self.error("broadcasting needs static shapes; this operand has a '?' dimension", tok)
        return self.emit(mg.BroadcastOp(v.value, mg.tensor_type(target)), tok)

    def matmul(self, tok: Token, left: Value, right: Value) -> Tensor:
        if not isinstance(left, Tensor) or not isinstance(right, Tensor):
            raise self.error(
                f"@ needs two matrices, got {describe(left)} and {describe(right)} "
                "(use * to scale by a number)", tok
            )
        try:
            shape = shapes.matmul_shape(left.shape, right.shape)
        except ShapeError as e:
            raise self.error(str(e), tok) from None
        self.check_result(shape, "matrix-multiply", left, right, tok)  # MxK @ KxN can be far larger
        op = mg.MatmulOp(left.value, right.value)
        return Tensor(self.emit(op, tok), shape)

    def check_result(self, shape: Shape, verb: str, left: Tensor, right: Tensor, tok: Token) -> None:
        """A result shape, grown from its operands, must still be addressable."""
        try:
            shapes.check_size(shape)
        except ShapeError as e:
            raise self.error(
                f"cannot {verb} shapes {fmt_shape(left.shape)} and {fmt_shape(right.shape)}: "
                f"the result {e}", tok
            ) from None

    # -- calls --------------------------------------------------------------------------

    def arguments(self) -> list[Value]:
        self.enter(self.expect("("))
        args: list[Value] = []
        if self.peek().text != ")":
            args.append(self.expr())
            while self.peek().text == ",":
                self.next()
                args.append(self.expr())
        self.expect(")", "',' or ')' in the argument list")
        self.depth -= 1
        return args

    def call(self, name: Token) -> Value:
        args = self.arguments()
        if name.text in BUILTINS:
            return self.builtin(name, args)
        sig = self.program.functions.get(name.text)
        if sig is None:
            raise self.error(self.unknown_function(name.text), name)
        if len(args) != len(sig.params):
            raise self.error(
                f"{name.text} takes {len(sig.params)} argument"
                f"{'' if len(sig.params) == 1 else 's'}, got {len(args)}", name
            )
        values: list[SSAValue] = []
        for i, (arg, (pname, pshape)) in enumerate(zip(args, sig.params), start=1):
            if not isinstance(arg, Tensor):
                raise self.error(
                    f"argument {i} of {name.text} ({pname}) must be a {fmt_shape(pshape)} "
                    f"matrix, got {describe(arg)}", name
                )
            if not shapes.shapes_compatible(arg.shape, pshape):
                raise self.error(
                    f"argument {i} of {name.text} ({pname}) must be {fmt_shape(pshape)}, "
                    f"got {fmt_shape(arg.shape)}", name
                )
            if arg.shape != pshape:
                # A static size passed as '?' is forgotten; a '?' passed where a static size
                # is expected is checked when the program runs.
                arg = Tensor(self.emit(mg.CastOp(arg.value, mg.tensor_type(pshape)), name), pshape)
            values.append(arg.value)
        op = func.CallOp(name.text, values, [mg.tensor_type(sig.result)])
        return Tensor(self.emit(op, name), sig.result)

    def unknown_function(self, name: str) -> str:
        if name == self.fn.name:
            return f"def {name} calls itself: recursion is not supported"
        if name in self.fn.env:
            return f"{name!r} is {describe(self.fn.env[name])}, not a function"
        return f"unknown function {name!r}{did_you_mean(name, BUILTIN_LIST + list(self.program.functions))}"

    def builtin(self, name: Token, args: list[Value]) -> Tensor:
        if len(args) != 1:
            raise self.error(f"{name.text} takes 1 argument, got {len(args)}", name)
        (arg,) = args
        if not isinstance(arg, Tensor):
            raise self.error(f"{name.text} needs a matrix, not a scalar", name)
        if name.text == "relu":
            return Tensor(self.emit(mg.ReluOp(arg.value), name), arg.shape)
        if name.text == "transpose":
            shape = shapes.transpose_shape(arg.shape)
            return Tensor(self.emit(mg.TransposeOp(arg.value), name), shape)
        # row_*: one value per row (axis 1); col_*: one per column (axis 0).
        axis, kind = REDUCTIONS[name.text]
        shape = shapes.reduce_shape(arg.shape, axis)
        if kind == "mean" and arg.shape[axis] is None:
            raise self.error(f"{name.text} needs a static size along the averaged axis, not '?'", name)
        reduce = mg.ReduceOp(arg.value, axis, "max" if kind == "max" else "sum")
        result = self.emit(reduce, name)
        if kind == "mean":
            count = float(arg.shape[axis])  # type: ignore[arg-type]
            result = self.emit(mg.ScalarOp(result, "div", count, reversed=False), name)
        return Tensor(result, shape)

    # -- types --------------------------------------------------------------------------

    def tensor_type(self) -> Shape:
        """``tensor[2x3]``, ``tensor[?x3]``: a rank-2 f64 tensor type."""
        tok = self.next()
        if tok.text != "tensor":
            raise self.error(f"expected a type like tensor[2x3], found {self.found(tok)}", tok)
        self.expect("[", "'[' after 'tensor'")
        text = ""
        while self.peek().text != "]":
            if self.peek().kind == "end":
                raise self.error("expected ']' to close the tensor type")
            text += self.next().text
        self.next()
        parts = text.split("x")
        if len(parts) != 2:
            raise self.error(
                f"a tensor type has two dimensions, like tensor[2x3] or tensor[?x?]; "
                f"got tensor[{shorten(text)}]", tok
            )
        dims: list[int | None] = []
        for p in parts:
            digits = p.lstrip("0")
            if p == "?":
                dims.append(None)
            elif not (p.isascii() and p.isdigit()) or not digits:
                raise self.error(
                    f"a dimension is a positive integer or '?', got {shorten(p)!r} in "
                    f"tensor[{shorten(text)}]", tok
                )
            # Compared as text first: int() refuses strings of more than 4300 digits.
            elif len(digits) > len(str(MAX_DIMENSION)) or int(digits) > MAX_DIMENSION:
                raise self.error(
                    f"dimension {shorten(p)} in tensor[{shorten(text)}] is too large: a "
                    f"dimension is at most 2^40 = {MAX_DIMENSION}", tok
                )
            else:
                dims.append(int(digits))
        try:
            shapes.check_size(dims)
        except ShapeError as e:
            raise self.error(str(e), tok) from None
        return tuple(dims)


class Program:
    """The whole module being built: its functions and the ``main`` that holds the rest."""

    def __init__(self, path: str):
        self.path = path
        self.module = ModuleOp([])
        self.functions: dict[str, Signature] = {}
        self.main = FunctionBuilder(Block())
        # `PATH:LINE: warning: MESSAGE` for each questionable spot, in source order; mgc
        # prints them and the Python API issues them as MgWarning.
        self.warnings: list[str] = []

    def warn(self, line: int, message: str) -> None:
        text = f"{self.path}:{line}: warning: {message}"
        if text not in self.warnings:  # once per line is enough
            self.warnings.append(text)

    def statement(self, tokens: list[Token]) -> None:
        head = tokens[0]
        line = head.line
        if head.kind == "name" and head.text == "def":
            return self.define(line, tokens)
        p = Parser(self, tokens, self.main)
        if head.kind == "name" and head.text == "let" and tokens[1].kind == "name" and tokens[2].text == "=":
            name = tokens[1]
            if name.text in BUILTINS or name.text in self.functions or name.text in KEYWORDS:
                raise MgError(line, f"cannot bind {name.text!r}: it names a function or keyword")
            p.pos = 3
            value = p.expr()
            p.expect_end()
            self.main.env[name.text] = value
        elif head.kind == "name" and head.text == "let":
            raise MgError(line, "expected 'let NAME = EXPR'")
        elif head.kind == "name" and head.text == "print":
            p.pos = 1
            value = p.expr()
            p.expect_end()
            if not isinstance(value, Tensor):
                raise MgError(line, f"print needs a matrix, got {describe(value)}")
            p.emit(mg.PrintOp(value.value), head)
        else:
            raise MgError(
                line,
                f"expected a statement (let, print or def), found {Parser.found(head)}",
            )

    def define(self, line: int, tokens: list[Token]) -> None:
        """``def NAME(P: TYPE, ...) = EXPR`` becomes ``func.func @NAME``."""
        block = Block()
        fn = FunctionBuilder(block)
        p = Parser(self, tokens, fn)
        p.pos = 1
        name = p.next()
        if name.kind != "name":
            raise MgError(line, f"expected a function name after 'def', found {p.found(name)}")
        if name.text in BUILTINS or name.text in KEYWORDS:
            raise MgError(line, f"cannot define {name.text!r}: it is a built-in name")
        if name.text in RESERVED or name.text.startswith("_mlir"):
            raise MgError(line, f"cannot define {name.text!r}: the name is reserved")
        if name.text in self.functions:
            raise MgError(line, f"function {name.text!r} is already defined")
        fn.name = name.text
        p.expect("(", f"'(' after def {name.text}")
        params: list[tuple[str, Shape]] = []
        while p.peek().text != ")":
            pname = p.next()
            if pname.kind != "name":
                raise MgError(pname.line, f"expected a parameter name, found {p.found(pname)}")
            if pname.text in fn.env:
                raise MgError(pname.line, f"parameter {pname.text!r} appears twice")
            p.expect(":", f"':' and a type after parameter {pname.text}")
            shape = p.tensor_type()
            params.append((pname.text, shape))
            arg = block.insert_arg(mg.tensor_type(shape), len(block.args))
            arg.name_hint = pname.text
            fn.env[pname.text] = Tensor(arg, shape)
            if p.peek().text == ",":
                p.next()
            elif p.peek().text != ")":
                raise p.error(f"expected ',' or ')' in the parameter list, found {p.found(p.peek())}")
        p.next()
        p.expect("=", f"'=' and the body of {name.text}")
        body = p.expr()
        p.expect_end()
        if not isinstance(body, Tensor):
            raise MgError(line, f"the body of {name.text} must be a matrix, got {describe(body)}")
        ret = func.ReturnOp(body.value)
        ret.location = p.loc(name)
        block.add_op(ret)
        fn_type = FunctionType.from_lists([mg.tensor_type(s) for _, s in params], [mg.tensor_type(body.shape)])
        op = func.FuncOp(name.text, fn_type, Region(block))
        # Callable from C, C++ and Python through a `_mlir_ciface_` wrapper.
        op.attributes["llvm.emit_c_interface"] = UnitAttr()
        op.location = p.loc(name)
        self.module.body.block.add_op(op)
        self.functions[name.text] = Signature(params, body.shape)

    def finish(self, with_main: bool = True) -> ModuleOp:
        """The module; without ``@main`` for a library, which holds only the defs."""
        if with_main:
            self.main.block.add_op(func.ReturnOp())
            self.module.body.block.add_op(func.FuncOp("main", ((), ()), Region(self.main.block)))
        return self.module


KEYWORDS = {"let", "print", "def", "tensor"}


def decode(source: bytes | str, path: str) -> str:
    """The program's text, without a leading byte-order mark (some Windows editors add one)."""
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as e:
            line = len(split_lines(source[: e.start].decode("utf-8")))
            raise MgError(line, f"the file is not UTF-8 text (byte 0x{source[e.start]:02x})", path) from None
    return source.removeprefix("\ufeff")


def parse_program(source: bytes | str, path: str = "<input>", with_main: bool = True) -> Program:
    """Parse a whole program: its verified mg-dialect module, the signatures of its defs and
    its warnings."""
    text = decode(source, path)
    program = Program(path)
    line_no = 0
    try:
        for tokens in statements(text):
            line_no = tokens[0].line
            program.statement(tokens)
        program.finish(with_main)
    except MgError as e:
        e.path = path
        raise
    except RecursionError:
        # MAX_NESTING keeps the parser well below the limit; this is for a caller that is
        # itself deep in the stack.
        raise MgError(line_no, "expression is nested too deeply", path) from None
    program.module.verify()
    return program


def compile_source(source: bytes | str, path: str = "<input>") -> ModuleOp:
    """Parse a whole program and return its verified mg-dialect module."""
    return parse_program(source, path).module
