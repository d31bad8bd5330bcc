"""Expression trees and statements of generated programs: their source text (with only the
parentheses the language's precedence needs) and their evaluation by the reference.

An expression's type is computed when it is built (``Apply`` asks its operation), so an
invalid or unsafe tree raises ``types.Invalid``/``types.Unsafe`` as soon as it is made: a
def's body is rebuilt over parameters with ``?`` sizes to find out whether a ``?`` pattern
is valid for it.
"""

from dataclasses import dataclass, field

import numpy as np

from . import reference
from .types import NUMBER, TType
from .values import Val, exact, format_literal, format_number

# Precedence levels (higher binds tighter): comparisons, + -, @ * /, unary minus, atoms.
COMPARE, SUM, TERM, UNARY, ATOM = range(5)


@dataclass
class Env:
    """What a program has bound so far: values by name, defs by name."""

    values: dict[str, Val] = field(default_factory=dict)
    defs: dict[str, "Def"] = field(default_factory=dict)
    check: object = None  # called with every value computed (the generator's limits)

    def scope(self, values: dict[str, Val]) -> "Env":
        """The environment of a def's body: its parameters, and the defs."""
        return Env(values, self.defs, self.check)


class Expr:
    """An expression: ``type`` (a ``TType``, or ``NUMBER``), ``prec`` for parentheses,
    ``op`` (what made it, for coverage: an operation's name, ``name``, ``literal``...)."""

    type: TType
    prec: int = ATOM
    op: str = ""

    def source(self) -> str:
        raise NotImplementedError

    def eval(self, env: Env) -> Val | float:
        raise NotImplementedError

    def children(self) -> tuple["Expr", ...]:
        return ()

    def walk(self):
        """This expression and every expression in it."""
        yield self
        for c in self.children():
            yield from c.walk()

    def names(self) -> set[str]:
        """The names it reads and the defs it calls."""
        return {
            e.name if isinstance(e, Name) else e.op
            for e in self.walk()
            if isinstance(e, Name) or hasattr(getattr(e, "operation", None), "definition")
        }


@dataclass(eq=False)
class Name(Expr):
    name: str
    type: TType
    op: str = "name"

    def source(self) -> str:
        return self.name

    def eval(self, env: Env) -> Val:
        return env.values[self.name]


@dataclass(eq=False)
class Number(Expr):
    value: float
    type: TType = NUMBER
    op: str = "number"

    @property
    def prec(self) -> int:  # type: ignore[override]
        return UNARY if self.value < 0 else ATOM

    def source(self) -> str:
        return format_number(self.value)

    def eval(self, env: Env) -> float:
        return float(self.value)


@dataclass(eq=False)
class Literal(Expr):
    """A literal of numbers (f64) or of ``true``/``false`` (i1); of another element type it
    is written ``cast([...], T)``, except as the whole value of a ``let`` that declares its
    type (``let x: tensor[2xi32] = [1, 2]``), where ``bare`` is its text."""

    values: np.ndarray
    dtype: str
    op: str = "literal"

    @property
    def type(self) -> TType:  # type: ignore[override]
        return TType(self.values.shape, self.dtype)

    def bare(self) -> str:
        return format_literal(self.values)

    def source(self) -> str:
        if self.dtype in ("f64", "i1"):
            return self.bare()
        return f"cast({self.bare()}, {self.dtype})"

    def eval(self, env: Env) -> Val:
        return exact(self.values, self.dtype)


@dataclass(eq=False)
class Apply(Expr):
    """An operation of ``ops`` applied to expressions, with compile-time attributes (axes,
    a permutation...). Its type is the operation's rule applied to its operands' types."""

    operation: object  # ops.Op
    args: tuple[Expr, ...]
    attrs: dict = field(default_factory=dict)

    def __post_init__(self):
        self.type = self.operation.type([a.type for a in self.args], **self.attrs)  # type: ignore[attr-defined]

    @property
    def op(self) -> str:  # type: ignore[override]
        return self.operation.name  # type: ignore[attr-defined]

    @property
    def prec(self) -> int:  # type: ignore[override]
        return self.operation.prec  # type: ignore[attr-defined]

    def source(self) -> str:
        return self.operation.render(self.args, **self.attrs)  # type: ignore[attr-defined]

    def eval(self, env: Env) -> Val | float:
        values = [a.eval(env) for a in self.args]
        result = self.operation.eval(values, env=env, **self.attrs)  # type: ignore[attr-defined]
        if env.check is not None:
            env.check(result)  # type: ignore[operator]
        return result

    def children(self) -> tuple[Expr, ...]:
        return self.args


