"""``mg.grad``: the gradient of a rank-0 float value with respect to values it is computed
from (the language's ``grad(loss(w, x), wrt=[w])``). The front end emits it after the forward
computation; ``mg-autodiff`` replaces it with the reverse sweep, so no later pass sees it.
"""

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, var_operand_def, var_result_def

from mg_xdsl.core import element_types
from mg_xdsl.dialects.mg.base import MgOp, shape_of, tensor_type_of


@irdl_op_definition
class GradOp(MgOp):
    """The gradient of ``value`` (a rank-0 float tensor) with respect to each of ``wrt``:
    a tensor of that one's type, how much ``value`` changes per unit change of each of its
    elements. ``value`` is computed from the ``wrt`` values by ops that dominate this one
    (calls included); each ``wrt`` is an independent variable, even one computed from
    another. ``mg.grad %loss wrt %w, %b : tensor<f64>, tensor<3x2xf64>, tensor<2xf64> ->
    tensor<3x2xf64>, tensor<2xf64>``."""

    name = "mg.grad"
    value = operand_def(TensorType)
    wrt = var_operand_def(TensorType)
    gradients = var_result_def(TensorType)
    assembly_format = "$value `wrt` $wrt attr-dict `:` type($value) `,` type($wrt) `->` type($gradients)"

    def __init__(self, value: SSAValue, wrt: Sequence[SSAValue]):
        super().__init__(operands=[value, list(wrt)], result_types=[[w.type for w in wrt]])

    def verify_(self) -> None:
        t = tensor_type_of(self.value)
        if shape_of(t) != () or not element_types.is_float(t.element_type):
            raise self.fail(f"the value must be a rank-0 float tensor, got {t}")
        if not self.wrt:
            raise self.fail("there must be at least one value to differentiate with respect to")
        for w, g in zip(self.wrt, self.gradients, strict=True):
            if not element_types.is_float(tensor_type_of(w).element_type):
                raise self.fail(f"a gradient is with respect to float tensors, got {w.type}")
            if g.type != w.type:
                raise self.fail(f"each gradient has its variable's type: {w.type}, got {g.type}")
