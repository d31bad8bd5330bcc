"""The ops that the lowerings make by the thousand, made from their final operands,
result types and properties with ``create_op`` (``Operation.create`` made lean, see
``xdsl_compat``).

xDSL's generic constructor matches every argument against the op's definition (operand
groups, optional properties, constraints) and costs about 10 microseconds an op, twice what
making the op itself costs; a 100-statement program makes some 13 000 such ops on its way
to the LLVM dialect. Each builder here makes exactly what the op's own constructor makes:
the same operands, result types, properties and successors (``tests/unit/support/test_op_builders.py``
compares the two for each); a property an op has by default is left to ``create_op``
where that does not change the order in which the generic form prints them. Verification still checks every op against its definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from xdsl.dialects import affine, arith, cf, llvm, memref, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    ContainerType,
    DenseArrayBase,
    DenseIntElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from mg_xdsl.support.xdsl_compat import OpT, create_op

# linalg takes some 15 ms to import, and only the optimised pipeline builds its ops: the
# builders below import it when first called.
if TYPE_CHECKING:
    from xdsl.dialects.linalg import ops as linalg
    from xdsl.dialects.linalg.attrs import IteratorTypeAttr

INDEX = IndexType()


# Attributes are immutable, so the few distinct ones that thousands of ops carry
# (constants, predicates, positions) are made once each: building one takes longer than
# the op it goes into.
@cache
def integer_attr(value: int, type: Attribute) -> IntegerAttr:
    assert isinstance(type, IntegerType | IndexType), f"{type} is no integer type"
    return IntegerAttr(value, type)


_NO_OVERFLOW = integer_attr(0, i32)
_NO_FAST_MATH = llvm.FastMathAttr(None)
_ORDERING = integer_attr(0, i64)
_C_CALL = llvm.CallingConventionAttr("ccc")
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_NO_TAIL_CALL = llvm.TailCallKindAttr(llvm.TailCallKind.NONE)


@cache
def segments(*sizes: int) -> DenseArrayBase:
    """An ``operandSegmentSizes`` property."""
    return DenseArrayBase.from_list(i32, sizes)


@cache
def _symbol(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


@cache
def _position(position: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, position)


@cache
def _gep_properties(element: Attribute) -> dict[str, Attribute]:
    return {
        "rawConstantIndices": DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL]),
        "elem_type": element,
        "noWrapFlags": integer_attr(0, i32),
        "inbounds": UnitAttr(),
    }


def _i1_like(t: Attribute) -> Attribute:
    """``i1``, or a vector of them shaped as ``t`` (a comparison's result)."""
    return VectorType(i1, t.get_shape()) if isinstance(t, VectorType) else i1


# --- LLVM dialect ---------------------------------------------------------------------


def llvm_constant(value: int, type: Attribute) -> llvm.ConstantOp:
    """``llvm.mlir.constant`` of an integer."""
    return create_op(llvm.ConstantOp, properties={"value": integer_attr(value, type)}, result_types=[type])


def llvm_gep(ptr: SSAValue, index: SSAValue, element: Attribute) -> llvm.GEPOp:
    """``llvm.getelementptr inbounds ptr[index]`` over elements of type ``element``."""
    return create_op(
        llvm.GEPOp, operands=[ptr, index], result_types=[llvm.LLVMPointerType()], properties=_gep_properties(element)
    )


def llvm_extractvalue(container: SSAValue, position: Sequence[int], type: Attribute) -> llvm.ExtractValueOp:
    return create_op(
        llvm.ExtractValueOp,
        operands=[container],
        result_types=[type],
        properties={"position": _position(tuple(position))},
    )


def llvm_insertvalue(container: SSAValue, value: SSAValue, position: Sequence[int]) -> llvm.InsertValueOp:
    return create_op(
        llvm.InsertValueOp,
        operands=[container, value],
        result_types=[container.type],
        properties={"position": _position(tuple(position))},
    )


def llvm_binary(kind: type[Operation], lhs: SSAValue, rhs: SSAValue, overflow: IntegerAttr = _NO_OVERFLOW) -> Operation:
    """``llvm.add``, ``llvm.mul``, ... (an op with overflow flags gets ``overflow``)."""
    properties = {"overflowFlags": overflow} if issubclass(kind, llvm.ArithmeticBinOpOverflow) else {}
    return create_op(kind, operands=[lhs, rhs], result_types=[lhs.type], properties=properties)


def llvm_float_binary(
    kind: type[Operation], lhs: SSAValue, rhs: SSAValue, fast_math: llvm.FastMathAttr = _NO_FAST_MATH
) -> Operation:
    """``llvm.fadd``, ``llvm.fmul``, ..."""
    return create_op(kind, operands=[lhs, rhs], result_types=[lhs.type], properties={"fastmathFlags": fast_math})


def llvm_icmp(predicate: str | int, lhs: SSAValue, rhs: SSAValue) -> llvm.ICmpOp:
    """``llvm.icmp``; the predicate by name (``"slt"``) or by number (arith numbers them
    alike)."""
    number = predicate if isinstance(predicate, int) else llvm.ICmpPredicateFlag(predicate).to_int()
    return create_op(
        llvm.ICmpOp,
        operands=[lhs, rhs],
        result_types=[_i1_like(lhs.type)],
        properties={"predicate": integer_attr(number, i64)},
    )


def llvm_load(ptr: SSAValue, type: Attribute, alignment: int | None = None) -> llvm.LoadOp:
    properties: dict[str, Attribute] = {"ordering": _ORDERING}  # (first, as it prints)
    if alignment is not None:
        properties["alignment"] = integer_attr(alignment, i64)
    return create_op(llvm.LoadOp, operands=[ptr], result_types=[type], properties=properties)


def llvm_store(value: SSAValue, ptr: SSAValue, alignment: int | None = None) -> llvm.StoreOp:
    properties: dict[str, Attribute] = {"ordering": _ORDERING}
    if alignment is not None:
        properties["alignment"] = integer_attr(alignment, i64)
    return create_op(llvm.StoreOp, operands=[value, ptr], properties=properties)


def llvm_call(callee: str | SymbolRefAttr, args: Sequence[SSAValue], result: Attribute | None = None) -> llvm.CallOp:
    """A direct C call of ``callee``; ``result`` None for a ``void`` one."""
    # All spelled out, defaults too: the generic form prints properties in this order, the
    # constructor's.
    return create_op(
        llvm.CallOp,
        operands=list(args),
        result_types=[] if result is None else [result],
        properties={
            "callee": _symbol(callee) if isinstance(callee, str) else callee,
            "fastmathFlags": _NO_FAST_MATH,
            "CConv": _C_CALL,
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": segments(len(args), 0),
            "TailCallKind": _NO_TAIL_CALL,
        },
    )


def _conditional_branch(
    kind: type[OpT],
    cond: SSAValue,
    then: Block,
    then_args: Sequence[SSAValue],
    otherwise: Block,
    otherwise_args: Sequence[SSAValue],
) -> OpT:
    return create_op(
        kind,
        operands=[cond, *then_args, *otherwise_args],
        successors=[then, otherwise],
        properties={"operandSegmentSizes": segments(1, len(then_args), len(otherwise_args))},
    )


def llvm_br(successor: Block, args: Sequence[SSAValue]) -> llvm.BrOp:
    return create_op(llvm.BrOp, operands=list(args), successors=[successor])


def llvm_cond_br(
    cond: SSAValue, then: Block, then_args: Sequence[SSAValue], otherwise: Block, otherwise_args: Sequence[SSAValue]
) -> llvm.CondBrOp:
    return _conditional_branch(llvm.CondBrOp, cond, then, then_args, otherwise, otherwise_args)


def llvm_undef(type: Attribute) -> llvm.UndefOp:
    return create_op(llvm.UndefOp, result_types=[type])


def conversion_cast(value: SSAValue, type: Attribute) -> UnrealizedConversionCastOp:
    """``builtin.unrealized_conversion_cast`` of one value to ``type``; the result is named
    after the value (as ``UnrealizedConversionCastOp.cast_one`` names it)."""
    op = create_op(UnrealizedConversionCastOp, operands=[value], result_types=[type])
    op.results[0].name_hint = value.name_hint
    return op


# --- affine, arith, cf, memref, scf ---------------------------------------------------------

_STEP_ONE = integer_attr(1, INDEX)


@cache
def _identity_map(rank: int) -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(rank))


