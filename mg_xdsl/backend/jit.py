"""LLVM dialect -> LLVM IR (xDSL's ``convert_module``) -> optimised native code (llvmlite).

``translate`` gives the LLVM IR text of a module in the LLVM dialect; ``Engine`` optimises
it (O2 by default), JIT-compiles it with MCJIT and hands out the addresses of its
functions, with the run-time library's symbols (``printMemrefF64``, ...) already resolved.

``mgc run`` goes through object code instead, so that it can keep it in its on-disk cache
(``mg_xdsl.backend.cache``): ``jit_object_code`` compiles a whole program, run-time library
and thread pool included, to the object code MCJIT would have made of it, and
``ObjectEngine`` loads and runs such code. The Python API's disk cache keeps the object
code ``Engine`` made (``Engine.objects``), which ``SharedPoolEngine`` loads again. This
module imports no xDSL (``translate`` does, when called), so that running cached code never
pays for importing it.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

import llvmlite.binding as llvm

from mg_xdsl.backend import kernel_library, malloc_thresholds, parallel_codegen, runtime
from mg_xdsl.backend.runtime_arguments_ir import ARGUMENTS_IR, NO_ARGUMENTS
from mg_xdsl.backend.runtime_files_ir import FILES_IR
from mg_xdsl.backend.runtime_ir import ALLOCATOR_ALONE_IR, PRINTLN_ALONE_IR, RUNTIME_CORE_IR, RUNTIME_IR
from mg_xdsl.backend.runtime_print_array_ir import PRINT_ARRAY_IR
from mg_xdsl.backend.threads_ir import THREADS_IR
from mg_xdsl.core.target import host, llvm_tuning

if TYPE_CHECKING:  # (a run from the compile cache imports no xDSL)
    from xdsl.dialects.builtin import ModuleOp


@cache
def initialise_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    for name, address in runtime.symbols().items():
        llvm.add_symbol(name, address)


def target_machine(
    cpu: str | None = None, opt: int = 3, reloc: str = "default", codemodel: str = "jitdefault"
) -> llvm.TargetMachine:
    """A target machine for this host, or for ``cpu`` (an LLVM CPU name: its features only,
    for code that runs on every CPU of that kind), generating code at ``-O<opt>`` (for the
    JIT, unless ``reloc`` and ``codemodel`` say otherwise). A fresh one each time: an MCJIT
    engine takes ownership of the one it is given and frees it with itself."""
    triple, host_cpu, host_features = host()
    target = llvm.Target.from_triple(triple)
    features = ",".join(f for f in ("" if cpu else host_features, llvm_tuning(cpu or host_cpu)) if f)
    return target.create_target_machine(
        cpu=cpu or host_cpu,
        features=features,
        opt=opt,
        reloc=reloc,
        codemodel=codemodel,
    )


@cache
def code_generator(cpu: str | None = None, opt: int = 3) -> llvm.TargetMachine:
    """The target machine that optimises modules and makes their object code for this host
    (or ``cpu``) at ``-O<opt>``: one per process and kind, reused by every compilation.
    A target machine builds its subtarget (the instruction selector's tables for every
    type and operation) when first used, about 2 ms on a Zen 3, twice per compilation when
    each step had a fresh one: a tenth of LLVM's time for the seven functions of
    ``benchmarks/compile_vs_jax.py``. Not for an MCJIT engine, which takes ownership of the
    target machine it is given (``target_machine``)."""
    return target_machine(cpu, opt)


def levels(ir: str, level: int) -> tuple[int, int]:
    """The optimisation level of the IR pipeline and of the code generator for ``ir``:
    ``level`` and 3, but 0 and 0 where every function ``ir`` defines is ``optnone``
    (``optnone-small-functions`` marked them all: a program of little work). LLVM then
    optimises nothing, and its code generator need not either: at ``-O0`` it makes the
    code of such a program in a third of the time it takes at ``-O3``."""
    defines = [line for line in ir.splitlines() if line.startswith("define ")]
    if defines and all(" optnone" in line for line in defines):
        return 0, 0
    return level, 3


def translate(module: ModuleOp) -> str:
    """LLVM IR text of a module that contains only LLVM-dialect ops: printed directly
    (``llvm_ir.print_module``), or, for a module that holds something that printer does not
    know, by xDSL's ``convert_module`` (which drops function attributes; ``passthrough``
    ones, such as ``noinline`` and ``optnone``, are carried over here)."""
    # Imported here, as xDSL below: a run from the compile cache loads this module, never xDSL.
    from mg_xdsl.backend.llvm_ir import Unsupported, print_module

    try:
        return print_module(module, host()[0])
    except Unsupported:
        return translate_with_xdsl(module)


def translate_with_xdsl(module: ModuleOp) -> str:
    """``translate`` by xDSL's ``convert_module`` (llvmlite's IR builder)."""
    # (xDSL imported only here: a run from the compile cache loads this module, never xDSL)
    from xdsl.backend.llvm.convert import convert_module
    from xdsl.dialects import llvm as llvm_dialect
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    from mg_xdsl.support.xdsl_compat import translate_fast_math_calls

    translate_fast_math_calls()
    translated = convert_module(module, fallback_target_triple=None)
    for op in module.body.block.ops:
        if not isinstance(op, llvm_dialect.FuncOp) or "passthrough" not in op.attributes:
            continue
        passthrough = op.attributes["passthrough"]
        assert isinstance(passthrough, ArrayAttr), passthrough
        for attribute in passthrough:
            assert isinstance(attribute, StringAttr), f"passthrough attribute {attribute}"
            translated.get_global(op.sym_name.data).attributes.add(attribute.data)
    return str(translated)


def link(
    ir: str, *extra: str, thread_pool: bool = True, runtime: bool = True, context: llvm.ContextRef | None = None
) -> llvm.ModuleRef:
    """Parse a program's LLVM IR and link the run-time library (and ``extra`` modules) in;
    the thread pool too (unless ``thread_pool`` is false) where the program runs a loop on
    threads. Without ``runtime``, only the library's allocator and println sections, where
    the program calls them: the process's core serves the rest (``process_runtime``).
    ``context``: the LLVM context to make the module in (default: the global one)."""
    initialise_llvm()
    mod = llvm.parse_assembly(ir, context)
    threads = (THREADS_IR,) if thread_pool and "mgrt_parallel_for" in ir else ()
    # The run-time library last: LLVM links its linkonce_odr definitions only where
    # something already linked uses them (the guards of ``extra`` use ``mgrt_set_guard``).
    # The .npy functions (before the library, whose failure records they use) only where called.
    files = (FILES_IR,) if "@mgrt_npy_" in ir else ()
    # The command-line arguments' functions only where the program has any (mg.arg).
    arguments = (ARGUMENTS_IR,) if "@mgrt_arg_" in ir else ()
    # The printer of whole tensors only where println prints one.
    arrays = (PRINT_ARRAY_IR,) if "@mgrt_println_array_" in ir else ()
    texts = (*extra, *threads, *files, *arguments, *arrays)
    if runtime:
        library: tuple[str, ...] = (RUNTIME_IR,)
    else:
        sections = ((ALLOCATOR_ALONE_IR, "@_mlir_memref_to_llvm_"), (PRINTLN_ALONE_IR, "@mgrt_println_"))
        library = tuple(section for section, used in sections if any(used in text for text in (ir, *texts)))
    for text in (*texts, *library):
        mod.link_in(llvm.parse_assembly(text, context))
    mod.verify()
    return mod


def optimise(ir: str | llvm.ModuleRef, level: int = 2, tm: llvm.TargetMachine | None = None) -> llvm.ModuleRef:
    """Parse, verify and optimise LLVM IR with LLVM's standard ``O<level>`` pipeline, tuned
    for ``tm`` (default: this host)."""
    tm = tm or code_generator()
    mod = llvm.parse_assembly(ir) if isinstance(ir, str) else ir
    mod.verify()
    if level > 0:
        options = llvm.create_pipeline_tuning_options(speed_level=level)
        builder = llvm.create_pass_builder(tm, options)
        builder.getModulePassManager().run(mod, builder)
    return mod


def process_thread_pool() -> None:
    """Make the thread pool callable by every program the Python API compiles or loads in
    this process (``kernel_library.ensure_process_code``). One pool for all of them: a
    program's own copy would give each engine a pool of its own, whose workers would be left
    sleeping in freed code when the engine went."""
    kernel_library.ensure_process_code(
        kernel_library.THREAD_POOL, THREADS_IR, ("mgrt_parallel_for", "mgrt_num_threads")
    )


def process_runtime() -> None:
    """Make the core of the run-time library (``RUNTIME_CORE_IR``: failures, guards, bf16
    rounding) callable by every program the Python API compiles or loads in this process,
    which then links only the allocator and println sections (``link(runtime=False)``)."""
    kernel_library.ensure_process_code(kernel_library.RUNTIME_CORE, RUNTIME_CORE_IR)


def runtime_global(name: str) -> int:
    """The address of global ``name`` of the process's core (``process_runtime``)."""
    process_runtime()
    address = llvm.address_of_symbol(name)
    assert address, f"the run-time library's core lacks {name}"
    return address


