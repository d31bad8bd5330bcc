"""The Mountain Goat front end: ``.mg`` source text -> a module of the ``mg`` dialect.

A program is one statement per line (``#`` starts a comment); inside brackets or
parentheses a newline is whitespace, as in Python, so a matrix literal may have one row per
line. A UTF-8 byte-order mark is skipped, and LF, CRLF and a bare CR all end a line. A line
ending in ``:`` (``def``, ``for``, ``if``, ``elif``, ``else``) opens a block, the lines
indented under it, as in Python (``Blocks``)::

    let NAME = EXPR                      bind a value
    print EXPR                           print a matrix
    def NAME(P: tensor[RxC], ...) = EXPR a function; its result type is inferred
    def NAME(P: ...) -> TYPE:            a function with a block body, ending in return
    for i in range(N):                   a loop (scf.for), if COND: a conditional (scf.if)

Each ``def`` becomes a ``func.func``; the top-level statements become the body of
``func.func @main()``. The work is done in stages, one module each in
``mg_xdsl/language/``, and each statement goes through all of them before the next one is
read, so the first error in the file is the one reported:

    lexer        the tokens of the statement
    syntax_tree  its syntax tree (syntax errors)
    checker      the type of every expression, compile-time numbers folded (type and shape
                 errors; warnings)
    irgen        its mg ops

and, at the end, each ``grad(...)`` is built as mg ops (``mg-autodiff``, whose errors are
reported here too).

Every problem with the input is an ``MgError`` carrying the place it was found at and a
code; ``mgc`` prints it as ``PATH:LINE: error: MESSAGE`` and below that the code, the source
line with carets under the place, and notes (``diagnostics``). Programs that compile but are likely to abort
at run time get warnings instead, collected in ``Program.warnings`` as
``PATH:LINE: warning: MESSAGE``.
"""

from collections.abc import Iterator

from xdsl.dialects.builtin import ModuleOp

from mg_xdsl.dialects.mg.reverse_mode import AutodiffError, differentiate_all
from mg_xdsl.language.checker import Checker, Signature
from mg_xdsl.language.diagnostics import MgError, MgWarning, Span
from mg_xdsl.language.irgen import IRGen
from mg_xdsl.language.lexer import Token, split_lines, statements
from mg_xdsl.language.parser import parse_statement
from mg_xdsl.language.syntax_tree import Def, For, If, Statement

__all__ = ["MgError", "MgWarning", "Signature", "Program", "parse_program", "compile_source"]

# Said of a library's program (mgc lib, the Python API), which keeps only the defs.
LEFT_OUT = (
    "a library holds only the program's defs: this top-level statement and any after it are "
    "left out (mgc run runs them)"
)


class Program:
    """A compiled program: its mg-dialect ``module``, the ``functions`` (signatures of its
    defs) and its ``warnings``, in source order."""

    def __init__(self, path: str, lines: list[str] | None = None):
        self.path = path
        self.checker = Checker(source=lines or [])
        self.irgen = IRGen(path, self.checker)
        self.module: ModuleOp = self.irgen.module
        self.functions: dict[str, Signature] = self.checker.functions
        self.first_top_level: int | None = None  # the line of the first statement that is no def

    @property
    def warnings(self) -> list[str]:
        """``PATH:LINE: warning: MESSAGE`` for each questionable spot, once per line and
        message; mgc prints them and the Python API issues them as ``MgWarning``."""
        texts = [f"{self.path}:{line}: warning: {message}" for line, message in self.checker.warnings]
        return list(dict.fromkeys(texts))

    def statement(self, tree: Statement) -> None:
        if self.first_top_level is None and not isinstance(tree, Def):
            self.first_top_level = tree.head.line
        self.checker.statement(tree)
        self.irgen.statement(tree)

    def finish(self, with_main: bool = True) -> ModuleOp:
        """The module; without ``@main`` (a library), a warning at the first top-level
        statement, which is checked but not compiled (a program may well be both a script
        and a library, but a statement left out silently would look like a bug)."""
        if not with_main and self.first_top_level is not None:
            self.checker.warn(self.first_top_level, LEFT_OUT)
            self.checker.warnings.sort(key=lambda w: w[0])  # (in source order, as the others are)
        module = self.irgen.finish(with_main)
        if self.irgen.differentiates:
            # Each grad(...) built here (mg-autodiff), so that an operation without a
            # derivative is reported as every other error, at its line.
            try:
                differentiate_all(module)
            except AutodiffError as e:
                place = e.place()
                at = Span(place[0], place[1], None) if place else 0
                raise MgError(at, e.message, self.path, code="E-GRAD-004") from None
        return module


