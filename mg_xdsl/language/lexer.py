"""The lexer: source text -> the tokens of each statement.

A program is one statement per line (``#`` starts a comment); inside brackets or
parentheses a newline is whitespace, as in Python, so a matrix literal may have one row per
line. LF, CRLF and a bare CR all end a line. A statement's first token's column is its
indentation, which the front end reads blocks from (tabs are refused there); a string
(``"..."``, Python's escapes) is one token, ``#`` inside it included.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass

from mg_xdsl.language.diagnostics import MgError, Span

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<op>->|[<>=!]=|[-+*/]=|//|\*\*|[-+*/%@()\[\],=:?<>])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op", "str" (a string literal, quotes included) or "end"
    text: str
    col: int
    line: int

    @property
    def span(self) -> Span:
        """The token's own place (one column for the end of a line, which has no text)."""
        return Span(self.line, self.col, self.col + max(len(self.text), 1))


def tokenize(text: str, line: int) -> list[Token]:
    """The tokens of one line of source (without an end token)."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        if text[pos] == "#":
            break
        m = _TOKEN.match(text, pos)
        if m is None and text[pos] == '"':
            raise MgError(
                Span(line, pos + 1, None), "unterminated string: a string ends with '\"' on its line", code="E-SYN-001"
            )
        if m is None:
            raise MgError(Span(line, pos + 1, pos + 2), f"unexpected character {text[pos]!r}", code="E-SYN-001")
        if m.lastgroup != "ws":
            tokens.append(Token(m.lastgroup or "", m.group(), m.start() + 1, line))
        pos = m.end()
    return tokens


def split_lines(text: str) -> list[str]:
    """The lines of ``text``: CRLF and a bare CR end a line as LF does (old Mac files use CR)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


STATEMENT_KEYWORDS = {"let", "var", "print", "println", "def", "for", "if", "elif", "else", "return"}


def indentation(line: str, line_no: int) -> int:
    """The width of ``line``'s indentation, in spaces: a block's statements are indented
    more than its header (``def``, ``for``, ``if``). Tabs are refused: how wide a tab is
    depends on the editor, and a block that looks right could be wrong."""
    stripped = line.lstrip(" \t\f")
    lead = line[: len(line) - len(stripped)]
    if "\t" in lead:
        raise MgError(
            Span(line_no, lead.index("\t") + 1, len(lead) + 1),
            "indent with spaces, not tabs: a tab's width depends on the editor",
            code="E-SYN-005",
        )
    return len(lead)


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
        if tokens and not current:
            indentation(line, line_no)  # (refuses tabs before a statement)
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
