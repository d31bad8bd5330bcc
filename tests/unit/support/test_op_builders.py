"""Each builder of ``mg_xdsl/support/op_builders.py`` makes exactly the op that the op's
own xDSL constructor makes: same name, operands, result types, properties, attributes and
successors, and the op's definition accepts it."""

import pytest
from xdsl.dialects import affine, arith, cf, llvm, memref, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    VectorType,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr, AffineMap

from mg_xdsl.support import op_builders as b

BLOCK = Block(
    arg_types=[
        i64,
        i64,
        i1,
        llvm.LLVMPointerType(),
        f64,
        MemRefType(f64, [2, 3]),
        IndexType(),
        IndexType(),
        VectorType(i64, [4]),
        llvm.LLVMStructType.from_type_list([llvm.LLVMPointerType(), i64]),
    ]
)
X, Y, C, P, F, M, I, J, V, S = BLOCK.args  # noqa: E741  (I: an index, as the IR names it)
X.name_hint = "x"
TARGET = Block(arg_types=[i64])
OTHER = Block()
# The successors must be in a region for the branches to verify.
Region([Block(), TARGET, OTHER])


def loop_body() -> Region:
    body = Block(arg_types=[IndexType(), f64])
    body.add_op(scf.YieldOp(body.args[1]))
    return Region(body)


def affine_body() -> Region:
    body = Block(arg_types=[IndexType()])
    body.add_op(affine.YieldOp.get())
    return Region(body)


def generic_body() -> Region:
    body = Block(arg_types=[f64, f64])
    body.add_op(linalg.YieldOp(body.args[0]))
    return Region(body)


ID = AffineMap.identity(2)
ROW = AffineMap.from_callable(lambda i, j: (i, 0))
CONST0 = AffineMapAttr(AffineMap.constant_map(0))
CONST3 = AffineMapAttr(AffineMap.constant_map(3))
SYMBOL = AffineMapAttr(AffineMap(0, 1, (AffineExpr.symbol(0),)))