class UnresolvedSymbols(Exception):
    """Compiled code calls functions that nothing in this process provides (a compiler bug:
    the call would jump to address 0)."""


def _symbol_table(obj: bytes) -> list[tuple[str, int, int]]:
    """The named symbols of an ELF object file: (name, binding, section index; 0 where it is
    only referred to, SHN_UNDEF)."""
    sections = {section.name(): section.data() for section in llvm.ObjectFileRef.from_data(obj).sections()}
    symtab, strtab = sections.get(b".symtab", b""), sections.get(b".strtab", b"")
    symbols = []
    for at in range(24, len(symtab), 24):  # (ELF64 symbols of 24 bytes; the first is null)
        name, info, _other, section_index = struct.unpack_from("<IBBH", symtab, at)
        if name:
            symbols.append((strtab[name : strtab.index(b"\0", name)].decode(), info >> 4, section_index))
    return symbols


def _undefined(symbol: tuple[str, int, int]) -> bool:
    return symbol[2] == 0  # (SHN_UNDEF)


def _exported(symbol: tuple[str, int, int]) -> bool:
    return bool(symbol[2]) and symbol[1] in (1, 2)  # (defined, global or weak)


def undefined_symbols(obj: bytes) -> list[str]:
    """The names an ELF object file refers to but does not define: what whoever loads or
    links it must provide (the C library, the run-time library, compiler-rt's helpers)."""
    return [symbol[0] for symbol in _symbol_table(obj) if _undefined(symbol)]


