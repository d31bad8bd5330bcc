"""How the builtins' rules read their arguments: how many there are, and the integers,
axes, element types and booleans that must be known when compiling."""

from xdsl.ir import Attribute

from mg_xdsl.core import element_types
from mg_xdsl.language.checker_core import CheckerCore, Scope
from mg_xdsl.language.checker_types import describe, is_number, is_whole, type_text
from mg_xdsl.language.lexer import Token
from mg_xdsl.language.syntax_tree import Call, Expr, ExprList, Literal, Name, TensorType


class ArgumentReader(CheckerCore):
    """The readers of a builtin's arguments, which every family's rules share."""

    def arity(self, name: Token, args: list, count: int, what: str) -> None:
        if len(args) != count:
            raise self.error(
                name,
                "E-ARG-001",
                f"{name.text} takes {count} argument{'s' if count > 1 else ''} ({what}), got {len(args)}",
            )

    def static_ints(self, e: Expr, scope: Scope, what: str) -> list[int]:
        """The integers of a list literal (or one number) written where the compiler needs
        them: axes, a shape. The empty list ``[]`` is none (no axes; the shape of rank 0)."""
        if isinstance(e, ExprList) and not e.items:
            self.integer_lists.add(e)
            return []
        t = self.expr(e, scope)
        values = (
            [t]
            if is_number(t)
            else e.values
            if isinstance(e, Literal) and len(e.shape) == 1
            else self.constants.get(e)
            if isinstance(e, Call) and e.tok.text == "shape"
            else None
        )
        if values is None or any(not is_whole(v) for v in values):
            raise self.error(
                e,
                "E-ARG-003",
                f"{what} must be a list of integers like [0, 1], got "
                f"{'a literal of ' + type_text(t) if isinstance(e, Literal) and isinstance(t, TensorType) else describe(t)}",
            )
        if not is_number(t):
            self.integer_lists.add(e)
        return [int(v) for v in values]

    def run_time_shape(self, e: Expr, scope: Scope) -> tuple[Expr, TensorType] | None:
        """``shape(x)`` where a shape is expected and ``x`` has a ``?`` size: ``x`` (and its
        type), whose sizes the result takes when the program runs; else None (a static shape
        is read by ``static_ints``)."""
        if not (isinstance(e, Call) and e.tok.text == "shape" and len(e.args) == 1 and not e.keywords):
            return None
        t = self.expr(e.args[0], scope)
        if not isinstance(t, TensorType) or None not in t.shape:
            return None
        self.types[e] = TensorType((len(t.shape),), element_types.NAMES["i64"])
        return e.args[0], t

    def keyword_bool(self, c: Call, key: str, scope: Scope, default: bool) -> bool:
        if key not in c.keywords:
            return default
        tok, e = c.keywords[key]
        if not (isinstance(e, Literal) and e.boolean and e.shape == ()):
            raise self.error(tok, "E-ARG-003", f"{key} must be true or false")
        return e.values[0] == 1.0

    def keyword_dtype(self, c: Call, default: str) -> Attribute:
        if "dtype" not in c.keywords:
            return element_types.NAMES[default]
        tok, e = c.keywords["dtype"]
        if not isinstance(e, Name) or e.tok.text not in element_types.NAMES:
            raise self.error(tok, "E-DIM-002", f"dtype must be an element type: {', '.join(element_types.NAMES)}")
        return element_types.NAMES[e.tok.text]

    def axes(self, name: Token, rank: int, written: list[int]) -> list[int]:
        """``written`` axes, negative ones counted from the end, each once, in order."""
        normalised = []
        for axis in written:
            if not -rank <= axis < rank:
                raise self.error(
                    name,
                    "E-ARG-004",
                    f"{name.text}: axis {axis} is out of range for a tensor of rank {rank}"
                    + (f" (axes are -{rank} to {rank - 1})" if rank else ""),
                )
            if axis % rank in normalised:
                raise self.error(name, "E-ARG-004", f"{name.text}: axis {axis} is given twice")
            normalised.append(axis % rank)
        return sorted(normalised)

    def one_axis(self, name: Token, e: Expr, scope: Scope, rank: int, what: str, label: str | None = None) -> int:
        """The one axis of a tensor of ``rank`` written as ``e`` for ``name``, negative ones
        counting from the end (``what`` and ``label`` name it in the messages)."""
        written = self.static_ints(e, scope, what)
        if len(written) != 1:
            raise self.error(name, "E-ARG-003", f"{label or what} must be one integer")
        return self.axes(name, rank, written)[0]

    def keyword_axis(self, c: Call, scope: Scope, rank: int, default: int = 0) -> int:
        """``axis=`` of ``c`` as ``one_axis`` reads it, ``default`` where none is given."""
        if "axis" not in c.keywords:
            return self.axes(c.tok, rank, [default])[0]
        return self.one_axis(c.tok, c.keywords["axis"][1], scope, rank, "axis", f"axis of {c.tok.text}")
