"""The type rules of the language's first builtins, each of a matrix: ``relu``, ``transpose``
(its axes reversed) and the ``row_*`` and ``col_*`` reductions, whose messages the examples
print exactly. Their family in ``builtins.py`` is ``chapter`` (the README says why)."""

from mg_xdsl.core import shapes
from mg_xdsl.language.builtins import Builtin, relu
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_shape_ops import ShapeRules
from mg_xdsl.language.checker_types import Type, describe, is_number
from mg_xdsl.language.syntax_tree import Call, TensorType


class MatrixRules(ShapeRules):
    """Families ``chapter`` and ``transpose`` (whose call with a permutation is a shape op)."""

    def transpose(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """``transpose(x)``, of a matrix (its axes reversed), or ``transpose(x, perm)``, a shape op."""
        return self.shape_op(c, scope) if len(c.args) == 2 else self.chapter(c, scope, builtin)

    def chapter(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """``relu``, ``transpose`` (the axes reversed) and the ``row_*`` and ``col_*``
        reductions of a matrix. A number is a rank-0 tensor to the first two,
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
