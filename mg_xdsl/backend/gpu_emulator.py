"""An emulated GPU: the program's kernels compiled for the CPU and run one thread at a time.

It implements the device interface of ``mg_xdsl.backend.gpu_runtime`` (``load``, ``alloc``,
``free``, ``to_device``, ``to_host``, ``launch``) so that everything ``mgc run --gpu`` does on
the host -- the launch calls, grid and block sizes, the descriptor fields, copying buffers in
and back -- runs and is tested on a machine without a GPU. ``mgc run --gpu=emulated`` uses it.

The kernels are the same LLVM IR that becomes PTX (``ptx.kernel_ir``), retargeted: the
NVVM special-register reads (``llvm.nvvm.read.ptx.sreg.tid.x`` and the like) become calls to
small functions that read globals, which ``launch`` sets before it calls the kernel once for
every thread of every block; the libdevice functions a kernel calls (``__nv_expf``) are the
LLVM intrinsics the CPU pipeline calls (``llvm.exp.f32``). "Device memory" is host memory the emulator allocates itself,
so a kernel that touched a host pointer instead of the copy it was given would be caught by
the tests (the result would not be copied back).

Those globals are the emulated GPU's only "threads", so one launch runs at a time: ``context``,
which ``Launcher`` enters around each launch (where a real GPU makes its context current),
holds a lock, and programs called from several Python threads take turns.
"""

import ctypes
import itertools
import re
import threading

import llvmlite.binding as llvm
from xdsl.dialects import builtin

from mg_xdsl.backend import jit
from mg_xdsl.backend.ptx import kernel_ir

# The special registers a kernel may read: thread id, block id, block size, grid size.
_REGISTERS = ("tid", "ctaid", "ntid", "nctaid")
_AXES = ("x", "y", "z")
_SREG = re.compile(r'@"?llvm\.nvvm\.read\.ptx\.sreg\.(tid|ctaid|ntid|nctaid)\.([xyz])"?')


def _register_module() -> str:
    """LLVM IR defining, for every special register, a global and a function reading it."""
    lines = []
    for reg, axis in itertools.product(_REGISTERS, _AXES):
        lines += [
            f"@mgemu_{reg}_{axis}_value = global i32 0",
            f"define i32 @mgemu_{reg}_{axis}() {{",
            f"  %v = load i32, ptr @mgemu_{reg}_{axis}_value",
            "  ret i32 %v",
            "}",
        ]
    return "\n".join(lines) + "\n"


# What each libdevice function computes (CUDA's libdevice user's guide), as the LLVM intrinsic
# of the same function, with its number of operands: the emulator's own table, so that a
# kernel calling the wrong libdevice function computes the wrong values here too.
LIBDEVICE_AS_INTRINSICS = {
    "__nv_exp": ("llvm.exp", 1),
    "__nv_log": ("llvm.log", 1),
    "__nv_sin": ("llvm.sin", 1),
    "__nv_cos": ("llvm.cos", 1),
    "__nv_tanh": ("llvm.tanh", 1),
    "__nv_acos": ("llvm.acos", 1),
    "__nv_asin": ("llvm.asin", 1),
    "__nv_atan2": ("llvm.atan2", 2),
    "__nv_pow": ("llvm.pow", 2),
}


def _libdevice_module(kernels: str) -> str:
    """LLVM IR defining each libdevice function the kernels call (``__nv_expf``) as the LLVM
    intrinsic of that function (``llvm.exp.f32``)."""
    lines = []
    for base, (intrinsic, arity) in LIBDEVICE_AS_INTRINSICS.items():
        for name, t, suffix in ((base, "double", "f64"), (base + "f", "float", "f32")):
            if f"@{name}(" in kernels:
                params = ", ".join(f"{t} %x{i}" for i in range(arity))
                lines += [
                    f"define {t} @{name}({params}) {{",
                    f"  %r = call {t} @{intrinsic}.{suffix}({params})",
                    f"  ret {t} %r",
                    "}",
                ]
    return "\n".join(lines) + "\n"


def cpu_kernel_ir(gpu_modules: builtin.ModuleOp) -> str:
    """The kernels' LLVM IR, for the host instead of ``nvptx64-nvidia-cuda``."""
    text = kernel_ir(gpu_modules)
    text = _SREG.sub(lambda m: f"@mgemu_{m[1]}_{m[2]}", text)
    text = text.replace("define ptx_kernel ", "define ")
    return "\n".join(line for line in text.splitlines() if not line.startswith(("target triple", "target datalayout")))


class EmulatedDevice:
    def __init__(self):
        self._buffers: dict[int, ctypes.Array] = {}
        self._engines = []
        self._turn = threading.RLock()

    def context(self):
        return self._turn

    def load(self, gpu_modules: builtin.ModuleOp, names: list[str]) -> dict[str, int]:
        module = llvm.parse_assembly(cpu_kernel_ir(gpu_modules))
        module.link_in(llvm.parse_assembly(_register_module()))
        module.link_in(llvm.parse_assembly(_libdevice_module(str(module))))
        engine = llvm.create_mcjit_compiler(jit.optimise(module), jit.target_machine())
        engine.finalize_object()
        self._engines.append(engine)  # the kernels' code lives as long as the engine
        self._registers = {
            (reg, axis): ctypes.c_int32.from_address(engine.get_global_value_address(f"mgemu_{reg}_{axis}_value"))
            for reg, axis in itertools.product(_REGISTERS, _AXES)
        }
        return {n: engine.get_function_address(n) for n in names}

    def alloc(self, nbytes: int) -> int:
        buffer = ctypes.create_string_buffer(nbytes)
        address = ctypes.addressof(buffer)
        self._buffers[address] = buffer
        return address

    def free(self, ptr: int) -> None:
        del self._buffers[ptr]

    def to_device(self, dst: int, src: int, nbytes: int) -> None:
        ctypes.memmove(dst, src, nbytes)

    def to_host(self, dst: int, src: int, nbytes: int) -> None:
        ctypes.memmove(dst, src, nbytes)

    def launch(self, function: int, grid, block, args) -> None:
        kernel = ctypes.CFUNCTYPE(None, *[ctype for ctype, _ in args])(function)
        values = [v for _, v in args]
        regs = self._registers
        for axis, n in zip(_AXES, grid):
            regs["nctaid", axis].value = n
        for axis, n in zip(_AXES, block):
            regs["ntid", axis].value = n
        for bz, by, bx in itertools.product(*(range(n) for n in reversed(grid))):
            for axis, v in zip(_AXES, (bx, by, bz)):
                regs["ctaid", axis].value = v
            for tz, ty, tx in itertools.product(*(range(n) for n in reversed(block))):
                for axis, v in zip(_AXES, (tx, ty, tz)):
                    regs["tid", axis].value = v
                kernel(*values)