def exported_symbols(obj: bytes) -> list[str]:
    """The names an ELF object file defines for others (global and weak symbols)."""
    return [symbol[0] for symbol in _symbol_table(obj) if _exported(symbol)]


def load_object(obj: bytes | Sequence[bytes], tm: llvm.TargetMachine) -> llvm.ExecutionEngine:
    """An MCJIT engine holding object code ``obj`` (one object, or several that refer to
    one another's symbols), every external symbol of it resolved: by another of the
    objects, the run-time library's printers and the thread pool (``llvm.add_symbol``) or
    the process's own (the C library). MCJIT would resolve a missing one to address 0 and
    the program would crash where it calls it; here it is an error before anything runs."""
    objects = [obj] if isinstance(obj, bytes) else list(obj)
    # (Making an MCJIT engine opens the process's own symbols to the search below.)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
    symbols = [symbol for o in objects for symbol in _symbol_table(o)]  # (each table read once)
    undefined = {s[0] for s in symbols if _undefined(s)} - {s[0] for s in symbols if _exported(s)}
    missing = [name for name in undefined if not llvm.address_of_symbol(name)]
    if missing:
        engine.close()
        raise UnresolvedSymbols(
            f"the compiled code calls {', '.join(sorted(set(missing)))}, which the run-time library does not provide"
        )
    for o in objects:
        engine.add_object_file(llvm.ObjectFileRef.from_data(o))
    engine.finalize_object()
    return engine


