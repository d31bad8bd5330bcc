"""``convert-cf-to-llvm``: unstructured control flow becomes LLVM-dialect branches, as upstream.

- ``cf.br`` -> ``llvm.br`` and ``cf.cond_br`` -> ``llvm.cond_br``, their operands in converted
  types;
- the blocks they branch to get converted argument types (``index`` -> ``i64``, memref ->
  descriptor struct), with a cast back at the top of the block for users not converted yet.
  Entry blocks are left to ``convert-func-to-llvm``: nothing branches to them.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from mg_xdsl.transforms.llvm_type_conversion import (
    convert_type,
    erase_dead_casts,
    to_llvm,
)


def convert_block_signature(rewriter: PatternRewriter, block: Block) -> None:
    """Give ``block`` converted argument types; done once, by whichever branch comes first."""
    for arg in block.args:
        original = arg.type
        converted = convert_type(original)
        if converted == original:
            continue
        new_arg = rewriter.replace_value_with_new_type(arg, converted)
        cast, back = UnrealizedConversionCastOp.cast_one(new_arg, original)
        rewriter.insert(cast, InsertPoint.at_start(block))
        rewriter.replace_uses_with_if(new_arg, back, lambda use: use.operation is not cast)


def _successor_operands(
    rewriter: PatternRewriter, block: Block, operands: Sequence[SSAValue]
) -> list[SSAValue]:
    convert_block_signature(rewriter, block)
    return [to_llvm(rewriter, v) for v in operands]


class BranchLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter):
        args = _successor_operands(rewriter, op.successor, op.arguments)
        rewriter.replace(op, llvm.BrOp(op.successor, *args))


class CondBranchLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter):
        then_args = _successor_operands(rewriter, op.then_block, op.then_arguments)
        else_args = _successor_operands(rewriter, op.else_block, op.else_arguments)
        rewriter.replace(
            op,
            llvm.CondBrOp(op.cond, op.then_block, then_args, op.else_block, else_args),
        )


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [BranchLowering(), CondBranchLowering()], dce_enabled=False
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        erase_dead_casts(op)
