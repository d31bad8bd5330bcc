"""Native code on disk: object files (llvmlite), executables and libraries (linked by the
system C compiler).

- ``object_code``: the program's LLVM IR with the run-time library of ``runtime_ir`` linked
  in, optimised and emitted as a position-independent object file;
- ``link_executable``: that object plus ``runtime.c`` (the ``printMemref*`` printers and ``main``,
  which gives the program its command line's ``NAME=VALUE`` arguments: ``runtime_arguments_ir``),
  linked by ``cc`` into a program that runs without Python;
- a library is the object alone (its defs and their ``_mlir_ciface_`` wrappers) with the
  C++ header of ``cpp_header``.
"""

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import llvmlite.binding as llvm

from mg_xdsl.backend import malloc_thresholds
from mg_xdsl.backend.jit import levels, link, optimise, target_machine

RUNTIME_C = Path(__file__).with_name("runtime.c")


class LinkError(Exception):
    """The system C compiler was missing or failed."""


def object_code(ir: str, level: int = 2, cpu: str | None = None) -> bytes:
    """Position-independent object code for this host's CPU, or for ``cpu`` (an LLVM CPU
    name such as ``x86-64-v3``: code that runs on every CPU of that level, with only the
    instruction sets it names). A program of ``optnone`` functions only is compiled at
    ``-O0`` throughout, as ``mgc run`` compiles it (``jit.levels``)."""
    level, opt = levels(ir, level)

    def machine() -> llvm.TargetMachine:
        return target_machine(cpu, opt, reloc="pic", codemodel="small")

    module = optimise(link(ir), level, machine())
    return machine().emit_object(module)


def c_compiler() -> list[str]:
    """The command that runs the C compiler: ``$CC`` (split as the shell would, so that
    ``CC="ccache gcc"`` works), else the first of cc, gcc and clang on ``PATH``. A ``CC``
    that names no program is reported as such, rather than failing inside ``subprocess``."""
    cc = os.environ.get("CC", "").strip()
    if not cc:
        found = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if not found:
            raise LinkError("no C compiler found to link with (install gcc, or set CC to a C compiler, e.g. CC=gcc)")
        return [found]
    try:
        cmd = shlex.split(cc)
    except ValueError as e:
        raise LinkError(f"cannot read CC={cc!r}: {e}") from None
    if not cmd or shutil.which(cmd[0]) is None:
        raise LinkError(f"C compiler {cmd[0] if cmd else cc!r} not found (set CC to a C compiler, e.g. CC=gcc)")
    return cmd


def link_executable(obj: bytes, out: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        obj_path = Path(tmp, "prog.o")
        obj_path.write_bytes(obj)
        cmd = [
            *c_compiler(),
            "-O2",
            *malloc_thresholds.c_defines(),
            str(obj_path),
            str(RUNTIME_C),
            "-o",
            out,
            "-lm",
            "-pthread",
        ]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:  # found on PATH, but cannot be run (not executable, wrong format)
            raise LinkError(
                f"cannot run the C compiler {cmd[0]!r}: {e.strerror or e} (set CC to a C compiler, e.g. CC=gcc)"
            ) from None
        if p.returncode != 0:
            raise LinkError(f"linking failed: {' '.join(cmd)}\n{p.stderr.strip()}")
