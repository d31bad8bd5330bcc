"""The checker's core: the state kept from statement to statement, the diagnostics, and
the rules of the language itself (statements, names, operators, calls of defs). A builtin's
call goes to its family's rule, named in its record (``builtins.py``), which the other
``checker_*`` modules define.
"""

import difflib
from dataclasses import dataclass, field

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import Shape, ShapeError, fmt_shape
from mg_xdsl.language import syntax_tree as syntax
from mg_xdsl.language.builtins import BUILTINS
from mg_xdsl.language.checker_types import (
    Signature,
    Type,
    describe,
    describe_beside,
    elements_differ,
    fold,
    is_number,
    is_whole,
    number_of_type,
    number_text,
    type_text,
    typed_text,
)
from mg_xdsl.language.diagnostics import MgError, Span
from mg_xdsl.language.lexer import Token
from mg_xdsl.language.parser import KEYWORDS, negated
from mg_xdsl.language.syntax_tree import TensorType, between

NO_BOOLEAN_ARITHMETIC = "i1 tensors (true/false) have no arithmetic; cast them to a number type first"
NEVER_BROADCAST = (
    "a '?' dimension is never broadcast: this aborts at run time unless the sizes are "
    "equal; give the dimension a static size"
)

VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}
# Symbols the generated code links against: a def with one of these names would clash.
RESERVED = {"main", "malloc", "free", "abort", *element_types.PRINTERS.values()}

# Where an expression is in the source: its first token and the expression it ends with
# (itself, or for an operator the right operand), the span computed only when reported.
Extent = tuple[Token, "Token | syntax.Expr"]


def extent(e: syntax.Expr) -> Extent:
    return e.start_token, e


def span_of(where: Extent) -> Span:
    first, last = where
    return between(first, last if isinstance(last, Token) else last.end_token)


