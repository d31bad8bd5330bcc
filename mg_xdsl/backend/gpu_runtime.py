"""The host side of ``mgc run --gpu``: launching the program's kernels on a device.

``gpu-to-runtime-calls`` leaves one call per kernel launch in the host code, to a function
``mgrt_launch_<kernel>(gx, gy, gz, bx, by, bz, <the kernel's arguments>) -> i32``. This module
binds each of them to a ctypes callback (``Launcher.symbols``) that, when the compiled host
code calls it,

1. gives every distinct buffer among the arguments a device buffer and copies it there
   (memref arguments arrive as the fields of their descriptors: allocated and aligned
   pointer, offset, sizes, strides; both pointers are replaced by the device pointer),
2. launches the kernel on the grid and blocks the host code computed, and waits,
3. copies back the buffers the kernel writes (``mg.gpu_written`` on the declaration: never a
   constant global, which may live in read-only memory) and frees the device buffers.

A failure (no device, a bad launch) is reported on stderr and the callback returns 1, which
the host code's ``cf.assert`` turns into the usual run-time check failure. The device buffers
are freed whatever happens, and the first failure is the one reported.

The callbacks run in whichever Python thread calls the compiled code, which need not be the
thread that created the device: a CUDA context is current per thread, so every launch makes
the device's context current around its own work (``device.context()``). Copying every
buffer in and out around every launch is the simplest correct protocol; keeping buffers on
the device between launches is a speed-up left for later.

Two devices implement the same small interface (``context``, ``load``, ``alloc``, ``free``,
``to_device``, ``to_host``, ``launch``): ``CudaDevice`` drives an NVIDIA GPU through
cuda-python's driver API (PTX compiled for the GPU's own architecture), and
``mg_xdsl.backend.gpu_emulator``'s
``EmulatedDevice`` runs the same kernels compiled for the CPU, one thread at a time, so that
this protocol is tested on machines without a GPU.
"""

import contextlib
import ctypes
import sys
import threading
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import builtin
from xdsl.dialects.builtin import MemRefType

from mg_xdsl.core import element_types

# The GPU compiler (ptx, gpu-to-runtime-calls, the emulator) and cuda-python are imported by
# the functions that use them, not here: mg_xdsl.api imports this module for ``GpuError``
# whether or not a GPU is used.


class GpuError(RuntimeError):
    """The device could not be used, or it failed to run a kernel."""


def _add_note(error: BaseException, note: str) -> None:
    """``error.add_note(note)`` (Python 3.11), written as 3.11 does on 3.10: the traceback
    of 3.10 does not print notes, but ``__notes__`` still carries them."""
    if sys.version_info >= (3, 11):
        error.add_note(note)
    else:
        setattr(error, "__notes__", [*getattr(error, "__notes__", ()), note])  # (undeclared before 3.11)


@dataclass(frozen=True)
class Param:
    """One kernel argument: a memref (its rank and element size) or a scalar (its ctype)."""

    rank: int | None
    element_size: int = 8
    scalar: type = ctypes.c_int64
    written: bool = False

    @property
    def slots(self) -> list[type]:
        """The ctypes of the argument's fields, as the kernel (and the host call) take them."""
        if self.rank is None:
            return [self.scalar]
        return [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * self.rank)


@dataclass(frozen=True)
class Kernel:
    symbol: str  # the host-side launch function, mgrt_launch_...
    name: str  # the kernel's name in the device code
    params: tuple[Param, ...]


def _param(t, written: bool) -> Param:
    if isinstance(t, MemRefType):
        return Param(len(t.get_shape()), element_types.byte_size(t), written=written)
    if t in element_types.RECORD_OF:
        return Param(None, scalar=getattr(ctypes, element_types.RECORD_OF[t].ctype))
    return Param(None)  # index


