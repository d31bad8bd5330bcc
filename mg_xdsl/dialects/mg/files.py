"""The two ops between a program and NumPy's ``.npy`` files, both with an effect (neither is
``Pure``: CSE never merges two loads, DCE never drops a save or a load whose file may be
missing):

- ``%x = mg.load {path = "/abs/x.npy"} : tensor<?x64xf32>``: the tensor the file holds, of the
  declared type; a ``?`` size is the file's, a static size must be the file's (checked when
  the program runs, as the element type, the rank and the file itself are);
- ``mg.save %w {path = "/abs/w.npy"} : tensor<3x2xf64>``: write ``%w`` to the file, as
  ``np.save`` would (a file ``np.load`` reads back with the same dtype, shape and values).

The path is absolute: the front end resolves a relative one against the program's directory.
Element types are those NumPy has a ``.npy`` type for (``NPY_TYPES``): ``f64 f32 i32 i64 i1``;
``bf16`` has none. ``lower_files`` lowers both to calls of the run-time library
(``backend/runtime_files_ir``), which says how each check fails.
"""

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import ParsePropInAttrDict, irdl_op_definition, operand_def, prop_def, result_def

from mg_xdsl.core import element_types
from mg_xdsl.dialects.mg.base import MgOp, tensor_type_of

# The element types a .npy file can hold as the compiled code stores them (``i1`` as NumPy's
# one-byte bool); ``backend/runtime_files_ir.NPY_DESCRS`` names their .npy types.
NPY_TYPES: tuple[Attribute, ...] = tuple(element_types.NAMES[n] for n in ("f64", "f32", "i32", "i64", "i1"))


class FileOp(MgOp):
    """Base of ``mg.load`` and ``mg.save``: an absolute ``path`` and a tensor of a type NumPy
    can store."""

    path = prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)

    def check_file(self, tensor: SSAValue) -> None:
        if not self.path.data.startswith("/"):
            raise self.fail(f"the path must be absolute, got {self.path.data!r}")
        if "\0" in self.path.data:
            raise self.fail("the path must not contain a NUL character")
        element = tensor_type_of(tensor).element_type
        if element == element_types.BF16:
            raise self.fail(
                "element type bf16 has no .npy type (NumPy has no bfloat16): cast the tensor to f32 "
                "and save or load that"
            )
        problem = element_types.unsupported(element, NPY_TYPES)
        if problem:
            raise self.fail(problem)


@irdl_op_definition
class LoadOp(FileOp):
    """The tensor a ``.npy`` file holds, of the result's type (a ``?`` size taken from the file):
    ``mg.load {path = "/abs/x.npy"} : tensor<?x64xf32>``."""

    name = "mg.load"
    result = result_def(TensorType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, path: str, result_type: TensorType):
        super().__init__(result_types=[result_type], properties={"path": StringAttr(path)})

    def verify_(self) -> None:
        self.check_file(self.result)


@irdl_op_definition
class SaveOp(FileOp):
    """Write a tensor to a ``.npy`` file, replacing it whole (nothing is written on failure):
    ``mg.save %w {path = "/abs/w.npy"} : tensor<3x2xf64>``."""

    name = "mg.save"
    input = operand_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, path: str):
        super().__init__(operands=[input], properties={"path": StringAttr(path)})

    def verify_(self) -> None:
        self.check_file(self.input)
