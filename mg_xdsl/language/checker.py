"""The checker: gives every expression of a statement's syntax tree its type, and reports
what makes a program wrong (an unknown name, shapes that cannot combine, a call with the
wrong arguments) or likely to abort when it runs (warnings).

A type is a ``TensorType`` (a tensor of any rank: a shape and an element type) or a
compile-time number, which the checker folds: ``2 * 3`` is the number 6.0, and a matrix
with a number is an ``mg.scalar`` later, of the matrix's element type. Tensors of two
element types never combine (``cast`` converts one); a number combines with a tensor of any
element type if it is a number of that type (``2`` with an ``i32`` tensor, not ``2.5``).
The rules themselves are ``mg_xdsl.core.shapes``'s and ``mg_xdsl.core.element_types``'s, shared with
the mg dialect's verifiers; this module phrases them for the program's author.
"""

import difflib
import math
from dataclasses import dataclass, field

from xdsl.ir import Attribute

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import Shape, ShapeError, fmt_shape
from mg_xdsl.language.builtins import BUILTINS, Builtin, relu
from mg_xdsl.language.diagnostics import MgError, Span
from mg_xdsl.language.lexer import Token
from mg_xdsl.language.parser import KEYWORDS, negated
from mg_xdsl.language.syntax_tree import (
    Assign,
    Call,
    Chain,
    Compare,
    Def,
    Expr,
    ExprList,
    Index,
    Let,
    Literal,
    Name,
    Negate,
    Number,
    Statement,
    TensorType,
    between,
)

NO_BOOLEAN_ARITHMETIC = "i1 tensors (true/false) have no arithmetic; cast them to a number type first"
NEVER_BROADCAST = (
    "a '?' dimension is never broadcast: this aborts at run time unless the sizes are "
    "equal; give the dimension a static size"
)


Type = TensorType | int | float  # a number: a compile-time number, its value (an int while exact)


def is_number(t: object) -> bool:
    """Whether the type ``t`` is a compile-time number (its value)."""
    return isinstance(t, (int, float))


def is_whole(value: int | float) -> bool:
    return isinstance(value, int) or value.is_integer()


def number_text(value: int | float) -> str:
    """A compile-time number as the messages write it: an integer exactly, else ``%g``."""
    return str(value) if isinstance(value, int) else f"{value:g}"


@dataclass
class Signature:
    """A def's parameters (names and types) and its result's type, as the Python API and
    the C++ header present them."""

    names: list[str]
    types: list[TensorType]
    result_type: TensorType

    @property
    def params(self) -> list[tuple[str, Shape]]:
        return [(name, t.shape) for name, t in zip(self.names, self.types)]

    @property
    def result(self) -> Shape:
        return self.result_type.shape


VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}
# Symbols the generated code links against: a def with one of these names would clash.
RESERVED = {"main", "malloc", "free", "abort", *element_types.PRINTERS.values()}


def type_text(t: TensorType) -> str:
    """The type as the language writes it: ``tensor[2x3]``, ``tensor[3xi32]``, ``tensor[i64]``."""
    parts = [fmt_shape(t.shape)] if t.shape else []
    if t.element != element_types.DEFAULT:
        parts.append(element_types.NAME_OF[t.element])
    return f"tensor[{'x'.join(parts)}]"


def describe(t: Type) -> str:
    if not isinstance(t, TensorType):
        return f"the number {number_text(t)}"
    if len(t.shape) == 2 and t.element == element_types.F64:
        return f"a {fmt_shape(t.shape)} matrix"
    return f"a {type_text(t)}"


def elements_differ(t: Type, other: Type) -> bool:
    return isinstance(t, TensorType) and isinstance(other, TensorType) and t.element != other.element


def describe_beside(t: Type, other: Type) -> str:
    """``describe(t)`` in a message that sets ``t`` beside ``other``: where both are tensors of
    different element types, ``t``'s type with its element type written even if it is the
    default ``f64`` (``a tensor[3xf64]`` beside ``a tensor[3xf32]``, not ``a tensor[3]``), so
    that the difference shows."""
    return f"a {typed_text(t)}" if elements_differ(t, other) else describe(t)


# Where an expression is in the source: its first token and the expression it ends with
# (itself, or for an operator the right operand), the span computed only when reported.
Extent = tuple[Token, "Token | Expr"]


def extent(e: Expr) -> Extent:
    return e.start_token, e


def span_of(where: Extent) -> Span:
    first, last = where
    return between(first, last if isinstance(last, Token) else last.end_token)


def typed_text(t: Type) -> str:
    """A type as a note names it, element type always written: ``tensor[2x16xf64]``."""
    if not isinstance(t, TensorType):
        return f"the number {number_text(t)}"
    element = element_types.NAME_OF[t.element]
    return f"tensor[{fmt_shape(t.shape)}x{element}]" if t.shape else f"tensor[{element}]"


def fold_call(function, *numbers: int | float) -> int | float:
    """``function`` of compile-time numbers, with NumPy's results where Python raises: NaN
    outside the function's domain, infinity where it overflows (``abs`` of an integer is one)."""
    try:
        result = function(*numbers)
        return result if isinstance(result, int) else float(result)
    except (ValueError, ZeroDivisionError):
        return math.nan
    except OverflowError:
        return math.inf


def number_of_type(value: int | float, t: TensorType) -> str | None:
    """Why the compile-time number ``value`` is not a number of ``t``'s element type (None if
    it is): an integer type takes integers within its range."""
    if not element_types.is_integer(t.element):
        return None
    name = element_types.NAME_OF[t.element]
    if not is_whole(value):
        return f"the number {number_text(value)} is not an integer, and {describe(t)} holds {name} integers"
    low, high = element_types.integer_range(t.element)
    if not low <= value <= high:
        return f"the number {number_text(value)} is out of the range of {name} ({low} to {high})"
    return None


