"""The checker's rules for statements with blocks and the statements that only make sense
in them: a def's block body and its ``return``, ``for`` loops, ``if``/``elif``/``else``,
``let a, b = f(...)``, ``println`` and calls made as statements.

Each block is a ``Scope`` inside the one around it. What the IR generator needs to know of a
block is recorded here: the vars of outer blocks that a loop or an if assigns (``carried``:
a loop carries them from iteration to iteration, an if gives them back from the branch
taken), in the order they were first assigned.
"""

from dataclasses import dataclass, field

from mg_xdsl.core import element_types, format_spec
from mg_xdsl.dialects.mg.files import NPY_TYPES
from mg_xdsl.language import syntax_tree as syntax
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import Type, describe, is_number, is_whole, type_text
from mg_xdsl.language.syntax_tree import TensorType

# What a loop counts with, and the element types a run-time count may have.
RANGE_FORMS = "range(STOP), range(START, STOP) or range(START, STOP, STEP)"
COUNTS = element_types.INTEGERS  # i32, i64


@dataclass
class BlockRules(ArgumentReader):
    """The rules of blocks (see the module's docstring)."""

    carried: dict[syntax.For | syntax.If, list[str]] = field(default_factory=dict)
    # The ifs that end a def and return on every path (their branches yield the results).
    returning: set[syntax.If] = field(default_factory=set)

    def statement(self, s: syntax.Statement, scope: Scope | None = None) -> None:
        scope = scope or self.main
        if isinstance(s, syntax.For):
            return self.for_loop(s, scope)
        if isinstance(s, syntax.If):
            return self.conditional(s, scope)
        if isinstance(s, syntax.Return):
            raise self.error(
                s.head,
                "E-FLOW-003",
                "return is the last line of a def's block"
                + (" (this is the top level: a program ends by itself)" if scope is self.main else ""),
            )
        if isinstance(s, syntax.LetMany):
            return self.let_many(s, scope)
        if isinstance(s, syntax.Println):
            return self.println(s, scope)
        if isinstance(s, syntax.Do):
            return self.do(s, scope)
        return super().statement(s, scope)

    def block(self, body: list[syntax.Statement], scope: Scope) -> None:
        """Check a block's statements in ``scope``; its names end with it."""
        for s in body:
            self.statement(s, scope)
        parent = scope.parent
        assert parent is not None
        for name in scope.env:
            parent.ended.setdefault(name, scope.where)

    # -- defs ---------------------------------------------------------------------------

    def define_block(self, d: syntax.Def, scope: Scope) -> list[TensorType]:
        """A def's block: statements, then ``return`` with one value per result, each of the
        declared result type where one is declared; or, last, an ``if`` with an ``else`` each
        of whose branches ends so (every path returns, the same types)."""
        assert d.block is not None
        *body, last = d.block
        if not returns(last):
            raise self.error(
                last.head,
                "E-FLOW-003",
                f"def {d.name.text} has no return: its block ends with return EXPR (or return a, b for "
                "several results), or with an if and else that each end so",
            )
        for s in body:
            self.statement(s, scope)
        return self.returned(last, d, scope)

    def returned(self, last: syntax.Statement, d: syntax.Def, scope: Scope) -> list[TensorType]:
        """The result types of ``last``, a ``return`` or an ``if`` whose every branch returns."""
        if isinstance(last, syntax.Return):
            return self.return_types(last, d, scope)
        assert isinstance(last, syntax.If)
        self.returning.add(last)
        first: tuple[syntax.Return | syntax.Statement, list[TensorType]] | None = None
        for head, condition, body in last.branches:
            branch = self.branch(head, condition, scope)
            *statements, end = body
            for s in statements:
                self.statement(s, branch)
            types = self.returned(end, d, branch)
            if first is None:
                first = (end, types)
            elif types != first[1]:
                theirs = ", ".join(type_text(t) for t in first[1])
                raise self.error(
                    end.head,
                    "E-FLOW-003",
                    f"this return gives {', '.join(type_text(t) for t in types)}, but the one on line "
                    f"{first[0].head.line} gives {theirs}: every path of def {d.name.text} returns the same types",
                )
        assert first is not None
        return first[1]

    def return_types(self, last: syntax.Return, d: syntax.Def, scope: Scope) -> list[TensorType]:
        name = d.name.text
        self.spans.clear()
        self.operands.clear()
        declared = d.declared_results or ([d.declared] if d.declared else None)
        if declared is not None and len(declared) != len(last.values):
            raise self.error(
                last.head,
                "E-FLOW-003",
                f"def {name} is declared to return {len(declared)} value{'s' if len(declared) > 1 else ''}, "
                f"but this return gives {len(last.values)}",
            )
        results: list[TensorType] = []
        for i, e in enumerate(last.values):
            t = self.expr(e, scope)
            if declared is not None:
                t = self.declare(e, t, declared[i], f"result {i + 1} of {name} is declared")
            if not isinstance(t, TensorType):
                raise self.error(
                    e,
                    "E-DIM-003",
                    f"a def returns tensors, got {describe(t)} (declare the result, -> tensor[], to return a number)",
                )
            results.append(t)
        return results

    def let_many(self, s: syntax.LetMany, scope: Scope) -> None:
        """``let a, b = f(...)``: a def's results, a name each (or ``grad``'s gradients, or
        ``value_and_grad``'s value and gradients)."""
        c = s.value
        if isinstance(c, syntax.Call) and c.tok.text in ("grad", "value_and_grad") and c.tok.text not in self.functions:
            self.spans[c.tok] = (c.start_token, c)
            results = self.gradient_results(c, scope)
            if len(results) != len(s.names):
                raise self.error(
                    c.tok,
                    "E-ARG-005",
                    f"{c.tok.text}(...) gives {len(results)} value{'s' if len(results) > 1 else ''}, "
                    f"but {len(s.names)} names are bound",
                )
            self.types[c] = results[0]
            for name, t in zip(s.names, results):
                self.bind(name, t, scope, s.mutable)
            return
        if not isinstance(c, syntax.Call) or c.tok.text not in self.functions:
            raise self.error(
                c, "E-ARG-005", f"let with {len(s.names)} names binds the results of a def that returns as many"
            )
        self.spans[c.tok] = (c.start_token, c)
        sig = self.def_call(c, scope)
        if len(sig.results) != len(s.names):
            raise self.error(
                c.tok,
                "E-ARG-005",
                f"{c.tok.text} returns {len(sig.results)} value{'s' if len(sig.results) > 1 else ''}, "
                f"but {len(s.names)} names are bound",
            )
        self.types[c] = sig.results[0]
        for name, t in zip(s.names, sig.results):
            self.bind(name, t, scope, s.mutable)

    # -- loops and conditionals -----------------------------------------------------------

    def for_loop(self, s: syntax.For, scope: Scope) -> None:
        """``for i in range(...)``: each bound a whole number or a rank-0 integer tensor known
        when the program runs; the step a positive whole number known when compiling."""
        args = s.range.args
        if not 1 <= len(args) <= 3 or s.range.keywords:
            raise self.error(s.range, "E-FLOW-002", f"a loop counts with {RANGE_FORMS}")
        for i, e in enumerate(args):
            t = self.expr(e, scope)
            step = i == 2
            if is_number(t) and is_whole(t) and (not step or t > 0):
                continue
            if step:
                raise self.error(
                    e, "E-FLOW-002", f"range's step is a positive integer known when compiling, got {describe(t)}"
                )
            if isinstance(t, TensorType) and t.shape == () and t.element in COUNTS:
                continue
            raise self.error(
                e,
                "E-FLOW-002",
                f"a loop counts with integers: range takes whole numbers or rank-0 i64/i32 tensors "
                f"(dim(x, 0), an argument), got {describe(t)}",
            )
        body = Scope(name=scope.name, parent=scope, where=f"the for loop on line {s.head.line}")
        self.bind(s.name, TensorType((), element_types.NAMES["i64"]), body, mutable=False)
        self.block(s.body, body)
        self.carried[s] = list(body.assigned)

    def conditional(self, s: syntax.If, scope: Scope) -> None:
        """``if``/``elif``/``else``: each condition one true/false value (a rank-0 ``i1``)."""
        assigned: dict[str, None] = {}
        for head, condition, body in s.branches:
            branch = self.branch(head, condition, scope)
            self.block(body, branch)
            assigned.update(branch.assigned)
        self.carried[s] = list(assigned)

    def branch(self, head: syntax.Token, condition: syntax.Expr | None, scope: Scope) -> Scope:
        """The scope of a branch of an ``if``, its condition (None for ``else``) checked."""
        if condition is not None:
            self.spans.clear()
            self.operands.clear()
            self.condition(head, condition, scope)
        return Scope(name=scope.name, parent=scope, where=f"the {head.text} block on line {head.line}")

    def condition(self, head: syntax.Token, e: syntax.Expr, scope: Scope) -> None:
        t = self.expr(e, scope)
        if isinstance(t, TensorType) and t.shape == () and element_types.is_bool(t.element):
            return
        if isinstance(t, TensorType) and element_types.is_bool(t.element):
            raise self.error(
                e,
                "E-FLOW-001",
                f"{head.text} needs one true/false value, got {describe(t)}: to choose element by "
                "element, use where(condition, a, b); to test them all, reduce first (any: max(cast(c, i32)) == 1)",
            )
        raise self.error(
            e,
            "E-FLOW-001",
            f"{head.text} needs one true/false value (a comparison such as loss < best), got {describe(t)}",
        )

    # -- output and calls as statements ---------------------------------------------------

    def println(self, s: syntax.Println, scope: Scope) -> None:
        """Each interpolated value is a number or a tensor; a format spec formats one element,
        as NumPy's arrays take none (a tensor prints as ``str`` of a NumPy array)."""
        for e, spec in zip(s.values, s.specs):
            self.spans.clear()
            self.operands.clear()
            t = self.expr(e, scope)
            if isinstance(t, TensorType) and t.shape != () and spec:
                raise self.error(
                    e,
                    "E-ARG-006",
                    f"a format spec formats one element, and this is {describe(t)}: print it without "
                    f"one ({{x}}), or index an element (x[0, 1]) or reduce it (sum(x)) to format it",
                )
            self.check_spec(e, t, spec)

    def check_spec(self, e: syntax.Expr, t: Type, spec: str) -> None:
        """The format spec of an interpolated value suits its element type."""
        element = (
            t.element
            if isinstance(t, TensorType)
            else element_types.NAMES["i64"]
            if isinstance(t, int) and -(2**63) <= t < 2**63
            else element_types.DEFAULT
        )
        try:
            format_spec.check(spec, element_types.NAME_OF[element])
        except ValueError as problem:
            raise self.error(e, "E-ARG-006", str(problem)) from None

    def do(self, s: syntax.Do, scope: Scope) -> None:
        """A call made for its effect (``save``); any other value would be lost."""
        c = s.call
        name = c.tok.text
        if name != "save":
            raise self.error(
                c, "E-SYN-002", f"the value of {name}(...) would be lost: bind it (let r = {name}(...)) or print it"
            )
        self.spans[c.tok] = (c.start_token, c)
        self.arity(c.tok, c.args, 2, 'a path and a tensor: save("w.npy", w)')
        self.path_argument(c)
        t = self.expr(c.args[1], scope)
        if not isinstance(t, TensorType):
            raise self.error(c.tok, "E-DIM-003", f"save writes a tensor, got {describe(t)}")
        self.npy_element(c, t)

    def argument(self, c: syntax.Call, scope: Scope, _: object = None) -> TensorType:
        """``arg("lr", 0.1)``: a rank-0 tensor set from the command line (``NAME=VALUE``), of
        the default's type: ``f64`` for a float, ``i64`` for a whole number written without
        a point."""
        self.arity(c.tok, c.args, 2, 'a name and a default: arg("lr", 0.1)')
        name, default = c.args
        if not isinstance(name, syntax.Str) or not name.value.isidentifier() or not name.value.isascii():
            raise self.error(name, "E-ARG-003", 'the first argument of arg is its name in quotes, like "lr"')
        value = self.expr(default, scope)
        if not is_number(value):
            raise self.error(
                default,
                "E-ARG-003",
                f"the default of arg is a number (0.1, or 100 for an integer), got {describe(value)}",
            )
        written = default.value if isinstance(default, syntax.Number) else value
        integer = isinstance(written, int) and not isinstance(written, bool)
        if integer and not -(2**63) <= value < 2**63:
            raise self.error(default, "E-ARG-004", f"the default of arg {name.value} does not fit in i64")
        self.options[c] = {"name": name.value, "default": int(value) if integer else float(value)}
        return TensorType((), element_types.NAMES["i64" if integer else "f64"])

    def files(self, c: syntax.Call, scope: Scope, _: object = None) -> TensorType:
        """``load``/``save`` anywhere but their own places: a declared ``let`` and a statement."""
        if c.tok.text == "save":
            raise self.error(
                c, "E-SYN-002", 'save writes a file and has no value: write it as a statement, save("w.npy", w)'
            )
        raise self.error(
            c,
            "E-ARG-007",
            'load reads a file into the type the program declares: let x: tensor[?x64xf32] = load("x.npy")',
        )

    def load(self, c: syntax.Call, declared: TensorType) -> TensorType:
        """``let x: TYPE = load("x.npy")``: a tensor of the declared type (its ``?`` sizes the
        file's, the rest checked against the file when the program runs)."""
        self.spans[c.tok] = (c.start_token, c)
        self.arity(c.tok, c.args, 1, 'a path: load("x.npy")')
        self.path_argument(c)
        self.npy_element(c, declared)
        self.types[c] = declared
        return declared

    def path_argument(self, c: syntax.Call) -> None:
        path = c.args[0]
        if not isinstance(path, syntax.Str) or not path.value:
            raise self.error(path, "E-ARG-003", f'the first argument of {c.tok.text} is a path in quotes, like "w.npy"')
        if "\0" in path.value:
            raise self.error(path, "E-ARG-003", "a path cannot hold a NUL character")

    def npy_element(self, c: syntax.Call, t: TensorType) -> None:
        if t.element not in NPY_TYPES:
            raise self.error(
                c,
                "E-DIM-002",
                f"{c.tok.text}: NumPy's .npy files have no {element_types.NAME_OF[t.element]} "
                "(bfloat16); cast to f32 and save or load that",
            )


def returns(s: syntax.Statement) -> bool:
    """Whether ``s`` returns on every path: a ``return``, or an ``if`` with an ``else`` whose
    every branch ends with a statement that does."""
    if isinstance(s, syntax.Return):
        return True
    return (
        isinstance(s, syntax.If)
        and s.branches[-1][1] is None
        and all(body and returns(body[-1]) for _, _, body in s.branches)
    )