PAIRS = {
    "llvm.mlir.constant": (lambda: b.llvm_constant(3, i64), lambda: llvm.ConstantOp(IntegerAttr(3, i64), i64)),
    "llvm.getelementptr": (
        lambda: b.llvm_gep(P, X, f64),
        lambda: llvm.GEPOp.from_mixed_indices(P, [X], f64, inbounds=True),
    ),
    "llvm.extractvalue": (
        lambda: b.llvm_extractvalue(S, [1], i64),
        lambda: llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), S, i64),
    ),
    "llvm.insertvalue": (
        lambda: b.llvm_insertvalue(S, X, [1]),
        lambda: llvm.InsertValueOp(DenseArrayBase.from_list(i64, [1]), S, X),
    ),
    "llvm.add": (lambda: b.llvm_binary(llvm.AddOp, X, Y), lambda: llvm.AddOp(X, Y)),
    "llvm.add nsw": (
        lambda: b.llvm_binary(llvm.AddOp, X, Y, IntegerAttr(1, i32)),
        lambda: llvm.AddOp(X, Y, overflow=llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP])),
    ),
    "llvm.mul": (lambda: b.llvm_binary(llvm.MulOp, X, Y), lambda: llvm.MulOp(X, Y)),
    "llvm.sdiv": (lambda: b.llvm_binary(llvm.SDivOp, X, Y), lambda: llvm.SDivOp(X, Y)),
    "llvm.and": (lambda: b.llvm_binary(llvm.AndOp, X, Y), lambda: llvm.AndOp(X, Y)),
    "llvm.fadd": (lambda: b.llvm_float_binary(llvm.FAddOp, F, F), lambda: llvm.FAddOp(F, F)),
    "llvm.fmul fast": (
        lambda: b.llvm_float_binary(llvm.FMulOp, F, F, llvm.FastMathAttr("fast")),
        lambda: llvm.FMulOp(F, F, llvm.FastMathAttr("fast")),
    ),
    "llvm.icmp": (lambda: b.llvm_icmp("slt", X, Y), lambda: llvm.ICmpOp(X, Y, IntegerAttr(2, i64))),
    "llvm.icmp by number": (lambda: b.llvm_icmp(2, X, Y), lambda: llvm.ICmpOp(X, Y, IntegerAttr(2, i64))),
    "llvm.icmp vector": (lambda: b.llvm_icmp("eq", V, V), lambda: llvm.ICmpOp(V, V, IntegerAttr(0, i64))),
    "llvm.load": (lambda: b.llvm_load(P, f64), lambda: llvm.LoadOp(P, f64)),
    "llvm.load aligned": (lambda: b.llvm_load(P, f64, 8), lambda: llvm.LoadOp(P, f64, alignment=8)),
    "llvm.store": (lambda: b.llvm_store(F, P), lambda: llvm.StoreOp(F, P)),
    "llvm.store aligned": (lambda: b.llvm_store(F, P, 8), lambda: llvm.StoreOp(F, P, alignment=8)),
    "llvm.call": (
        lambda: b.llvm_call("f", [X, P], llvm.LLVMPointerType()),
        lambda: llvm.CallOp("f", X, P, return_type=llvm.LLVMPointerType()),
    ),
    "llvm.call void": (lambda: b.llvm_call("g", []), lambda: llvm.CallOp("g")),
    "llvm.br": (lambda: b.llvm_br(TARGET, [X]), lambda: llvm.BrOp(TARGET, X)),
    "llvm.cond_br": (
        lambda: b.llvm_cond_br(C, TARGET, [X], OTHER, []),
        lambda: llvm.CondBrOp(C, TARGET, [X], OTHER, []),
    ),
    "llvm.mlir.undef": (lambda: b.llvm_undef(i64), lambda: llvm.UndefOp(i64)),
    "cast": (lambda: b.conversion_cast(X, IndexType()), lambda: UnrealizedConversionCastOp.cast_one(X, IndexType())[0]),
    "arith.constant": (
        lambda: b.arith_constant(IntegerAttr(3, IndexType()), IndexType()),
        lambda: arith.ConstantOp(IntegerAttr(3, IndexType())),
    ),
    "arith.addi": (lambda: b.arith_binary(arith.AddiOp, I, J), lambda: arith.AddiOp(I, J)),
    "arith.muli": (lambda: b.arith_binary(arith.MuliOp, I, J), lambda: arith.MuliOp(I, J)),
    "arith.remsi": (lambda: b.arith_binary(arith.RemSIOp, I, J), lambda: arith.RemSIOp(I, J)),
    "arith.floordivsi": (lambda: b.arith_binary(arith.FloorDivSIOp, I, J), lambda: arith.FloorDivSIOp(I, J)),
    "scf.for": (lambda: b.scf_for(I, J, I, [F], loop_body()), lambda: scf.ForOp(I, J, I, [F], loop_body())),
    "affine.for": (
        lambda: b.affine_for(CONST0, CONST3, [], [], affine_body()),
        lambda: affine.ForOp.from_region([], [], [], [], CONST0, CONST3, affine_body()),
    ),
    "affine.for ?": (
        lambda: b.affine_for(CONST0, SYMBOL, [], [I], affine_body()),
        lambda: affine.ForOp.from_region([], [I], [], [], CONST0, SYMBOL, affine_body()),
    ),
    "affine.yield": (b.affine_yield, affine.YieldOp.get),
    "affine.load": (lambda: b.affine_load(M, [I, J]), lambda: affine.LoadOp(M, [I, J])),
    "affine.store": (lambda: b.affine_store(F, M, [I, J]), lambda: affine.StoreOp(F, M, [I, J])),
    "scf.yield": (lambda: b.scf_yield([F]), lambda: scf.YieldOp(F)),
    "arith.cmpi": (lambda: b.arith_cmpi("slt", I, J), lambda: arith.CmpiOp(I, J, "slt")),
    "cf.br": (lambda: b.cf_br(TARGET, [X]), lambda: cf.BranchOp(TARGET, X)),
    "cf.cond_br": (
        lambda: b.cf_cond_br(C, TARGET, [X], OTHER, []),
        lambda: cf.ConditionalBranchOp(C, TARGET, [X], OTHER, []),
    ),
    "memref.alloc": (
        lambda: b.memref_alloc([], MemRefType(f64, [2, 3])),
        lambda: memref.AllocOp([], [], MemRefType(f64, [2, 3])),
    ),
    "memref.alloc ?": (
        lambda: b.memref_alloc([I], MemRefType(f64, [-1, 3])),
        lambda: memref.AllocOp([I], [], MemRefType(f64, [-1, 3])),
    ),
    "memref.dealloc": (lambda: b.memref_dealloc(M), lambda: memref.DeallocOp.get(M)),
    "memref.load": (lambda: b.memref_load(M, [I, J]), lambda: memref.LoadOp.get(M, [I, J])),
    "memref.store": (lambda: b.memref_store(F, M, [I, J]), lambda: memref.StoreOp.get(F, M, [I, J])),
    "linalg.generic": (
        lambda: b.linalg_generic([M], [M], generic_body(), [ROW, ID], b.iterator_types((True, False))),
        lambda: linalg.GenericOp(
            [M],
            [M],
            generic_body(),
            [AffineMapAttr(ROW), AffineMapAttr(ID)],
            [IteratorTypeAttr.parallel(), IteratorTypeAttr.reduction()],
        ),
    ),
    "linalg.yield": (lambda: b.linalg_yield([F]), lambda: linalg.YieldOp(F)),
}


@pytest.mark.parametrize("name", PAIRS)
def test_builder_makes_what_the_constructor_makes(name):
    built, constructed = (make() for make in PAIRS[name])
    assert type(built) is type(constructed)
    assert list(built.operands) == list(constructed.operands)
    assert list(built.result_types) == list(constructed.result_types)
    assert [r.name_hint for r in built.results] == [r.name_hint for r in constructed.results]
    assert built.properties == constructed.properties
    assert built.attributes == constructed.attributes
    assert list(built.successors) == list(constructed.successors)
    if isinstance(built, llvm.CallOp):  # a call is checked against its callee's declaration
        ptr = llvm.LLVMPointerType()
        ModuleOp(
            [
                llvm.FuncOp("f", llvm.LLVMFunctionType([i64, ptr], ptr)),
                llvm.FuncOp("g", llvm.LLVMFunctionType([])),
                built,
            ]
        )
    # The op's definition (its operands, results, properties, traits) accepts it.
    type(built).get_irdl_definition().verify(built)
