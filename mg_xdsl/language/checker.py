"""The checker: gives every expression of a statement's syntax tree its type, and reports
what makes a program wrong (an unknown name, shapes that cannot combine, a call with the
wrong arguments) or likely to abort when it runs (warnings).

A type is a ``Matrix`` (a tensor of any rank: a shape and an element type; today always
``f64``) or a compile-time number, which the checker folds: ``2 * 3`` is the number 6.0, and a matrix
with a number is an ``mg.scalar`` later. The rules themselves are ``mg_xdsl.shapes``'s,
shared with the mg dialect's verifiers; this module phrases them for the program's author.
"""

import difflib
import math
from dataclasses import dataclass, field

from xdsl.dialects.builtin import Float64Type
from xdsl.ir import Attribute

from mg_xdsl import shapes
from mg_xdsl.backend import runtime
from mg_xdsl.language.diagnostics import MgError
from mg_xdsl.language.lexer import Token
from mg_xdsl.language.syntax_tree import (
    KEYWORDS,
    Call,
    Chain,
    Def,
    Expr,
    Let,
    Literal,
    Name,
    Negate,
    Number,
    Statement,
)
from mg_xdsl.shapes import Shape, ShapeError, fmt_shape

NEVER_BROADCAST = (
    "a '?' dimension is never broadcast: this aborts at run time unless the sizes are "
    "equal; give the dimension a static size"
)


F64 = Float64Type()


@dataclass(frozen=True)
class Matrix:
    shape: Shape
    element: Attribute = F64


Type = Matrix | float  # a float: a compile-time number, its value


@dataclass
class Signature:
    """A def's parameters (names and types) and its result's type, as the Python API and
    the C++ header present them."""

    names: list[str]
    types: list[Matrix]
    result_type: Matrix

    @property
    def params(self) -> list[tuple[str, Shape]]:
        return [(name, t.shape) for name, t in zip(self.names, self.types)]

    @property
    def result(self) -> Shape:
        return self.result_type.shape


VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}
REDUCTIONS = {
    f"{side}_{kind}": (1 if side == "row" else 0, kind)
    for side in ("row", "col")
    for kind in ("sum", "max", "mean")
}
BUILTIN_LIST = ["relu", "transpose", *REDUCTIONS]  # in a fixed order, for suggestions
BUILTINS = set(BUILTIN_LIST)
# Symbols the generated code links against: a def with one of these names would clash.
RESERVED = {"main", "malloc", "free", "abort", *runtime.PRINTERS}


def describe(t: Type) -> str:
    if not isinstance(t, Matrix):
        return f"the number {t:g}"
    if len(t.shape) == 2:
        return f"a {fmt_shape(t.shape)} matrix"
    return f"a tensor[{fmt_shape(t.shape)}]"  # (as the language writes its type: tensor[3], tensor[])


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


@dataclass
class Scope:
    """The names visible where an expression is checked: a def's parameters, or the top
    level's ``let``s; ``name`` is the def being checked (None at the top level)."""

    env: dict[str, Type] = field(default_factory=dict)
    name: str | None = None


