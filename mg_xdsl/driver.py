"""Compiling a program from source to each of its forms, for ``mgc`` and the Python API.

``Compilation`` runs the front end and the pipeline of ``mg_xdsl.pipeline.stages`` up to the stage
asked for, records how long each step took, and (with ``MGC_KEEP=dir``) writes every
intermediate form into ``dir``: the IR after each stage, the LLVM IR before and after
optimisation.
"""

import os
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp, StringAttr

from mg_xdsl.backend import kernel_library
from mg_xdsl.backend.cpp_header import header
from mg_xdsl.backend.upstream import lower_with_mlir_opt
from mg_xdsl.core.target import target
from mg_xdsl.dialects.mg.inlining import calls_made_by, defs_by_name
from mg_xdsl.kernels.shared import BUILDERS, KERNELS_APART
from mg_xdsl.language.frontend import parse_program
from mg_xdsl.pipeline import stages as pipeline

# LLVM (llvmlite) and the GPU's modules are imported by the methods that use them: ``mgc
# mlir`` needs neither, and a CPU compilation no GPU.


#: The step of ``Compilation.times`` that is LLVM's for a JIT engine: linking, optimising,
#: code generation and loading (``mgc run --time``'s line, the Python API's part).
LLVM_STEP = "LLVM optimise + JIT"

#: ``Compilation.exports``: export the defs that no def calls (what the Python API compiles
#: first; it compiles the others when one of them is first called).
ENTRY_DEFS = "entry defs"


def export_only(module: ModuleOp, exports: "Collection[str]") -> list[str]:
    """Keep the defs named in ``exports`` callable from outside ``module`` and make the rest
    internal: a def that an exported def calls (directly or not) becomes ``private`` and
    loses its C interface (the ``inline`` pass erases it once it has inlined its one call);
    any other def is erased, as upstream's ``symbol-dce`` erases an unused private symbol.
    Returns the exported defs' names, in the module's order. (``mg.grad`` differentiates an
    expression of its own function: a def is used only through ``func.call``.)"""
    from mg_xdsl.conversions.to_llvm.convert_func_to_llvm import C_INTERFACE  # (the pipeline's import)

    defs = defs_by_name(module)
    reached: set[str] = set()
    pending = [name for name in defs if name in exports]
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        pending += [c.callee.string_value() for c in calls_made_by(defs[name])]
    for name, f in defs.items():
        if name not in reached:
            module.body.block.erase_op(f)
        elif name not in exports:
            f.sym_visibility = StringAttr("private")
            f.attributes.pop(C_INTERFACE, None)
    return [name for name in defs if name in exports]


def entry_defs(module: ModuleOp) -> set[str]:
    """The defs of ``module`` that no def of it calls."""
    defs = defs_by_name(module)
    return set(defs) - {c.callee.string_value() for f in defs.values() for c in calls_made_by(f)}


class NothingToExport(ValueError):
    """``mgc lib`` of a program without a ``def``: its library would hold nothing."""


def rename_entry(module: ModuleOp, entry: str) -> None:
    """Give ``@main`` (the top-level statements) another name, e.g. for an executable whose C
    ``main`` calls it."""
    if entry == "main":
        return
    for op in module.body.block.ops:
        if op.properties.get("sym_name") == StringAttr("main"):  # (func.func or llvm.func)
            op.properties["sym_name"] = StringAttr(entry)


def verify_each_requested() -> bool:
    """Whether ``MGC_VERIFY_EACH`` asks every compilation to verify after every stage."""
    return os.environ.get("MGC_VERIFY_EACH", "") not in ("", "0")