def kernels(host: builtin.ModuleOp) -> list[Kernel]:
    """The kernels the host module launches, from the declarations ``gpu-to-runtime-calls`` made."""
    from mg_xdsl.conversions.gpu.gpu_to_runtime_calls import KERNEL_ATTR, WRITTEN_ATTR, launches  # (see the top)

    out = []
    for symbol, decl in launches(host).items():
        written_attr = decl.attributes.get(WRITTEN_ATTR)
        assert written_attr is None or isinstance(written_attr, builtin.DenseArrayBase), written_attr
        written = set(written_attr.get_values()) if written_attr is not None else set()
        inputs = decl.function_type.inputs.data[6:]
        kernel = decl.attributes[KERNEL_ATTR]
        assert isinstance(kernel, builtin.SymbolRefAttr), kernel
        name = kernel.nested_references.data[-1].data
        out.append(Kernel(symbol, name, tuple(_param(t, i in written) for i, t in enumerate(inputs))))
    return out


def _extent(sizes, strides, offset: int) -> int:
    """Elements from the aligned pointer to one past the last one the memref can reach."""
    if not all(sizes):
        return 0
    return offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1


class Launcher:
    """The launch callbacks of one compiled program, bound to ``device``."""

    def __init__(self, device, gpu_modules: builtin.ModuleOp, kernel_list: list[Kernel]):
        self.device = device
        self.kernels = kernel_list
        self.functions = device.load(gpu_modules, [k.name for k in kernel_list])
        self._callbacks = {}
        for k in kernel_list:
            proto = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_int64] * 6, *[s for p in k.params for s in p.slots])
            self._callbacks[k.symbol] = proto(self._callback(k))

    def symbols(self) -> dict[str, int]:
        """Launch symbol -> address of its callback, for the JIT to resolve the host code's calls."""
        return {name: ctypes.cast(cb, ctypes.c_void_p).value or 0 for name, cb in self._callbacks.items()}

    def _callback(self, kernel: Kernel):
        def launch(*slots) -> int:
            try:
                self.launch(kernel, slots)
                return 0
            except Exception as e:  # it must not unwind through compiled code
                also = "".join(f"\nmgc: (also: {n})" for n in getattr(e, "__notes__", ()))
                print(f"mgc: error: GPU: kernel {kernel.name}: {e}{also}", file=sys.stderr, flush=True)
                return 1

        return launch

    def launch(self, kernel: Kernel, slots) -> None:
        grid, block = tuple(slots[0:3]), tuple(slots[3:6])
        if 0 in grid or 0 in block:
            return  # an empty iteration space (a `?` size of 0): nothing to run
        dev = self.device
        # Distinct host buffers -> (bytes, written); two arguments may be views of one buffer.
        buffers: dict[int, list] = {}
        args: list[tuple[type, object]] = []
        refs = []
        i = 6
        for p in kernel.params:
            n = len(p.slots)
            fields = slots[i : i + n]
            i += n
            if p.rank is None:
                args.append((p.scalar, fields[0]))
                continue
            aligned, offset = fields[1] or 0, fields[2]
            sizes, strides = fields[3 : 3 + p.rank], fields[3 + p.rank :]
            nbytes = _extent(sizes, strides, offset) * p.element_size
            entry = buffers.setdefault(aligned, [0, False])
            entry[0], entry[1] = max(entry[0], nbytes), entry[1] or p.written
            refs.append((len(args), aligned))
            args.extend(
                [
                    (ctypes.c_void_p, 0),
                    (ctypes.c_void_p, 0),
                    (ctypes.c_int64, offset),
                    *[(ctypes.c_int64, v) for v in (*sizes, *strides)],
                ]
            )
        with dev.context():
            self._run(kernel, grid, block, args, refs, buffers)

    def _run(self, kernel: Kernel, grid, block, args, refs, buffers: dict[int, list]) -> None:
        """Copy in, launch, copy back; then free every device buffer, even after a failure."""
        dev = self.device
        device_ptr: dict[int, int] = {}
        errors: list[Exception] = []
        try:
            for host, (nbytes, _) in buffers.items():
                device_ptr[host] = dev.alloc(nbytes) if nbytes and host else 0
                if device_ptr[host]:
                    dev.to_device(device_ptr[host], host, nbytes)
            for at, host in refs:
                args[at] = args[at + 1] = (ctypes.c_void_p, device_ptr[host])
            dev.launch(self.functions[kernel.name], grid, block, args)
            for host, (nbytes, written) in buffers.items():
                if written and device_ptr[host]:
                    dev.to_host(host, device_ptr[host], nbytes)
        except Exception as e:
            errors.append(e)
        finally:
            # One failed free must not leak the other buffers, nor hide why the launch failed.
            for d in device_ptr.values():
                if d:
                    try:
                        dev.free(d)
                    except Exception as e:
                        errors.append(e)
        if errors:
            first = errors[0]
            for later in errors[1:]:
                _add_note(first, str(later))
            raise first


