"""A library's LLVM work on two threads: its thread-pool bodies compiled beside the rest.

LLVM's time for a Python API library is about half of its compile time, and it is spent
on two kinds of function: the outlined loop nests that the thread pool runs
(``convert-parallel-loops-to-threads``: ``define void @f_parallel_0(ptr %a0, i64 %a1,
i64 %a2)``, called only through their address), and the rest (the def's entry, its C
interface, its guard). Neither calls the other directly, so they can be two modules,
optimised and compiled at the same time on two cores, and loaded into one engine, where
each finds the other's symbols. On a 2-core Zen 3, LLVM's time for the seven functions of
``benchmarks/compile_vs_jax.py`` 430 -> 332 ms, their whole compile 875 -> 745 ms (medians
of 10 alternating rounds in one process).

``split`` cuts the LLVM IR text that ``llvm_ir.print_module`` printed in two: the bodies,
and the rest with the bodies declared. Even the smallest body is worth it (``def f(a:
tensor[?]) = a + a``: LLVM's time 41 -> 30 ms, the whole compile 66 -> 57 ms, medians of
20 alternating compiles). It declines (None) where the bodies call a function the module
defines or use a global that is not a private constant, and for IR of another printer.

``Apart`` compiles the bodies' half on a thread of its own. llvmlite takes one lock
around every call into LLVM; LLVM itself allows a module to be optimised and compiled
while another is, each in an LLVMContext of its own with a target machine of its own
(as ThinLTO's backends do). So the bodies' module is made in a new context, and the
thread calls only the two long-running functions, the pass manager's run and the code
generator, past the lock (``_unlocked``), with a target machine no other thread uses.
"""

from __future__ import annotations

import ctypes
import re
import threading
from queue import Empty, SimpleQueue

import llvmlite.binding as llvm
from llvmlite.binding import ffi

# A thread-pool body as the printer writes it; its block ends at the first "}" line.
BODY = re.compile(r"define void @([\w.$]+)\(ptr %a0, i64 %a1, i64 %a2\) \{")
SYMBOL = re.compile(r"@([\w.$]+)")


def split(ir: str) -> tuple[str, str, list[str]] | None:
    """``ir`` as two modules: the rest, with the thread-pool bodies declared, and the bodies
    (with the module's declarations, the private constants they use and its metadata); and
    the bodies' names. None where there are none, or where the cut is not safe (see the
    module)."""
    lines = ir.split("\n")
    starts = {}
    for at, line in enumerate(lines):
        match = BODY.fullmatch(line)
        if match and re.search(rf"ptr @{re.escape(match.group(1))}\b", ir):  # (its address: for the pool)
            starts[at] = match.group(1)
    if not starts:
        return None
    rest: list[str] = []
    bodies: list[str] = []
    at = 0
    while at < len(lines):
        if at not in starts:
            rest.append(lines[at])
            at += 1
            continue
        end = lines.index("}", at)
        rest.append(f"declare void @{starts[at]}(ptr, i64, i64)")
        bodies += lines[at : end + 1] + [""]
        at = end + 1
    used = set(SYMBOL.findall("\n".join(bodies)))
    defined = {m.group(1) for line in rest if (m := re.match(r"define [^@]*@([\w.$]+)\(", line))}
    if used & defined:
        return None  # (a body that calls a def: it would have to stay external)
    globals_ = [line for line in lines if line.startswith("@")]
    wanted = [line for line in globals_ if line[1:].split(" ", 1)[0] in used]
    if any(not re.match(r"@[\w.$]+ = (private|internal) (unnamed_addr )?constant ", line) for line in wanted):
        return None  # (a variable: the two modules would each have a copy)
    header = [line for line in lines if line.startswith(("target ", "declare "))]
    metadata = [line for line in lines if line.startswith("!")]
    return "\n".join(rest), "\n".join([*header, *wanted, "", *bodies, *metadata, ""]), list(starts.values())


_MACHINES: dict[tuple[str | None, int], SimpleQueue] = {}


def _machine(cpu: str | None, opt: int) -> llvm.TargetMachine:
    """A target machine no other thread is using (made once, then reused: ``_release``)."""
    from mg_xdsl.backend.jit import target_machine

    try:
        return _MACHINES.setdefault((cpu, opt), SimpleQueue()).get_nowait()
    except Empty:
        return target_machine(cpu, opt)


def _release(machine: llvm.TargetMachine, cpu: str | None, opt: int) -> None:
    _MACHINES[(cpu, opt)].put(machine)


def _unlocked(name: str):
    """llvmlite's ctypes function ``name`` without the lock its wrapper takes."""
    return getattr(ffi.lib, name)._cfn


class Apart(threading.Thread):
    """The object code of ``ir`` (the bodies' module of ``split``), optimised at
    ``-O<level>`` and compiled for ``cpu`` at ``-O<opt>``, made on a thread of its own:
    ``start()``, then ``result()`` (which raises what the thread raised). The module is
    parsed, linked and given its pass pipeline here, in the caller's thread, before it
    starts: the caller's own calls into LLVM hold llvmlite's lock for as long as they run,
    so the thread calls nothing that takes it."""

    def __init__(self, ir: str, names: list[str], level: int, cpu: str | None, opt: int):
        from mg_xdsl.backend.jit import link

        super().__init__(name="mg-llvm-apart", daemon=True)
        self.key = (cpu, opt)
        self.machine = _machine(cpu, opt)
        self.context = llvm.create_context()
        self.module = link(ir, thread_pool=False, runtime=False, context=self.context)
        for function in self.module.functions:
            # The bodies are the engine's to find; the allocator's copy is this module's own.
            if not function.is_declaration and function.name not in names:
                function.linkage = llvm.Linkage.internal
        self.builder = None
        if level > 0:
            options = llvm.create_pipeline_tuning_options(speed_level=level)
            self.builder = llvm.create_pass_builder(self.machine, options)
            self.passes = self.builder.getModulePassManager()
        self.error = ffi.OutputString()  # (made and freed here: that takes the lock)
        self.object: bytes | None = None

    def run(self) -> None:
        if self.builder is not None:
            _unlocked("LLVMPY_RunNewModulePassManager")(self.passes, self.module, self.builder)
        buffer = _unlocked("LLVMPY_TargetMachineEmitToMemory")(self.machine, self.module, 1, self.error)
        if buffer:
            try:
                start = _unlocked("LLVMPY_GetBufferStart")(buffer)
                self.object = ctypes.string_at(start, _unlocked("LLVMPY_GetBufferSize")(buffer))
            finally:
                _unlocked("LLVMPY_DisposeMemoryBuffer")(buffer)

    def result(self) -> bytes:
        """The object code, once the thread is done; the module and its context freed."""
        self.join()
        if self.builder is not None:
            del self.passes
        self.builder = self.module = self.context = None  # (the module before its context)
        _release(self.machine, *self.key)
        failure = str(self.error) if self.object is None else ""
        self.error.close()
        if self.object is None:
            raise RuntimeError(f"LLVM could not compile the thread-pool bodies: {failure}")
        return self.object
