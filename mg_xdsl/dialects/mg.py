"""The ``mg`` dialect: Mountain Goat's tensor operations, one op per language construct.

Values are ranked tensors (``tensor<2x3xf64>``, ``tensor<?x3xf64>``). Ops are value-based
(``Pure``) except ``mg.print``; every op after the front end has operands whose shapes
already agree, because the front end inserts an explicit ``mg.broadcast`` wherever a size-1
dimension grows. Each verifier states its rule in its message. The rules themselves live in
``mg_xdsl.shapes`` (shared with the front end) and ``mg_xdsl.element_types`` (the trait
``LoweredElementTypes`` of every op), so no op carries its own copy.

What each op computes on one element is said here too, once: an elementwise op's
``scalar`` builds its arith ops (the interface ``ScalarComputation``), and ``REDUCTIONS``
names each reduction's combining op and identity. ``lower-mg-to-affine``,
``convert-mg-to-linalg`` and the reduction kernels ask them; none keeps a table of its own.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import ConstantLike, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from mg_xdsl import element_types, shapes
from mg_xdsl.shapes import Shape, ShapeError, fmt_shape

# ---------------------------------------------------------------------------------------
# Shapes of IR types, in the shared rules' vocabulary
# ---------------------------------------------------------------------------------------


def shape_of(t: Attribute) -> Shape:
    """The shape of a tensor (or memref) type, with ``None`` for a ``?`` dimension."""
    return tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())  # type: ignore[attr-defined]


def tensor_type(shape: Shape, element_type: Attribute = Float64Type()) -> TensorType:
    return _tensor_type(tuple(shape), element_type)


@lru_cache(maxsize=4096)
def _tensor_type(shape: Shape, element_type: Attribute) -> TensorType:
    # Types are immutable, and making one costs ~80 us (verified parameters): a long
    # program's ops have a few types between them.
    return TensorType(element_type, [DYNAMIC_INDEX if d is None else d for d in shape])


def _inferred(op_name: str, like: SSAValue, rule, *shapes_and_args) -> TensorType:
    """The result type that a rule of ``shapes`` gives, of ``like``'s element type; a broken
    rule is the VerifyException that the op's verifier would raise."""
    try:
        return tensor_type(rule(*shapes_and_args), _tensor(like).element_type)
    except ShapeError as e:
        raise VerifyException(f"{op_name}: {e}") from None


def _tensor(value: SSAValue) -> TensorType:
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


class MgOp(IRDLOperation):
    """Base of the mg ops: verifier failures are reported as ``mg.<op>: <rule>``."""

    def fail(self, rule: str) -> VerifyException:
        return VerifyException(f"{self.name}: {rule}")

    def check_same_element_type(self, *values: SSAValue) -> None:
        types = {_tensor(v).element_type for v in values}
        if len(types) != 1:
            raise self.fail(
                "operands and result must have one element type, got "
                + ", ".join(str(t) for t in types)
            )

    def check_elementwise(self, *values: SSAValue) -> None:
        """Elementwise rule: same rank, each dimension equal or ``?`` (checked at run time)."""
        self.check_same_element_type(*values)
        found = [shape_of(_tensor(v)) for v in values]
        first = found[0]
        if any(not shapes.shapes_compatible(first, s) for s in found[1:]):
            raise self.fail(
                "operand and result shapes must agree (a '?' dimension matches any size), got "
                + ", ".join(fmt_shape(s) for s in found)
            )


# ---------------------------------------------------------------------------------------
# What an op computes on one element
# ---------------------------------------------------------------------------------------

