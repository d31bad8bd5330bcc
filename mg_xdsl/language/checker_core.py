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
    "equal; give the dimension a static size, or grow the 1 to x's size explicitly with "
    "broadcast_to(m, shape(x))"
)

VERBS = {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "/": "divide",
    "%": "take the remainder of",
    "//": "floor-divide",
}
# Symbols the generated code links against: a def with one of these names would clash.
RESERVED = {"main", "malloc", "free", "abort", *element_types.PRINTERS.values()}
# The compiler's own functions: MLIR's wrappers, the kernels (mg_matmul_f64, ...), the
# run-time library (mgrt_parallel_for, ...): a def of one of their names would be taken for it.
RESERVED_PREFIXES = ("_mlir", "mg_", "mgrt_")

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
    """The names bound in one block: the top level, a def's body (its parameters and
    locals), or a ``for``/``if`` body inside either. A block sees the names of the blocks
    around it up to its def (a def sees none of the top level's). ``name`` is the def being
    checked (None at the top level), ``where`` the block as messages say it."""

    env: dict[str, Type] = field(default_factory=dict)
    name: str | None = None
    parent: "Scope | None" = None
    where: str = "the top level"
    # The names declared with var in this block, which assignments may update.
    variables: set[str] = field(default_factory=set)
    # The vars of blocks around this one that it assigns (in order): a loop carries them
    # from iteration to iteration, an if out of its branches.
    assigned: dict[str, None] = field(default_factory=dict)
    # Names of blocks inside this one that have ended (name -> where they were bound), for
    # the message when one is used after its block.
    ended: dict[str, str] = field(default_factory=dict)

    def owner(self, name: str) -> "Scope | None":
        """The block around (or at) this one that binds ``name``, up to the def's."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.env:
                return scope
            scope = scope.parent
        return None

    def lookup(self, name: str) -> Type | None:
        owner = self.owner(name)
        return owner.env[name] if owner else None

    def ended_where(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.ended:
                return scope.ended[name]
            scope = scope.parent
        return None

    def visible(self) -> list[str]:
        names: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            names += scope.env
            scope = scope.parent
        return names


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

    def statement(self, s: syntax.Statement, scope: "Scope | None" = None) -> None:
        scope = scope or self.main
        self.spans.clear()
        self.operands.clear()
        self.integer_lists.clear()
        if isinstance(s, syntax.Def):
            if scope is not self.main:
                raise self.error(s.head, "E-SYN-005", "a def is written at the top level, not inside a block")
            return self.define(s)
        if isinstance(s, syntax.Let):
            if isinstance(s.value, syntax.Call) and s.value.tok.text == "load" and s.declared is not None:
                self.bind(s.name, self.load(s.value, s.declared), scope, s.mutable)
                return
            value = self.expr(s.value, scope)
            if s.declared is not None:
                value = self.declare(s.value, value, s.declared, f"{s.name.text} is declared")
            self.bind(s.name, value, scope, s.mutable)
            return
        if isinstance(s, syntax.Assign):
            return self.assign(s, scope)
        assert isinstance(s, syntax.Print), f"a statement the checker does not know: {s}"
        self.expr(s.value, scope)  # (a number prints as a rank-0 f64 tensor)

    def bind(self, name: Token, value: Type, scope: "Scope", mutable: bool) -> None:
        """Bind ``name`` in ``scope`` (a ``var`` if ``mutable``). In a block inside another, a
        name of a block around it cannot be bound again: in Python that would assign the
        outer name, here it would hide it for the rest of the block only."""
        if name.text in BUILTINS or name.text in self.functions or name.text in KEYWORDS:
            raise self.error(name, "E-NAME-003", f"cannot bind {name.text!r}: it names a function or keyword")
        owner = scope.owner(name.text)
        if owner is not None and owner is not scope:
            raise self.error(
                name,
                "E-NAME-002",
                f"{name.text} is already bound in {owner.where}: a block cannot bind it again "
                f"(to change it inside the block, declare it with var {name.text} = ... there and "
                f"assign it with {name.text} = ... here)",
            )
        scope.env[name.text] = value
        if mutable:
            scope.variables.add(name.text)
        else:
            scope.variables.discard(name.text)  # (a let of the same name is a new, fixed one)

    def assign(self, s: syntax.Assign, scope: "Scope") -> None:
        """``w += g`` (``-=``, ``*=``, ``/=``): ``w op g`` as the operator computes it (``g``
        broadcast to ``w``), which must keep ``w``'s type, written into ``w``'s buffer;
        ``w = EXPR`` rebinds ``w`` to a value of any type (in a block inside the one that
        declared ``w``, of ``w``'s type: a loop carries it, an if gives it back). ``w`` must be
        a ``var``."""
        name = s.head.text
        owner = scope.owner(name)
        if owner is None:
            raise self.error(s.head, "E-NAME-001", f"unknown name {name!r}: declare it with var {name} = ... first")
        if name not in owner.variables:
            raise self.error(
                s.head,
                "E-BIND-001",
                f"cannot assign to {name}: it is bound by let, which never changes "
                f"(declare it with var {name} = ... to update it)",
            )
        value = self.expr(s.value, scope)
        before = owner.env[name]
        if owner is not scope:
            self.carry(s, name, before, scope, owner)
        if s.op.text == "=":
            if owner is not scope and value != before:
                raise self.error(
                    s.value,
                    "E-FLOW-004",
                    f"{name} is {describe(before)}, declared in {owner.where}; assigned in "
                    f"{scope.where} it keeps that type, but the value is {describe(value)}",
                )
            owner.env[name] = value
            return
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
        owner.env[name] = after

    def carry(self, s: syntax.Assign, name: str, before: Type, scope: "Scope", owner: "Scope") -> None:
        """``name``, a var of ``owner``, is assigned in ``scope``, a block inside it: each
        block between carries it out (a loop from iteration to iteration). A var holding a
        compile-time number has no buffer to carry."""
        if is_number(before):
            raise self.error(
                s.head,
                "E-FLOW-004",
                f"{name} holds a number known when compiling, which a block inside cannot change: "
                f"declare it as a tensor of one element (var {name}: tensor[] = ...)",
            )
        block: Scope | None = scope
        while block is not None and block is not owner:
            block.assigned[name] = None
            block = block.parent

    def define(self, d: syntax.Def) -> None:
        name = d.name.text
        if name in BUILTINS or name in KEYWORDS:
            raise self.error(d.name, "E-NAME-003", f"cannot define {name!r}: it is a built-in name")
        if name in RESERVED or name.startswith(RESERVED_PREFIXES):
            raise self.error(d.name, "E-NAME-003", f"cannot define {name!r}: the name is reserved")
        if name in self.functions:
            raise self.error(d.name, "E-NAME-002", f"function {name!r} is already defined")
        scope = Scope(name=name, where=f"def {name}")
        for pname, ptype in d.params:
            if pname.text in scope.env:
                raise self.error(pname, "E-NAME-002", f"parameter {pname.text!r} appears twice")
            scope.env[pname.text] = ptype
        if d.body is None:
            results = self.define_block(d, scope)
        else:
            body = self.expr(d.body, scope)
            if d.declared is not None:
                body = self.declare(d.body, body, d.declared, f"the result of {name} is declared")
            if not isinstance(body, TensorType):
                raise self.error(d.body, "E-DIM-003", f"the body of {name} must be a tensor, got {describe(body)}")
            results = [body]
        self.functions[name] = Signature(
            [p.text for p, _ in d.params], [t for _, t in d.params], results[0], list(results)
        )

    def define_block(self, d: syntax.Def, scope: Scope) -> list[TensorType]:
        """The result types of a def with a block body (``BlockRules`` checks blocks)."""
        raise NotImplementedError

    def load(self, c: syntax.Call, declared: TensorType) -> TensorType:
        """``load`` into a declared type (``BlockRules`` checks it)."""
        raise NotImplementedError

    def gradient_results(self, c: syntax.Call, scope: "Scope") -> list[TensorType]:
        """The types of what ``grad``/``value_and_grad`` give (``GradientRules`` says)."""
        raise NotImplementedError

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
        if isinstance(e, syntax.Logical):
            return self.logical(e, scope)
        if isinstance(e, syntax.Chain):
            t = self.expr(e.first, scope)
            steps = self.steps[e] = []
            last = e.first  # the chain so far is e.first through last
            for tok, right in e.rest:
                r = self.expr(right, scope)
                if last is e.first:
                    t = self.adopt(e.first, t, r)
                r = self.adopt(right, r, t)
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
        if isinstance(e, syntax.Str):
            raise self.error(
                e, "E-SYN-002", "a string is no value: strings are load's and save's paths and println's text"
            )
        assert isinstance(e, syntax.Call)
        return self.call(e, scope)

    def index(self, e: syntax.Index, scope: Scope) -> TensorType:
        """``x[1, -1]``: one element of ``x``, a rank-0 tensor; an integer index known when
        compiling per axis, a negative one counting from the end. One out of a static size's
        range is an error here; one into a ``?`` dimension is checked when the program runs.
        A subscript with a slice (``x[1:3, :]``), fewer indices than axes (``x[1]``) or an
        index known only when the program runs (``x[i]``) is a part of ``x`` (``part``)."""
        t = self.expr(e.base, scope)
        if not isinstance(t, TensorType):
            raise self.error(e, "E-DIM-003", f"cannot index {describe(t)}: only a tensor has elements")
        if len(e.indices) > len(t.shape):
            raise self.error(
                e,
                "E-DIM-001",
                f"{describe(t)} has {len(t.shape)} ax{'i' if len(t.shape) == 1 else 'e'}s, "
                f"got {len(e.indices)} indices",
            )
        if len(e.indices) < len(t.shape) or any(isinstance(i, syntax.SliceItem) for i in e.indices):
            return self.part(e, t, scope)
        if any(not is_number(self.expr(i, scope)) for i in e.indices):
            return self.part(e, t, scope)
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

    def part(self, e: syntax.Index, t: TensorType, scope: Scope) -> TensorType:
        """``x[a:b, :, k, i]``, NumPy's basic indexing: per axis a slice (compile-time bounds,
        either left out, negative ones counting from the end), or ``START : START + LENGTH``
        with a start known only when the program runs and a length known when compiling; an
        index drops its axis (a compile-time one, or a rank-0 integer tensor); the axes after
        the subscript are whole. The steps are recorded as ``options[e]["part"]``."""
        steps: list[tuple] = []
        shape: list[int | None] = []
        for axis, item in enumerate([*e.indices, *[None] * (len(t.shape) - len(e.indices))]):
            size = t.shape[axis]
            if item is None:
                shape.append(size)
                continue
            if not isinstance(item, syntax.SliceItem):
                value = self.expr(item, scope)
                if is_number(value):
                    k = self.static_position(item, value, size, axis, "index")
                    steps.append(("slice", axis, k, k + 1))
                else:
                    self.run_time_position(item, value, axis)
                    steps.append(("dynamic", axis, item, 1))
                continue
            lower = self.expr(item.lower, scope) if item.lower is not None else 0
            if not is_number(lower):
                assert item.lower is not None  # (a start left out is 0)
                self.run_time_position(item.lower, lower, axis)
                length = self.run_time_length(item, size, axis, scope)
                steps.append(("dynamic", axis, item.lower, length))
                shape.append(length)
                continue
            upper = self.expr(item.upper, scope) if item.upper is not None else size
            if upper is None:
                raise self.error(
                    item,
                    "E-ARG-003",
                    f"a slice of axis {axis}, a '?' dimension, needs its stop: x[a:b] (or START : START + LENGTH)",
                )
            if not is_number(upper):
                raise self.error(
                    item.upper or item,
                    "E-ARG-003",
                    f"the stop of a slice must be known when compiling, got {describe(upper)}",
                )
            lo = self.static_position(item.lower or item, lower, size, axis, "start", end=True)
            hi = self.static_position(item.upper or item, upper, size, axis, "stop", end=True)
            if not lo < hi:
                raise self.error(
                    item, "E-ARG-004", f"the slice {lo}:{hi} of axis {axis} is empty: start must be below stop"
                )
            steps.append(("slice", axis, lo, hi))
            shape.append(hi - lo)
        self.options[e] = {"part": steps}
        return TensorType(tuple(shape), t.element)

    def static_position(
        self, e: syntax.Expr, value: int | float, size: int | None, axis: int, what: str, end: bool = False
    ) -> int:
        """A compile-time index (``end``: a slice bound, which may equal the size), a negative
        one counting from the end of a static size."""
        if not is_whole(value):
            raise self.error(e, "E-ARG-003", f"the {what} for axis {axis} must be an integer, got {number_text(value)}")
        k = int(value)
        if k < 0 and size is None:
            raise self.error(
                e,
                "E-ARG-004",
                f"a negative {what} counts from the end, which a '?' dimension (axis {axis}) has only when it runs",
            )
        if size is not None and not -size <= k < size + end:
            raise self.error(
                e,
                "E-ARG-004",
                f"{what} {k} is out of range for axis {axis} of size {size} (-{size} to {size - 1 + end})",
            )
        return k % size if size is not None and k < 0 else k

    def run_time_position(self, e: syntax.Expr, value: Type, axis: int) -> None:
        """An index or start known when the program runs: one integer (a rank-0 i64/i32)."""
        if not (isinstance(value, TensorType) and value.shape == () and value.element in element_types.INTEGERS):
            raise self.error(
                e,
                "E-ARG-003",
                f"an index or start for axis {axis} is an integer (a rank-0 i64 or i32), got {describe(value)}",
            )

    def run_time_length(self, item: syntax.SliceItem, size: int | None, axis: int, scope: Scope) -> int:
        """The length of ``START : START + LENGTH``, a slice whose start is known only when the
        program runs: the stop must be written as the start plus a whole number, so the
        result's size is known when compiling (checked in range when the program runs)."""
        upper, lower = item.upper, item.lower
        assert lower is not None
        form = "a slice whose start is known only when the program runs is written x[s : s + LENGTH], LENGTH a whole number"
        if not (isinstance(upper, syntax.Chain) and upper.rest and upper.rest[-1][0].text == "+"):
            raise self.error(upper or item, "E-ARG-003", form)
        plus, length_expr = upper.rest[-1]
        same_line = upper.start_token.line == plus.line == lower.start_token.line == lower.end_token.line
        text = self.source[plus.line - 1] if same_line and 0 < plus.line <= len(self.source) else ""
        prefix = text[upper.start_token.col - 1 : plus.col - 1]
        if not text or "".join(prefix.split()) != "".join(self.written(lower.span).split()):
            raise self.error(upper, "E-ARG-003", form)
        length = self.expr(length_expr, scope)
        if not is_number(length) or not is_whole(length) or length <= 0:
            raise self.error(length_expr, "E-ARG-003", form + f" above 0, got {describe(length)}")
        if size is not None and length > size:
            raise self.error(
                length_expr, "E-ARG-004", f"a slice of {int(length)} is longer than axis {axis} of size {size}"
            )
        return int(length)

    def name(self, tok: Token, scope: Scope) -> Type:
        found = scope.lookup(tok.text)
        if found is not None:
            return found
        if tok.text in BUILTINS or tok.text in self.functions:
            raise self.error(tok, "E-NAME-004", f"{tok.text!r} is a function: call it as {tok.text}(...)")
        if (where := scope.ended_where(tok.text)) is not None:
            raise self.error(
                tok,
                "E-NAME-001",
                f"{tok.text} is bound in {where} and is out of scope here: a name bound in a block "
                f"lives until the block ends (declare it before the block with var {tok.text} = ... "
                "and assign it inside to keep its value)",
            )
        if scope.name is not None and tok.text in self.main.env:
            raise self.error(
                tok,
                "E-NAME-001",
                f"unknown name {tok.text!r}: a def sees only its parameters ({tok.text} is defined at the top level)",
            )
        raise self.error(tok, "E-NAME-001", f"unknown name {tok.text!r}{did_you_mean(tok.text, scope.visible())}")

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
        left, right = self.adopt(e.left, left, right), self.adopt(e.right, right, left)
        self.spans[e.op] = extent(e)
        self.operands[e.op] = [(extent(e.left), left), (extent(e.right), right)]
        if is_number(left) and is_number(right):
            raise self.error(
                e.op,
                "E-DIM-003",
                f"{left:g} {e.op.text} {right:g} compares two numbers: write its value, true or false",
            )
        return TensorType(self.elementwise(e.op, "compare", left, right).shape, element_types.I1)

    def adopt(self, e: syntax.Expr, t: Type, other: Type) -> Type:
        """The type of ``e``, a literal of numbers written without a type (``[1, 2]``, f64),
        beside a tensor of another element type: that type, where each of its numbers is a
        number of it (as a lone number is: ``x_f32 + [1, 2]`` is f32; ``[1.5]`` beside an
        ``i32`` tensor stays f64, and the operator says the types differ)."""
        if not (
            isinstance(e, syntax.Literal)
            and not e.boolean
            and e not in self.constants
            and isinstance(t, TensorType)
            and isinstance(other, TensorType)
            and other.element != t.element
            and not element_types.is_bool(other.element)
        ):
            return t
        typed = TensorType(t.shape, other.element)
        if any(number_of_type(v, typed) is not None for v in e.values):
            return t
        self.types[e] = typed
        self.constants[e] = e.values
        return typed

    def logical(self, e: syntax.Logical, scope: Scope) -> TensorType:
        """``a and b``, ``a or b``, ``not a``: ``i1`` tensors (true/false), element by element,
        their shapes broadcast as an operator's."""
        types = [self.expr(x, scope) for x in e.operands]
        self.operands[e.tok] = [(extent(x), t) for x, t in zip(e.operands, types)]
        for t in types:
            if not (isinstance(t, TensorType) and element_types.is_bool(t.element)):
                raise self.error(
                    e.tok,
                    "E-DIM-002",
                    f"{e.tok.text} takes true/false values (i1, such as a comparison), got {describe(t)}",
                )
        result = types[0]
        for t in types[1:]:
            assert isinstance(result, TensorType) and isinstance(t, TensorType)
            result = TensorType(self.broadcast(e.tok, f"combine with {e.tok.text}", result, t), result.element)
        assert isinstance(result, TensorType)
        return result

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
            # NumPy's rule for a vector: a row on the left, a column on the right, that axis
            # dropped from the result (a dot product of two is rank 0)
            shape = shapes.batched_matmul_shape(*shapes.as_matrices(left.shape, right.shape))
            shape = shapes.vector_product_shape(shape, left.shape, right.shape)
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
        sig = self.def_call(c, scope)
        if len(sig.results) > 1:
            names = ", ".join(f"r{i}" for i in range(len(sig.results)))
            raise self.error(
                name,
                "E-ARG-005",
                f"{name.text} returns {len(sig.results)} values: bind them with let {names} = {name.text}(...)",
            )
        return sig.result_type

    def def_call(self, c: syntax.Call, scope: Scope) -> Signature:
        """The signature of the def that ``c`` calls, its arguments checked against it."""
        name = c.tok
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
        return sig

    def arguments(self, c: syntax.Call, scope: Scope) -> list[Type]:
        return [self.expr(a, scope) for a in c.args]

    def unknown_function(self, name: str, scope: Scope) -> tuple[str, str]:
        """The code and message for a call of ``name``, which is no function."""
        if name == scope.name:
            return "E-NAME-004", f"def {name} calls itself: recursion is not supported"
        if (t := scope.lookup(name)) is not None:
            return "E-NAME-004", f"{name!r} is {describe(t)}, not a function"
        return "E-NAME-001", f"unknown function {name!r}{did_you_mean(name, [*BUILTINS, *self.functions])}"
