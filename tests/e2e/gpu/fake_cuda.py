"""A stand-in for cuda-python's driver module (``cuda.bindings.driver``), so that
``gpu_runtime.CudaDevice`` -- the code that drives a real GPU -- runs on machines without one.

It keeps the calling conventions of cuda-python 13.4 for the functions ``CudaDevice`` calls
(every call returns a tuple whose first item is a ``CUresult``) and models the driver's
behaviour that the launcher's correctness depends on:

- A context is current *per thread*: ``cuCtxSetCurrent`` replaces the top of the calling
  thread's context stack, ``cuCtxPushCurrent``/``cuCtxPopCurrent`` push and pop it, and each
  call that needs a context fails with ``CUDA_ERROR_INVALID_CONTEXT`` (201) in a thread
  where the device's context is not current, as the real driver does.
- Device memory is host memory the fake allocates; what it has not freed is ``memory``.
- ``cuLaunchKernel`` reads the arguments through the pointer array it is given, with the
  parameter types the PTX of ``cuModuleLoadData`` declares, and runs the kernel on an
  ``EmulatedDevice`` loaded with the same kernels (``CudaDeviceOnFake.load`` does that).
- Failures can be injected: ``fail_next[name] = CUresult`` makes the next call of ``name``
  fail with that result; ``init_error`` is raised by ``cuInit`` (as cuda-python raises when
  it cannot start on the installed driver).
"""

import ctypes
import enum
import re
import threading

from mg_xdsl.backend import gpu_emulator, gpu_runtime


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_OUT_OF_MEMORY = 2
    CUDA_ERROR_INVALID_CONTEXT = 201
    CUDA_ERROR_LAUNCH_FAILED = 719


_TEXT = {
    CUresult.CUDA_ERROR_INVALID_VALUE: b"invalid argument",
    CUresult.CUDA_ERROR_OUT_OF_MEMORY: b"out of memory",
    CUresult.CUDA_ERROR_INVALID_CONTEXT: b"invalid device context",
    CUresult.CUDA_ERROR_LAUNCH_FAILED: b"unspecified launch failure",
}


class CUdevice_attribute(enum.IntEnum):
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


class Context:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<context {self.name}>"


# PTX parameter types -> the ctypes the emulated kernels take them as.
_PARAM_TYPES = {
    "u64": ctypes.c_int64,
    "b64": ctypes.c_int64,
    "s64": ctypes.c_int64,
    "f64": ctypes.c_double,
    "u32": ctypes.c_int32,
    "b32": ctypes.c_int32,
    "s32": ctypes.c_int32,
    "f32": ctypes.c_float,
}
_ENTRY = re.compile(r"\.entry (\w+)\(([^)]*)\)")
_PARAM = re.compile(r"\.param \.(\w+)")


