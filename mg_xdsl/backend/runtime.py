"""The run-time library that compiled programs call, for the in-process JIT.

Compiled code prints with ``printMemrefF64(i64 rank, ptr descriptor)``, the entry point of
MLIR's runner library (``libmlir_runner_utils``), so the same IR also runs under upstream
``mlir-runner``. Here it is provided in Python, so that ``mgc run`` needs neither a C
compiler nor an MLIR installation: the JIT resolves the symbol to a ctypes callback.

The text is exactly what upstream prints (``printMemrefF64``/``printMemref`` in
``mlir/lib/ExecutionEngine/RunnerUtils``), including its trailing spaces.
"""

import contextlib
import ctypes
import io
import math
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO


def format_element(x: float) -> str:
    """A double as C++ ``std::ostream`` prints it by default: ``%g`` with 6 significant
    digits. Every NaN prints as ``nan``: the sign of a NaN depends on whether LLVM folded the
    operation at compile time or the processor computed it (x86 makes ``-nan``), and IEEE 754
    gives it no meaning, so printing it would make output depend on the optimiser."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%g" % x


def format_data(
    data: Sequence[float], offset: int, sizes: Sequence[int], strides: Sequence[int]
) -> str:
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


def format_memref(
    address: int, data: Sequence[float], offset: int, sizes: Sequence[int], strides: Sequence[int]
) -> str:
    """The whole ``printMemrefF64`` text of one memref, ending in a newline."""
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
    return aligned, offset, list(words[3:3 + rank]), list(words[3 + rank:3 + 2 * rank])


def print_memref_f64(rank: int, descriptor: int, stream: TextIO | None = None) -> None:
    aligned, offset, sizes, strides = read_descriptor(rank, descriptor)
    extent = offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1 if all(sizes) else 0
    data = (ctypes.c_double * max(extent, 1)).from_address(aligned) if aligned else []
    stream = stream or _output[-1] or sys.stdout
    stream.write(format_memref(aligned, data, offset, sizes, strides))
    # Native code may abort right after (a failed run-time check): nothing may stay buffered.
    stream.flush()


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


PRINT_MEMREF_F64 = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)


def _print_callback(rank: int, descriptor: int | None) -> None:
    print_memref_f64(rank, descriptor or 0)


# Kept at module level so the callback outlives every JIT that points at it.
_CALLBACKS = {"printMemrefF64": PRINT_MEMREF_F64(_print_callback)}


def symbols() -> dict[str, int]:
    """Run-time symbols the JIT must resolve, name -> address."""
    return {name: ctypes.cast(cb, ctypes.c_void_p).value or 0 for name, cb in _CALLBACKS.items()}