class CudaDevice:
    """GPU 0 through cuda-python's driver API (``cuda.bindings.driver``), in its primary context.

    ``driver`` is that module; tests pass a stand-in with the same functions."""

    def __init__(self, driver=None):
        if driver is None:
            try:
                import cuda.bindings.driver as driver  # (see the top)
            except ImportError as e:
                raise GpuError("cuda-python is not installed (pip install 'mg-xdsl[gpu]')") from e
        self.cu = driver
        try:
            self._check("cuInit", driver.cuInit(0))
        except Exception as e:
            # cuda-python 13 cannot even start on a driver older than 580 (it needs
            # cuGetProcAddress_v2): say so, rather than let it look like there is no GPU.
            too_old = driver_too_old()
            if too_old:
                raise GpuError(too_old) from e
            if isinstance(e, GpuError):
                raise
            raise GpuError(f"the NVIDIA driver cannot be loaded: {e}") from e
        if not self._check("cuDeviceGetCount", driver.cuDeviceGetCount()):
            raise GpuError("the NVIDIA driver sees no GPU")
        self.dev = self._check("cuDeviceGet", driver.cuDeviceGet(0))
        # Retained, not made current: a context is current per thread, and the thread that
        # launches may be another one (see ``context``).
        self.ctx = self._check("cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain(self.dev))
        attr = driver.CUdevice_attribute
        major = self._check(
            "cuDeviceGetAttribute",
            driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev),
        )
        minor = self._check(
            "cuDeviceGetAttribute",
            driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev),
        )
        self.arch = ptx_arch(major, minor)
        self._modules = []

    def _check(self, what: str, result) -> Any:
        """The one value a driver call returned with its status (a handle or a number, as
        the call gives it), or None for a call that returns only its status; raises
        ``GpuError`` for a failed call."""
        err, *values = result if isinstance(result, tuple) else (result,)
        if err != self.cu.CUresult.CUDA_SUCCESS:
            _, text = self.cu.cuGetErrorString(err)
            raise GpuError(f"{what} failed: {text.decode() if text else err}")
        return values[0] if len(values) == 1 else None

    @contextlib.contextmanager
    def context(self):
        """The device's context, current in this thread while the block runs.

        Pushed and popped rather than set, so that whatever context the calling thread had
        current (another library's, say) is current again afterwards."""
        self._check("cuCtxPushCurrent", self.cu.cuCtxPushCurrent(self.ctx))
        try:
            yield
        except BaseException:
            self.cu.cuCtxPopCurrent()  # the block's error is the one to report
            raise
        self._check("cuCtxPopCurrent", self.cu.cuCtxPopCurrent())

    def load(self, gpu_modules: builtin.ModuleOp, names: list[str]) -> dict[str, object]:
        from mg_xdsl.backend.ptx import ptx  # (see the top)

        text = ptx(gpu_modules, self.arch)
        with self.context():
            module = self._check("cuModuleLoadData", self.cu.cuModuleLoadData(text.encode() + b"\0"))
            self._modules.append(module)
            return {
                n: self._check(f"cuModuleGetFunction({n})", self.cu.cuModuleGetFunction(module, n.encode()))
                for n in names
            }

    # The rest run inside ``context()`` (``Launcher.launch`` enters it around each launch).

    def alloc(self, nbytes: int) -> int:
        return int(self._check("cuMemAlloc", self.cu.cuMemAlloc(nbytes)))

    def free(self, ptr: int) -> None:
        self._check("cuMemFree", self.cu.cuMemFree(ptr))

    def to_device(self, dst: int, src: int, nbytes: int) -> None:
        self._check("cuMemcpyHtoD", self.cu.cuMemcpyHtoD(dst, src, nbytes))

    def to_host(self, dst: int, src: int, nbytes: int) -> None:
        self._check("cuMemcpyDtoH", self.cu.cuMemcpyDtoH(dst, src, nbytes))

    def launch(self, function, grid, block, args) -> None:
        # cuLaunchKernel takes an array of pointers, one to each argument's value.
        values = [ctype(v) for ctype, v in args]
        pointers = (ctypes.c_void_p * max(len(values), 1))(*[ctypes.addressof(v) for v in values])
        self._check(
            "cuLaunchKernel", self.cu.cuLaunchKernel(function, *grid, *block, 0, 0, ctypes.addressof(pointers), 0)
        )
        self._check("cuCtxSynchronize", self.cu.cuCtxSynchronize())