def affine_for(
    lower: AffineMapAttr,
    upper: AffineMapAttr,
    lower_operands: Sequence[SSAValue],
    upper_operands: Sequence[SSAValue],
    body: Region,
) -> affine.ForOp:
    """``affine.for`` of step 1, without carried values (``affine.ForOp.from_region``)."""
    return create_op(
        affine.ForOp,
        operands=[*lower_operands, *upper_operands],
        regions=[body],
        properties={
            "lowerBoundMap": lower,
            "upperBoundMap": upper,
            "step": _STEP_ONE,
            "operandSegmentSizes": segments(len(lower_operands), len(upper_operands), 0),
        },
    )


_ONE_GROUP = DenseIntElementsAttr.from_list(TensorType(i32, [1]), [1])
_NO_REDUCTIONS = ArrayAttr([])


@cache
def _steps(step: int) -> ArrayAttr:
    return ArrayAttr([integer_attr(step, i64)])


def affine_parallel(
    lower: AffineMapAttr,
    upper: AffineMapAttr,
    lower_operands: Sequence[SSAValue],
    upper_operands: Sequence[SSAValue],
    body: Region,
    step: int = 1,
) -> affine.ParallelOp:
    """A one-dimensional ``affine.parallel`` without reductions: ``affine.for``'s bounds,
    step and body, its iterations independent."""
    return create_op(
        affine.ParallelOp,
        operands=[*lower_operands, *upper_operands],
        regions=[body],
        properties={
            "reductions": _NO_REDUCTIONS,
            "lowerBoundsMap": lower,
            "lowerBoundsGroups": _ONE_GROUP,
            "upperBoundsMap": upper,
            "upperBoundsGroups": _ONE_GROUP,
            "steps": _steps(step),
        },
    )


