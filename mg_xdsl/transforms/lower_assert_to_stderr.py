"""``lower-assert-to-stderr``: ``cf.assert`` -> a branch to a block that reports and stops.

::

    cf.assert %ok, "mg.add: operand shapes differ at runtime in dimension 0"

becomes

::

    cf.cond_br %ok, ^continue, ^failed
  ^failed:
    %msg = llvm.mlir.addressof @mgrt_message_0 : !llvm.ptr
    func.call @mgrt_check_failed(%msg) : (!llvm.ptr) -> ()
    llvm.unreachable
  ^continue:
    ...

``mgrt_check_failed`` (``mg_xdsl/backend/runtime_ir.py``) writes the message and a newline
on stderr and aborts, or, when the Python API called the compiled function, returns control
to Python, which raises an exception with the message. Upstream's ``convert-cf-to-llvm``
would lower ``cf.assert`` with ``puts``, which writes on stdout; the chapter's programs
report run-time errors on stderr, hence this pass (the chapter's
``mg-lower-assert-to-stderr``).
"""

from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import cf, func, llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr, i8
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

CHECK_FAILED = "mgrt_check_failed"
PTR = llvm.LLVMPointerType()


@dataclass
class AssertLowering(RewritePattern):
    module: ModuleOp
    messages: dict[str, str] = field(default_factory=dict)

    def message_global(self, text: str) -> str:
        """One private constant, NUL-terminated string per distinct message."""
        if text not in self.messages:
            name = f"mgrt_message_{len(self.messages)}"
            self.messages[text] = name
            data = text.encode() + b"\0"
            self.module.body.block.insert_op_before(
                llvm.GlobalOp(
                    llvm.LLVMArrayType(len(data), i8),
                    name,
                    "private",
                    constant=True,
                    value=StringAttr(text + "\0"),
                ),
                self.module.body.block.first_op,
            )
        return self.messages[text]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.AssertOp, rewriter: PatternRewriter) -> None:
        block = op.parent_block()
        assert block is not None and block.parent is not None
        rest = block.split_before(op)
        failed = Block()
        block.parent.insert_block_before(failed, rest)
        b = Builder(InsertPoint.at_end(failed))
        message = b.insert(llvm.AddressOfOp(self.message_global(op.msg.data), PTR))
        b.insert(func.CallOp(CHECK_FAILED, [message.result], []))
        b.insert(llvm.UnreachableOp())
        Builder(InsertPoint.at_end(block)).insert(cf.ConditionalBranchOp(op.arg, rest, [], failed, []))
        rewriter.erase(op)


class LowerAssertToStderrPass(ModulePass):
    name = "lower-assert-to-stderr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = AssertLowering(op)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
        if pattern.messages:
            op.body.block.add_op(
                func.FuncOp(CHECK_FAILED, ((PTR,), ()), Region(), visibility="private")
            )
