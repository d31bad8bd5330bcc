"""mg-autodiff: each ``mg.grad`` replaced by the reverse sweep that computes it, in mg ops.

Reverse-mode automatic differentiation, as a compiler does it: the forward computation stays
as it is (its values are the primal values the sweep reads), and right before the
``mg.grad`` the adjoint of every value on the way from the variables to the differentiated
value is built, last op first, from each op's own rule (``op.adjoints``, on the op: see
``dialects/mg/base.Differentiable`` and ``dialects/mg/adjoint_builder``)::

    %h = mg.mul %w, %x : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %s = mg.reduce %h {axis = 0 : i64, kind = "sum"} : tensor<3xf64> -> tensor<1xf64>
    %l = mg.reshape %s : tensor<1xf64> to tensor<f64>
    %g = mg.grad %l wrt %w : tensor<f64>, tensor<3xf64> -> tensor<3xf64>

becomes the same three forward ops, then

    %one = mg.full_like %l {value = 1.0 : f64} : tensor<f64> -> tensor<f64>      // dl/dl
    %gs = mg.reshape %one : tensor<f64> to tensor<1xf64>                          // reshape's rule
    %gh = mg.broadcast %gs like %h : tensor<1xf64>, tensor<3xf64> -> tensor<3xf64>  // sum's
    %gw = mg.mul %gh, %x : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>         // mul's

and the uses of ``%g`` use ``%gw``. How: ``dialects/mg/reverse_mode.py``, which the front
end also runs at the end of a program that takes gradients (so the pipelines meet no
``mg.grad`` from the language; this pass is for mg IR from elsewhere, and ``mg-opt``).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mg_xdsl.dialects.mg.reverse_mode import AutodiffError, differentiate_all


@dataclass(frozen=True)
class MgAutodiffPass(ModulePass):
    """Replace every ``mg.grad`` by the reverse sweep that computes it (see the module). The
    front end runs it on a program that takes gradients, to report what it cannot
    differentiate as it reports every error; the pipelines run it first too, for mg IR from
    elsewhere."""

    name = "mg-autodiff"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            differentiate_all(op)
        except AutodiffError as e:
            raise PassFailedException(f"mg-autodiff: {e.message} ({e.op.name} at {e.op.location})") from None