class TakesNoArguments(Exception):
    """A program without ``mg.arg`` was given arguments: ``str()`` says so as its executable
    would (``runtime.c``), for stderr and exit status 1; ``help`` where the argument was
    ``--help``, to say ``NO_ARGUMENTS`` on stdout with status 0."""

    def __init__(self, argument: str):
        self.help = argument == "--help"
        name = argument.split("=", 1)[0]
        super().__init__(NO_ARGUMENTS if self.help else f"unknown argument '{name}': {NO_ARGUMENTS}")


class _Loaded:
    """Compiled code in an MCJIT engine (``self.engine``). Keep it alive while calling into it."""

    engine: llvm.ExecutionEngine

    def address(self, name: str) -> int:
        address = self.engine.get_function_address(name)
        if not address:
            raise KeyError(f"no function {name!r} in the compiled module")
        return address

    def run_main(self, arguments: Sequence[str] = ()) -> None:
        """Run the program's top-level statements, given the command-line ``arguments``
        (``NAME=VALUE``, for its ``mg.arg``s): a program that has some checks them itself,
        first (``runtime_arguments_ir``); one that has none, given some, raises
        ``TakesNoArguments`` before it runs."""
        malloc_thresholds.settle()  # (as an executable's main does: see there)
        set_args = self.engine.get_function_address("mgrt_set_args")
        if not set_args and arguments:
            raise TakesNoArguments(arguments[0])
        # (kept alive until the program has run: the run-time library keeps the pointers)
        argv = (ctypes.c_char_p * max(len(arguments), 1))(*(a.encode() for a in arguments))
        if set_args:
            ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)(set_args)(len(arguments), ctypes.addressof(argv))
        ctypes.CFUNCTYPE(None)(self.address("main"))()


class Engine(_Loaded):
    """A JIT-compiled module. Keep the engine alive while calling into it. It calls the
    process's thread pool and run-time library core (``process_thread_pool``,
    ``process_runtime``), not copies of its own.

    ``symbols`` resolves the module's external functions that are not in the run-time
    library (the GPU launch callbacks); ``owner`` is kept alive with the engine (whoever
    owns those callbacks). ``exports``, where given, are the only functions anything looks
    up by name (the Python API's guards): the module's other functions become internal, so
    that LLVM drops a function once it has inlined it everywhere (a def's body is otherwise
    compiled three times: alone, in its C interface and in its guard); and its thread-pool
    bodies, where they can be cut out, are compiled on a second thread meanwhile
    (``parallel_codegen``). ``objects`` is its object code: one object, or two."""

    def __init__(
        self,
        ir: str,
        level: int = 2,
        extra: tuple[str, ...] = (),
        symbols: dict[str, int] | None = None,
        owner: object = None,
        cpu: str | None = None,
        exports: Sequence[str] | None = None,
    ):
        self.owner = owner
        for name, address in (symbols or {}).items():
            # Process-wide, but read only when an engine is finalised, just below.
            llvm.add_symbol(name, address)
        initialise_for(ir)
        level, opt = levels(ir, level)
        parts = parallel_codegen.split(ir) if exports is not None else None
        apart = None
        if parts is not None:
            ir, bodies, names = parts
            apart = parallel_codegen.Apart(bodies, names, level, cpu, opt)
            apart.start()
        try:
            module = link(ir, *extra, thread_pool=False, runtime=False)
            if exports is not None:
                for function in module.functions:
                    external = function.linkage == llvm.Linkage.external
                    if external and not function.is_declaration and function.name not in exports:
                        function.linkage = llvm.Linkage.internal
            self.module = optimise(module, level, code_generator(cpu, opt))
            # The object code, kept: the Python API stores it in its disk cache (``SharedPoolEngine``).
            self.objects = [code_generator(cpu, opt).emit_object(self.module)]
        finally:
            if apart is not None:
                apart.join()  # (whatever happened here: its thread is done before this returns)
        if apart is not None:
            self.objects.append(apart.result())
        self.engine = load_object(self.objects, target_machine(cpu, opt))


