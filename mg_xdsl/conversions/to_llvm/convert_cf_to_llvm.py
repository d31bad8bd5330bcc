"""``convert-cf-to-llvm``: unstructured control flow becomes LLVM-dialect branches, as upstream.

- ``cf.br`` -> ``llvm.br`` and ``cf.cond_br`` -> ``llvm.cond_br``, their operands in converted
  types;
- the blocks they branch to get converted argument types (``index`` -> ``i64``, memref ->
  descriptor struct), with a cast back at the top of the block for users not converted yet.
  Entry blocks are left to ``convert-func-to-llvm``: nothing branches to them.

Before and after, for a loop that carries an ``index``::

    ^head(%i: index):                         ^head(%i64: i64):
      %c = arith.cmpi slt, %i, %n : index       %i = builtin.unrealized_conversion_cast %i64 : i64 to index
      cf.cond_br %c, ^body, ^exit               %c = arith.cmpi slt, %i, %n : index
    ^body:                                      llvm.cond_br %c, ^body, ^exit
      %next = arith.addi %i, %one : index     ^body:
      cf.br ^head(%next : index)                %next = arith.addi %i, %one : index
                                                %n64 = builtin.unrealized_conversion_cast %next : index to i64
                                                llvm.br ^head(%n64 : i64)

The pass works in two phases. First every block that a ``cf`` branch targets gets its new
signature; only then are the branches rewritten. Doing both at once goes wrong when a branch
passes a block argument that the signature change replaces (a block that branches to itself
with its own argument, ``cf.br ^bb1(%arg0 : index)`` inside ``^bb1(%arg0: index)``): operands
read before the change still name the old, erased argument.

A block that some other terminator also branches to (``cf.switch``, which xDSL's LLVM dialect
cannot express) keeps its signature, and the branches to it pass their operands unconverted, so
the result stays valid IR.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions.to_llvm.type_conversion import Conversion, apply_conversions, convert_type, to_llvm
from mg_xdsl.support.op_builders import conversion_cast, llvm_br, llvm_cond_br

_CONVERTED_BRANCHES = (cf.BranchOp, cf.ConditionalBranchOp)


def _only_converted_branches_reach(block: Block) -> bool:
    return all(isinstance(use.operation, _CONVERTED_BRANCHES) for use in block.uses)


def convert_block_signature(block: Block) -> list[Operation]:
    """Give ``block`` converted argument types, cast back for its users at its top; returns
    the casts."""
    casts: list[Operation] = []
    for arg in block.args:
        original = arg.type
        converted = convert_type(original)
        if converted == original:
            continue
        new_arg = Rewriter.replace_value_with_new_type(arg, converted)
        cast = conversion_cast(new_arg, original)
        back = cast.results[0]
        Rewriter.insert_op(cast, InsertPoint.at_start(block))
        new_arg.replace_uses_with_if(back, lambda use: use.operation is not cast)
        casts.append(cast)
    return casts


def convert_branch_targets(branches: Sequence[Operation]) -> tuple[set[Block], list[Operation]]:
    """Phase one: the new signatures of every block the ``cf`` ``branches`` target, each once.

    Returns the blocks whose signature changed to converted types (all but those that some
    other terminator also reaches), and the casts back made for the blocks' ops.
    """
    targets: dict[Block, None] = {}  # a dict keeps the order deterministic
    for op in branches:
        targets.update(dict.fromkeys(op.successors))
    converted = {block for block in targets if _only_converted_branches_reach(block)}
    casts = [cast for block in targets if block in converted for cast in convert_block_signature(block)]
    return converted, casts


@dataclass
class _BranchPattern(RewritePattern):
    converted_blocks: set[Block]
    """Decided before any branch is rewritten: the rewrite changes who reaches a block."""

    def successor_operands(
        self, rewriter: PatternRewriter, block: Block, operands: Sequence[SSAValue]
    ) -> list[SSAValue]:
        """``operands`` in the types ``block`` now takes (its signature is final already)."""
        if block not in self.converted_blocks:
            return list(operands)
        return [to_llvm(rewriter, v) for v in operands]


def keep_attributes(branch: Operation, lowered: Operation) -> Operation:
    """``lowered`` with ``branch``'s attributes, as upstream's lowering keeps them: a loop's
    hints to LLVM (``#llvm.loop_annotation``) travel on its branch back."""
    lowered.attributes.update(branch.attributes)
    return lowered


class BranchLowering(_BranchPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter):
        args = self.successor_operands(rewriter, op.successor, op.arguments)
        rewriter.replace(op, keep_attributes(op, llvm_br(op.successor, args)))


class CondBranchLowering(_BranchPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter):
        then_args = self.successor_operands(rewriter, op.then_block, op.then_arguments)
        else_args = self.successor_operands(rewriter, op.else_block, op.else_arguments)
        rewriter.replace(
            op,
            keep_attributes(op, llvm_cond_br(op.cond, op.then_block, then_args, op.else_block, else_args)),
        )


class CfConversion(Conversion):
    name = "convert-cf-to-llvm"

    def __init__(self) -> None:
        self.converted_blocks: set[Block] = set()

    def converts(self, op: Operation) -> bool:
        return isinstance(op, _CONVERTED_BRANCHES)

    def prepare(self, ops: Sequence[Operation]) -> list[Operation]:
        self.converted_blocks, casts = convert_branch_targets(ops)
        return casts

    def patterns(self) -> list[RewritePattern]:
        return [BranchLowering(self.converted_blocks), CondBranchLowering(self.converted_blocks)]


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(op, [CfConversion()])
