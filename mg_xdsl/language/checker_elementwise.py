"""The type rules of the builtins that work element by element: ``cast``, ``where`` and the
math functions of one and of two arguments."""

from mg_xdsl.core import element_types
from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import Type, describe, fold_call, is_number
from mg_xdsl.language.syntax_tree import Call, Name, TensorType


class ElementwiseRules(ArgumentReader):
    """Families ``cast``, ``where``, ``math_unary`` and ``math_binary``."""

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
        a, b = self.adopt(c.args[1], a, b), self.adopt(c.args[2], b, a)
        if not isinstance(mask, TensorType) or not element_types.is_bool(mask.element):
            raise self.error(
                name, "E-DIM-002", f"the mask of where must be a tensor of i1 (a comparison), got {describe(mask)}"
            )
        if is_number(a) and is_number(b):
            values = TensorType(())  # two numbers: f64, in the mask's shape
        else:
            values = self.elementwise(name, "select from", a, b)
        return TensorType(self.broadcast(name, "select from", mask, values), values.element)

    def math_unary(self, c: Call, scope: Scope, builtin: Builtin) -> Type:
        """``exp(x)`` and the other float functions, ``abs(x)`` of every numeric type; of a
        number, a number."""
        name, args = c.tok, self.arguments(c, scope)
        self.arity(name, args, 1, "a tensor or a number")
        (arg,) = args
        if is_number(arg):
            assert builtin.fold is not None  # (every math builtin's record has it)
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
        left, right = self.adopt(c.args[0], left, right), self.adopt(c.args[1], right, left)
        if is_number(left) and is_number(right):
            assert builtin.fold is not None  # (every math builtin's record has it)
            return fold_call(builtin.fold, left, right)
        for t in (left, right):
            self.no_booleans(name, f"{name.text} of", t)
            if builtin.floats_only:
                self.floats_only(name, t, "float tensors")
        return self.elementwise(name, f"take {name.text} of", left, right)
