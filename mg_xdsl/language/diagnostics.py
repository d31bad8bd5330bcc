"""What the front end reports: ``MgError`` for a program that cannot compile, warnings for
one that compiles but is likely to abort when it runs.

An error's first line is ``PATH:LINE: error: MESSAGE``, exactly as the examples expect it
and as scripts and the tests read it; below it come a stable code (``mgc explain CODE`` says what it means),
the source line with a caret span under the offending expression, and notes::

    bad.mg:7: error: cannot matrix-multiply shapes 2x16 and 32x8: inner dimensions 16 and 32 differ
      --> bad.mg:7:48 [E-DIM-001]
       |
     7 | def f(x: tensor[2x16], weight: tensor[32x8]) = x @ weight
       |                                                ^^^^^^^^^^
    note: operands: `x` is tensor[2x16xf64], `weight` is tensor[32x8xf64]

The codes and their explanations are in ``error_codes``.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Where in the source an error points: columns ``column`` up to ``end`` (1-based, ``end``
    excluded) of ``line``; ``end`` is None for a span that runs on past its line's end."""

    line: int
    column: int
    end: int | None


# ANSI colours, as compilers print them on a terminal: the error and its carets red, the
# notes and the gutter blue, the code bold.
RED, BLUE, BOLD, RESET = "\033[1;31m", "\033[1;34m", "\033[1m", "\033[0m"


def shown(c: str) -> str:
    """A character of a source line as the report shows it: one character still, so that the
    carets line up, but never a control character (a line of random bytes could move the
    terminal's cursor or end the line early)."""
    if c.isprintable() or c == "\t":
        return c
    return " " if c.isspace() else "\ufffd"


class MgError(Exception):
    """A compile error in a Mountain Goat program.

    ``str()`` of it is what ``mgc`` prints (without colour): the line ``PATH:LINE: error:
    MESSAGE`` and below it the code, the source line with carets and the notes. ``.message``,
    ``.path``, ``.line``, ``.column`` (None where the error has no place on its line, e.g. a
    file that is not UTF-8), ``.code`` and ``.notes`` hold the parts; ``.source_line`` is the
    text of the line, filled in with ``.path`` once the error leaves the front end.
    """

    def __init__(
        self,
        at: "Span | int",
        message: str,
        path: str = "<input>",
        *,
        code: str,
        notes: tuple[str, ...] | list[str] = (),
    ):
        super().__init__(message)
        self.span = at if isinstance(at, Span) else None
        self.line = at.line if isinstance(at, Span) else at
        self.message = message
        self.path = path
        self.code = code
        self.notes = tuple(notes)
        self.source_line: str | None = None

    @property
    def column(self) -> int | None:
        return self.span.column if self.span else None

    def headline(self) -> str:
        """The first line, the one the examples expect exactly: ``PATH:LINE: error: MESSAGE``."""
        return f"{self.path}:{self.line}: error: {self.message}"

    def render(self, color: bool = False) -> str:
        """The whole report; ``color`` for a terminal."""
        red, blue, bold, reset = (RED, BLUE, BOLD, RESET) if color else ("", "", "", "")
        head = self.headline()
        if color:
            place = f"{self.path}:{self.line}: "
            head = f"{bold}{place}{red}error:{reset}{bold}{head[len(place) + 6 :]}{reset}"
        width = len(str(self.line))
        gutter = " " * (width + 1)
        where = f"{self.path}:{self.line}" + (f":{self.column}" if self.column else "")
        lines = [head, f"{gutter}{blue}-->{reset} {where} [{bold}{self.code}{reset}]"]
        if self.source_line is not None:
            text = "".join(map(shown, self.source_line))
            lines += [f"{gutter} {blue}|{reset}", f"{blue}{self.line:>{width + 1}} |{reset} {text}"]
            if self.span is not None:
                lines.append(f"{gutter} {blue}|{reset} {self.carets(text, red, reset)}")
        lines += [f"{blue}note:{reset} {note}" for note in self.notes]
        return "\n".join(lines)

    def carets(self, text: str, red: str, reset: str) -> str:
        """The line under the source: spaces (tabs where the source has them, so the carets
        line up) up to the span, then one ``^`` per character of it (at least one: the end of
        a line is a place too)."""
        assert self.span is not None
        start = self.span.column - 1
        end = len(text) if self.span.end is None else self.span.end - 1
        pad = "".join("\t" if c == "\t" else " " for c in text[:start])
        return f"{pad}{red}{'^' * max(end - start, 1)}{reset}"

    def __str__(self) -> str:
        # Rendered when asked, not in __init__: the path and the line's text are filled in
        # after the fact.
        return self.render()


class MgWarning(UserWarning):
    """A program that compiles but is likely wrong (see ``Program.warnings``)."""