def written_numbers(e: syntax.Expr, t: Type, declared: TensorType) -> list[int | float] | None:
    """The numbers written as ``e`` (of type ``t``) where a declared type ``declared``
    converts them: a literal of its shape, or a number where it is of rank 0 (else None)."""
    if isinstance(e, syntax.Literal) and isinstance(t, TensorType) and t.shape == declared.shape:
        return e.values
    if is_number(t) and declared.shape == ():
        return [t]
    return None


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
class CheckerCore:
    """Checks the statements of one program in order, keeping what later ones may use: the
    top level's names, the defs' signatures, and every expression's type (``types``, and for
    a chain the type after each step, ``steps``), which IR generation reads. ``Checker``
    adds the rule of each family of builtins."""

    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    functions: dict[str, Signature] = field(default_factory=dict)
    main: Scope = field(default_factory=Scope)
    types: dict[syntax.Expr, Type] = field(default_factory=dict)
    steps: dict[syntax.Chain, list[Type]] = field(default_factory=dict)
    # A literal or number that a declared type converts: its elements (the type is in types).
    constants: dict[syntax.Expr, list[int | float]] = field(default_factory=dict)
    # What the keyword arguments of a builtin's call resolved to (axes, keepdims, dtype, ...).
    options: dict[syntax.Call | syntax.Index, dict] = field(default_factory=dict)
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
    operands: dict[Token, list[tuple["Extent", "Type | syntax.Expr"]]] = field(default_factory=dict)
    # The expressions of the statement read as lists of integers known when compiling (a
    # shape, axes, a permutation): a note names them as lists, not as the tensors of f64
    # that a literal such as [2, 2] would be elsewhere.
    integer_lists: set[syntax.Expr] = field(default_factory=set)

    def warn(self, line: int, message: str) -> None:
        self.warnings.append((line, message))

    def error(self, at: "Token | syntax.Expr | Span", code: str, message: str) -> MgError:
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
        elif isinstance(at, syntax.Expr):
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
            t = self.types.get(t) if isinstance(t, syntax.Expr) else t
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

    def statement(self, s: syntax.Statement) -> None:
        self.spans.clear()
        self.operands.clear()
        self.integer_lists.clear()
        if isinstance(s, syntax.Def):
            return self.define(s)
        if isinstance(s, syntax.Let):
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
        if isinstance(s, syntax.Assign):
            return self.assign(s)
        self.expr(s.value, self.main)  # (a number prints as a rank-0 f64 tensor)

    def assign(self, s: syntax.Assign) -> None:
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

    def define(self, d: syntax.Def) -> None:
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

    def declare(self, e: syntax.Expr, t: Type, declared: TensorType, what: str) -> TensorType:
        """The type of ``e`` (of type ``t``) where ``what`` (a name, a result) is declared
        ``declared``: exactly that type, or a literal or number that converts to it."""
        if (values := written_numbers(e, t, declared)) is not None:
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

    def expr(self, e: syntax.Expr, scope: Scope) -> Type:
        if not isinstance(e, (syntax.Chain, syntax.Compare)):  # (their tok is their first operand's)
            self.spans[e.tok] = extent(e)
        if isinstance(e, syntax.Call):
            listed = [item for a in e.args for item in (a.items if isinstance(a, syntax.ExprList) else [a])]
            self.operands[e.tok] = [(extent(a), a) for a in listed]
            for key, value in e.keywords.values():
                self.spans[key] = (key, value)
        t = self.type_of(e, scope)
        self.types[e] = t
        return t

    def type_of(self, e: syntax.Expr, scope: Scope) -> Type:
        if isinstance(e, syntax.Number):
            return e.value
        if isinstance(e, syntax.Literal):
            return TensorType(e.shape, element_types.I1 if e.boolean else element_types.DEFAULT)
        if isinstance(e, syntax.Name):
            return self.name(e.tok, scope)
        if isinstance(e, syntax.Negate):
            t = self.expr(e.operand, scope)
            if is_number(t):
                for _ in e.signs:
                    t = negated(t)
            self.no_booleans(e.tok, "cannot negate", t)
            return t
        if isinstance(e, syntax.Compare):
            return self.comparison(e, scope)
        if isinstance(e, syntax.Chain):
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
        if isinstance(e, syntax.Index):
            return self.index(e, scope)
        if isinstance(e, syntax.ExprList) and not e.items:
            raise self.error(
                e,
                "E-SYN-003",
                "the empty list [] is not a tensor (no dimension has size 0); it is a "
                "list where one is expected: axes=[] (no axes), reshape(x, []) (rank 0)",
            )
        if isinstance(e, syntax.ExprList):
            raise self.error(
                e, "E-SYN-002", "a list of expressions is concat's (concat(axis, [a, b])); a literal holds numbers only"
            )
        assert isinstance(e, syntax.Call)
        return self.call(e, scope)

    def index(self, e: syntax.Index, scope: Scope) -> TensorType:
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
            if not is_number(value) or not is_whole(value):
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
        if isinstance(left, TensorType) and isinstance(right, TensorType):
            self.same_element_type(tok, verb, left, right)
            return TensorType(self.broadcast(tok, verb, left, right), left.element)
        tensor, number = (left, right) if isinstance(left, TensorType) else (right, left)
        assert isinstance(tensor, TensorType) and is_number(number)
        if (problem := number_of_type(number, tensor)) is not None:
            raise self.error(
                tok,
                "E-DIM-002",
                f"cannot {verb} {describe(tensor)} and the number {number_text(number)}: {problem}",
            )
        return tensor  # an mg.scalar

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

    def comparison(self, e: syntax.Compare, scope: Scope) -> TensorType:
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

    def call(self, c: syntax.Call, scope: Scope) -> Type:
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

    def arguments(self, c: syntax.Call, scope: Scope) -> list[Type]:
        return [self.expr(a, scope) for a in c.args]

    def unknown_function(self, name: str, scope: Scope) -> tuple[str, str]:
        """The code and message for a call of ``name``, which is no function."""
        if name == scope.name:
            return "E-NAME-004", f"def {name} calls itself: recursion is not supported"
        if name in scope.env:
            return "E-NAME-004", f"{name!r} is {describe(scope.env[name])}, not a function"
        return "E-NAME-001", f"unknown function {name!r}{did_you_mean(name, [*BUILTINS, *self.functions])}"
