"""The GPU back end (compile only): mg source -> kernels in the LLVM dialect -> PTX.

``compile_ptx`` runs the front end and the GPU pipeline (``pipeline.GPU_STAGES``): affine loop nests,
``affine-parallelize``, ``lower-affine`` (``affine.parallel`` -> ``scf.parallel``),
``convert-parallel-loops-to-gpu`` (256 threads a block, ``ceil(total / 256)`` blocks),
``gpu-kernel-outlining`` and ``convert-gpu-to-nvvm``. ``ptx`` translates the kernels of every
``gpu.module`` to LLVM IR for ``nvptx64-nvidia-cuda`` (xDSL's ``convert_module``, then each
kernel given the ``ptx_kernel`` calling convention, which ``convert_module`` drops) and emits
PTX with llvmlite's NVPTX target, with CUDA's libdevice linked in where a kernel calls one of
its math functions (``find_libdevice``). ``ptxas_check`` assembles PTX with NVIDIA's ``ptxas``
(from the ``nvidia-cuda-nvcc`` package, the ``gpu`` extra, or ``PATH``). Host code (the
``gpu.launch_func`` side) is not compiled here.
"""

import os
import re
import shutil
import subprocess
import tempfile
from functools import cache

from xdsl.context import Context
from xdsl.dialects import builtin, gpu, llvm as llvm_d
from xdsl.ir import Block, Region
from xdsl.parser import Parser

from mg_xdsl.language.frontend import parse_program
from mg_xdsl.pipeline.stages import GPU_STAGES, PipelineError, context, run_stage

# llvmlite, xDSL's LLVM IR translation and this project's LLVM IR printer are imported by the
# functions that make PTX, not here: mgc imports this module for its exceptions whenever it
# reports an error.

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = "e-p:64:64:64-i64:64-i128:128-v16:16-v32:32-n16:32:64"

# The architectures ``ptx`` compiles for: those LLVM's NVPTX back end (llvmlite's LLVM 22)
# knows, from Maxwell on. LLVM only warns about a name it does not know, and then emits PTX
# for that name anyway, so the name is checked here first. (ptxas from CUDA 13 assembles
# sm_75 and newer, and knows sm_101 as sm_110.)
GPU_ARCHS = (
    "sm_50",
    "sm_52",
    "sm_53",
    "sm_60",
    "sm_61",
    "sm_62",
    "sm_70",
    "sm_72",
    "sm_75",
    "sm_80",
    "sm_86",
    "sm_87",
    "sm_88",
    "sm_89",
    "sm_90",
    "sm_90a",
    "sm_100",
    "sm_100a",
    "sm_101",
    "sm_101a",
    "sm_103",
    "sm_103a",
    "sm_110",
    "sm_110a",
    "sm_120",
    "sm_120a",
    "sm_121",
    "sm_121a",
)


class UnknownGpuArch(ValueError):
    """An architecture name that is not in ``GPU_ARCHS``."""


def check_arch(arch: str) -> None:
    """Raise ``UnknownGpuArch`` unless ``arch`` is one of ``GPU_ARCHS``."""
    if arch not in GPU_ARCHS:
        raise UnknownGpuArch(f"unknown GPU architecture {arch!r} (known: {', '.join(GPU_ARCHS)})")


def _features(arch: str) -> str:
    return "+ptx80" if arch.startswith("sm_9") else ""


def _parse(text: str) -> builtin.ModuleOp:
    ctx: Context = context()
    ctx.load_dialect(gpu.GPU)
    return Parser(ctx, text).parse_module()


