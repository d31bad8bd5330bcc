"""The run-time library that compiled programs call, for the in-process JIT.

Compiled code prints with ``printMemrefF64(i64 rank, ptr descriptor)`` (and the printer
that each other element type's record names: ``mg_xdsl.core.element_records``), the entry
points of MLIR's runner library (``libmlir_runner_utils``), so the same IR also
runs under upstream ``mlir-runner``. Here they are provided in Python, so that ``mgc run``
needs neither a C compiler nor an MLIR installation: the JIT resolves each symbol to a
ctypes callback. (``runtime.c`` is their twin for executables.)

The text is exactly what upstream prints (``printMemref`` in
``mlir/lib/ExecutionEngine/RunnerUtils``), including its trailing spaces: floats as C++
prints a ``float`` or ``double``, integers as integers.
"""

import contextlib
import ctypes
import io
import math
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Protocol, TextIO

# (The records, not mg_xdsl.core.element_types: a run from the compile cache imports no xDSL.)
from mg_xdsl.core.element_records import ELEMENT_TYPES


class Elements(Protocol):
    """What a memref's elements are read from: a list, or a ctypes array over its buffer."""

    def __getitem__(self, index: int, /) -> float: ...


def format_element(x: float | int) -> str:
    """A number as C++ ``std::ostream`` prints it by default: an integer as it is; a
    ``double`` or ``float`` with ``%g``, 6 significant digits. Every NaN prints as ``nan``:
    the sign of a NaN depends on whether LLVM folded the operation at compile time or the
    processor computed it (x86 makes ``-nan``), and IEEE 754 gives it no meaning, so printing
    it would make output depend on the optimiser."""
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%g" % x


def format_data(data: Elements, offset: int, sizes: Sequence[int], strides: Sequence[int]) -> str:
    """The nested-bracket body of a memref, as upstream's ``MemRefDataPrinter``: elements of
    the innermost dimension are separated by a comma and ``rank + 1`` spaces, a row that is
    not the last ends with ``", "`` and a newline, and the next row is indented by its depth."""
    rank = len(sizes)
    if rank == 0:
        return "[" + format_element(data[offset]) + "]"
    if any(s == 0 for s in sizes):
        return "[]"  # upstream reads out of bounds here; say plainly that it is empty
    out: list[str] = []

    def walk(dim: int, off: int) -> None:
        if dim == rank:
            out.append(format_element(data[off]))
            return
        out.append("[")
        n = sizes[dim]
        for i in range(n):
            if i > 0:
                out.append(" " * (dim + 1))
            walk(dim + 1, off + i * strides[dim])
            if i < n - 1:
                out.append(", ")
                if dim + 1 < rank:
                    out.append("\n")
        out.append("]")

    walk(0, offset)
    return "".join(out)


def format_memref(address: int, data: Elements, offset: int, sizes: Sequence[int], strides: Sequence[int]) -> str:
    """The whole ``printMemref*`` text of one memref, ending in a newline."""
    header = (
        f"Unranked Memref base@ = {hex(address) if address else '0'} rank = {len(sizes)} "
        f"offset = {offset} sizes = [{', '.join(map(str, sizes))}] "
        f"strides = [{', '.join(map(str, strides))}] data = \n"
    )
    return header + format_data(data, offset, sizes, strides) + "\n"


def read_descriptor(rank: int, descriptor: int) -> tuple[int, int, list[int], list[int]]:
    """Fields of a ranked memref descriptor in memory: ``{allocated, aligned, offset,
    sizes[rank], strides[rank]}``; returns (aligned address, offset, sizes, strides)."""
    words = (ctypes.c_int64 * (3 + 2 * rank)).from_address(descriptor)
    aligned, offset = words[1], words[2]
    return aligned, offset, list(words[3 : 3 + rank]), list(words[3 + rank : 3 + 2 * rank])


# The printers' names (symbols of every compiled program, which a def may not take), each
# with the ctypes type that reads its elements.
PRINTED: dict[str, type[ctypes._SimpleCData]] = {
    e.printer: getattr(ctypes, e.ctype) for e in ELEMENT_TYPES if e.printer is not None
}
PRINTERS = tuple(PRINTED)


def print_memref(printer: str, rank: int, descriptor: int, stream: TextIO | None = None) -> None:
    """What ``printer`` (``printMemrefF64``, ...) prints for the memref at ``descriptor``."""
    aligned, offset, sizes, strides = read_descriptor(rank, descriptor)
    extent = offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1 if all(sizes) else 0
    data = (PRINTED[printer] * max(extent, 1)).from_address(aligned) if aligned else []
    out = stream or _output[-1] or sys.stdout
    try:
        out.write(format_memref(aligned, data, offset, sizes, strides))
        # Native code may abort right after (a failed run-time check): nothing may stay buffered.
        out.flush()
    except BrokenPipeError:
        # The reader has gone (``mgc run prog.mg | head -1``): the rest of the output goes
        # nowhere, quietly (an exception here, in a callback from native code, would print
        # a traceback for every print left).
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())


# Where printed memrefs go: the innermost ``capture()``, else the current sys.stdout.
_output: list[TextIO | None] = [None]


@contextlib.contextmanager
def capture() -> Iterator[io.StringIO]:
    """Collect what compiled code prints, e.g. to compare it with NumPy in a test."""
    buffer = io.StringIO()
    _output.append(buffer)
    try:
        yield buffer
    finally:
        _output.pop()


PRINT_MEMREF = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)


def _printer(printer: str):
    def print_or_abort(rank: int, descriptor: int | None) -> None:
        # ctypes would print an exception raised here and return to the compiled code, which
        # would go on as if the value had been printed (and exit 0): a descriptor the printer
        # cannot read is a compiler bug, and the program stops with it.
        try:
            print_memref(printer, rank, descriptor or 0)
        except Exception as e:
            os.write(
                2,
                f"mgc: internal error: {printer} was given a memref it cannot read "
                f"(rank {rank}: {type(e).__name__}: {e})\n".encode(),
            )
            os.abort()

    return PRINT_MEMREF(print_or_abort)


WRITE_OUTPUT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)


def write_output(text: str, stream: TextIO | None = None) -> None:
    """Write text that compiled code printed (a line of ``println``) where ``print_memref``
    writes, flushed as it is: the output of ``print`` and ``println`` comes out in program
    order, and ``capture()`` holds both."""
    out = stream or _output[-1] or sys.stdout
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:  # (as in print_memref)
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())


def _write_output(data: int | None, size: int) -> None:
    # ``mgrt_write_output(data, size)``, which the run-time library's println calls with each
    # whole line when the process provides it (the JIT); an executable's has none, and it
    # writes to C's stdout instead. An exception must not return to the compiled code.
    try:
        write_output(ctypes.string_at(data or 0, size).decode("utf-8", "replace"))
    except Exception as e:
        os.write(2, f"mgc: internal error: println could not write its line ({type(e).__name__}: {e})\n".encode())
        os.abort()


# Kept at module level so the callbacks outlive every JIT that points at them.
_CALLBACKS = {name: _printer(name) for name in PRINTERS}
_CALLBACKS["mgrt_write_output"] = WRITE_OUTPUT(_write_output)


def symbols() -> dict[str, int]:
    """Run-time symbols the JIT must resolve, name -> address."""
    return {name: ctypes.cast(cb, ctypes.c_void_p).value or 0 for name, cb in _CALLBACKS.items()}