def affine_yield() -> affine.YieldOp:
    return create_op(affine.YieldOp)


def _element_type(ref: SSAValue) -> Attribute:
    """The element type of the memref ``ref`` (a tensor, in a conversion that has yet to
    replace it with its buffer)."""
    t = ref.type
    assert isinstance(t, ContainerType), f"{t} has no elements"
    return t.get_element_type()


def affine_load(ref: SSAValue, indices: Sequence[SSAValue]) -> affine.LoadOp:
    """``affine.load`` at ``indices`` as they are (the identity map)."""
    return create_op(
        affine.LoadOp,
        operands=[ref, *indices],
        result_types=[_element_type(ref)],
        properties={"map": _identity_map(len(indices))},
    )


def affine_store(value: SSAValue, ref: SSAValue, indices: Sequence[SSAValue]) -> affine.StoreOp:
    return create_op(affine.StoreOp, operands=[value, ref, *indices], properties={"map": _identity_map(len(indices))})


def arith_constant(value: Attribute, type: Attribute) -> arith.ConstantOp:
    return create_op(arith.ConstantOp, properties={"value": value}, result_types=[type])


def index_constant(value: int) -> arith.ConstantOp:
    """``arith.constant value : index``."""
    return arith_constant(integer_attr(value, INDEX), INDEX)


def arith_binary(kind: type[Operation], lhs: SSAValue, rhs: SSAValue) -> Operation:
    """``arith.addi``, ``arith.muli``, ``arith.remsi``, ... (no overflow flags: the default)."""
    return create_op(kind, operands=[lhs, rhs], result_types=[lhs.type])


