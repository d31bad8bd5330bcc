"""``convert-func-to-llvm``: func ops become LLVM-dialect ops with upstream MLIR's calling convention.

- ``func.func`` -> ``llvm.func``. Each memref argument is expanded into the scalar fields of its
  descriptor (ranked: allocated ptr, aligned ptr, offset, sizes..., strides...; unranked: rank,
  ptr), repacked into the descriptor struct at the top of the entry block; ``index`` becomes
  ``i64``. No result gives ``void``, one result is returned in its converted type (a memref as
  its descriptor struct), several as a struct of them. A declaration (``func.func private @f``)
  becomes an ``llvm.func`` declaration of the expanded signature.
- ``func.call`` -> ``llvm.call`` with the same expansion, unpacking results packed in a struct.
- ``func.return`` -> ``llvm.return``, packing several results into a struct.
- A function with the unit attribute ``llvm.emit_c_interface`` also gets upstream's
  ``_mlir_ciface_NAME``: each memref is passed as a pointer to its descriptor, and a struct
  result (a memref, or several results) is returned through a pointer passed first. For a
  definition the wrapper loads the descriptors and calls ``NAME``; for a declaration it is the
  other way round: ``NAME`` gets a body that stores the descriptors on the stack and calls the
  external ``_mlir_ciface_NAME``.

Blocks other than the entry block keep their argument types: ``convert-cf-to-llvm`` converts
them together with the branches that feed them.
A signature, call or return using a type with no LLVM form here (a memref in a memory space or
with a non-strided layout, a float type LLVM lacks) is declined before anything changes, with a
``PassFailedException`` naming the op, the type and the reason.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder, BuilderListener
from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions.to_llvm.type_conversion import (
    PTR,
    Conversion,
    alloca,
    apply_conversions,
    build_struct,
    check_convertible,
    constant,
    convert_type,
    expanded_types,
    extract,
    from_llvm,
    is_memref,
    pack_value,
    replace_with_llvm,
    to_llvm,
    unpack_value,
)
from mg_xdsl.support.op_builders import llvm_call

C_INTERFACE = "llvm.emit_c_interface"
C_INTERFACE_PREFIX = "_mlir_ciface_"


def _result_type(results: Sequence[Attribute]) -> Attribute:
    if not results:
        return llvm.LLVMVoidType()
    if len(results) == 1:
        return convert_type(results[0])
    return llvm.LLVMStructType.from_type_list([convert_type(t) for t in results])


def llvm_function_type(t: FunctionType) -> llvm.LLVMFunctionType:
    inputs = [e for arg in t.inputs.data for e in expanded_types(arg)]
    return llvm.LLVMFunctionType(inputs, _result_type(t.outputs.data))


def c_interface_type(t: FunctionType) -> tuple[llvm.LLVMFunctionType, bool]:
    """The ``_mlir_ciface_`` signature, and whether the result goes through a first pointer."""
    result = _result_type(t.outputs.data)
    inputs = [PTR if is_memref(arg) else convert_type(arg) for arg in t.inputs.data]
    if isinstance(result, llvm.LLVMStructType):
        return llvm.LLVMFunctionType([PTR, *inputs]), True
    return llvm.LLVMFunctionType(inputs, result), False


def _unpack_all(b: Builder, values: Sequence[SSAValue], types: Sequence[Attribute]) -> list[SSAValue]:
    return [f for v, t in zip(values, types) for f in unpack_value(b, v, t)]


def _pack_all(b: Builder, fields: Sequence[SSAValue], types: Sequence[Attribute]) -> list[SSAValue]:
    """Values of ``types`` (converted) rebuilt from their calling-convention fields, in order."""
    values: list[SSAValue] = []
    rest = list(fields)
    for t in types:
        n = len(expanded_types(t))
        values.append(pack_value(b, rest[:n], t))
        rest = rest[n:]
    return values


def _new_function(op: func.FuncOp, name: str, type: llvm.LLVMFunctionType, linkage: str, body: Region) -> llvm.FuncOp:
    # Discardable attributes (llvm.emit_c_interface among them) carry over, as upstream.
    return llvm.FuncOp(
        name,
        type,
        linkage=llvm.LinkageAttr(linkage),
        sym_visibility=op.sym_visibility,
        body=body,
        extra_attrs=dict(op.attributes),
    )


def convert_entry_block(region: Region, t: FunctionType, listener: BuilderListener | None = None) -> None:
    """Give the entry block the expanded signature, repacking memrefs for the body.
    ``listener`` (a pass's rewriter) is told of the ops this inserts."""
    old = region.blocks[0]
    new = Block(arg_types=llvm_function_type(t).inputs.data)
    region.insert_block_before(new, old)
    fields = iter(new.args)
    for arg in old.args:
        group = [next(fields) for _ in expanded_types(arg.type)]
        if len(group) == 1:
            group[0].name_hint = arg.name_hint
    b = Builder(InsertPoint.at_end(new))
    if listener is not None:
        b.extend_from_listener(listener)
    packed = _pack_all(b, new.args, t.inputs.data)
    originals = [from_llvm(b, v, arg.type) for v, arg in zip(packed, old.args)]
    for arg, value in zip(old.args, originals):
        if value.name_hint is None:
            value.name_hint = arg.name_hint
    Rewriter.inline_block(old, InsertPoint.at_end(new), originals)


def _c_wrapper_of_definition(op: func.FuncOp) -> llvm.FuncOp:
    """``_mlir_ciface_NAME``: load the descriptors its pointers point to, call ``NAME``."""
    t = op.function_type
    type, result_by_pointer = c_interface_type(t)
    block = Block(arg_types=type.inputs.data)
    b = Builder(InsertPoint.at_end(block))
    args = list(block.args[1:] if result_by_pointer else block.args)
    values = [
        b.insert(llvm.LoadOp(arg, convert_type(arg_t))).dereferenced_value if is_memref(arg_t) else arg
        for arg, arg_t in zip(args, t.inputs.data)
    ]
    result_type = _result_type(t.outputs.data)
    call = b.insert(
        llvm.CallOp(
            op.sym_name.data,
            *_unpack_all(b, values, t.inputs.data),
            return_type=None if isinstance(result_type, llvm.LLVMVoidType) else result_type,
        )
    )
    if result_by_pointer:
        assert call.returned is not None
        b.insert(llvm.StoreOp(call.returned, block.args[0]))
        b.insert(llvm.ReturnOp())
    else:
        b.insert(llvm.ReturnOp(call.returned))
    return _new_function(op, C_INTERFACE_PREFIX + op.sym_name.data, type, "external", Region(block))


def _c_thunk_of_declaration(op: func.FuncOp) -> llvm.FuncOp:
    """``NAME`` for an external C function: put the descriptors on the stack, call the C one."""
    t = op.function_type
    type = llvm_function_type(t)
    c_type, result_by_pointer = c_interface_type(t)
    block = Block(arg_types=type.inputs.data)
    b = Builder(InsertPoint.at_end(block))
    one = constant(b, 1)
    result_type = _result_type(t.outputs.data)
    result_ptr = alloca(b, result_type, one) if result_by_pointer else None
    c_args: list[SSAValue] = [result_ptr] if result_ptr is not None else []
    for value, arg_t in zip(_pack_all(b, block.args, t.inputs.data), t.inputs.data):
        if is_memref(arg_t):
            slot = alloca(b, value.type, one)
            b.insert(llvm.StoreOp(value, slot))
            value = slot
        c_args.append(value)
    call = b.insert(
        llvm.CallOp(
            C_INTERFACE_PREFIX + op.sym_name.data,
            *c_args,
            return_type=c_type.output if not isinstance(c_type.output, llvm.LLVMVoidType) else None,
        )
    )
    if result_ptr is not None:
        result = b.insert(llvm.LoadOp(result_ptr, result_type)).dereferenced_value
        b.insert(llvm.ReturnOp(result))
    else:
        b.insert(llvm.ReturnOp(call.returned))
    # Upstream makes the thunk private: it is a local adaptor, not an exported symbol.
    return _new_function(op, op.sym_name.data, type, "private", Region(block))


class FuncOpLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter):
        t = op.function_type
        name = op.sym_name.data
        c_interface = C_INTERFACE in op.attributes
        if op.is_declaration:
            if c_interface:
                c_type, _ = c_interface_type(t)
                declaration = _new_function(op, C_INTERFACE_PREFIX + name, c_type, "external", Region())
                rewriter.replace(op, [_c_thunk_of_declaration(op), declaration], [])
            else:
                declaration = _new_function(op, name, llvm_function_type(t), "external", Region())
                rewriter.replace(op, [declaration], [])
            return
        body = rewriter.move_region_contents_to_new_regions(op.body)
        convert_entry_block(body, t, rewriter)
        new_ops = [_new_function(op, name, llvm_function_type(t), "external", body)]
        if c_interface:
            new_ops.append(_c_wrapper_of_definition(op))
        rewriter.replace(op, new_ops, [])


class CallOpLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter):
        converted = [to_llvm(rewriter, v) for v in op.arguments]
        args = _unpack_all(rewriter, converted, op.arguments.types)
        result_type = _result_type(op.res.types)
        call = rewriter.insert(
            llvm_call(op.callee, args, None if isinstance(result_type, llvm.LLVMVoidType) else result_type)
        )
        if len(op.res) <= 1:
            results = [call.returned] if call.returned is not None else []
        else:
            assert call.returned is not None
            results = [extract(rewriter, call.returned, [i], convert_type(t)) for i, t in enumerate(op.res.types)]
        replace_with_llvm(rewriter, op, results)


class ReturnOpLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter):
        values = [to_llvm(rewriter, v) for v in op.arguments]
        if len(values) > 1:
            values = [build_struct(rewriter, _result_type(op.arguments.types), values)]
        rewriter.replace(op, llvm.ReturnOp(values[0] if values else None))


class FuncConversion(Conversion):
    name = "convert-func-to-llvm"

    def converts(self, op: Operation) -> bool:
        return isinstance(op, func.FuncOp | func.CallOp | func.ReturnOp)

    def check(self, op: Operation) -> None:
        if isinstance(op, func.FuncOp):
            signature = op.function_type
            check_convertible(self.name, op, [*signature.inputs, *signature.outputs])
        else:
            check_convertible(self.name, op)

    def patterns(self) -> list[RewritePattern]:
        return [FuncOpLowering(), CallOpLowering(), ReturnOpLowering()]


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    name = "convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(op, [FuncConversion()])
