"""The kernels apart: a JIT compilation's matrix-product and reduction kernels compiled
once per process, as XLA calls a runtime's precompiled matrix product.

``tile-matmul`` and ``vectorize-reductions`` add a kernel function to the module that uses
one (``@mg_matmul_f64``, ``@mg_row_sum_f32``, ...: ``mg_xdsl.kernels``). A kernel depends on
its element type and the target, not on the program: the same ~1,250 lines of LLVM IR for
every program with an ``f64`` product on this CPU, and most of LLVM's work on such a
program. The Python API compiles each library with its kernels apart:

    split_kernels(module)   the LLVM-dialect module -> the program, which declares the
                            kernels it calls, and a module of the kernels (their
                            outlined parallel bodies with them)
    Kernels.of(module, ...) that module printed; its kernels named after their code
                            (@mg_matmul_f64 -> @mg_matmul_f64_<digest>), the program's
                            calls renamed to match
    load(kernels, cpu)      the kernels' code in this process: compiled the first time a
                            program needs it, then found by its digest; each kernel's
                            address registered (llvm.add_symbol) for the programs

The digest covers the kernels' text and the CPU they are compiled for, so two kernels of
one name but different code (another ``cpu=``, another compiler) never meet. Kernel code
stays loaded for the life of the process, as the thread pool does: programs come and go,
and any of them may call it. ``mgc run``, executables and libraries keep their kernels in
the program's own module (one object, one file).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (xDSL only where a module is split: a load from the cache imports none)
    from xdsl.dialects.builtin import ModuleOp

#: The names the kernels of ``mg_xdsl.kernels`` are made with (``mg_`` is reserved: the
#: front end refuses a def named so).
KERNEL_NAME = re.compile(r"mg_(matmul|row|column)_\w+")


@dataclass(frozen=True)
class Kernels:
    """A module of kernels as LLVM IR (``text``), with the names it exports (``symbols``,
    each ``<kernel>_<digest>``) and its ``digest``."""

    text: str
    symbols: tuple[str, ...]
    digest: str

    @staticmethod
    def of(kernels: ModuleOp, program: ModuleOp, cpu: str | None, translate) -> Kernels:
        """``kernels`` (from ``split_kernels``) printed by ``translate``, its exported
        kernels renamed after the digest of that text and ``cpu``, and ``program``'s
        declarations of and calls to them renamed alike."""
        from xdsl.dialects import llvm
        from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

        text = translate(kernels)
        digest = hashlib.sha256(f"{cpu}\0{text}".encode()).hexdigest()[:16]
        exported = sorted(
            op.sym_name.data for op in program.body.block.ops if isinstance(op, llvm.FuncOp) and not op.body.blocks
        )
        renamed = {name: f"{name}_{digest}" for name in exported if name in _defined(kernels)}
        for op in program.walk():
            if isinstance(op, llvm.FuncOp) and op.sym_name.data in renamed:
                op.sym_name = StringAttr(renamed[op.sym_name.data])
            elif isinstance(op, llvm.CallOp) and op.callee is not None and op.callee.string_value() in renamed:
                op.callee = SymbolRefAttr(renamed[op.callee.string_value()])
        for old, new in renamed.items():  # (the name then "(": not a prefix of its parallel bodies)
            text = text.replace(f"@{old}(", f"@{new}(")
        return Kernels(text, tuple(renamed.values()), digest)


def _defined(module: ModuleOp) -> set[str]:
    from xdsl.dialects import llvm

    return {op.sym_name.data for op in module.body.block.ops if isinstance(op, llvm.FuncOp) and op.body.blocks}


def split_kernels(module: ModuleOp) -> ModuleOp | None:
    """Move ``module``'s kernels (an LLVM-dialect module) into a module of their own, and
    return it (None where there are none). ``module`` keeps a declaration of each kernel it
    calls; the new module, one of each function the kernels call that it does not define
    (the allocator, the thread pool). A kernel that uses a global stays (there are none
    now): globals are not copied."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import ModuleOp

    moved = [
        op
        for op in module.body.block.ops
        if isinstance(op, llvm.FuncOp) and op.body.blocks and _is_kernel_code(op.sym_name.data)
    ]
    if not moved:
        return None
    names = {op.sym_name.data for op in moved}
    callees: set[str] = set()
    for f in moved:
        for op in f.walk():
            if isinstance(op, llvm.AddressOfOp) and op.global_name.string_value() not in names:
                return None  # (a global: leave the module whole)
            if isinstance(op, llvm.CallOp) and op.callee is not None:
                callees.add(op.callee.string_value())
    calls_in_program = {
        op.callee.string_value()
        for f in module.body.block.ops
        if f not in moved
        for op in f.walk()
        if isinstance(op, llvm.CallOp) and op.callee is not None
    }
    kernels = ModuleOp([])
    for op in module.body.block.ops:
        if isinstance(op, llvm.FuncOp) and op.sym_name.data in callees - names:
            kernels.body.block.add_op(_declaration(op))
    for op in moved:
        if op.sym_name.data in calls_in_program:
            module.body.block.insert_op_before(_declaration(op), op)
        op.detach()
        kernels.body.block.add_op(op)
    return kernels


