"""The base of every mg op (``MgOp``, ``UnaryOp``), the trait that checks element types
(``LoweredElementTypes``), tensor types in the shared shape rules' vocabulary, and the
attribute names and messages of the run-time checks.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DYNAMIC_INDEX, Float64Type, FloatAttr, IntegerAttr, ShapedType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, operand_def, result_def, traits_def
from xdsl.traits import OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import Shape, ShapeError, fmt_shape

if TYPE_CHECKING:  # (the rules are given a builder; they do not import it)
    from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder


def shape_of(t: Attribute) -> Shape:
    """The shape of a tensor (or memref) type, with ``None`` for a ``?`` dimension."""
    assert isinstance(t, ShapedType), f"{t} has no shape"
    return tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())


def tensor_type(shape: Shape, element_type: Attribute = Float64Type()) -> TensorType:
    return _tensor_type(tuple(shape), element_type)


@lru_cache(maxsize=4096)
def _tensor_type(shape: Shape, element_type: Attribute) -> TensorType:
    # Types are immutable, and making one costs ~80 us (verified parameters): a long
    # program's ops have a few types between them.
    return TensorType(element_type, [DYNAMIC_INDEX if d is None else d for d in shape])


def inferred_type(op_name: str, like: SSAValue, rule, *shapes_and_args) -> TensorType:
    """The result type that a rule of ``shapes`` gives, of ``like``'s element type; a broken
    rule is the VerifyException that the op's verifier would raise."""
    try:
        return tensor_type(rule(*shapes_and_args), tensor_type_of(like).element_type)
    except ShapeError as e:
        raise VerifyException(f"{op_name}: {e}") from None


def tensor_type_of(value: SSAValue) -> TensorType:
    t = value.type
    if not isinstance(t, TensorType):
        raise VerifyException(f"expected a ranked tensor, got {t}")
    return t


@dataclass(frozen=True)
class LoweredElementTypes(OpTrait):
    """Every tensor the op takes or gives has an element type that its lowering handles:
    one of ``element_types.ARITHMETIC`` unless the op says otherwise."""

    types: tuple[Attribute, ...] = element_types.ARITHMETIC

    def verify(self, op: Operation) -> None:
        for value in (*op.operands, *op.results):
            if isinstance(value.type, TensorType):
                problem = element_types.unsupported(value.type.element_type, self.types)
                if problem:
                    raise VerifyException(f"{op.name}: {problem}")


# A unit attribute of an elementwise op (``mg.add``, ``mg.scalar``...): its result is written
# into its first operand's buffer, which nothing reads afterwards (``w += g`` on a ``var``;
# the front end gives a var a buffer of its own).
IN_PLACE = "mg.in_place"
# On an mg.broadcast (broadcast_to(m, shape(x))): the result has the shape of its first like
# operand, so a '?' it keeps from its input is checked equal to that operand's when it runs.
LIKE_SHAPE = "mg.like_shape"


# An array of strings on an ``mg.cast``, one per dimension of its result: the message of the
# run-time check that the dimension has the size the cast claims ("" where it claims none).
# The front end words them in the program's terms (which call's argument, which operator's
# operand), since the program never wrote the ``mg.cast``; a cast without them gets
# ``mg.cast: dimension D differs at runtime from the static size N``.
CHECK_MESSAGES = "mg.check_messages"


# What a failed run-time check says where sizes that must agree differ, in ``lower-mg-to-affine``'s
# checks of an op's operands and in the front end's messages for an ``mg.cast`` that claims an
# operand's size for an op (one mistake, one message, whichever check finds it).
def operands_differ(op: str, dim: int) -> str:
    return f"{op}: operand shapes differ at runtime in dimension {dim}"


def batch_differs(dim: int) -> str:
    return f"mg.matmul: batch dimension {dim} differs at runtime"


class Differentiable:
    """An op with a derivative rule, for reverse-mode differentiation (``mg-autodiff``).

    ``adjoints(d, g)``: given ``g``, the adjoint of the op's (float) result, the adjoint of
    each operand in operand order (``None`` for one with none: a mask, indices, or an operand
    ``d.active`` says nobody wants), built with ``d``'s words (``adjoint_builder``). An op
    without this base has no rule: a gradient through it is an error naming it; an op whose
    result is not a float (a comparison, ``argmax``, an integer op) is a constant to
    differentiation and is never asked."""

    def adjoints(self, d: "AdjointBuilder", g: SSAValue) -> Sequence[SSAValue | None]:
        raise NotImplementedError


class MgOp(IRDLOperation):
    """Base of the mg ops: verifier failures are reported as ``mg.<op>: <rule>``."""

    def check_in_place(self) -> None:
        """An op computed in place (``IN_PLACE``) keeps its first operand's type."""
        if IN_PLACE in self.attributes and self.results[0].type != self.operands[0].type:
            raise self.fail(
                f"an op computed in place ({IN_PLACE}) must keep its first operand's type "
                f"{self.operands[0].type}, got {self.results[0].type}"
            )

    def fail(self, rule: str) -> VerifyException:
        return VerifyException(f"{self.name}: {rule}")

    def check_same_element_type(self, *values: SSAValue) -> None:
        types = {tensor_type_of(v).element_type for v in values}
        if len(types) != 1:
            raise self.fail("operands and result must have one element type, got " + ", ".join(str(t) for t in types))

    def check_number_type(self, number: FloatAttr | IntegerAttr, tensor: SSAValue, rule: str) -> None:
        """``number`` (a property) is of ``tensor``'s element type, as ``rule`` says."""
        if number.type != tensor_type_of(tensor).element_type:
            raise self.fail(f"{rule} element type {tensor_type_of(tensor).element_type}, got {number.type}")

    def check_elementwise(self, *values: SSAValue) -> None:
        """Elementwise rule: one element type; same rank, each dimension equal or ``?``
        (checked at run time)."""
        self.check_same_element_type(*values)
        self.check_same_shapes(*values)

    def check_same_shapes(self, *values: SSAValue) -> None:
        found = [shape_of(tensor_type_of(v)) for v in values]
        first = found[0]
        if any(not shapes.shapes_compatible(first, s) for s in found[1:]):
            raise self.fail(
                "operand and result shapes must agree (a '?' dimension matches any size), got "
                + ", ".join(fmt_shape(s) for s in found)
            )


class UnaryOp(MgOp):
    """One tensor in, one tensor out: ``mg.op %x : tensor<..> -> tensor<..>``. (The ops that
    only move or convert elements take every stored type, ``i1`` too: ``MOVES``.)"""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[input], result_types=[result_type or input.type])


MOVES = traits_def(LoweredElementTypes(element_types.STORED))
