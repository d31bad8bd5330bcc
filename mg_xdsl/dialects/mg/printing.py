"""``mg.print``: the one op with an effect."""

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, traits_def

from mg_xdsl.core import element_types
from mg_xdsl.dialects.mg.base import LoweredElementTypes, MgOp


@irdl_op_definition
class PrintOp(MgOp):
    """Print a tensor in the format of MLIR's ``printMemref*`` for its element type."""

    name = "mg.print"
    input = operand_def(TensorType)
    traits = traits_def(LoweredElementTypes(element_types.PRINTABLE))
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input])