UNEXPECTED_INDENT = (
    "unexpected indentation: the lines of a block are indented alike, and a block starts "
    "after a line that ends with ':' (def, for, if, elif, else)"
)


class Blocks:
    """Statements -> syntax trees with their blocks: the lines indented under a ``def``,
    ``for``, ``if``, ``elif`` or ``else`` line (one that ends with ``:``) are its body, as in
    Python; the body ends at the first line indented no further than its header. An ``elif``
    or ``else`` joins the ``if`` before it at the same indentation."""

    def __init__(self, stream: Iterator[list[Token]]):
        self.stream = stream
        self.ahead: list[Token] | None = None
        self.done = False
        self.line = 0  # the line of the statement read last

    def peek(self) -> list[Token] | None:
        if self.ahead is None and not self.done:
            self.ahead = next(self.stream, None)
            self.done = self.ahead is None
        return self.ahead

    def take(self) -> list[Token]:
        tokens = self.peek()
        assert tokens is not None
        self.ahead = None
        self.line = tokens[0].line
        return tokens

    def read(self, indent: int) -> Iterator[Statement]:
        """The statements of a block whose lines are indented by ``indent`` spaces."""
        while (tokens := self.peek()) is not None and indentation_of(tokens) >= indent:
            if indentation_of(tokens) > indent:
                raise MgError(tokens[0].span, UNEXPECTED_INDENT, code="E-SYN-005")
            tree = self.with_body(parse_statement(self.take()), indent)
            if isinstance(tree, If) and tree.head.text != "if":
                raise MgError(
                    tree.head.span, f"{tree.head.text} without an if before it (at its indentation)", code="E-SYN-005"
                )
            if isinstance(tree, If):
                self.join_branches(tree, indent)
            yield tree

    def join_branches(self, tree: If, indent: int) -> None:
        """The ``elif`` and ``else`` lines after an ``if``, each with its body."""
        while (tokens := self.peek()) is not None and indentation_of(tokens) == indent:
            if tokens[0].text not in ("elif", "else") or tree.branches[-1][1] is None:
                return  # (a second else, or an elif after else, is an if-less one: reported by read)
            branch = self.with_body(parse_statement(self.take()), indent)
            assert isinstance(branch, If)
            tree.branches.extend(branch.branches)

    def with_body(self, tree: Statement, indent: int) -> Statement:
        """``tree``, and if it is a block's header its body: the lines indented further."""
        is_head = isinstance(tree, For | If) or isinstance(tree, Def) and tree.body is None
        if not is_head:
            return tree
        tokens = self.peek()
        if tokens is None or indentation_of(tokens) <= indent:
            where = "at the end of the file" if tokens is None else f"on line {tokens[0].line}"
            raise MgError(
                tree.head.line,
                f"expected an indented block after the {tree.head.text} line, {where}",
                code="E-SYN-005",
            )
        body = list(self.read(indentation_of(tokens)))
        if isinstance(tree, For):
            tree.body = body
        elif isinstance(tree, If):
            tree.branches[-1][2].extend(body)
        else:
            assert isinstance(tree, Def)
            tree.block = body
        return tree


def indentation_of(tokens: list[Token]) -> int:
    """How far the statement's first line is indented (``lexer.statements`` refused tabs)."""
    return tokens[0].col - 1


def decode(source: bytes | str, path: str) -> str:
    """The program's text, without a leading byte-order mark (some Windows editors add one)."""
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as e:
            line = len(split_lines(source[: e.start].decode("utf-8")))
            raise MgError(
                line, f"the file is not UTF-8 text (byte 0x{source[e.start]:02x})", path, code="E-SYN-001"
            ) from None
    return source.removeprefix("\ufeff")


def parse_program(source: bytes | str, path: str = "<input>", with_main: bool = True) -> Program:
    """Compile a whole program to its verified mg-dialect module, with the signatures of its
    defs and its warnings."""
    text = decode(source, path)
    lines = split_lines(text)
    program = Program(path, lines)
    blocks = Blocks(statements(text))
    try:
        for tree in blocks.read(0):
            program.statement(tree)
        program.finish(with_main)
    except MgError as e:
        e.path = path
        if 0 < e.line <= len(lines):
            e.source_line = lines[e.line - 1]
        raise
    except RecursionError:
        # MAX_NESTING keeps the stages well below the limit; this is for a caller that is
        # itself deep in the stack.
        raise MgError(blocks.line, "expression is nested too deeply", path, code="E-LIMIT-001") from None
    program.module.verify()
    return program


def compile_source(source: bytes | str, path: str = "<input>") -> ModuleOp:
    """Parse a whole program and return its verified mg-dialect module."""
    return parse_program(source, path).module