def fold(op: str, a: int | float, b: int | float) -> int | float:
    """Arithmetic on two compile-time numbers: ``+ - *`` of integers exactly (up to 2^64, the
    integer types' range and more: ``2^53 + 1`` stays itself for an ``i64``), everything else
    in ``f64`` (``7 / 2`` is 3.5), with IEEE results for division by zero."""
    if isinstance(a, int) and isinstance(b, int) and op in "+-*":
        exact = a + b if op == "+" else a - b if op == "-" else a * b
        if exact and abs(exact) < 2**64:
            return exact
        a, b = float(a), float(b)  # (f64's zero has a sign: 0 * -5 is -0)
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
        near = difflib.get_close_matches(name, candidates, n=3, cutoff=0.7)
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
    # A literal or number that a declared type converts: its elements (the type is in types).
    constants: dict[Expr, list[int | float]] = field(default_factory=dict)
    # What the keyword arguments of a builtin's call resolved to (axes, keepdims, dtype, ...).
    options: dict[Call | Index, dict] = field(default_factory=dict)
    # The top level's names declared with var, which assignments may update.
    variables: set[str] = field(default_factory=set)
    # The program's lines, which notes quote (the operands as written).
    source: list[str] = field(default_factory=list)
    # Within the statement being checked: the extent of the expression each token names (a
    # call's name: the call; an operator: it and its operands), and the operands an error
    # there names in its note (each a type, or an expression whose type is known by then).
    # An extent is its first token and its last expression; the span is made only for an
    # error (most programs have none).
    spans: dict[Token, "Extent"] = field(default_factory=dict)
    operands: dict[Token, list[tuple["Extent", "Type | Expr"]]] = field(default_factory=dict)
    # The expressions of the statement read as lists of integers known when compiling (a
    # shape, axes, a permutation): a note names them as lists, not as the tensors of f64
    # that a literal such as [2, 2] would be elsewhere.
    integer_lists: set[Expr] = field(default_factory=set)

    def warn(self, line: int, message: str) -> None:
        self.warnings.append((line, message))

    def error(self, at: "Token | Expr | Span", code: str, message: str) -> MgError:
        """The error ``code`` at ``at``: a token stands for the expression it names. An error
        about what an expression is given (not about a name or the syntax) notes the
        expression's operands as written, with their types."""
        notes = []
        if isinstance(at, Token):
            if code.split("-")[1] not in ("SYN", "NAME") and at in self.operands:
                notes.append(self.operand_note(at))
            span = span_of(self.spans[at]) if at in self.spans else at.span
            # (an expression over several lines is reported on its token's line, as before)
            at = span if span.line == at.line else at.span
        elif isinstance(at, Expr):
            at = at.span
        return MgError(at, message, code=code, notes=[n for n in notes if n])

    def operand_note(self, tok: Token) -> str:
        """``operands: `x` is tensor[2x16xf64], `w` is tensor[32x8xf64]`` (``arguments:`` for a
        call), for the operands whose types are known."""
        named = []
        for where, t in self.operands[tok]:
            if t in self.integer_lists:
                named.append(f"`{self.written(span_of(where))}` is a list of integers")
                continue
            t = self.types.get(t) if isinstance(t, Expr) else t
            if t is not None:
                named.append(f"`{self.written(span_of(where))}` is {typed_text(t)}")
        kind = "arguments" if tok.kind == "name" else "operands"
        return f"{kind}: {', '.join(named)}" if named else ""

    def written(self, span: Span) -> str:
        """The source text of ``span`` (its first line's part, for one that runs on)."""
        if not 0 < span.line <= len(self.source):
            return "?"
        text = self.source[span.line - 1]
        return text[span.column - 1 :].rstrip() + " ..." if span.end is None else text[span.column - 1 : span.end - 1]

    def no_booleans(self, tok: Token, what: str, *types: Type) -> None:
        """Each tensor of ``types`` has numbers: ``i1`` has no arithmetic (``what`` names the
        operation, as the message starts: ``cannot add``, ``relu of``)."""
        for t in types:
            if isinstance(t, TensorType) and element_types.is_bool(t.element):
                raise self.error(tok, "E-DIM-002", f"{what} {describe(t)}: {NO_BOOLEAN_ARITHMETIC}")

    def floats_only(self, name: Token, t: Type, needs: str = "a float tensor") -> None:
        """``t`` (if a tensor) has a float element type, as ``name`` needs."""
        if isinstance(t, TensorType) and not element_types.is_float(t.element):
            raise self.error(name, "E-DIM-002", f"{name.text} needs {needs}, got {describe(t)} (cast it to f64)")

    # -- statements ---------------------------------------------------------------------

    def statement(self, s: Statement) -> None:
        self.spans.clear()
        self.operands.clear()
        self.integer_lists.clear()
        if isinstance(s, Def):
            return self.define(s)
        if isinstance(s, Let):
            if s.name.text in BUILTINS or s.name.text in self.functions or s.name.text in KEYWORDS:
                raise self.error(s.name, "E-NAME-003", f"cannot bind {s.name.text!r}: it names a function or keyword")
            value = self.expr(s.value, self.main)
            if s.declared is not None:
                value = self.declare(s.value, value, s.declared, f"{s.name.text} is declared")
            self.main.env[s.name.text] = value
            if s.mutable:
                self.variables.add(s.name.text)
            else:
                self.variables.discard(s.name.text)  # (a let of the same name is a new, fixed one)
            return
        if isinstance(s, Assign):
            return self.assign(s)
        self.expr(s.value, self.main)  # (a number prints as a rank-0 f64 tensor)

    def assign(self, s: Assign) -> None:
        """``w += g`` (``-=``, ``*=``, ``/=``): ``w op g`` as the operator computes it (``g``
        broadcast to ``w``), which must keep ``w``'s type, written into ``w``'s buffer;
        ``w = EXPR`` rebinds ``w`` to a value of any type. ``w`` must be a ``var``."""
        name = s.head.text
        if name not in self.main.env:
            raise self.error(s.head, "E-NAME-001", f"unknown name {name!r}: declare it with var {name} = ... first")
        if name not in self.variables:
            raise self.error(
                s.head,
                "E-BIND-001",
                f"cannot assign to {name}: it is bound by let, which never changes "
                f"(declare it with var {name} = ... to update it)",
            )
        value = self.expr(s.value, self.main)
        if s.op.text == "=":
            self.main.env[name] = value
            return
        before = self.main.env[name]
        op = Token(s.op.kind, s.op.text[0], s.op.col, s.op.line)  # w += g computes w + g
        self.spans[op] = (s.head, s.value)
        self.operands[op] = [((s.head, s.head), before), (extent(s.value), value)]
        after = self.binary(op, before, value)
        if isinstance(before, TensorType) and after != before or is_number(before) and not is_number(after):
            raise self.error(
                op,
                "E-BIND-002",
                f"{name} {s.op.text} ... would change the type of {name} from "
                f"{type_text(before) if isinstance(before, TensorType) else 'a number'} to "
                f"{type_text(after) if isinstance(after, TensorType) else 'a number'}: an update "
                f"writes into {name}'s buffer (rebind it with {name} = {name} "
                f"{s.op.text[0]} ... instead)",
            )
        self.main.env[name] = after

    def define(self, d: Def) -> None:
        name = d.name.text
        if name in BUILTINS or name in KEYWORDS:
            raise self.error(d.name, "E-NAME-003", f"cannot define {name!r}: it is a built-in name")
        if name in RESERVED or name.startswith("_mlir"):
            raise self.error(d.name, "E-NAME-003", f"cannot define {name!r}: the name is reserved")
        if name in self.functions:
            raise self.error(d.name, "E-NAME-002", f"function {name!r} is already defined")
        scope = Scope(name=name)
        for pname, ptype in d.params:
            if pname.text in scope.env:
                raise self.error(pname, "E-NAME-002", f"parameter {pname.text!r} appears twice")
            scope.env[pname.text] = ptype
        body = self.expr(d.body, scope)
        if d.declared is not None:
            body = self.declare(d.body, body, d.declared, f"the result of {name} is declared")
        if not isinstance(body, TensorType):
            raise self.error(d.body, "E-DIM-003", f"the body of {name} must be a tensor, got {describe(body)}")
        self.functions[name] = Signature([p.text for p, _ in d.params], [t for _, t in d.params], body)

    def declare(self, e: Expr, t: Type, declared: TensorType, what: str) -> TensorType:
        """The type of ``e`` (of type ``t``) where ``what`` (a name, a result) is declared
        ``declared``: exactly that type, or a literal or number that converts to it."""
        if is_number(t) and declared.shape == () or isinstance(e, Literal) and t.shape == declared.shape:
            values = e.values if isinstance(e, Literal) else [t]  # type: ignore[list-item]
            for value in values:
                if (problem := number_of_type(value, declared)) is not None:
                    raise self.error(e, "E-BIND-003", f"{what} {type_text(declared)}, but in its value {problem}")
            self.types[e] = declared
            self.constants[e] = values
            return declared
        if t != declared:
            written = typed_text(declared) if elements_differ(declared, t) else type_text(declared)
            raise self.error(e, "E-BIND-003", f"{what} {written}, but its value is {describe_beside(t, declared)}")
        return declared

    # -- expressions --------------------------------------------------------------------

    def expr(self, e: Expr, scope: Scope) -> Type:
        if not isinstance(e, (Chain, Compare)):  # (their tok is their first operand's)
            self.spans[e.tok] = extent(e)
        if isinstance(e, Call):
            listed = [item for a in e.args for item in (a.items if isinstance(a, ExprList) else [a])]
            self.operands[e.tok] = [(extent(a), a) for a in listed]
            for key, value in e.keywords.values():
                self.spans[key] = (key, value)
        t = self.type_of(e, scope)
        self.types[e] = t
        return t

    def type_of(self, e: Expr, scope: Scope) -> Type:
        if isinstance(e, Number):
            return e.value
        if isinstance(e, Literal):
            return TensorType(e.shape, element_types.I1 if e.boolean else element_types.DEFAULT)
        if isinstance(e, Name):
            return self.name(e.tok, scope)
        if isinstance(e, Negate):
            t = self.expr(e.operand, scope)
            if is_number(t):
                for _ in e.signs:
                    t = negated(t)  # type: ignore[arg-type]
            self.no_booleans(e.tok, "cannot negate", t)
            return t
        if isinstance(e, Compare):
            return self.comparison(e, scope)
        if isinstance(e, Chain):
            t = self.expr(e.first, scope)
            steps = self.steps[e] = []
            last = e.first  # the chain so far is e.first through last
            for tok, right in e.rest:
                r = self.expr(right, scope)
                self.spans[tok] = (e.first.start_token, right)
                self.operands[tok] = [((e.first.start_token, last), t), (extent(right), r)]
                last = right
                t = self.matmul(tok, t, r) if tok.text == "@" else self.binary(tok, t, r)
                steps.append(t)
            return t
        if isinstance(e, Index):
            return self.index(e, scope)
        if isinstance(e, ExprList) and not e.items:
            raise self.error(
                e,
                "E-SYN-003",
                "the empty list [] is not a tensor (no dimension has size 0); it is a "
                "list where one is expected: axes=[] (no axes), reshape(x, []) (rank 0)",
            )
        if isinstance(e, ExprList):
            raise self.error(
                e, "E-SYN-002", "a list of expressions is concat's (concat(axis, [a, b])); a literal holds numbers only"
            )
        assert isinstance(e, Call)
        return self.call(e, scope)

    def index(self, e: Index, scope: Scope) -> TensorType:
        """``x[1, -1]``: one element of ``x``, a rank-0 tensor; an integer index known when
        compiling per axis, a negative one counting from the end. One out of a static size's
        range is an error here; one into a ``?`` dimension is checked when the program runs."""
        t = self.expr(e.base, scope)
        if not isinstance(t, TensorType):
            raise self.error(e, "E-DIM-003", f"cannot index {describe(t)}: only a tensor has elements")
        if len(e.indices) != len(t.shape):
            raise self.error(
                e,
                "E-DIM-001",
                f"{describe(t)} has {len(t.shape)} ax{'i' if len(t.shape) == 1 else 'e'}s: "
                f"give one index for each, got {len(e.indices)}",
            )
        indices = []
        for axis, (written, size) in enumerate(zip(e.indices, t.shape)):
            value = self.expr(written, scope)
            if not is_number(value) or not is_whole(value):  # type: ignore[arg-type]
                raise self.error(
                    written,
                    "E-ARG-003",
                    f"the index for axis {axis} must be an integer known when compiling, got {describe(value)}",
                )
            if size is not None and not -size <= value < size:
                raise self.error(
                    written,
                    "E-ARG-004",
                    f"index {value:g} is out of range for axis {axis} of size {size} (-{size} to {size - 1})",
                )
            indices.append(int(value))
        self.options[e] = {"indices": indices}
        return TensorType((), t.element)

    def name(self, tok: Token, scope: Scope) -> Type:
        if tok.text in scope.env:
            return scope.env[tok.text]
        if tok.text in BUILTINS or tok.text in self.functions:
            raise self.error(tok, "E-NAME-004", f"{tok.text!r} is a function: call it as {tok.text}(...)")
        if scope is not self.main and tok.text in self.main.env:
            raise self.error(
                tok,
                "E-NAME-001",
                f"unknown name {tok.text!r}: a def sees only its parameters ({tok.text} is defined at the top level)",
            )
        raise self.error(tok, "E-NAME-001", f"unknown name {tok.text!r}{did_you_mean(tok.text, list(scope.env))}")

    # -- operators ----------------------------------------------------------------------

    def binary(self, tok: Token, left: Type, right: Type) -> Type:
        op = tok.text
        if is_number(left) and is_number(right):
            return fold(op, left, right)
        self.no_booleans(tok, f"cannot {VERBS[op]}", left, right)
        return self.elementwise(tok, VERBS[op], left, right)

    def elementwise(self, tok: Token, verb: str, left: Type, right: Type) -> TensorType:
        """The type of ``left`` and ``right`` combined element by element (at least one is a
        tensor): a number must be a number of the tensor's type; two tensors must have one
        element type, and their shapes broadcast."""
        if is_number(left) or is_number(right):
            tensor, number = (right, left) if is_number(left) else (left, right)
            assert isinstance(tensor, TensorType)
            if (problem := number_of_type(number, tensor)) is not None:
                raise self.error(
                    tok,
                    "E-DIM-002",
                    f"cannot {verb} {describe(tensor)} and the number {number_text(number)}: {problem}",
                )
            return tensor  # an mg.scalar
        self.same_element_type(tok, verb, left, right)
        return TensorType(self.broadcast(tok, verb, left, right), left.element)

    def broadcast(self, tok: Token, verb: str, left: TensorType, right: TensorType) -> Shape:
        """The shape that ``left`` and ``right`` broadcast to (NumPy's rule, but a ``?`` is
        never broadcast: a warning where it meets a static 1)."""
        try:
            shape = shapes.broadcast_shapes(left.shape, right.shape, verb)
        except ShapeError as e:
            raise self.error(tok, "E-DIM-001", str(e)) from None
        self.check_result(shape, verb, left, right, tok)  # 2^40x1 + 1x2^40 grows
        if shapes.never_broadcast(left.shape, right.shape):
            self.warn(tok.line, NEVER_BROADCAST)
        return shape

    def comparison(self, e: Compare, scope: Scope) -> TensorType:
        """``a < b`` and the others: ``a`` and ``b`` combined as by ``+``, giving ``i1``."""
        left, right = self.expr(e.left, scope), self.expr(e.right, scope)
        self.spans[e.op] = extent(e)
        self.operands[e.op] = [(extent(e.left), left), (extent(e.right), right)]
        if is_number(left) and is_number(right):
            raise self.error(
                e.op,
                "E-DIM-003",
                f"{left:g} {e.op.text} {right:g} compares two numbers: write its value, true or false",
            )
        return TensorType(self.elementwise(e.op, "compare", left, right).shape, element_types.I1)

    def same_element_type(self, tok: Token, verb: str, left: TensorType, right: TensorType) -> None:
        if left.element != right.element:
            raise self.error(
                tok,
                "E-DIM-002",
                f"cannot {verb} {describe_beside(left, right)} and "
                f"{describe_beside(right, left)}: their element "
                f"types {element_types.NAME_OF[left.element]} and "
                f"{element_types.NAME_OF[right.element]} differ (convert one with cast)",
            )

    def matmul(self, tok: Token, left: Type, right: Type) -> TensorType:
        if not isinstance(left, TensorType) or not isinstance(right, TensorType):
            raise self.error(
                tok,
                "E-DIM-003",
                f"@ needs two matrices, got {describe(left)} and {describe(right)} (use * to scale by a number)",
            )
        self.same_element_type(tok, "matrix-multiply", left, right)
        self.no_booleans(tok, "cannot matrix-multiply", left)
        try:
            shape = shapes.batched_matmul_shape(left.shape, right.shape)
        except ShapeError as e:
            raise self.error(tok, "E-DIM-001", str(e)) from None
        if shapes.never_broadcast(left.shape[:-2], right.shape[:-2]):
            self.warn(tok.line, NEVER_BROADCAST)
        self.check_result(shape, "matrix-multiply", left, right, tok)  # MxK @ KxN can be far larger
        return TensorType(shape, left.element)

    def check_result(self, shape: Shape, verb: str, left: TensorType, right: TensorType, tok: Token) -> None:
        """A result shape, grown from its operands, must still be addressable."""
        try:
            shapes.check_size(shape)
        except ShapeError as e:
            raise self.error(
                tok,
                "E-LIMIT-001",
                f"cannot {verb} shapes {fmt_shape(left.shape)} and {fmt_shape(right.shape)}: the result {e}",
            ) from None

    # -- calls --------------------------------------------------------------------------

    def call(self, c: Call, scope: Scope) -> Type:
        """A call of a builtin (typed by its family's rule, named in its record) or of a def."""
        name = c.tok
        builtin = BUILTINS.get(name.text)
        allowed = builtin.keywords if builtin else ()
        for key, (tok, _) in c.keywords.items():
            if key not in allowed:
                takes = f"takes the keyword arguments {', '.join(allowed)}" if allowed else "takes no keyword arguments"
                raise self.error(tok, "E-ARG-002", f"{name.text} {takes}, not {key}")
        if builtin is not None:
            return getattr(self, builtin.family)(c, scope, builtin)
        args = self.arguments(c, scope)
        sig = self.functions.get(name.text)
        if sig is None:
            raise self.error(name, *self.unknown_function(name.text, scope))
        if len(args) != len(sig.params):
            raise self.error(
                name,
                "E-ARG-001",
                f"{name.text} takes {len(sig.params)} argument{'' if len(sig.params) == 1 else 's'}, got {len(args)}",
            )
        for i, (arg, pname, ptype) in enumerate(zip(args, sig.names, sig.types), start=1):
            where = f"argument {i} of {name.text} ({pname})"
            if not isinstance(arg, TensorType):
                if ptype.shape == ():  # a number is a rank-0 tensor
                    if (problem := number_of_type(arg, ptype)) is not None:
                        raise self.error(name, "E-DIM-002", f"{where} is {type_text(ptype)}, but {problem}")
                    continue
                raise self.error(name, "E-DIM-003", f"{where} must be {describe(ptype)}, got {describe(arg)}")
            if not shapes.shapes_compatible(arg.shape, ptype.shape):
                raise self.error(
                    name, "E-DIM-001", f"{where} must be {fmt_shape(ptype.shape)}, got {fmt_shape(arg.shape)}"
                )
            if arg.element != ptype.element:
                raise self.error(
                    name,
                    "E-DIM-002",
                    f"{where} must be {describe_beside(ptype, arg)}, got "
                    f"{describe_beside(arg, ptype)} "
                    "(convert it with cast)",
                )
        return sig.result_type

    def arguments(self, c: Call, scope: Scope) -> list[Type]:
        return [self.expr(a, scope) for a in c.args]

    def cast(self, c: Call, scope: Scope, _: Builtin) -> TensorType:
        """``cast(x, f32)``: ``x`` with each element converted to the named element type."""
        if len(c.args) != 2:
            raise self.error(
                c.tok, "E-ARG-001", f"cast takes 2 arguments (a tensor and an element type), got {len(c.args)}"
            )
        value, target = c.args
        if not isinstance(target, Name) or target.tok.text not in element_types.NAMES:
            raise self.error(
                c.tok,
                "E-DIM-002",
                f"the second argument of cast must be an element type: {', '.join(element_types.NAMES)}",
            )
        t = self.expr(value, scope)
        if not isinstance(t, TensorType):
            raise self.error(c.tok, "E-DIM-003", f"cast needs a tensor, got {describe(t)}")
        return TensorType(t.shape, element_types.NAMES[target.tok.text])

    def unknown_function(self, name: str, scope: Scope) -> tuple[str, str]:
        """The code and message for a call of ``name``, which is no function."""
        if name == scope.name:
            return "E-NAME-004", f"def {name} calls itself: recursion is not supported"
        if name in scope.env:
            return "E-NAME-004", f"{name!r} is {describe(scope.env[name])}, not a function"
        return "E-NAME-001", f"unknown function {name!r}{did_you_mean(name, [*BUILTINS, *self.functions])}"

    def where(self, c: Call, scope: Scope, _: Builtin) -> TensorType:
        """``where(mask, a, b)``: ``mask`` a tensor of i1; ``a`` and ``b`` of one element
        type (or numbers of it); the three shapes broadcast."""
        name, args = c.tok, self.arguments(c, scope)
        if len(args) != 3:
            raise self.error(
                name,
                "E-ARG-001",
                f"where takes 3 arguments (a mask, then the values where it is true and "
                f"where it is false), got {len(args)}",
            )
        mask, a, b = args
        if not isinstance(mask, TensorType) or not element_types.is_bool(mask.element):
            raise self.error(
                name, "E-DIM-002", f"the mask of where must be a tensor of i1 (a comparison), got {describe(mask)}"
            )
        if is_number(a) and is_number(b):
            values = TensorType(())  # two numbers: f64, in the mask's shape
        else:
            values = self.elementwise(name, "select from", a, b)
        return TensorType(self.broadcast(name, "select from", mask, values), values.element)

    # -- the builtins beyond the chapter's -----------------------------------------------------

    def arity(self, name: Token, args: list, count: int, what: str) -> None:
        if len(args) != count:
            raise self.error(
                name,
                "E-ARG-001",
                f"{name.text} takes {count} argument{'s' if count > 1 else ''} ({what}), got {len(args)}",
            )

    def math_unary(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """``exp(x)`` and the other float functions, ``abs(x)`` of every numeric type; of a
        number, a number."""
        name, args = c.tok, self.arguments(c, scope)
        self.arity(name, args, 1, "a tensor or a number")
        (arg,) = args
        if is_number(arg):
            return fold_call(builtin.fold, arg)
        self.no_booleans(name, f"{name.text} of", arg)
        if name.text != "abs":
            self.floats_only(name, arg)
        return arg

    def math_binary(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """``maximum(a, b)``, ``minimum``, ``pow``, ``atan2``: as an operator combines them."""
        name, args = c.tok, self.arguments(c, scope)
        self.arity(name, args, 2, "tensors or numbers")
        left, right = args
        if is_number(left) and is_number(right):
            return fold_call(builtin.fold, left, right)
        for t in (left, right):
            self.no_booleans(name, f"{name.text} of", t)
            if builtin.floats_only:
                self.floats_only(name, t, "float tensors")
        return self.elementwise(name, f"take {name.text} of", left, right)

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
                f"{describe(t) if not isinstance(e, Literal) else 'a literal of ' + type_text(t)}",
            )
        if not is_number(t):
            self.integer_lists.add(e)
        return [int(v) for v in values]

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

    def reduction(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``sum(x, axes=[0, -1], keepdims=false)`` and ``prod``, ``max``, ``min``, ``mean``:
        the elements along ``axes`` (by default all) folded into one, those axes kept with
        size 1 or dropped."""
        args = self.arguments(c, scope)
        name = c.tok
        self.arity(name, args, 1, "a tensor, then axes= and keepdims=")
        (arg,) = args
        if not isinstance(arg, TensorType):
            raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(arg)}")
        self.no_booleans(name, f"{name.text} of", arg)
        rank = len(arg.shape)
        written = self.static_ints(c.keywords["axes"][1], scope, "axes") if "axes" in c.keywords else list(range(rank))
        axes = self.axes(name, rank, written)
        keepdims = self.keyword_bool(c, "keepdims", scope, False)
        if name.text == "mean":
            self.floats_only(name, arg)
            if any(arg.shape[a] is None for a in axes):
                raise self.error(name, "E-DIM-001", "mean needs static sizes along the averaged axes, not '?'")
        self.options[c] = {"axes": axes, "keepdims": keepdims}
        shape = (
            tuple(1 if d in axes else s for d, s in enumerate(arg.shape))
            if keepdims
            else tuple(s for d, s in enumerate(arg.shape) if d not in axes)
        )
        return TensorType(shape, arg.element)

    def creation(self, c: Call, scope: Scope, _: Builtin | None = None) -> TensorType:
        """``zeros([2, 3])``, ``ones``, ``full([2, 3], 7.5)``, ``iota([4, 4], axis=1)`` (static
        shapes, ``dtype=`` as their element type), ``zeros_like(x)``, ``ones_like(x)``."""
        name = c.tok
        if name.text.endswith("_like"):
            self.arity(name, c.args, 1, "a tensor")
            like = self.expr(c.args[0], scope)
            if not isinstance(like, TensorType):
                raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(like)}")
            element = self.keyword_dtype(c, element_types.NAME_OF[like.element])
            self.options[c] = {"value": 0.0 if name.text == "zeros_like" else 1.0}
            return TensorType(like.shape, element)
        if name.text == "full":
            self.arity(name, c.args, 2, "a shape and a number")
        else:
            self.arity(name, c.args, 1, "a shape like [2, 3]")
        dims = self.static_ints(c.args[0], scope, f"the shape of {name.text}")
        if any(d <= 0 for d in dims):
            raise self.error(name, "E-ARG-004", f"the shape of {name.text} must be positive sizes, got {dims}")
        try:
            shapes.check_size(dims)
        except ShapeError as e:
            raise self.error(name, "E-LIMIT-001", str(e)) from None
        element = self.keyword_dtype(c, "i32" if name.text == "iota" else "f64")
        t = TensorType(tuple(dims), element)
        if name.text == "iota":
            if element not in element_types.INTEGERS:
                raise self.error(
                    name,
                    "E-DIM-002",
                    f"iota makes integers: dtype must be "
                    f"{element_types.one_of(element_types.INTEGERS)}, got "
                    f"{element_types.NAME_OF[element]}",
                )
            self.options[c] = {"axis": self.keyword_axis(c, scope, len(dims))}
            return t
        value = {"zeros": 0.0, "ones": 1.0}.get(name.text)
        if value is None:
            number = self.expr(c.args[1], scope)
            if not is_number(number):
                raise self.error(name, "E-ARG-003", f"the value of full must be a number, got {describe(number)}")
            if (problem := number_of_type(number, t)) is not None:
                raise self.error(name, "E-DIM-002", f"full: {problem}")
            value = number
        self.options[c] = {"value": value}
        return t

    def shape_op(self, c: Call, scope: Scope, _: Builtin | None = None) -> TensorType:
        """``transpose(x, [0, 2, 1])`` (a full permutation, negative axes counting from the
        end), ``reshape(x, [2, -1])`` (static sizes, the element count kept, one -1 inferred),
        ``broadcast_to(x, [4, 2, 3])`` (as an operator broadcasts ``x``), ``slice(x, axis,
        start, stop)`` (``0 <= start < stop <= size``)."""
        name = c.tok
        if name.text == "concat":
            return self.concat(c, scope)
        count = 4 if name.text == "slice" else 2
        self.arity(name, c.args, count, "a tensor and an axis, start and stop" if count == 4 else "a tensor and a list")
        t = self.expr(c.args[0], scope)
        if not isinstance(t, TensorType):
            raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(t)}")
        rank = len(t.shape)
        try:
            if name.text == "slice":
                axis, start, stop = (
                    self.static_ints(a, scope, f"the {what} of slice")
                    for a, what in zip(c.args[1:], ("axis", "start", "stop"))
                )
                if not len(axis) == len(start) == len(stop) == 1:
                    raise self.error(name, "E-ARG-003", "slice takes one integer each for its axis, start and stop")
                axis = self.axes(name, rank, axis)
                self.options[c] = {"axis": axis[0], "start": start[0], "stop": stop[0]}
                return TensorType(shapes.slice_shape(t.shape, axis[0], start[0], stop[0]), t.element)
            written = self.static_ints(c.args[1], scope, f"the second argument of {name.text}")
            if name.text == "transpose":
                axes = [a % rank if -rank <= a < rank else a for a in written]
                if sorted(axes) != list(range(rank)):
                    raise self.error(
                        name,
                        "E-ARG-004",
                        f"transpose needs a permutation of the axes 0 to {rank - 1} "
                        f"(negative ones count from the end), got {written}",
                    )
                self.options[c] = {"permutation": axes}
                return TensorType(shapes.transpose_shape(t.shape, axes), t.element)
            if name.text == "reshape":
                return TensorType(shapes.reshape_shape(t.shape, written, type_text(t)), t.element)
            if any(d <= 0 for d in written):
                raise self.error(name, "E-ARG-004", f"the shape of broadcast_to must be positive sizes, got {written}")
            shape = shapes.broadcast_shapes(t.shape, written, "broadcast")
            if (
                len(written) < rank
                or shape != tuple(written)
                or None in t.shape[len(t.shape) - len(written) :]
                and shapes.never_broadcast(t.shape, written)
            ):
                raise self.error(
                    name,
                    "E-DIM-001",
                    f"cannot broadcast {describe(t)} to {fmt_shape(written)}: each size must "
                    "stay or grow from 1, and a '?' never grows",
                )
            return TensorType(tuple(written), t.element)
        except ShapeError as e:
            raise self.error(name, "E-DIM-001", str(e)) from None

    def concat(self, c: Call, scope: Scope) -> TensorType:
        """``concat(axis, [a, b, c])``: tensors of one rank and element type, of equal sizes
        off ``axis`` (a ``?`` checked when the program runs), one after another along it."""
        name = c.tok
        self.arity(name, c.args, 2, "an axis and a list of tensors like [a, b]")
        axis_expr, listed = c.args
        if not isinstance(listed, ExprList):
            raise self.error(name, "E-ARG-003", "the second argument of concat must be a list of tensors like [a, b]")
        if not listed.items:
            raise self.error(name, "E-ARG-001", "concat needs at least one tensor to join, got the empty list []")
        items = [self.expr(e, scope) for e in listed.items]
        for i, t in enumerate(items, start=1):
            if not isinstance(t, TensorType) or not t.shape:
                raise self.error(
                    name, "E-DIM-001", f"concat joins tensors of rank 1 or more: item {i} is {describe(t)}"
                )
        first = items[0]
        for i, t in enumerate(items[1:], start=2):
            self.same_element_type(name, "concatenate", first, t)  # type: ignore[arg-type]
            if len(t.shape) != len(first.shape):  # type: ignore[union-attr]
                raise self.error(
                    name,
                    "E-DIM-001",
                    f"concat joins tensors of one rank: item 1 is {describe(first)}, item {i} {describe(t)}",
                )
        axis = self.one_axis(name, axis_expr, scope, len(first.shape), f"the axis of {name.text}")  # type: ignore[union-attr]
        shape = list(first.shape)  # type: ignore[union-attr]
        for i, t in enumerate(items[1:], start=2):
            for d, (x, y) in enumerate(zip(shape, t.shape)):  # type: ignore[union-attr]
                if d != axis and not shapes.dims_compatible(x, y):
                    raise self.error(
                        name,
                        "E-DIM-001",
                        f"concat along axis {axis} needs the other sizes equal: item 1 is "
                        f"{fmt_shape(first.shape)}, item {i} {fmt_shape(t.shape)}",
                    )  # type: ignore[union-attr]
                if d != axis and x is None:
                    shape[d] = y
        sizes = [t.shape[axis] for t in items]  # type: ignore[union-attr]
        shape[axis] = None if None in sizes else sum(sizes)  # type: ignore[arg-type]
        self.options[c] = {"axis": axis}
        return TensorType(tuple(shape), first.element)  # type: ignore[union-attr]

    def scan(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``linear_scan(a, b, axis=0, reverse=false)``: ``h[t] = a[t] * h[t-1] + b[t]`` from
        ``h = 0``, ``a`` and ``b`` float tensors (or numbers) that combine as ``+`` combines
        them; ``cumsum(x, axis=0)``: the running sums of a tensor of any numeric type."""
        args = self.arguments(c, scope)
        name = c.tok
        if name.text == "cumsum":
            self.arity(name, args, 1, "a tensor, then axis=")
            (t,) = args
            if not isinstance(t, TensorType):
                raise self.error(name, "E-DIM-003", f"cumsum needs a tensor, got {describe(t)}")
            self.no_booleans(name, "cumsum of", t)
        else:
            self.arity(name, args, 2, "a and b, then axis= and reverse=")
            for arg in args:
                self.no_booleans(name, f"{name.text} of", arg)
                self.floats_only(name, arg, "float tensors")
            if is_number(args[0]) and is_number(args[1]):
                raise self.error(name, "E-DIM-003", "linear_scan needs a tensor: of two numbers it has no axis")
            t = self.elementwise(name, "scan", args[0], args[1])
        rank = len(t.shape)
        if rank == 0:
            raise self.error(name, "E-DIM-001", f"{name.text} needs a tensor of rank 1 or more, got {describe(t)}")
        self.options[c] = {
            "axis": self.keyword_axis(c, scope, rank),
            "reverse": self.keyword_bool(c, "reverse", scope, False),
        }
        return t

    def indexing(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``index(table, ids)``: the rows of ``table`` that ``ids`` (a tensor of ``i32`` or
        ``i64``) name, of shape ``ids``' then a row's; ``index_add(base, ids, values)``: ``base``
        with each row of ``values`` (of that shape) added at its id. ``gather(x, idx, axis=-1)``:
        the elements of ``x`` at ``idx`` along ``axis`` (``idx`` of ``x``'s rank and sizes off
        the axis; the result of its shape); ``scatter_add(base, idx, values, axis=-1)``: ``base``
        with ``values`` (of ``idx``'s shape) added there. Ids are checked when the program runs."""
        args = self.arguments(c, scope)
        name = c.tok
        adds, along_axis = name.text.endswith("_add"), name.text in ("gather", "scatter_add")
        self.arity(name, args, 3 if adds else 2, builtin.takes)
        x, ids, *values = args
        positions = "indices" if along_axis else "ids"
        if not isinstance(x, TensorType):
            raise self.error(
                name, "E-DIM-003", f"{name.text} needs a tensor to {'add to' if adds else 'read'}, got {describe(x)}"
            )
        if not isinstance(ids, TensorType) or ids.element not in element_types.INDICES:
            raise self.error(
                name,
                "E-DIM-002",
                f"the {positions} of {name.text} must be a tensor of i32 or i64, got {describe(ids)} (cast it to i64)",
            )
        try:
            if along_axis:
                axis = self.keyword_axis(c, scope, len(x.shape), default=-1)
                self.options[c] = {"axis": axis}
                shape = shapes.along_axis_shape(x.shape, ids.shape, axis, name.text)
            else:
                shape = shapes.index_shape(x.shape, ids.shape)
        except ShapeError as e:
            raise self.error(name, "E-DIM-001", str(e)) from None
        if not adds:
            return TensorType(shape, x.element)
        (v,) = values
        if not isinstance(v, TensorType):
            raise self.error(name, "E-DIM-003", f"the values of {name.text} must be a tensor, got {describe(v)}")
        self.same_element_type(name, "add", x, v)
        self.no_booleans(name, f"{name.text} of", x)
        if not shapes.shapes_compatible(shape, v.shape):
            which = "the indices' shape" if along_axis else "the ids' shape, then a row's"
            raise self.error(
                name,
                "E-DIM-001",
                f"the values of {name.text} must be a "
                f"{type_text(TensorType(shape, v.element))} ({which}), got {describe(v)}",
            )
        return x

    def random(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``normal([2, 3], std=1.0, mean=0.0, seed=0)``, ``uniform([2, 3], low=0.0, high=1.0,
        seed=0)``, ``dtype=`` a float type (default ``f64``): numbers known when compiling,
        the seed an integer from 0 to 2^63 - 1, ``std`` not negative, ``low`` at most ``high``
        (equal, or ``std=0``, give the constant)."""
        name = c.tok
        self.arity(name, c.args, 1, "a shape like [2, 3], then keywords")
        dims = self.static_ints(c.args[0], scope, f"the shape of {name.text}")
        if any(d <= 0 for d in dims):
            raise self.error(name, "E-ARG-004", f"the shape of {name.text} must be positive sizes, got {dims}")
        options = dict(builtin.defaults)
        for key, (tok, e) in c.keywords.items():
            if key == "dtype":
                continue
            value = self.expr(e, scope)
            if not is_number(value) or math.isnan(value) or math.isinf(value):
                raise self.error(
                    tok,
                    "E-ARG-003",
                    f"{key} of {name.text} must be a finite number known when compiling, got {describe(value)}",
                )
            options[key] = value
        seed = options["seed"]
        if not (is_whole(seed) and 0 <= seed < 2**63):
            raise self.error(
                name,
                "E-ARG-004",
                f"the seed of {name.text} must be an integer from 0 to 2^63 - 1, got {number_text(seed)}",
            )
        if options.get("std", 0.0) < 0:
            raise self.error(name, "E-ARG-004", f"the std of normal must not be negative, got {options['std']:g}")
        if name.text == "uniform" and options["low"] > options["high"]:
            raise self.error(
                name, "E-ARG-004", f"uniform needs low <= high, got low {options['low']:g} and high {options['high']:g}"
            )
        element = self.keyword_dtype(c, "f64")
        if not element_types.is_float(element):
            floats = element_types.one_of(t for t in element_types.NAMES.values() if element_types.is_float(t))
            raise self.error(
                name,
                "E-DIM-002",
                f"{name.text} makes floats: dtype must be {floats}, got {element_types.NAME_OF[element]}",
            )
        self.options[c] = options
        return TensorType(tuple(dims), element)

    def shape_query(self, c: Call, scope: Scope, _: Builtin | None = None) -> Type:
        """``rank(x)``, ``dim(x, axis)``, ``numel(x)``: numbers the compiler knows from ``x``'s
        type; ``shape(x)``: its sizes, a list wherever one is expected (``zeros(shape(x))``)
        and elsewhere a tensor of ``i64``. A ``?`` size is known only at run time."""
        name = c.tok
        if name.text == "dim":
            self.arity(name, c.args, 2, "a tensor and an axis")
        else:
            self.arity(name, c.args, 1, "a tensor")
        t = self.expr(c.args[0], scope)
        if not isinstance(t, TensorType):
            raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(t)}")
        if name.text == "rank":
            return len(t.shape)
        sizes = t.shape
        if name.text == "dim":
            sizes = (t.shape[self.one_axis(name, c.args[1], scope, len(t.shape), f"the axis of {name.text}")],)
        if None in sizes:
            raise self.error(
                name,
                "E-DIM-001",
                f"{name.text} of {describe(t)} is not known when compiling: a '?' size is "
                "known only when the program runs",
            )
        if name.text != "shape":
            return math.prod(sizes)  # type: ignore[arg-type]
        if not sizes:
            raise self.error(
                name,
                "E-DIM-001",
                "shape of a rank-0 tensor is the empty list, which is not a tensor: write [] where a list is expected",
            )
        shape_type = TensorType((len(sizes),), element_types.NAMES["i64"])
        self.constants[c] = list(sizes)  # type: ignore[arg-type]
        return shape_type

    def transpose(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """``transpose(x)``, the chapter's, or ``transpose(x, perm)``, a shape op."""
        return self.shape_op(c, scope) if len(c.args) == 2 else self.chapter(c, scope, builtin)

    def chapter(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """The chapter's builtins: ``relu``, ``transpose`` (the axes reversed) and the ``row_*``
        and ``col_*`` reductions of a matrix. A number is a rank-0 tensor to the first two,
        as to ``exp`` and ``abs``: ``relu`` of it folds (NaN stays NaN), and ``transpose`` of
        it is itself; a reduction of a row or a column needs rank 2."""
        name, args = c.tok, self.arguments(c, scope)
        if len(args) != 1:
            raise self.error(name, "E-ARG-001", f"{name.text} takes 1 argument, got {len(args)}")
        (arg,) = args
        if is_number(arg) and name.text in ("relu", "transpose"):
            return arg if name.text == "transpose" else relu(arg)
        if not isinstance(arg, TensorType):
            raise self.error(name, "E-DIM-003", f"{name.text} needs a matrix (rank 2), got {describe(arg)}")
        if name.text != "transpose":
            self.no_booleans(name, f"{name.text} of", arg)
        if name.text == "relu":
            return arg
        if name.text == "transpose":
            return TensorType(shapes.transpose_shape(arg.shape), arg.element)
        axis, kind = builtin.axis, builtin.kind
        if len(arg.shape) != 2:
            raise self.error(name, "E-DIM-001", f"{name.text} needs a matrix (rank 2), got {describe(arg)}")
        if kind == "mean" and arg.shape[axis] is None:
            raise self.error(name, "E-DIM-001", f"{name.text} needs a static size along the averaged axis, not '?'")
        if kind == "mean":
            self.floats_only(name, arg)
        return TensorType(shapes.reduce_shape(arg.shape, axis), arg.element)
