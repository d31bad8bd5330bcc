"""The ops with an effect: ``mg.print`` (a tensor, as MLIR's runner library prints it) and
``mg.println`` (a line of text with values formatted in it, as Python's ``format`` and NumPy's ``str``)."""

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, traits_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from mg_xdsl.core import element_types, format_spec
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


@irdl_op_definition
class PrintlnOp(MgOp):
    """One line of text with values in it (the language's ``println("epoch {e}: loss {l:.4f}")``):
    ``pieces[0]``, ``values[0]`` formatted by Python's format spec ``specs[0]``,
    ``pieces[1]``, ..., ``pieces[-1]``, then a newline. The values are tensors of any element
    type: one of rank 0 is formatted by its spec (``""`` for none), which must be one that
    ``mg_xdsl.core.format_spec`` prints exactly as Python's ``format`` does for the value's
    type; a larger one takes no spec and prints as NumPy's ``str`` prints an array.

    ``mg.println ["epoch ", ": loss ", ""] ["", ".4f"] %e, %l : tensor<i64>, tensor<f64>``"""

    name = "mg.println"
    values = var_operand_def(TensorType)
    pieces = prop_def(ArrayAttr[StringAttr])
    specs = prop_def(ArrayAttr[StringAttr])
    traits = traits_def(LoweredElementTypes(element_types.STORED))
    assembly_format = "$pieces $specs ($values^ `:` type($values))? attr-dict"

    def __init__(self, pieces: Sequence[str], values: Sequence[SSAValue], specs: Sequence[str] | None = None):
        specs = [""] * len(values) if specs is None else specs
        super().__init__(
            operands=[values],
            properties={
                "pieces": ArrayAttr([StringAttr(p) for p in pieces]),
                "specs": ArrayAttr([StringAttr(s) for s in specs]),
            },
        )

    def verify_(self) -> None:
        n = len(self.values)
        if len(self.pieces) != n + 1:
            raise VerifyException(f"mg.println: {n} values need {n + 1} pieces of text, got {len(self.pieces)}")
        if len(self.specs) != n:
            raise VerifyException(f"mg.println: {n} values need {n} format specs, got {len(self.specs)}")
        for i, (value, spec) in enumerate(zip(self.values, self.specs)):
            t = value.type
            assert isinstance(t, TensorType)
            if t.get_shape() and spec.data:
                raise VerifyException(f"mg.println: value {i} of rank {t.get_num_dims()} takes no format spec")
            try:
                format_spec.check(spec.data, element_types.NAME_OF[t.element_type])
            except ValueError as e:
                raise VerifyException(f"mg.println: value {i}: {e}") from None