@dataclass
class Checker:
    """Checks the statements of one program in order, keeping what later ones may use: the
    top level's names, the defs' signatures, and every expression's type (``types``, and for
    a chain the type after each step, ``steps``), which IR generation reads."""

    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    functions: dict[str, Signature] = field(default_factory=dict)
    main: Scope = field(default_factory=Scope)
    types: dict[Expr, Type] = field(default_factory=dict)
    steps: dict[Chain, list[Type]] = field(default_factory=dict)

    def warn(self, line: int, message: str) -> None:
        self.warnings.append((line, message))

    # -- statements ---------------------------------------------------------------------

    def statement(self, s: Statement) -> None:
        if isinstance(s, Def):
            return self.define(s)
        if isinstance(s, Let):
            if s.name.text in BUILTINS or s.name.text in self.functions or s.name.text in KEYWORDS:
                raise MgError(s.head.line, f"cannot bind {s.name.text!r}: it names a function or keyword")
            self.main.env[s.name.text] = self.expr(s.value, self.main)
            return
        value = self.expr(s.value, self.main)
        if not isinstance(value, Matrix):
            raise MgError(s.head.line, f"print needs a matrix, got {describe(value)}")

    def define(self, d: Def) -> None:
        line, name = d.head.line, d.name.text
        if name in BUILTINS or name in KEYWORDS:
            raise MgError(line, f"cannot define {name!r}: it is a built-in name")
        if name in RESERVED or name.startswith("_mlir"):
            raise MgError(line, f"cannot define {name!r}: the name is reserved")
        if name in self.functions:
            raise MgError(line, f"function {name!r} is already defined")
        scope = Scope(name=name)
        for pname, shape in d.params:
            if pname.text in scope.env:
                raise MgError(pname.line, f"parameter {pname.text!r} appears twice")
            scope.env[pname.text] = Matrix(shape)
        body = self.expr(d.body, scope)
        if not isinstance(body, Matrix):
            raise MgError(line, f"the body of {name} must be a matrix, got {describe(body)}")
        self.functions[name] = Signature([p.text for p, _ in d.params],
                                         [Matrix(shape) for _, shape in d.params], body)

    # -- expressions --------------------------------------------------------------------

    def expr(self, e: Expr, scope: Scope) -> Type:
        t = self.type_of(e, scope)
        self.types[e] = t
        return t

    def type_of(self, e: Expr, scope: Scope) -> Type:
        if isinstance(e, Number):
            return e.value
        if isinstance(e, Literal):
            return Matrix(e.shape)
        if isinstance(e, Name):
            return self.name(e.tok, scope)
        if isinstance(e, Negate):
            t = self.expr(e.operand, scope)
            if isinstance(t, float):
                for _ in e.signs:
                    t = -t
            return t
        if isinstance(e, Chain):
            t = self.expr(e.first, scope)
            steps = self.steps[e] = []
            for tok, right in e.rest:
                r = self.expr(right, scope)
                t = self.matmul(tok, t, r) if tok.text == "@" else self.binary(tok, t, r)
                steps.append(t)
            return t
        assert isinstance(e, Call)
        return self.call(e, scope)

    def name(self, tok: Token, scope: Scope) -> Type:
        if tok.text in scope.env:
            return scope.env[tok.text]
        if tok.text in BUILTINS or tok.text in self.functions:
            raise MgError(tok.line, f"{tok.text!r} is a function: call it as {tok.text}(...)")
        if scope is not self.main and tok.text in self.main.env:
            raise MgError(tok.line, f"unknown name {tok.text!r}: a def sees only its parameters "
                                    f"({tok.text} is defined at the top level)")
        raise MgError(tok.line, f"unknown name {tok.text!r}{did_you_mean(tok.text, list(scope.env))}")

    # -- operators ----------------------------------------------------------------------

    def binary(self, tok: Token, left: Type, right: Type) -> Type:
        op = tok.text
        if isinstance(left, float) and isinstance(right, float):
            return fold(op, left, right)
        if isinstance(left, float) or isinstance(right, float):
            return right if isinstance(left, float) else left  # an mg.scalar
        try:
            shape = shapes.broadcast_shapes(left.shape, right.shape, VERBS[op])
        except ShapeError as e:
            raise MgError(tok.line, str(e)) from None
        self.check_result(shape, VERBS[op], left, right, tok)  # 2^40x1 + 1x2^40 grows
        if shapes.never_broadcast(left.shape, right.shape):
            self.warn(tok.line, NEVER_BROADCAST)
        for operand in (left, right):
            if shapes.needs_broadcast(operand.shape, shape) and (None in operand.shape or None in shape):
                raise MgError(tok.line, "broadcasting needs static shapes; this operand has a '?' dimension")
        return Matrix(shape)

    def matmul(self, tok: Token, left: Type, right: Type) -> Matrix:
        if not isinstance(left, Matrix) or not isinstance(right, Matrix):
            raise MgError(tok.line, f"@ needs two matrices, got {describe(left)} and {describe(right)} "
                                    "(use * to scale by a number)")
        try:
            shape = shapes.matmul_shape(left.shape, right.shape)
        except ShapeError as e:
            raise MgError(tok.line, str(e)) from None
        self.check_result(shape, "matrix-multiply", left, right, tok)  # MxK @ KxN can be far larger
        return Matrix(shape)

    @staticmethod
    def check_result(shape: Shape, verb: str, left: Matrix, right: Matrix, tok: Token) -> None:
        """A result shape, grown from its operands, must still be addressable."""
        try:
            shapes.check_size(shape)
        except ShapeError as e:
            raise MgError(tok.line, f"cannot {verb} shapes {fmt_shape(left.shape)} and "
                                    f"{fmt_shape(right.shape)}: the result {e}") from None

    # -- calls --------------------------------------------------------------------------

    def call(self, c: Call, scope: Scope) -> Matrix:
        name = c.tok
        args = [self.expr(a, scope) for a in c.args]
        if name.text in BUILTINS:
            return self.builtin(name, args)
        sig = self.functions.get(name.text)
        if sig is None:
            raise MgError(name.line, self.unknown_function(name.text, scope))
        if len(args) != len(sig.params):
            raise MgError(name.line, f"{name.text} takes {len(sig.params)} argument"
                                     f"{'' if len(sig.params) == 1 else 's'}, got {len(args)}")
        for i, (arg, (pname, pshape)) in enumerate(zip(args, sig.params), start=1):
            if not isinstance(arg, Matrix):
                if pshape == ():
                    continue  # a number is a rank-0 tensor
                raise MgError(name.line, f"argument {i} of {name.text} ({pname}) must be "
                                         f"{describe(Matrix(pshape))}, got {describe(arg)}")
            if not shapes.shapes_compatible(arg.shape, pshape):
                raise MgError(name.line, f"argument {i} of {name.text} ({pname}) must be "
                                         f"{fmt_shape(pshape)}, got {fmt_shape(arg.shape)}")
        return Matrix(sig.result)

    def unknown_function(self, name: str, scope: Scope) -> str:
        if name == scope.name:
            return f"def {name} calls itself: recursion is not supported"
        if name in scope.env:
            return f"{name!r} is {describe(scope.env[name])}, not a function"
        return f"unknown function {name!r}{did_you_mean(name, BUILTIN_LIST + list(self.functions))}"

    def builtin(self, name: Token, args: list[Type]) -> Matrix:
        if len(args) != 1:
            raise MgError(name.line, f"{name.text} takes 1 argument, got {len(args)}")
        (arg,) = args
        if not isinstance(arg, Matrix):
            raise MgError(name.line, f"{name.text} needs a matrix, not a scalar")
        if name.text == "relu":
            return arg
        if name.text == "transpose":
            return Matrix(shapes.transpose_shape(arg.shape))
        axis, kind = REDUCTIONS[name.text]
        if len(arg.shape) != 2:
            raise MgError(name.line, f"{name.text} needs a matrix (rank 2), got {describe(arg)}")
        if kind == "mean" and arg.shape[axis] is None:
            raise MgError(name.line, f"{name.text} needs a static size along the averaged axis, not '?'")
        return Matrix(shapes.reduce_shape(arg.shape, axis))
