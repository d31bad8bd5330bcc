"""LLVM dialect -> LLVM IR (xDSL's ``convert_module``) -> optimised native code (llvmlite).

``translate`` gives the LLVM IR text of a module in the LLVM dialect; ``Engine`` optimises
it (O2 by default), JIT-compiles it with MCJIT and hands out the addresses of its
functions, with the run-time library's symbols (``printMemrefF64``) already resolved.
"""

import ctypes
from functools import cache

import llvmlite.binding as llvm
from xdsl.dialects.builtin import ModuleOp

from mg_xdsl.backend import runtime
from mg_xdsl.backend.runtime_ir import RUNTIME_IR
from mg_xdsl.backend.threads_ir import THREADS_IR


@cache
def _initialise_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    for name, address in runtime.symbols().items():
        llvm.add_symbol(name, address)


def target_machine() -> llvm.TargetMachine:
    """A target machine for this host. A fresh one each time: an MCJIT engine takes
    ownership of the one it is given and frees it with itself."""
    _initialise_llvm()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        codemodel="jitdefault",
    )


def translate(module: ModuleOp) -> str:
    """LLVM IR text of a module that contains only LLVM-dialect ops."""
    from xdsl.backend.llvm.convert import convert_module

    return str(convert_module(module, fallback_target_triple=None))


def link(ir: str, *extra: str, thread_pool: bool = True) -> llvm.ModuleRef:
    """Parse a program's LLVM IR and link the run-time library (and ``extra`` modules) in;
    the thread pool too (unless ``thread_pool`` is false) where the program runs a loop on
    threads."""
    _initialise_llvm()
    mod = llvm.parse_assembly(ir)
    threads = (THREADS_IR,) if thread_pool and "mgrt_parallel_for" in ir else ()
    for text in (RUNTIME_IR, *threads, *extra):
        mod.link_in(llvm.parse_assembly(text))
    mod.verify()
    return mod


def optimise(ir: str | llvm.ModuleRef, level: int = 2) -> llvm.ModuleRef:
    """Parse, verify and optimise LLVM IR with LLVM's standard ``O<level>`` pipeline."""
    tm = target_machine()
    mod = llvm.parse_assembly(ir) if isinstance(ir, str) else ir
    mod.verify()
    if level > 0:
        options = llvm.create_pipeline_tuning_options(speed_level=level)
        builder = llvm.create_pass_builder(tm, options)
        builder.getModulePassManager().run(mod, builder)
    return mod


@cache
def _process_thread_pool() -> llvm.ExecutionEngine:
    """The thread pool of every JIT-compiled program in this process: compiled once, never
    freed (its workers sleep in its code), its functions resolved by name for the programs.
    (A program's own copy would give each engine a pool of its own, whose workers would be
    left sleeping in freed code when the engine went.)"""
    # Plain external definitions here: the optimiser drops unused linkonce_odr functions.
    module = optimise(THREADS_IR.replace("define linkonce_odr ", "define "))
    engine = llvm.create_mcjit_compiler(module, target_machine())
    engine.finalize_object()
    for name in ("mgrt_parallel_for", "mgrt_num_threads"):
        address = engine.get_function_address(name)
        assert address, f"the thread pool lacks {name}"
        llvm.add_symbol(name, address)
    return engine


class Engine:
    """A JIT-compiled module. Keep the engine alive while calling into it.

    ``symbols`` resolves the module's external functions that are not in the run-time
    library (the GPU launch callbacks); ``owner`` is kept alive with the engine (whoever
    owns those callbacks)."""

    def __init__(self, ir: str, level: int = 2, extra: tuple[str, ...] = (),
                 symbols: dict[str, int] | None = None, owner: object = None):
        self.owner = owner
        for name, address in (symbols or {}).items():
            # Process-wide, but read only when an engine is finalised, just below.
            llvm.add_symbol(name, address)
        if "mgrt_parallel_for" in ir:
            _process_thread_pool()
        self.module = optimise(link(ir, *extra, thread_pool=False), level)
        self.engine = llvm.create_mcjit_compiler(self.module, target_machine())
        self.engine.finalize_object()
        self.engine.run_static_constructors()

    def address(self, name: str) -> int:
        address = self.engine.get_function_address(name)
        if not address:
            raise KeyError(f"no function {name!r} in the compiled module")
        return address

    def run_main(self) -> None:
        ctypes.CFUNCTYPE(None)(self.address("main"))()
