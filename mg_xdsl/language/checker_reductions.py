"""The type rule of the reductions along any axes: ``sum``, ``prod``, ``max``, ``min``,
``mean``."""

from mg_xdsl.core import element_types
from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import describe
from mg_xdsl.language.syntax_tree import Call, TensorType


class ReductionRules(ArgumentReader):
    """Family ``reduction``."""

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
        if name.text == "mean":  # (over a '?' size it divides by the count when the program runs)
            self.floats_only(name, arg)
        self.options[c] = {"axes": axes, "keepdims": keepdims}
        shape = (
            tuple(1 if d in axes else s for d, s in enumerate(arg.shape))
            if keepdims
            else tuple(s for d, s in enumerate(arg.shape) if d not in axes)
        )
        return TensorType(shape, arg.element)

    def arg_reduction(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``argmax(x, axis=1)``, ``argmin``: the position of the largest (smallest) element
        along the axis, which the result drops, as ``i64``; ``axis=`` may be left out for a
        vector (NumPy's default, the flattened tensor, is not this)."""
        name = c.tok
        args = self.arguments(c, scope)
        self.arity(name, args, 1, "a tensor, then axis=")
        (arg,) = args
        if not isinstance(arg, TensorType) or not arg.shape:
            raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor of rank 1 or more, got {describe(arg)}")
        if "axis" not in c.keywords and len(arg.shape) > 1:
            raise self.error(
                name, "E-ARG-001", f"{name.text} of {describe(arg)} needs axis=: which axis to search along"
            )
        axis = self.keyword_axis(c, scope, len(arg.shape))
        self.options[c] = {"axis": axis}
        return TensorType(tuple(s for d, s in enumerate(arg.shape) if d != axis), element_types.NAMES["i64"])
