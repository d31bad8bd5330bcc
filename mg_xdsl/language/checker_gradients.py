"""The type rule of ``grad`` and ``value_and_grad``: the gradient of a rank-0 float value
(a loss) with respect to named tensors it is computed from."""

import dataclasses

from mg_xdsl.core import element_types
from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import describe
from mg_xdsl.language.syntax_tree import Call, Expr, ExprList, Name, TensorType


def names_in(e: Expr) -> set[str]:
    """Every name an expression's tree mentions (its calls' arguments included)."""
    found: set[str] = set()
    stack: list[object] = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, Name):
            found.add(node.tok.text)
        if isinstance(node, Expr):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
    return found


class GradientRules(ArgumentReader):
    """Family ``gradient``."""

    def gradient(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``grad(EXPR, wrt=[w])`` in an expression: one gradient (several are bound with
        ``let gw, gb = grad(EXPR, wrt=[w, b])``)."""
        results = self.gradient_results(c, scope)
        if len(results) > 1:
            names = ", ".join(f"r{i}" for i in range(len(results)))
            raise self.error(
                c.tok,
                "E-ARG-005",
                f"{c.tok.text}(...) gives {len(results)} values here: bind them with let {names} = {c.tok.text}(...)",
            )
        return results[0]

    def gradient_results(self, c: Call, scope: Scope) -> list[TensorType]:
        """The types of what ``grad`` (each variable's gradient, of its type) or
        ``value_and_grad`` (the value, then those) gives."""
        name = c.tok
        self.arity(name, c.args, 1, "the expression to differentiate, then wrt=[names]")
        if "wrt" not in c.keywords:
            raise self.error(
                name, "E-ARG-001", f"{name.text} needs wrt=[...]: the tensors to differentiate with respect to"
            )
        (e,) = c.args
        t = self.expr(e, scope)
        if not (isinstance(t, TensorType) and t.shape == () and element_types.is_float(t.element)):
            raise self.error(
                e,
                "E-GRAD-001",
                f"{name.text} differentiates one float number (a loss), got {describe(t)}: "
                "reduce it first (sum(...), mean(...))",
            )
        listed = c.keywords["wrt"][1]
        if not isinstance(listed, ExprList) or not listed.items:
            raise self.error(listed, "E-GRAD-002", "wrt= lists the names of tensors, like wrt=[w, b]")
        mentioned = names_in(e)
        results: list[TensorType] = []
        seen: set[str] = set()
        for item in listed.items:
            if not isinstance(item, Name):
                raise self.error(item, "E-GRAD-002", "wrt= lists names of tensors (w), not expressions")
            w = self.expr(item, scope)
            if not isinstance(w, TensorType) or not element_types.is_float(w.element):
                raise self.error(
                    item,
                    "E-GRAD-002",
                    f"a gradient is with respect to a float tensor, and {item.tok.text} is {describe(w)}",
                )
            if item.tok.text in seen:
                raise self.error(item, "E-GRAD-002", f"{item.tok.text} is listed twice in wrt=")
            if item.tok.text not in mentioned:
                raise self.error(
                    item,
                    "E-GRAD-003",
                    f"{item.tok.text} does not appear in the expression {name.text} differentiates",
                )
            seen.add(item.tok.text)
            results.append(w)
        return [t, *results] if name.text == "value_and_grad" else results