# The arith op of each binary operator, as ``mg.add`` and ``mg.scalar {op = "add"}`` name it.
BINARY_ARITH: dict[str, type[IRDLOperation]] = {
    "add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp}


class ScalarComputation:
    """The interface of the elementwise ops: one element of the result from one element of
    each operand. ``scalar`` makes arith ops in the current (implicit) builder; the numbers it
    needs are made by the caller, once, from ``scalar_constants`` (a loop nest makes them
    before its loops, a linalg.generic's body at its start)."""

    def scalar_constants(self) -> tuple[float, ...]:
        return ()

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        raise NotImplementedError


@dataclass(frozen=True)
class Reduction:
    combine: type[IRDLOperation]  # the arith op that folds an element into the running value
    identity: float  # where the fold starts: the value that leaves any element as it is


REDUCTIONS: dict[str, Reduction] = {
    "sum": Reduction(arith.AddfOp, 0.0),
    "max": Reduction(arith.MaximumfOp, float("-inf")),  # maximumf propagates NaN, as NumPy's max
}


# ---------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(MgOp):
    """A literal tensor: ``%0 = mg.constant dense<[[1.0, 2.0]]> : tensor<1x2xf64>``."""

    name = "mg.constant"
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr())))
    result = result_def(T)
    traits = traits_def(Pure(), ConstantLike(), LoweredElementTypes())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(result_types=[value.type], properties={"value": value})

    def verify_(self) -> None:
        if None in shape_of(self.result.type):
            raise self.fail("a constant needs a static shape")


class ElementwiseBinaryOp(MgOp, ScalarComputation):
    """``lhs op rhs`` on tensors of agreeing shapes, element by element."""

    OPERATOR: ClassVar[str]  # its key in BINARY_ARITH

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        """The result type, unless given, is the operands' shapes merged (a static size
        where either has one; the front end has already inserted any broadcast)."""
        if result_type is None:
            result_type = _inferred(self.name, lhs, shapes.broadcast_shapes, shape_of(lhs.type),
                                    shape_of(rhs.type))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        self.check_elementwise(self.lhs, self.rhs, self.result)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return BINARY_ARITH[self.OPERATOR](*operands).result


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    name = "mg.add"
    OPERATOR: ClassVar[str] = "add"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    name = "mg.sub"
    OPERATOR: ClassVar[str] = "sub"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """The elementwise (Hadamard) product, the language's ``*``."""

    name = "mg.mul"
    OPERATOR: ClassVar[str] = "mul"


@irdl_op_definition
class DivOp(ElementwiseBinaryOp):
    name = "mg.div"
    OPERATOR: ClassVar[str] = "div"