def kernel_ir(module: builtin.ModuleOp | gpu.ModuleOp | str) -> str:
    """LLVM IR text of every kernel function in the ``gpu.module`` ops of ``module``."""
    from xdsl.backend.llvm.convert import convert_module  # (here, not at the top: see there)

    from mg_xdsl.backend.llvm_ir import Unsupported, print_module

    if isinstance(module, str):
        module = _parse(module)
    gmods = [module] if isinstance(module, gpu.ModuleOp) else [o for o in module.walk() if isinstance(o, gpu.ModuleOp)]
    funcs, declared = [], set()
    for f in (f for g in gmods for f in g.body.block.ops if isinstance(f, llvm_d.FuncOp)):
        if not f.body.blocks:  # a declaration (of a libdevice function): once for all modules
            if f.sym_name.data in declared:
                continue
            declared.add(f.sym_name.data)
        funcs.append(f.clone())
    kernels = [f.sym_name.data for f in funcs if "nvvm.kernel" in f.attributes or "gpu.kernel" in f.attributes]
    for f in funcs:  # (what they said is the kernels' calling convention, set below)
        for key in ("gpu.kernel", "nvvm.kernel"):
            f.attributes.pop(key, None)
    holder = builtin.ModuleOp(Region(Block(funcs)))
    try:  # the project's printer (it knows bf16, which xDSL's translation does not)
        text = print_module(holder, TRIPLE)
        for name in kernels:
            text = re.sub(
                rf"^define ([^@]*)@{re.escape(name)}\(", rf"define ptx_kernel \1@{name}(", text, count=1, flags=re.M
            )
        return f'target datalayout = "{DATA_LAYOUT}"\n' + text
    except Unsupported:
        pass
    ir_mod = convert_module(holder, fallback_target_triple=TRIPLE)
    ir_mod.triple = TRIPLE
    ir_mod.data_layout = DATA_LAYOUT
    for f in ir_mod.functions:
        if f.name in kernels:
            f.calling_convention = "ptx_kernel"
    return str(ir_mod)


@cache
def _init() -> None:
    import llvmlite.binding as llvm  # (here, not at the top: see there)

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def ptx(module: builtin.ModuleOp | gpu.ModuleOp | str, arch: str = "sm_80") -> str:
    """PTX for the kernels of ``module`` (an op, or its text in the LLVM/gpu dialects);
    ``UnknownGpuArch`` if ``arch`` is not one of ``GPU_ARCHS``."""
    import llvmlite.binding as llvm  # (here, not at the top: see there)

    check_arch(arch)
    _init()
    mod = llvm.parse_assembly(kernel_ir(module))
    mod.verify()
    link_libdevice(mod)
    return _target_machine(arch).emit_assembly(mod)


def _target_machine(arch: str):
    import llvmlite.binding as llvm  # (here, not at the top: see there)

    _init()
    return llvm.Target.from_triple(TRIPLE).create_target_machine(cpu=arch, features=_features(arch), opt=2)


def gpu_stage():
    """The GPU pipeline's first stage (``pipeline.GPU_STAGES``): from the mg dialect to host
    code that launches kernels, and ``gpu.module`` ops whose kernels are in the LLVM dialect."""
    return GPU_STAGES[1]


def check_kernels(module: builtin.ModuleOp) -> None:
    """Every op inside a kernel module must be in the LLVM dialect by now."""
    for g in module.walk():
        if isinstance(g, gpu.ModuleOp):
            for op in g.walk():
                if op is not g and not op.name.startswith("llvm."):
                    raise PipelineError(f"'{op.name}' is left in a kernel after {gpu_stage().passes[-1]}")


def kernel_modules(module: builtin.ModuleOp) -> builtin.ModuleOp:
    """A module holding copies of the ``gpu.module`` ops of ``module`` (the device code)."""
    return builtin.ModuleOp(Region(Block([g.clone() for g in module.body.block.ops if isinstance(g, gpu.ModuleOp)])))


def gpu_module(source: bytes | str, path: str = "<input>") -> builtin.ModuleOp:
    """The front end and the GPU stage: a module whose kernels are in the LLVM dialect."""
    module = parse_program(source, path).module
    ctx = context()
    ctx.load_dialect(gpu.GPU)
    run_stage(module, gpu_stage(), ctx)
    check_kernels(module)
    return module