def arith_cmpi(predicate: str, lhs: SSAValue, rhs: SSAValue) -> arith.CmpiOp:
    return create_op(
        arith.CmpiOp,
        operands=[lhs, rhs],
        result_types=[_i1_like(lhs.type)],
        properties={"predicate": integer_attr(arith.CMPI_COMPARISON_OPERATIONS.index(predicate), i64)},
    )


def cf_br(successor: Block, args: Sequence[SSAValue]) -> cf.BranchOp:
    return create_op(cf.BranchOp, operands=list(args), successors=[successor])


def cf_cond_br(
    cond: SSAValue, then: Block, then_args: Sequence[SSAValue], otherwise: Block, otherwise_args: Sequence[SSAValue]
) -> cf.ConditionalBranchOp:
    return _conditional_branch(cf.ConditionalBranchOp, cond, then, then_args, otherwise, otherwise_args)


def scf_for(lb: SSAValue, ub: SSAValue, step: SSAValue, inits: Sequence[SSAValue], body: Region) -> scf.ForOp:
    return create_op(scf.ForOp, operands=[lb, ub, step, *inits], result_types=[v.type for v in inits], regions=[body])


def scf_yield(values: Sequence[SSAValue]) -> scf.YieldOp:
    return create_op(scf.YieldOp, operands=list(values))


def memref_alloc(dynamic_sizes: Sequence[SSAValue], type: Attribute) -> memref.AllocOp:
    """``memref.alloc`` of ``type`` (no symbols, no alignment)."""
    return create_op(
        memref.AllocOp,
        operands=list(dynamic_sizes),
        result_types=[type],
        properties={"operandSegmentSizes": segments(len(dynamic_sizes), 0)},
    )


def memref_dealloc(ref: SSAValue) -> memref.DeallocOp:
    return create_op(memref.DeallocOp, operands=[ref])


def memref_load(ref: SSAValue, indices: Sequence[SSAValue]) -> memref.LoadOp:
    return create_op(memref.LoadOp, operands=[ref, *indices], result_types=[_element_type(ref)])


def memref_store(value: SSAValue, ref: SSAValue, indices: Sequence[SSAValue]) -> memref.StoreOp:
    return create_op(memref.StoreOp, operands=[value, ref, *indices])


# --- linalg (imported where used: only the optimised pipeline makes linalg ops) ------------------


@cache
def affine_map_attr(m: AffineMap) -> AffineMapAttr:
    return AffineMapAttr(m)


@cache
def iterator_types(parallel: tuple[bool, ...]) -> ArrayAttr[IteratorTypeAttr]:
    """``iterator_types``: for each loop, ``parallel`` or (False) ``reduction``."""
    from xdsl.dialects.linalg.attrs import IteratorTypeAttr  # (when first needed: see the top)

    return ArrayAttr([IteratorTypeAttr.parallel() if p else IteratorTypeAttr.reduction() for p in parallel])


def linalg_generic(
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    body: Region,
    maps: Sequence[AffineMap],
    iterators: ArrayAttr[IteratorTypeAttr],
) -> linalg.GenericOp:
    """``linalg.generic`` on memrefs (no results, no doc, no library call)."""
    from xdsl.dialects.linalg import ops as linalg  # (when first needed: see the top)

    return create_op(
        linalg.GenericOp,
        operands=[*inputs, *outputs],
        regions=[body],
        properties={
            "indexing_maps": ArrayAttr([affine_map_attr(m) for m in maps]),
            "iterator_types": iterators,
            "operandSegmentSizes": segments(len(inputs), len(outputs)),
        },
    )


def linalg_yield(values: Sequence[SSAValue]) -> linalg.YieldOp:
    from xdsl.dialects.linalg import ops as linalg  # (when first needed: see the top)

    return create_op(linalg.YieldOp, operands=list(values))