@dataclass
class Compilation:
    source: bytes | str
    path: str
    keep_dir: str | None = field(default_factory=lambda: os.environ.get("MGC_KEEP") or None)
    lib: bool = False  # only the defs, no @main (for `mgc lib` and the Python API)
    backend: str = "xdsl"  # "mlir": upstream mlir-opt-22 lowers the affine-level IR
    gpu: str | None = None  # "cuda" or "emulated": parallel loop nests run as GPU kernels
    optimise: bool = True  # the optimised pipeline (False: the reference pipeline, pipeline.REFERENCE_STAGES)
    cpu: str | None = None  # the CPU objects are compiled for (None: this host's)
    times: dict[str, float] = field(default_factory=dict)
    signatures: dict = field(default_factory=dict)
    gpu_modules: ModuleOp | None = None  # the device code, with gpu
    kernels: list = field(default_factory=list)  # gpu_runtime.Kernel for each launched kernel
    warnings: list[str] = field(default_factory=list)  # the front end's, rendered (PATH:LINE: warning: ...)
    # the matrix-product and reduction kernels declared, and compiled apart, once per
    # process and kept in the disk cache (the API's JIT: backend.kernel_library)
    kernels_apart: bool = False
    # verify after every stage, not only the last one asked for (see mg_xdsl.pipeline.stages)
    verify_each: bool = field(default_factory=verify_each_requested)
    # lib only: the defs callable from outside (names, or ENTRY_DEFS); the others are
    # internal (``export_only``). None: every def, as ``mgc lib`` exports them.
    exports: "Collection[str] | None" = None
    exported: list[str] = field(default_factory=list)  # the defs exported, once parsed

    def timed(self, name: str, seconds: float) -> None:
        self.times[name] = self.times.get(name, 0.0) + seconds

    def keep(self, suffix: str, content: object) -> None:
        """With ``MGC_KEEP``, write ``content`` (printed only then: printing IR is not free)."""
        if self.keep_dir:
            os.makedirs(self.keep_dir, exist_ok=True)
            stem = Path(self.path).stem or "prog"
            Path(self.keep_dir, f"{stem}.{suffix}").write_text(str(content))

    def mlir(self, stage: str = "mg", verify: bool = True) -> ModuleOp:
        """The module after ``stage`` (raises ``MgError`` for a bad program), verified unless
        not ``verify`` (and then only with ``verify_each``)."""
        start = time.perf_counter()
        program = parse_program(self.source, self.path, with_main=not self.lib)
        module, self.signatures = program.module, program.functions
        self.warnings = list(program.warnings)
        self.timed("front end", time.perf_counter() - start)
        if self.exports is not None:
            exports = entry_defs(module) if self.exports == ENTRY_DEFS else self.exports
            self.exported = export_only(module, exports)
        if self.kernels_apart:
            module.attributes[KERNELS_APART] = StringAttr(self.cpu or "")
        self.keep("mg.mlir", module)
        ctx = pipeline.context()
        stages = pipeline.stages_to(stage, self.optimise)
        if self.gpu:
            stages = self._gpu_stages(module, ctx, stage)
        for s in stages:
            pipeline.run_stage(
                module,
                s,
                ctx,
                self.timed,
                verify_result=self.verify_each or (verify and s is stages[-1]),
                target=self.target(),
            )
            self.keep(f"{s.name}.mlir", module)
        return module

    def _gpu_stages(self, module: ModuleOp, ctx, stage: str) -> tuple:
        """Run the GPU pipeline's ``gpu`` and ``host`` stages (``pipeline.GPU_STAGES``) on
        ``module``, keeping the device code (``self.gpu_modules``) and the kernels the host
        launches (``self.kernels``); the CPU stages from ``cf`` on remain to be run."""
        from xdsl.dialects import gpu  # (here, not at the top: see there)

        from mg_xdsl.backend import gpu_runtime, ptx

        if stage not in ("cf", "llvm"):
            raise ValueError(f"the GPU path starts at the cf stage, not {stage!r}")
        ctx.load_dialect(gpu.GPU)
        _, device, host, *rest = pipeline.GPU_STAGES
        pipeline.run_stage(module, device, ctx, self.timed)
        ptx.check_kernels(module)
        self.keep("gpu.mlir", module)
        self.gpu_modules = ptx.kernel_modules(module)
        pipeline.run_stage(module, host, ctx, self.timed)
        self.kernels = gpu_runtime.kernels(module)
        self.keep("host.mlir", module)
        return tuple(rest[: [s.name for s in rest].index(stage) + 1])

    def target(self):
        """The target the kernels are shaped for: ``cpu``'s, or ``None`` for this host's
        (found only if a pass asks)."""
        if self.cpu is None:
            return None
        return target(self.cpu)

    def launcher(self):
        """The launch callbacks of the compiled kernels, on ``self.gpu``'s device (after
        ``llvm_ir``); ``None`` for a CPU compilation."""
        if not self.gpu:
            return None
        from mg_xdsl.backend import gpu_runtime  # (here, not at the top: see there)

        assert self.gpu_modules is not None, "llvm_ir runs the GPU stages first"
        start = time.perf_counter()
        launcher = gpu_runtime.Launcher(gpu_runtime.device(self.gpu), self.gpu_modules, self.kernels)
        self.timed(f"kernels for the {self.gpu} device", time.perf_counter() - start)
        return launcher

    def llvm_ir(self, entry: str = "main", verify: bool = True) -> str:
        """The program's LLVM IR; its top-level statements become the function ``entry``.
        Not ``verify``: the LLVM dialect it comes from is not verified (for IR that LLVM
        compiles next: LLVM's verifier checks it, in ``jit.link`` and ``jit.optimise``)."""
        if self.backend == "mlir":
            if self.gpu:
                raise ValueError("the GPU path lowers with this project's passes only (--backend xdsl)")
            module = self.mlir("affine", verify)  # (mlir-opt-22 verifies its input itself)
            rename_entry(module, entry)
            start = time.perf_counter()
            ir = lower_with_mlir_opt(module, self.keep)
            self.timed("mlir-opt-22 + mlir-translate-22", time.perf_counter() - start)
        else:
            from mg_xdsl.backend.jit import translate  # (here, not at the top: see there)

            module = self.mlir("llvm", verify)
            rename_entry(module, entry)
            start = time.perf_counter()
            module.attributes.pop(KERNELS_APART, None)
            ir = translate(module)
            self.timed("to LLVM IR", time.perf_counter() - start)
            for symbol in kernel_library.declared(module):
                start = time.perf_counter()
                found = kernel_library.ensure(symbol, self.cpu, lambda: self.kernel_ir(symbol))
                self.timed(f"kernel {symbol.rsplit('_', 1)[0]} ({found})", time.perf_counter() - start)
        self.keep("ll", ir)
        return ir

    def kernel_ir(self, symbol: str) -> str:
        """The LLVM IR of kernel ``symbol`` alone (declared by a module whose kernels are
        apart): built as the pass that declared it would have, then lowered by the
        optimised pipeline's stages from ``affine`` on, as it would have been in the module."""
        from mg_xdsl.backend.jit import translate  # (here, not at the top: see there)

        module = BUILDERS[symbol]()
        ctx = pipeline.context()
        for s in pipeline.stages_to("llvm", optimise=True)[1:]:  # (from affine: the kernels' stage)
            pipeline.run_stage(module, s, ctx, verify_result=self.verify_each, target=self.target())
        return translate(module)

    def engine(self, level: int = 2):
        from mg_xdsl.backend.jit import Engine  # (here, not at the top: see there)

        ir = self.llvm_ir(verify=False)
        launcher = self.launcher()
        start = time.perf_counter()
        engine = Engine(ir, level, symbols=launcher and launcher.symbols(), owner=launcher, cpu=self.cpu)
        self.timed(LLVM_STEP, time.perf_counter() - start)
        self.keep("opt.ll", engine.module)
        return engine

    def jit_object(self, level: int = 2) -> bytes:
        """The program as object code for ``jit.ObjectEngine`` (what ``mgc run`` runs and
        caches): run-time library and thread pool linked in, optimised."""
        from mg_xdsl.backend.jit import jit_object_code  # (here, not at the top: see there)

        ir = self.llvm_ir(verify=False)
        start = time.perf_counter()
        module, obj = jit_object_code(ir, level, self.cpu)
        self.timed("LLVM optimise + JIT code", time.perf_counter() - start)
        self.keep("opt.ll", module)
        return obj

    def object_code(self, entry: str = "main", level: int = 2) -> bytes:
        from mg_xdsl.backend.native import object_code  # (LLVM: here, not at the top)

        ir = self.llvm_ir(entry, verify=False)
        start = time.perf_counter()
        obj = object_code(ir, level, self.cpu)
        self.timed("LLVM optimise + object code", time.perf_counter() - start)
        if self.keep_dir:
            os.makedirs(self.keep_dir, exist_ok=True)
            Path(self.keep_dir, f"{Path(self.path).stem}.o").write_bytes(obj)
        return obj

    def build(self, out: str, level: int = 2) -> None:
        """A native executable at ``out``."""
        from mg_xdsl.backend.native import link_executable  # (LLVM: here, not at the top)

        link_executable(self.object_code("mg_main", level), out)

    def library(self, out_dir: str, level: int = 2) -> tuple[Path, Path]:
        """``out_dir/STEM.o`` with every def and ``out_dir/STEM.h`` declaring them for C++."""
        assert self.lib, "a library is compiled without @main"
        stem = Path(self.path).stem or "prog"
        obj = self.object_code(level=level)  # (first: an error in the program is said first)
        if not self.signatures:  # (before anything is written: no empty library to link against)
            raise NothingToExport(
                f"{self.path} defines no function, so its library would be empty (a library "
                "holds the program's defs, not its top-level statements): nothing was written"
            )
        text = header(Path(self.path).name, stem, self.signatures.items())  # (before writing: it may refuse)
        os.makedirs(out_dir, exist_ok=True)
        obj_path, header_path = Path(out_dir, f"{stem}.o"), Path(out_dir, f"{stem}.h")
        obj_path.write_bytes(obj)
        header_path.write_text(text)
        return obj_path, header_path