class FakeDriver:
    CUresult = CUresult
    CUdevice_attribute = CUdevice_attribute

    def __init__(self, capability: tuple[int, int] = (9, 0)):
        self.capability = capability
        self.primary = Context("primary")
        self._threads = threading.local()
        self.memory: dict[int, ctypes.Array] = {}
        self.freed: list[int] = []
        self.launched_in: list[str] = []  # the thread of each launch
        self.fail_next: dict[str, CUresult] = {}
        self.init_error: Exception | None = None
        self._params: dict[str, list[type]] = {}
        self._emulated = gpu_emulator.EmulatedDevice()
        self._kernels: dict[str, int] = {}

    # -- the per-thread context stack ---------------------------------------------------------
    @property
    def _stack(self) -> list:
        if not hasattr(self._threads, "stack"):
            self._threads.stack = []
        return self._threads.stack

    def _call(self, name: str, needs_context: bool = True) -> CUresult:
        """The result a call must fail with, or CUDA_SUCCESS."""
        if name in self.fail_next:
            return self.fail_next.pop(name)
        if needs_context and (not self._stack or self._stack[-1] is not self.primary):
            return CUresult.CUDA_ERROR_INVALID_CONTEXT
        return CUresult.CUDA_SUCCESS

    def cuCtxSetCurrent(self, ctx):
        if self._stack:
            self._stack.pop()
        self._stack.append(ctx)
        return (CUresult.CUDA_SUCCESS,)

    def cuCtxGetCurrent(self):
        return CUresult.CUDA_SUCCESS, (self._stack[-1] if self._stack else None)

    def cuCtxPushCurrent(self, ctx):
        self._stack.append(ctx)
        return (CUresult.CUDA_SUCCESS,)

    def cuCtxPopCurrent(self):
        if not self._stack:
            return CUresult.CUDA_ERROR_INVALID_CONTEXT, None
        return CUresult.CUDA_SUCCESS, self._stack.pop()

    # -- start-up -----------------------------------------------------------------------------
    def cuInit(self, flags):
        if self.init_error is not None:
            raise self.init_error
        return (self._call("cuInit", needs_context=False),)

    def cuGetErrorString(self, err):
        return CUresult.CUDA_SUCCESS, _TEXT.get(err, b"")

    def cuDeviceGetCount(self):
        return self._call("cuDeviceGetCount", needs_context=False), 1

    def cuDeviceGet(self, ordinal):
        return self._call("cuDeviceGet", needs_context=False), ordinal

    def cuDevicePrimaryCtxRetain(self, dev):
        return self._call("cuDevicePrimaryCtxRetain", needs_context=False), self.primary

    def cuDeviceGetAttribute(self, attr, dev):
        value = self.capability[attr != CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR]
        return self._call("cuDeviceGetAttribute", needs_context=False), value

    # -- modules and kernels ------------------------------------------------------------------
    def emulate(self, gpu_modules, names: list[str]) -> None:
        """Compile the kernels for the emulated device that ``cuLaunchKernel`` runs them on."""
        self._kernels.update(self._emulated.load(gpu_modules, names))

    def cuModuleLoadData(self, image: bytes):
        err = self._call("cuModuleLoadData")
        text = image.rstrip(b"\0").decode()
        for name, params in _ENTRY.findall(text):
            self._params[name] = [_PARAM_TYPES[t] for t in _PARAM.findall(params)]
        return err, object()

    def cuModuleGetFunction(self, module, name: bytes):
        return self._call("cuModuleGetFunction"), name.decode()

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        err = self._call("cuLaunchKernel")
        if err != CUresult.CUDA_SUCCESS:
            return (err,)
        types = self._params[function]
        pointers = (ctypes.c_void_p * max(len(types), 1)).from_address(params)
        args = [(t, t.from_address(pointers[i]).value) for i, t in enumerate(types)]
        with self._emulated.context():
            self._emulated.launch(self._kernels[function], (gx, gy, gz), (bx, by, bz), args)
        self.launched_in.append(threading.current_thread().name)
        return (err,)

    def cuCtxSynchronize(self):
        return (self._call("cuCtxSynchronize"),)

    # -- memory -------------------------------------------------------------------------------
    def cuMemAlloc(self, nbytes: int):
        err = self._call("cuMemAlloc")
        if err != CUresult.CUDA_SUCCESS:
            return err, 0
        buffer = ctypes.create_string_buffer(nbytes)
        self.memory[ctypes.addressof(buffer)] = buffer
        return err, ctypes.addressof(buffer)

    def cuMemFree(self, ptr: int):
        self.freed.append(ptr)
        err = self._call("cuMemFree")
        if err == CUresult.CUDA_SUCCESS:
            del self.memory[ptr]
        return (err,)

    def cuMemcpyHtoD(self, dst: int, src: int, nbytes: int):
        err = self._call("cuMemcpyHtoD")
        if err == CUresult.CUDA_SUCCESS:
            ctypes.memmove(dst, src, nbytes)
        return (err,)

    def cuMemcpyDtoH(self, dst: int, src: int, nbytes: int):
        err = self._call("cuMemcpyDtoH")
        if err == CUresult.CUDA_SUCCESS:
            ctypes.memmove(dst, src, nbytes)
        return (err,)


class CudaDeviceOnFake(gpu_runtime.CudaDevice):
    """``CudaDevice`` driving a ``FakeDriver``, which also gets the kernels to emulate."""

    def load(self, gpu_modules, names):
        self.cu.emulate(gpu_modules, names)
        return super().load(gpu_modules, names)