def compile_ptx(source: bytes | str, path: str = "<input>", arch: str = "sm_80") -> str:
    """PTX for every kernel of an mg program (empty module text if it has no loops);
    ``UnknownGpuArch`` if ``arch`` is not one of ``GPU_ARCHS``."""
    check_arch(arch)  # before the pipeline runs: the name is wrong whatever the program
    return ptx(gpu_module(source, path), arch)


def _in_cuda_wheel(*parts: str) -> str | None:
    """A file of NVIDIA's CUDA wheels (``nvidia/cuda_nvcc/...`` up to CUDA 12,
    ``nvidia/cu13/...`` from 13), if one is installed."""
    try:
        import nvidia  # (an optional package: the gpu extra's)
    except ImportError:
        return None
    for root in nvidia.__path__:
        for sub in ("cuda_nvcc", "cu13", "cu12"):
            candidate = os.path.join(root, sub, *parts)
            if os.path.exists(candidate):
                return candidate
    return None


def find_ptxas() -> str | None:
    """ptxas from the nvidia-cuda-nvcc wheel, else from ``PATH``."""
    found = _in_cuda_wheel("bin", "ptxas")
    return found if found and os.access(found, os.X_OK) else shutil.which("ptxas")


def find_libdevice() -> str | None:
    """CUDA's libdevice (``libdevice.10.bc``): from the nvidia-cuda-nvcc wheel, else from the
    CUDA toolkit at ``$CUDA_HOME`` or ``/usr/local/cuda``."""
    found = _in_cuda_wheel("nvvm", "libdevice", "libdevice.10.bc")
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if found is None and home:
            candidate = os.path.join(home, "nvvm", "libdevice", "libdevice.10.bc")
            found = candidate if os.path.exists(candidate) else None
    return found


class LibdeviceMissing(RuntimeError):
    """A kernel calls a libdevice function and no libdevice is installed."""


def link_libdevice(mod) -> None:
    """Link CUDA's libdevice into ``mod`` (an llvmlite module) if its kernels call one of its
    functions (``__nv_exp``...): only those functions are kept (the others are made internal
    and dropped), and the NVPTX back end resolves libdevice's ``__nvvm_reflect`` queries."""
    import llvmlite.binding as llvm  # (here, not at the top: see there)

    called = sorted(f.name for f in mod.functions if f.is_declaration and f.name.startswith("__nv_"))
    if not called:
        return
    path = find_libdevice()
    if path is None:
        raise LibdeviceMissing(
            f"the kernels call {', '.join(called)} of CUDA's libdevice, which is not installed "
            "(pip install nvidia-cuda-nvcc, or set CUDA_HOME to a CUDA toolkit)"
        )
    with open(path, "rb") as f:
        library = llvm.parse_bitcode(f.read())
    library.triple, library.data_layout = TRIPLE, DATA_LAYOUT
    mod.link_in(library)
    for f in mod.functions:
        if f.name.startswith("__nv_") and not f.is_declaration:
            f.linkage = "internal"
    drop_unused = llvm.create_new_module_pass_manager()
    drop_unused.add_global_dead_code_eliminate_pass()
    drop_unused.run(mod, llvm.create_pass_builder(_target_machine("sm_80"), llvm.create_pipeline_tuning_options()))


def ptxas_check(ptx_text: str, arch: str = "sm_80") -> tuple[bool, str]:
    """Assemble ``ptx_text`` with ``ptxas -arch=ARCH``; (ok, ptxas's messages)."""
    exe = find_ptxas()
    if exe is None:
        return False, "ptxas not found (pip install nvidia-cuda-nvcc, or put ptxas on PATH)"
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx_text)
        r = subprocess.run([exe, f"-arch={arch}", src, "-o", out], capture_output=True, text=True)
        return r.returncode == 0, (r.stdout + r.stderr).strip()
