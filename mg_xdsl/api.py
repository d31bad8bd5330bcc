"""The Python API: Mountain Goat functions as Python callables on NumPy arrays.

    >>> import mg_xdsl, numpy as np
    >>> lib = mg_xdsl.compile("def layer(x: tensor[?x3], w: tensor[3x2]) = relu(x @ w)")
    >>> lib.layer(np.ones((4, 3)), np.eye(3, 2))          # a (4, 2) float64 array

Each ``def`` becomes a method of the returned ``Library``. Arguments are converted to
C-contiguous float64 matrices; their sizes are checked against the parameters' static sizes
before the call (``ShapeMismatch``, a ``ValueError``); a run-time check that fails inside
the compiled code raises ``RuntimeCheckFailed`` with the message ``mgc run`` would print, and
the interpreter carries on. With ``compile(..., gpu=True)`` the parallel loop nests run
as kernels on an NVIDIA GPU (``gpu="emulated"``: on the CPU, through the same launch path).
Results are NumPy arrays that own the buffer the compiled code
allocated (it is freed when the array is). Compilation is cached per source text.
"""

import ctypes
import weakref
from functools import lru_cache

import numpy as np

from mg_xdsl.backend.gpu_runtime import GpuError
from mg_xdsl.frontend import MgError, Signature
from mg_xdsl.shapes import fmt_shape

__all__ = ["compile", "compile_file", "Library", "ShapeMismatch", "RuntimeCheckFailed", "MgError", "GpuError"]


class ShapeMismatch(ValueError):
    """An argument's shape cannot match its parameter's."""


class RuntimeCheckFailed(RuntimeError):
    """A run-time shape check failed inside compiled code."""


class Descriptor(ctypes.Structure):
    """Upstream MLIR's descriptor of a rank-2 memref of f64."""

    _fields_ = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
        ("sizes", ctypes.c_int64 * 2),
        ("strides", ctypes.c_int64 * 2),
    ]


_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


def _take(d: Descriptor) -> np.ndarray:
    """A NumPy array over a buffer the compiled code returned; freeing it when the array
    (and every view of it) is gone."""
    rows, cols = d.sizes[0], d.sizes[1]
    count = rows * cols
    if count == 0:
        _libc.free(d.allocated)
        return np.empty((rows, cols))
    buffer = (ctypes.c_double * count).from_address(d.aligned + 8 * d.offset)
    weakref.finalize(buffer, _libc.free, d.allocated)
    return np.frombuffer(buffer, dtype=np.float64).reshape(rows, cols)


class Function:
    """One compiled ``def``, called with NumPy arrays (or anything ``np.asarray`` takes)."""

    def __init__(self, library: "Library", name: str, sig: Signature):
        self.name, self.signature, self._library = name, sig, library
        nargs = len(sig.params)
        proto = ctypes.CFUNCTYPE(ctypes.c_int32, *([ctypes.POINTER(Descriptor)] * (nargs + 1)))
        self._call = proto(library._engine.address(f"mgrt_guarded_{name}"))
        self.__doc__ = f"{name}(" + ", ".join(f"{p}: {fmt_shape(s)}" for p, s in sig.params) + \
            f") -> {fmt_shape(sig.result)}"

    def __repr__(self) -> str:
        return f"<mg function {self.__doc__}>"

    def _argument(self, i: int, value, pname: str, pshape) -> tuple[np.ndarray, Descriptor]:
        a = np.ascontiguousarray(value, dtype=np.float64)
        if a.ndim != 2 or any(want is not None and got != want for got, want in zip(a.shape, pshape)):
            got = "x".join(map(str, a.shape)) if a.ndim else "a scalar"
            raise ShapeMismatch(f"{self.name}: argument {i} ({pname}) must be "
                                f"{fmt_shape(pshape)}, got {got}")
        ptr = a.ctypes.data
        d = Descriptor(ptr, ptr, 0, (a.shape[0], a.shape[1]), (a.shape[1], 1))
        return a, d

    def __call__(self, *args) -> np.ndarray:
        params = self.signature.params
        if len(args) != len(params):
            raise TypeError(f"{self.name} takes {len(params)} arguments, got {len(args)}")
        # Keep the converted arrays alive for the duration of the call.
        converted = [self._argument(i, v, p, s) for i, (v, (p, s)) in enumerate(zip(args, params), 1)]
        result = Descriptor()
        descriptors = [ctypes.byref(d) for _, d in converted]
        if self._call(ctypes.byref(result), *descriptors):
            raise RuntimeCheckFailed(self._library._failure_message())
        return _take(result)


class Library:
    """The compiled ``def``s of one program, as attributes."""

    def __init__(self, source: str | bytes, path: str = "<string>", gpu: str | None = None,
                 optimise: bool = True):
        from mg_xdsl.backend.jit import Engine
        from mg_xdsl.backend.runtime_ir import guarded_wrapper
        from mg_xdsl.driver import Compilation

        comp = Compilation(source, path, lib=True, gpu=gpu, optimise=optimise)
        ir = comp.llvm_ir()
        guards = tuple(guarded_wrapper(n, len(s.params) + 1) for n, s in comp.signatures.items())
        launcher = comp.launcher()
        self._engine = Engine(ir, extra=guards, symbols=launcher and launcher.symbols(), owner=launcher)
        self._functions = {n: Function(self, n, s) for n, s in comp.signatures.items()}

    def _failure_message(self) -> str:
        slot = ctypes.c_void_p.from_address(self._engine.engine.get_global_value_address("mgrt_failure"))
        return ctypes.string_at(slot.value).decode() if slot.value else "run-time check failed"

    def __getattr__(self, name: str) -> Function:
        try:
            return self.__dict__["_functions"][name]
        except KeyError:
            raise AttributeError(f"the program defines no function {name!r}") from None

    def __dir__(self):
        return [*super().__dir__(), *self._functions]

    @property
    def functions(self) -> dict[str, Function]:
        return dict(self._functions)


@lru_cache(maxsize=64)
def _compile_cached(source: str | bytes, path: str, gpu: str | None, optimise: bool) -> Library:
    return Library(source, path, gpu, optimise)


def compile(source: str | bytes, path: str = "<string>", gpu: bool | str = False,
            optimise: bool = True) -> Library:
    """Compile Mountain Goat source; raises ``MgError`` (with ``.render()``) if it is invalid.

    ``gpu=True`` (or ``"cuda"``) runs every parallel loop nest as a kernel on the NVIDIA GPU,
    ``gpu="emulated"`` runs the same kernels on the CPU (``GpuError`` if there is no GPU).
    ``optimise=False`` compiles with the chapter's reference pipeline (one nest per op)."""
    if gpu not in (False, True, None, "cuda", "emulated"):
        raise ValueError(f"gpu must be True, False, 'cuda' or 'emulated', not {gpu!r}")
    return _compile_cached(source, path, "cuda" if gpu is True else gpu or None, optimise)


def compile_file(path: str, gpu: bool | str = False, optimise: bool = True) -> Library:
    with open(path, "rb") as f:
        return compile(f.read(), path, gpu, optimise)