class SharedPoolEngine(_Loaded):
    """Object code that an ``Engine`` made (``Engine.objects``), loaded again, in this or
    another process: what the Python API runs from its disk cache. As with ``Engine``, the
    process's one thread pool runs its parallel loops and its run-time library core serves
    it (the code calls them, not copies of its own), both loaded from the disk cache too:
    nothing is compiled, and no xDSL is imported."""

    def __init__(self, objects: Sequence[bytes], cpu: str | None = None):
        for data in objects:
            initialise_for(data)
        # (the kernels it calls, compiled apart, ``cpu``'s: from the cache where this process lacks them)
        undefined = dict.fromkeys(name for data in objects for name in undefined_symbols(data))
        if not kernel_library.load_cached(list(undefined), cpu):
            raise KeyError("a kernel it calls is not in the cache")
        self.engine = load_object(objects, target_machine())


def initialise_for(code: bytes | str) -> None:
    """Ready LLVM, the run-time library's core (``process_runtime``) and, where ``code``
    (object code, or LLVM IR, of the Python API's kind) calls it, the process's thread pool."""
    initialise_llvm()
    process_runtime()
    # (in object code, a name in its symbol table)
    calls_pool = "mgrt_parallel_for" in code if isinstance(code, str) else b"mgrt_parallel_for" in code
    if calls_pool:
        process_thread_pool()


def compile_object(ir: str, level: int = 2, cpu: str | None = None) -> bytes:
    """Object code of LLVM IR ``ir`` (a kernel), optimised at ``-O<level>``, for the JIT on
    ``cpu``; it calls the process's thread pool and run-time library core."""
    initialise_for(ir)
    level, opt = levels(ir, level)
    module = optimise(link(ir, thread_pool=False, runtime=False), level, code_generator(cpu, opt))
    return code_generator(cpu, opt).emit_object(module)


def jit_object_code(ir: str, level: int = 2, cpu: str | None = None) -> tuple[llvm.ModuleRef, bytes]:
    """A whole program as object code for ``ObjectEngine``: its LLVM IR linked with the
    run-time library and, where it runs loops on threads, the thread pool, optimised at
    ``-O<level>`` and compiled with the JIT's target machine (so the code is what MCJIT
    would make of the module). Returns the optimised module too (``MGC_KEEP`` writes it).

    The pool is linked into the program rather than shared (``Engine`` shares one per
    process) because one object is one process's only program under ``mgc run``."""
    level, opt = levels(ir, level)
    module = optimise(link(ir, thread_pool=True), level, code_generator(cpu, opt))
    return module, code_generator(cpu, opt).emit_object(module)


class ObjectEngine(_Loaded):
    """Object code from ``jit_object_code`` (compiled now or read from the cache), loaded
    into an MCJIT engine with its references to the run-time library resolved.

    Loading takes a few milliseconds and needs only llvmlite, ctypes and the run-time
    printer (``runtime``). The engine itself compiles nothing: its module is empty, the
    code arrives as an object file. (Static constructors, which MCJIT runs for modules
    only, would not run; compiled programs have none.) ``close`` when done."""

    def __init__(self, data: bytes):
        initialise_llvm()  # (registers the printers process-wide, for load_object to find)
        self.engine = load_object(data, target_machine())

    def close(self) -> None:
        """Stop the thread pool's workers, if the program started any (they sleep in this
        object's code, which freeing the engine unmaps), then free the engine."""
        shutdown = self.engine.get_function_address("mgrt_pool_shutdown")
        if shutdown:
            ctypes.CFUNCTYPE(None)(shutdown)()
        self.engine.close()
