"""The kernels apart: a JIT compilation's matrix-product and reduction kernels compiled
once per process and kept in the disk cache, as XLA calls a runtime's precompiled matrix
product.

``tile-matmul`` and ``vectorize-reductions`` give the module that uses a kernel a function
of it (``@mg_matmul_f64``, ``@mg_row_sum_f32``, ...: ``mg_xdsl.kernels``). A kernel depends
on its element type and the target, not on the program: the same ~1,250 lines of LLVM IR
for every program with an ``f64`` product on this CPU, and most of the compiler's work on
such a program (building and lowering it in xDSL, optimising it in LLVM). So the Python
API marks its modules ``mg.kernels_apart`` (``kernels.shared.KERNELS_APART``): there a
kernel is only declared, as ``@<kernel>_<digest>`` (the digest of what its code depends on:
the target's vector unit and caches, and the CPU), and the program calls that. Before the
program is loaded, ``ensure`` makes each kernel it declares callable in the process:

    already loaded in this process      nothing to do
    in the disk cache                   its object code loaded
    neither                             built (``kernels.shared.BUILDERS``), lowered by the
                                        pipeline's stages from affine on, compiled by LLVM,
                                        stored in the disk cache, loaded

and registers its address (``llvm.add_symbol``) for the programs. A library loaded from the
disk cache finds its kernels the same way (``load_cached``). Kernel code stays loaded for
the life of the process, as the thread pool does: programs come and go, and any of them
may call it. ``mgc run``, executables and libraries keep their kernels in the program's own
module (one object, one file).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (xDSL only where a program is compiled: a load from the cache imports none)
    from xdsl.dialects.builtin import ModuleOp

#: A kernel as a program declares it: its name, then the digest of its code.
EXPORTED = re.compile(r"mg_(?:matmul|row|column|one_row)_\w+_([0-9a-f]{16})")


def declared(module: ModuleOp) -> list[str]:
    """The kernels LLVM-dialect ``module`` declares (and so calls)."""
    from xdsl.dialects import llvm

    return [
        op.sym_name.data
        for op in module.body.block.ops
        if isinstance(op, llvm.FuncOp) and not op.body.blocks and EXPORTED.fullmatch(op.sym_name.data)
    ]


def ensure(symbol: str, cpu: str | None, make_ir: Callable[[], str]) -> str:
    """Make kernel ``symbol`` callable in this process, for ``cpu``: loaded once, the first
    time a program needs it, from the disk cache, or compiled from the LLVM IR ``make_ir``
    gives (and then stored there). Says which it was: "loaded", "cached" or "compiled"."""
    if symbol in _LOADED:
        return "loaded"
    from mg_xdsl.backend import jit

    store = _store()
    if _load_stored(symbol, cpu, store):
        return "cached"
    obj = jit.compile_object(make_ir(), cpu=cpu)
    COMPILED.append(symbol)
    if store:
        store.store(_key(symbol, cpu), obj)
    _register(symbol, obj, cpu)
    return "compiled"


RUNTIME_CORE, THREAD_POOL = "mgrt_runtime_core", "mgrt_thread_pool"
PROCESS_CODE = (RUNTIME_CORE, THREAD_POOL)
"""The code every program of the Python API calls, loaded once per process like a kernel:
the run-time library's core (``runtime_ir.RUNTIME_CORE_IR``) and the thread pool
(``threads_ir``). Each depends on nothing but the compiler (whose source every key hashes)
and the host."""


def ensure_process_code(name: str, ir: str, exports: Sequence[str] | None = None) -> None:
    """Make ``ir``, the part ``name`` of ``PROCESS_CODE``, callable in this process: loaded
    once, from the disk cache, or compiled for this host (and stored there), and never freed
    (programs come and go, and any of them calls it; the pool's workers sleep in its code).
    Its ``exports`` (default: every function and global it defines) are registered for the
    programs."""
    if name in _LOADED:
        return
    import llvmlite.binding as llvm

    from mg_xdsl.backend import jit

    jit.initialise_llvm()
    store = _store()
    key = process_code_key(name)
    obj = store.load(key)[0] if store else None
    if obj is None:
        # Plain external definitions: the optimiser drops the linkonce_odr ones nothing here calls.
        module = jit.optimise(ir.replace("define linkonce_odr ", "define "))
        obj = jit.code_generator().emit_object(module)
        if store:
            store.store(key, obj)
    engine = jit.load_object(obj, jit.target_machine())
    for symbol in jit.exported_symbols(obj) if exports is None else exports:
        address = engine.get_function_address(symbol) or engine.get_global_value_address(symbol)
        assert address, f"{name} lacks {symbol}"
        llvm.add_symbol(symbol, address)
    _LOADED[name] = engine


def process_code_entries() -> list[str]:
    """The disk cache's file names of ``PROCESS_CODE`` (what the first process to use a cache
    directory stores there, whatever it compiles)."""
    from mg_xdsl.backend import cache

    return [process_code_key(name).hex() + cache.SUFFIX for name in PROCESS_CODE]


def process_code_key(name: str) -> bytes:
    """The disk cache's key of the part ``name`` of ``PROCESS_CODE`` (compiled for this host)."""
    assert name in PROCESS_CODE, name
    return _key(name, None)


def load_cached(undefined: list[str], cpu: str | None) -> bool:
    """Load the kernels that object code calls (among its ``undefined`` symbols, those named
    ``<kernel>_<digest>``) from the disk cache, where this process lacks them; False if one
    is not there (the caller then compiles its program again)."""
    wanted = [name for name in undefined if EXPORTED.fullmatch(name) and name not in _LOADED]
    store = _store() if wanted else None
    return all(_load_stored(name, cpu, store) for name in wanted)


def _load_stored(symbol: str, cpu: str | None, store) -> bool:
    """Load and register kernel ``symbol`` from ``store`` (the disk cache, or None); False
    where it is not there."""
    obj = store.load(_key(symbol, cpu))[0] if store else None
    if obj is not None:
        _register(symbol, obj, cpu)
    return obj is not None


def _store():
    """The disk cache the kernels share with the compiled programs (None where it is off)."""
    from mg_xdsl.backend import cache

    directory = cache.default_directory()
    if cache.no_cache_requested() or directory is None:
        return None
    return cache.ObjectCache(directory)


def _key(symbol: str, cpu: str | None) -> bytes:
    """A kernel's cache key: its symbol (the digest of what its code depends on), the CPU,
    the compiler's versions, the host."""
    from mg_xdsl.backend import cache
    from mg_xdsl.core.target import host_identity

    return cache.key(symbol.encode(), {"kind": "kernel", "cpu": cpu}, host_identity())


def _register(symbol: str, obj: bytes, cpu: str | None) -> None:
    """Load object code ``obj`` and register the address of its kernel ``symbol`` for programs."""
    import llvmlite.binding as llvm

    from mg_xdsl.backend import jit

    jit.initialise_for(obj)
    engine = jit.load_object(obj, jit.target_machine(cpu))
    address = engine.get_function_address(symbol)
    if not address:
        engine.close()
        raise KeyError(f"the kernel's code lacks {symbol}")
    llvm.add_symbol(symbol, address)
    _LOADED[symbol] = engine  # (kept: programs call into it until the process ends)


_LOADED: dict = {}
"""The kernels loaded in this process, by symbol: their MCJIT engines, never freed."""

COMPILED: list[str] = []
"""The kernels this process compiled (not found in the disk cache), in order."""
