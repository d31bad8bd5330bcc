"""``lower-assert-to-stderr``: ``cf.assert`` -> a branch to a block that reports and stops.

::

    %ok = arith.cmpi eq, %a, %b : index
    cf.assert %ok, "mg.add: operand shapes differ at runtime in dimension 0" loc("prog.mg":3:35)

becomes

::

    %ok = arith.cmpi eq, %a, %b : index
    cf.cond_br %ok, ^continue, ^failed
  ^failed:
    %msg = llvm.mlir.addressof @mgrt_message_0 : !llvm.ptr
    %path = llvm.mlir.addressof @mgrt_path_0 : !llvm.ptr
    %line = arith.constant 3 : i64
    %sa = arith.index_cast %a : index to i64
    %sb = arith.index_cast %b : index to i64
    func.call @mgrt_check_failed(%msg, %path, %line, %sa, %sb)
        : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
    llvm.unreachable
  ^continue:
    ...

with one private constant string per distinct message and per distinct source file. The
failing program then reports the message and the source line of the failed check, with the
two sizes::

    mg.add: operand shapes differ at runtime in dimension 0
      at prog.mg:3: sizes 2 and 1

The sizes are passed only where the condition is an ``arith.cmpi eq`` of two ``index``
values (the shape checks of ``lower-mg-to-affine``); otherwise both are -1 and the report
has no sizes. A range check, an ``arith.cmpi ult`` of two ``index`` values (a position and
the size it must be below) whose message is a ``printf`` format (it has ``%``), calls
``mgrt_range_check_failed`` instead with the position and the size: the format takes them
and the last position, so the report says which id was out of range::

    cf.assert %inside, "mg.index: id %ld is out of range for %ld rows (0 to %ld)"

fails with ``mg.index: id 7 is out of range for 5 rows (0 to 4)``. Where the assert has no
file location, the path is a null pointer (``llvm.mlir.zero``) and the report has no ``at``
part.

``mgrt_check_failed`` (``mg_xdsl/backend/runtime_ir.py``) writes the report on stderr and
aborts, or, when the Python API called the compiled function, returns control to Python,
which raises an exception carrying the same text and its parts. Upstream's
``convert-cf-to-llvm`` would lower ``cf.assert`` with ``puts``, which writes on stdout; mg
programs report run-time errors on stderr, leaving stdout to what they print, hence this
pass (the Mountain Goat book's ``mg-lower-assert-to-stderr``).
"""

from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, scf
from xdsl.dialects.builtin import FileLineColLoc, IndexType, ModuleOp, StringAttr, i8, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

CHECK_FAILED = "mgrt_check_failed"
RANGE_CHECK_FAILED = "mgrt_range_check_failed"  # (format, path or null, line, position, size)
PTR = llvm.LLVMPointerType()
# mgrt_check_failed(message, path or null, line, size_a, size_b)
CHECK_FAILED_INPUTS = (PTR, PTR, i64, i64, i64)


EQ, ULT = 0, 6  # arith.cmpi's predicates


def compared(condition: SSAValue, predicate: int) -> tuple[SSAValue, SSAValue] | None:
    """The two index values that ``condition`` compares with ``predicate``, if it is such a
    comparison: sizes whose equality it is (``EQ``), or a position and the size it must be
    below (``ULT``)."""
    cmp = condition.owner
    if (
        isinstance(cmp, arith.CmpiOp)
        and cmp.predicate.value.data == predicate
        and isinstance(cmp.lhs.type, IndexType)
        and isinstance(cmp.rhs.type, IndexType)
    ):
        return cmp.lhs, cmp.rhs
    return None


@dataclass
class AssertLowering(RewritePattern):
    module: ModuleOp
    strings: dict[tuple[str, str], str] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)  # the run-time functions the reports call

    def string_global(self, kind: str, text: str) -> str:
        """One private constant, NUL-terminated string per distinct text of each kind
        (``mgrt_message_N``, ``mgrt_path_N``)."""
        if (kind, text) not in self.strings:
            name = f"mgrt_{kind}_{sum(k == kind for k, _ in self.strings)}"
            self.strings[(kind, text)] = name
            data = text.encode() + b"\0"
            Rewriter.insert_op(
                llvm.GlobalOp(
                    llvm.LLVMArrayType(len(data), i8),
                    name,
                    "private",
                    constant=True,
                    value=StringAttr(text + "\0"),
                ),
                InsertPoint.at_start(self.module.body.block),
            )
        return self.strings[(kind, text)]

    def report(self, b: Builder, op: cf.AssertOp) -> None:
        """The call of ``mgrt_check_failed`` that reports ``op``'s failure, built by ``b``."""

        def i64_constant(value: int) -> SSAValue:
            return b.insert(arith.ConstantOp.from_int_and_width(value, i64)).result

        message = b.insert(llvm.AddressOfOp(self.string_global("message", op.msg.data), PTR)).result
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            path = b.insert(llvm.AddressOfOp(self.string_global("path", loc.filename.data), PTR)).result
            line = i64_constant(loc.line.data)
        else:
            path = b.insert(llvm.ZeroOp(result_types=[PTR])).res
            line = i64_constant(0)
        callee, sizes = CHECK_FAILED, compared(op.arg, EQ)
        if "%" in op.msg.data:
            callee, sizes = RANGE_CHECK_FAILED, compared(op.arg, ULT)
            assert sizes is not None, f"a message with a format must be a range check's: {op.msg.data}"
        if sizes is None:
            size_a = size_b = i64_constant(-1)
        else:
            size_a, size_b = (b.insert(arith.IndexCastOp(s, i64)).result for s in sizes)
        b.insert(func.CallOp(callee, [message, path, line, size_a, size_b], []))
        self.called.add(callee)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.AssertOp, rewriter: PatternRewriter) -> None:
        block = op.parent_block()
        assert block is not None and block.parent is not None
        failed = Block()
        b = Builder(InsertPoint.at_end(failed))
        self.report(b, op)
        if not isinstance(block.parent.parent_op(), func.FuncOp):
            # In a loop's body (a check inside the loops, when the affine-level IR goes to
            # upstream's passes), which keeps one block: the report in an scf.if.
            b.insert(scf.YieldOp())
            checked = scf.IfOp(op.arg, [], Region(Block([scf.YieldOp()])), Region(failed))
            rewriter.insert(checked, InsertPoint.before(op))
        else:
            rest = block.split_before(op)
            block.parent.insert_block_before(failed, rest)
            b.insert(llvm.UnreachableOp())
            checked = cf.ConditionalBranchOp(op.arg, rest, [], failed, [])
            Builder(InsertPoint.at_end(block)).insert(checked)
        for new in [*checked.walk(), *failed.ops]:
            new.location = op.location
        rewriter.erase(op)


class LowerAssertToStderrPass(ModulePass):
    name = "lower-assert-to-stderr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = AssertLowering(op)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
        for callee in sorted(pattern.called):
            op.body.block.add_op(func.FuncOp(callee, (CHECK_FAILED_INPUTS, ()), Region(), visibility="private"))