def wrap(e: Expr, level: int) -> str:
    """``e``'s source, parenthesised if it binds less tightly than ``level``."""
    return f"({e.source()})" if e.prec < level else e.source()


# -- statements ---------------------------------------------------------------------------


@dataclass(eq=False)
class Let:
    """``let NAME = EXPR`` (``var`` if ``mutable``), ``let NAME: TYPE = EXPR`` if ``declared``."""

    name: str
    value: Expr
    mutable: bool = False
    declared: bool = False

    def source(self) -> str:
        keyword = "var" if self.mutable else "let"
        if not self.declared:
            return f"{keyword} {self.name} = {self.value.source()}"
        text = self.value.bare() if isinstance(self.value, Literal) else self.value.source()
        return f"{keyword} {self.name}: {self.value.type.text()} = {text}"

    def run(self, env: Env, printed: list) -> None:
        env.values[self.name] = as_tensor(self.value.eval(env))

    def uses(self) -> set[str]:
        return self.value.names()

    def defines(self) -> set[str]:
        return {self.name}


@dataclass(eq=False)
class Update:
    """``NAME op= EXPR`` (an update in place) or ``NAME = EXPR`` (a rebinding; ``op`` is "")."""

    name: str
    op: str
    value: Expr

    def source(self) -> str:
        return f"{self.name} {self.op}= {self.value.source()}"

    def run(self, env: Env, printed: list) -> None:
        value = self.value.eval(env)
        if self.op:
            value = binary_values(self.op, env.values[self.name], value)
        env.values[self.name] = as_tensor(value)

    def uses(self) -> set[str]:
        return {self.name} | self.value.names()

    def defines(self) -> set[str]:
        return set()


@dataclass(eq=False)
class Print:
    value: Expr

    def source(self) -> str:
        return f"print {self.value.source()}"

    def run(self, env: Env, printed: list) -> None:
        printed.append(as_tensor(self.value.eval(env)))

    def uses(self) -> set[str]:
        return self.value.names()

    def defines(self) -> set[str]:
        return set()


@dataclass(eq=False)
class Def:
    """``def NAME(P: TYPE, ...) = BODY`` (``-> TYPE`` written if ``declared``)."""

    name: str
    params: list[tuple[str, TType]]
    body: Expr
    declared: bool = False
    pinned: frozenset = frozenset()  # '?'s every call must give their first call's size

    def source(self) -> str:
        params = ", ".join(f"{p}: {t.text()}" for p, t in self.params)
        result = f" -> {self.body.type.text()}" if self.declared else ""
        return f"def {self.name}({params}){result} = {self.body.source()}"

    def run(self, env: Env, printed: list) -> None:
        env.defs[self.name] = self

    def call(self, env: Env, args: list[Val | float]) -> Val:
        values = {p: as_tensor(a, t.dtype) for (p, t), a in zip(self.params, args)}
        return as_tensor(self.body.eval(env.scope(values)))

    def uses(self) -> set[str]:
        return set()

    def defines(self) -> set[str]:
        return {self.name}


Statement = Let | Update | Print | Def


def as_tensor(value: Val | float, dtype: str = "f64") -> Val:
    """A number where a tensor is needed (printed, bound, passed) is a rank-0 tensor."""
    return value if isinstance(value, Val) else reference.number(value, dtype)


def binary_values(op: str, a: Val | float, b: Val | float) -> Val | float:
    """``a op b`` for ``+ - * /``: a number takes the tensor's type; two numbers fold in f64."""
    if not isinstance(a, Val) and not isinstance(b, Val):
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else float("nan")}[op]
    dtype = (a if isinstance(a, Val) else b).dtype  # type: ignore[union-attr]
    return reference.elementwise(op, [as_tensor(a, dtype), as_tensor(b, dtype)])


def program_source(statements: list) -> str:
    return "".join(s.source() + "\n" for s in statements)


def run_program(statements: list) -> tuple[list[Val], str | None]:
    """What the program must print, and the message it must stop with (None: it ends)."""
    env, printed = Env(), []
    try:
        for s in statements:
            s.run(env, printed)
    except reference.Abort as e:
        return printed, str(e)
    return printed, None
