"""The op of a run-time argument: a number the program reads from its command line
(``let lr = arg("lr", 0.1)``), the default where none is given:

- ``%lr = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>``;
- ``%n = mg.arg {name = "steps", default = 100 : i64} : tensor<i64>``.

The result is a rank-0 tensor of the default's type, ``f64`` or ``i64``. The op is not
``Pure``: its value comes from outside the program (CSE never merges two, though two of one
name read the same value). ``lower_arguments`` lowers it to a call of the run-time library
(``backend/runtime_arguments_ir``), which also says how a bad argument fails.
"""

import re

from xdsl.dialects.builtin import Float64Type, FloatAttr, IntegerAttr, StringAttr, TensorType, i64
from xdsl.irdl import ParsePropInAttrDict, irdl_op_definition, prop_def, result_def

from mg_xdsl.dialects.mg.base import MgOp, tensor_type

# What an argument's name may be: it is written NAME=VALUE on a command line.
ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@irdl_op_definition
class ArgOp(MgOp):
    """A run-time argument ``name`` (``NAME=VALUE`` on the command line), else ``default``:
    ``mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>``."""

    name = "mg.arg"
    arg_name = prop_def(StringAttr, prop_name="name")
    default = prop_def(FloatAttr | IntegerAttr)  # f64 or i64, the result's element type
    result = result_def(TensorType)
    assembly_format = "attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, name: str, default: int | float):
        """The argument ``name``, of type ``f64`` for a float ``default``, ``i64`` for an int."""
        value = IntegerAttr(default, i64) if isinstance(default, int) else FloatAttr(default, Float64Type())
        super().__init__(
            result_types=[tensor_type((), value.type)],
            properties={"name": StringAttr(name), "default": value},
        )

    def verify_(self) -> None:
        if not ARG_NAME.fullmatch(self.arg_name.data):
            raise self.fail(f"the name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got {self.arg_name.data!r}")
        if self.default.type not in (Float64Type(), i64):
            raise self.fail(f"the default must be f64 or i64, got {self.default.type}")
        expected = tensor_type((), self.default.type)
        if self.result.type != expected:
            raise self.fail(f"the result must be {expected}, of the default's type, got {self.result.type}")