# The oldest NVIDIA driver each major version of cuda-python runs on (the CUDA version it
# must report, and its own version number, which is what users see in nvidia-smi).
_DRIVER_FOR_BINDINGS = {12: (12000, "525"), 13: (13000, "580")}


def bindings_version() -> str | None:
    """The installed cuda-python bindings' version (``cuda.bindings.__version__``), if any."""
    try:
        from cuda import bindings  # (see the top)
    except ImportError:
        return None
    return getattr(bindings, "__version__", None)


def installed_driver() -> tuple[int, str | None] | None:
    """The NVIDIA driver's CUDA version (``cuDriverGetVersion``: 12040 is CUDA 12.4) and its
    own version (``550.54.15``, if the kernel module says), asked without cuda-python, which
    may be the thing that cannot start; ``None`` if no driver can be loaded."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    version = ctypes.c_int(0)
    if lib.cuDriverGetVersion(ctypes.byref(version)) != 0:
        return None
    try:
        with open("/sys/module/nvidia/version") as f:
            own = f.read().strip() or None
    except OSError:
        own = None
    return version.value, own


def driver_too_old() -> str | None:
    """Why the installed driver is too old for the installed cuda-python, or ``None``."""
    bindings, driver = bindings_version(), installed_driver()
    if bindings is None or driver is None:
        return None
    major = int(bindings.split(".")[0])
    if major not in _DRIVER_FOR_BINDINGS:
        return None
    needs_cuda, needs = _DRIVER_FOR_BINDINGS[major]
    cuda, own = driver
    if cuda >= needs_cuda:
        return None
    cuda_text = f"CUDA {cuda // 1000}.{cuda % 1000 // 10}"
    which = f"version {own}, {cuda_text}" if own else cuda_text
    advice = (
        f"install 'cuda-python<{major}' or update the driver"
        if major > min(_DRIVER_FOR_BINDINGS)
        else "update the driver"
    )
    return f"the NVIDIA driver ({which}) is too old for cuda-python {major} (needs {needs} or newer); {advice}"


# The architectures llvmlite's NVPTX back end knows up to; newer GPUs JIT-compile its PTX.
_NEWEST_ARCH = (9, 0)


def ptx_arch(major: int, minor: int) -> str:
    """The architecture to compile for, for a GPU of compute capability ``major.minor``."""
    from mg_xdsl.backend.ptx import GPU_ARCHS  # (see the top)

    arch = "sm_{}{}".format(*min((major, minor), _NEWEST_ARCH))
    if arch not in GPU_ARCHS:
        raise GpuError(
            f"this GPU (compute capability {major}.{minor}) is older than the oldest "
            f"architecture PTX is made for ({GPU_ARCHS[0]})"
        )
    return arch


_cuda_device: CudaDevice | None = None
_cuda_device_lock = threading.Lock()


def cuda_device() -> CudaDevice:
    """The process's one CUDA device (raises ``GpuError`` if there is none), made by the
    first thread that asks; a failure is not remembered, so a later call tries again."""
    global _cuda_device
    with _cuda_device_lock:
        if _cuda_device is None:
            _cuda_device = CudaDevice()
        return _cuda_device


def device(kind: str):
    """``cuda`` (an NVIDIA GPU) or ``emulated`` (the kernels run on the CPU)."""
    if kind == "cuda":
        return cuda_device()
    if kind == "emulated":
        from mg_xdsl.backend.gpu_emulator import EmulatedDevice  # (see the top)

        return EmulatedDevice()
    raise ValueError(f"unknown GPU device {kind!r} (choose cuda or emulated)")


def cuda_available() -> tuple[bool, str]:
    """Whether a CUDA GPU can be used here, and if not, why."""
    try:
        cuda_device()
        return True, "ok"
    except GpuError as e:
        return False, str(e)