class UnaryOp(MgOp):
    """One tensor in, one tensor out: ``mg.op %x : tensor<..> -> tensor<..>``."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[input], result_types=[result_type or input.type])


class ElementwiseUnaryOp(UnaryOp, ScalarComputation):
    def verify_(self) -> None:
        self.check_elementwise(self.input, self.result)


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    name = "mg.neg"

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return arith.NegfOp(operands[0]).result


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """``max(x, 0)``, NaN-propagating: ``relu(nan)`` is ``nan``."""

    name = "mg.relu"

    def scalar_constants(self) -> tuple[float, ...]:
        return (0.0,)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        return arith.MaximumfOp(operands[0], constants[0]).result  # NaN stays NaN


SCALAR_OPS = tuple(BINARY_ARITH)


@irdl_op_definition
class ScalarOp(MgOp, ScalarComputation):
    """A tensor combined elementwise with a compile-time number.

    ``op`` is one of add/sub/mul/div; ``reversed = true`` puts the number on the left, so
    ``2 - a`` is ``{op = "sub", value = 2.0, reversed = true}``.
    """

    name = "mg.scalar"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    op = prop_def(StringAttr)
    value = prop_def(FloatAttr)
    reversed = prop_def(BoolAttr)
    traits = traits_def(Pure(), LoweredElementTypes())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, op: str, value: float, reversed: bool):
        element_type = _tensor(input).element_type
        assert isinstance(element_type, AnyFloat)
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={
                "op": StringAttr(op),
                "value": FloatAttr(value, element_type),
                "reversed": BoolAttr.from_bool(reversed),
            },
        )

    def verify_(self) -> None:
        if self.op.data not in SCALAR_OPS:
            raise self.fail(f"op must be add, sub, mul or div, got '{self.op.data}'")
        self.check_elementwise(self.input, self.result)

    def scalar_constants(self) -> tuple[float, ...]:
        return (self.value.value.data,)

    def scalar(self, operands: Sequence[SSAValue], constants: Sequence[SSAValue]) -> SSAValue:
        x, number = operands[0], constants[0]
        lhs, rhs = (number, x) if self.reversed.value.data else (x, number)
        return BINARY_ARITH[self.op.data](lhs, rhs).result


@irdl_op_definition
class MatmulOp(MgOp):
    """The matrix product ``(M x K) @ (K x N) -> (M x N)``."""

    name = "mg.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), LoweredElementTypes())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _inferred(self.name, lhs, shapes.matmul_shape, shape_of(lhs.type),
                                    shape_of(rhs.type))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        self.check_same_element_type(self.lhs, self.rhs, self.result)
        try:
            want = shapes.matmul_shape(shape_of(self.lhs.type), shape_of(self.rhs.type))
        except ShapeError as e:
            raise self.fail(str(e)) from None
        got = shape_of(self.result.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(got)}")


@irdl_op_definition
class TransposeOp(UnaryOp):
    """Rows become columns: ``mg.transpose %x : tensor<2x3xf64> to tensor<3x2xf64>``."""

    name = "mg.transpose"
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _inferred(self.name, input, shapes.transpose_shape, shape_of(input.type))
        super().__init__(input, result_type)

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        want = shapes.transpose_shape(shape_of(self.input.type))
        got = shape_of(self.result.type)
        if not shapes.shapes_compatible(want, got):
            raise self.fail(f"the result must be {fmt_shape(want)}, got {fmt_shape(got)}")


REDUCE_KINDS = tuple(REDUCTIONS)


@irdl_op_definition
class ReduceOp(MgOp):
    """Reduce along one axis with ``sum`` or ``max``; the axis collapses to size 1.

    ``axis = 1`` combines the elements of each row (an M x 1 result), ``axis = 0`` those of
    each column (1 x N).
    """

    name = "mg.reduce"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[IntegerType])
    kind = prop_def(StringAttr)
    traits = traits_def(Pure(), LoweredElementTypes())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axis: int, kind: str, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _inferred(self.name, input, shapes.reduce_shape, shape_of(input.type), axis)
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64), "kind": StringAttr(kind)},
        )

    @property
    def reduction(self) -> Reduction:
        return REDUCTIONS[self.kind.data]

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        in_shape, out_shape = shape_of(self.input.type), shape_of(self.result.type)
        axis = self.axis.value.data
        try:
            shapes.check_axis(len(in_shape), axis)
        except ShapeError as e:
            raise self.fail(str(e)) from None
        if self.kind.data not in REDUCE_KINDS:
            raise self.fail(f"kind must be sum or max, got '{self.kind.data}'")
        want = shapes.reduce_shape(in_shape, axis)
        if out_shape[axis:axis + 1] != (1,) or not shapes.shapes_compatible(want, out_shape):
            raise self.fail(
                f"reducing axis {axis} of {self.input.type} must give a result with that "
                f"axis of size 1, got {self.result.type}"
            )


@irdl_op_definition
class BroadcastOp(UnaryOp):
    """Repeat a tensor along every dimension of size 1 to fill a larger static shape."""

    name = "mg.broadcast"

    def verify_(self) -> None:
        self.check_same_element_type(self.input, self.result)
        in_shape, out_shape = shape_of(self.input.type), shape_of(self.result.type)
        if None in in_shape or None in out_shape:
            raise VerifyException(
                "mg.broadcast needs static shapes (dynamic broadcasting is not supported)"
            )
        d = shapes.broadcast_blocker(in_shape, out_shape)
        if d is not None:
            raise self.fail(
                f"dimension {d} of {self.input.type} can only grow from size 1, "
                f"not to {self.result.type}"
            )


@irdl_op_definition
class CastOp(UnaryOp):
    """Change what is known statically about a shape, not the data.

    ``tensor<2x3xf64> to tensor<?x?xf64>`` forgets the sizes (passing a matrix to a ``?``
    parameter); ``tensor<?x3xf64> to tensor<2x3xf64>`` claims them, which is checked at run
    time.
    """

    name = "mg.cast"
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def verify_(self) -> None:
        self.check_elementwise(self.input, self.result)


@irdl_op_definition
class PrintOp(MgOp):
    """Print a tensor in the format of MLIR's ``printMemref*`` for its element type."""

    name = "mg.print"
    input = operand_def(TensorType)
    traits = traits_def(LoweredElementTypes(element_types.PRINTABLE))
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input])


Mg = Dialect(
    "mg",
    [
        ConstantOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        NegOp,
        ReluOp,
        ScalarOp,
        MatmulOp,
        TransposeOp,
        ReduceOp,
        BroadcastOp,
        CastOp,
        PrintOp,
    ],
)
