"""The type rule of the scans: ``linear_scan`` and ``cumsum``."""

from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import describe, is_number
from mg_xdsl.language.syntax_tree import Call, TensorType


class ScanRules(ArgumentReader):
    """Family ``scan``."""

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
