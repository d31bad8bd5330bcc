"""``memref.prefetch``: upstream MLIR's op, which xDSL 0.75's memref dialect lacks.

    memref.prefetch %c[%i, %j], write, locality<3>, data : memref<?x?xf64>

asks the CPU to bring the cache line of ``%c[%i, %j]`` close (locality 0: not at all ... 3:
into every level), for a read or a write, into the data (or instruction) cache. It has no
effect on the program's results: a prefetch of any address is a hint, never a fault.
``tile-matmul`` prefetches each block of C that a micro-kernel is about to update, and
``finalize-memref-to-llvm`` lowers it to the ``llvm.prefetch`` intrinsic, as upstream does.

The op is loaded into a context with ``Context.load_op`` (``pipeline.context`` and
``mg-opt`` do), next to xDSL's memref dialect. It can go when xDSL's dialect has it.
"""

from xdsl.dialects.builtin import BoolAttr, IndexType, IntegerAttr, IntegerType, MemRefType, i32
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    name = "memref.prefetch"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    isWrite = prop_def(BoolAttr)
    localityHint = prop_def(IntegerAttr[IntegerType])
    isDataCache = prop_def(BoolAttr)

    def __init__(
        self, memref: SSAValue, indices: list[SSAValue], write: bool = False, locality: int = 3, data: bool = True
    ):
        super().__init__(
            operands=[memref, indices],
            properties={
                "isWrite": BoolAttr.from_bool(write),
                "localityHint": IntegerAttr(locality, i32),
                "isDataCache": BoolAttr.from_bool(data),
            },
        )

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(
                f"memref.prefetch needs one index per dimension of {t} ({t.get_num_dims()}), not {len(self.indices)}"
            )
        if not 0 <= self.localityHint.value.data <= 3:
            raise VerifyException(f"memref.prefetch's locality must be 0 to 3, not {self.localityHint.value.data}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("], ")
        printer.print_string("write" if self.isWrite.value.data else "read")
        printer.print_string(f", locality<{self.localityHint.value.data}>, ")
        printer.print_string("data" if self.isDataCache.value.data else "instr")
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)

    @classmethod
    def parse(cls, parser: Parser) -> "PrefetchOp":
        memref = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(",")
        write = parser.parse_optional_keyword("write") is not None
        if not write:
            parser.parse_keyword("read")
        parser.parse_punctuation(",")
        parser.parse_keyword("locality")
        parser.parse_punctuation("<")
        locality = parser.parse_integer()
        parser.parse_punctuation(">")
        parser.parse_punctuation(",")
        data = parser.parse_optional_keyword("data") is not None
        if not data:
            parser.parse_keyword("instr")
        parser.parse_punctuation(":")
        t = parser.parse_type()
        resolved = [parser.resolve_operand(memref, t), *(parser.resolve_operand(i, IndexType()) for i in indices)]
        return cls(resolved[0], resolved[1:], write, locality, data)