def _is_kernel_code(name: str) -> bool:
    """A kernel, or a parallel body outlined from one (``<kernel>_parallel_<k>``)."""
    return KERNEL_NAME.fullmatch(name) is not None


def _declaration(f):
    """An external declaration of LLVM-dialect function ``f``."""
    from xdsl.dialects import llvm

    return llvm.FuncOp(f.sym_name.data, f.function_type, linkage=llvm.LinkageAttr("external"))


def load(kernels: Kernels, cpu: str | None) -> None:
    """Make ``kernels``' code callable in this process: loaded once, the first time a
    program needs it, from the disk cache or compiled (and then stored there)."""
    if kernels.digest in _LOADED:
        return
    from mg_xdsl.backend import jit

    store = _store()
    key = _key(kernels.digest, cpu)
    obj = store.load(key)[0] if store else None
    if obj is None:
        obj = jit.compile_object(kernels.text, cpu=cpu)
        COMPILED.append(kernels.digest)
        if store:
            store.store(key, obj)
    _register(kernels.digest, obj, kernels.symbols, cpu)


def load_cached(undefined: list[str], cpu: str | None) -> bool:
    """Load the kernels that object code calls (among its ``undefined`` symbols, those named
    ``<kernel>_<digest>``) from the disk cache, where this process lacks them; False if one
    is not there (the caller then compiles its program again)."""
    wanted: dict[str, list[str]] = {}
    for name in undefined:
        match = EXPORTED.fullmatch(name)
        if match and match.group(1) not in _LOADED:
            wanted.setdefault(match.group(1), []).append(name)
    store = _store() if wanted else None
    for digest, names in wanted.items():
        obj = store.load(_key(digest, cpu))[0] if store else None
        if obj is None:
            return False
        _register(digest, obj, tuple(names), cpu)
    return True


#: A kernel as a program calls it: its name, then the digest of its code.
EXPORTED = re.compile(r"mg_(?:matmul|row|column)_\w+_([0-9a-f]{16})")


def _store():
    """The disk cache the kernels share with the compiled programs (None where it is off)."""
    from mg_xdsl.backend import cache

    directory = cache.default_directory()
    if cache.no_cache_requested() or directory is None:
        return None
    return cache.ObjectCache(directory)


def _key(digest: str, cpu: str | None) -> bytes:
    """The kernels' cache key: their digest (text and CPU), the compiler's versions, the host."""
    from mg_xdsl.backend import cache
    from mg_xdsl.core.target import host_identity

    return cache.key(digest.encode(), {"kind": "kernels", "cpu": cpu}, host_identity())


def _register(digest: str, obj: bytes, symbols: tuple[str, ...], cpu: str | None) -> None:
    """Load object code ``obj`` and register the addresses of its ``symbols`` for programs."""
    import llvmlite.binding as llvm

    from mg_xdsl.backend import jit

    jit.initialise_for(obj)
    engine = jit.load_object(obj, jit.target_machine(cpu))
    for name in symbols:
        address = engine.get_function_address(name)
        if not address:
            engine.close()
            raise KeyError(f"the kernels' code lacks {name}")
        llvm.add_symbol(name, address)
    _LOADED[digest] = engine  # (kept: programs call into it until the process ends)


_LOADED: dict = {}
"""The kernels' code loaded in this process, by digest: its MCJIT engines, never freed."""

COMPILED: list[str] = []
"""The digests of the kernels this process compiled (not found in the disk cache), in order."""
