"""The Python API: Mountain Goat functions as Python callables on NumPy arrays.

    >>> import mg_xdsl, numpy as np
    >>> lib = mg_xdsl.compile("def layer(x: tensor[?x3], w: tensor[3x2]) = relu(x @ w)")
    >>> lib.layer(np.ones((4, 3)), np.eye(3, 2))          # a (4, 2) float64 array
    >>> lib.layer(x=np.ones((4, 3)), w=np.eye(3, 2))      # the same, by parameter name

Each ``def`` becomes a method of the returned ``Library``, taking its arguments by position
or by parameter name; any other name raises ``AttributeError`` listing the defs. The
program's top-level statements (``let``, ``print``, ...) are checked but not compiled: the
first one draws an ``MgWarning`` naming its line. Nothing sets run-time arguments
(``arg("lr", 0.1)``, for ``mgc run`` and executables): a def that reads one reads its default.

Arguments are converted to C-contiguous arrays of the parameter's dtype (``float64`` for
``f64``, ``float32``, ``ml_dtypes.bfloat16``, ``int32``, ``int64``, ``bool`` for ``i1``);
before the call, each must be an array of real numbers of the parameter's rank
(``TypeError`` for ``None``, a number or complex values; ``ShapeMismatch``, a ``ValueError``, for another number of
dimensions or a size that differs from the parameter's static size). Only conversions that
keep every value are made (``_conversion_problem``): an ``int32`` array for an ``f64``
parameter is converted; integers are checked value by value, so an ``int64`` array (NumPy's
default) for an ``i32`` parameter converts where every value fits, and the first that does
not (or an ``int64`` with no exact ``float64``, beyond 2^53) raises ``TypeError`` naming it; a
``float64`` array for an ``f32`` parameter, or floats for an integer one, raise ``TypeError``
(a list or a Python number of floats rounds to a float parameter's precision).
Results come back as arrays of their own dtype: a def of one result returns an array, a def
of several (``return a, b``) a tuple of arrays, in order, each owning its own buffer
(``Function.result_count`` says how many; ``__doc__`` writes them ``-> (?x3, i32)``).

Failures inside the compiled code leave the interpreter running: a run-time check that fails
raises ``RuntimeCheckFailed`` with the text ``mgc run`` would print (the check's one-line
message, then where it failed) and its parts as attributes; an allocation that fails raises
``MemoryError``; a ``.npy`` file that ``load`` or ``save`` cannot read or write raises
``MgFileError`` (a ``RuntimeCheckFailed``). (Buffers the call had allocated before it failed are not freed.)

A program's compile-time warnings are issued as ``MgWarning``s (``warnings.warn``) when it is
compiled. With ``compile(..., gpu=True)`` the parallel loop nests run as kernels on an NVIDIA
GPU (``gpu="emulated"``: on the CPU, through the same launch path). Results are NumPy arrays
that own the buffer the compiled code allocated (it is freed when the array is).

``compile`` compiles the defs that no def calls, the library's entry points; a def that
another def calls is compiled when one of its kind is first called (see ``Library``).

Compilation is cached twice. In the process, ``compile`` returns the same ``Library`` for the
same source, path and options. On disk, a library is kept in ``mgc run``'s cache of compiled
programs (``mg_xdsl.backend.cache``, by the same key rules, bypasses and directory:
``_open_cache``), so that another process compiling the same source loads its object code
instead of compiling it: such a hit imports neither xDSL nor ml_dtypes (unless a def takes
or returns ``bf16``), runs no front end (the entry holds each def's types, ``Def``, and the
warnings, which it issues again) and takes milliseconds where compiling takes a second. GPU
libraries are never kept (their kernels are loaded onto the device by Python callbacks).

The first ``compile`` fixes glibc's malloc thresholds, so that the buffers a call frees are
reused by the next instead of being given back to the system
(``mg_xdsl.backend.malloc_thresholds``; ``MG_MALLOC=system`` leaves malloc as it is).
"""

import ctypes
import numbers
import os
import sys
import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

# Nothing here imports xDSL (a quarter of a second), nor ml_dtypes (half a second: only for a
# def of bf16 values), so that a library from the disk cache loads in a tenth of a second.
from mg_xdsl.backend import malloc_thresholds
from mg_xdsl.backend.runtime_files_ir import FILE_ERROR
from mg_xdsl.backend.runtime_ir import CHECK_FAILED, FAILURE_TEXT_BYTES, OUT_OF_MEMORY, guard_name, guarded_wrapper
from mg_xdsl.core.element_records import DEFAULT as DEFAULT_ELEMENT, ELEMENT_TYPES, IN_LANGUAGE_ORDER
from mg_xdsl.core.shapes import Shape, fmt_shape
from mg_xdsl.language.diagnostics import MgError, MgWarning  # (what mg_xdsl.language.frontend raises)
from mg_xdsl.support import collector

if TYPE_CHECKING:
    from mg_xdsl.backend.cache import ObjectCache
    from mg_xdsl.backend.gpu_runtime import GpuError  # (see __getattr__)
    from mg_xdsl.backend.jit import Engine, SharedPoolEngine
    from mg_xdsl.language.checker_types import Signature

__all__ = [
    "compile",
    "compile_file",
    "Library",
    "ShapeMismatch",
    "RuntimeCheckFailed",
    "MgFileError",
    "MgError",
    "MgWarning",
    "GpuError",
]


def __getattr__(name: str):
    # ``GpuError`` is imported when first asked for: its module imports xDSL.
    if name == "GpuError":
        from mg_xdsl.backend.gpu_runtime import GpuError

        return GpuError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ShapeMismatch(ValueError):
    """An argument's shape cannot match its parameter's."""


class RuntimeCheckFailed(RuntimeError):
    """A run-time shape check failed inside compiled code.

    ``str()`` is what ``mgc run`` prints, e.g.::

        mg.add: operand shapes differ at runtime in dimension 0
          at prog.mg:3: sizes 2 and 1

    ``.message`` is the first line (the check's own message), ``.path`` and ``.line`` the source of the
    failing expression (``None`` if unknown), ``.sizes`` the two sizes that differed
    (``None`` for a check that compares no sizes)."""

    def __init__(
        self,
        text: str,
        message: str,
        path: str | None = None,
        line: int | None = None,
        sizes: tuple[int, int] | None = None,
    ):
        super().__init__(text)
        self.message, self.path, self.line, self.sizes = message, path, line, sizes

    def __reduce__(self):  # pickled with its parts (e.g. to another process)
        return type(self), (str(self), self.message, self.path, self.line, self.sizes)


class MgFileError(RuntimeCheckFailed):
    """``load`` or ``save`` could not read or write a ``.npy`` file: missing or unreadable, not
    a ``.npy`` file, of another element type, rank or size than declared, cut short, or in a
    directory that cannot be written. ``str()`` (and ``.message``) is what ``mgc run`` prints,
    with exit status 1 there, e.g. ``load: /data/x.npy: expected 2 dimensions, found 3``;
    ``.file`` is the file's path (``.path``, ``.line`` and ``.sizes`` are ``None``)."""

    def __init__(self, text: str, file: str | None = None):
        super().__init__(text, text)
        self.file = file

    def __reduce__(self) -> tuple:  # (its own arguments, not RuntimeCheckFailed's)
        return type(self), (str(self), self.file)


@lru_cache(maxsize=None)
def descriptor_type(rank: int) -> type[ctypes.Structure]:
    """Upstream MLIR's descriptor of a memref of f64 of ``rank`` dimensions."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"Descriptor{rank}", (ctypes.Structure,), {"_fields_": fields})


def results_type(ranks: Sequence[int]) -> type[ctypes.Structure]:
    """What ``_mlir_ciface_NAME`` stores its results in: one result's descriptor, or for
    several a struct of their descriptors (fields ``r0``, ``r1``, ...), as upstream MLIR packs
    several results into one struct returned through the first pointer."""
    if len(ranks) == 1:
        return descriptor_type(ranks[0])
    return _descriptors_type(tuple(ranks))


@lru_cache(maxsize=None)
def _descriptors_type(ranks: tuple[int, ...]) -> type[ctypes.Structure]:
    fields = [(f"r{i}", descriptor_type(rank)) for i, rank in enumerate(ranks)]
    return type(f"Results{'_'.join(map(str, ranks))}", (ctypes.Structure,), {"_fields_": fields})


class Failure(ctypes.Structure):
    """What a failure inside a guarded call reports (``%mgrt.failure`` of ``runtime_ir``)."""

    _fields_ = [
        ("jump", ctypes.c_void_p),
        ("kind", ctypes.c_int64),
        ("message", ctypes.c_char_p),
        ("path", ctypes.c_char_p),
        ("line", ctypes.c_int64),
        ("size_a", ctypes.c_int64),
        ("size_b", ctypes.c_int64),
        ("bytes", ctypes.c_int64),
        ("text", ctypes.c_char * FAILURE_TEXT_BYTES),
    ]

    def exception(self) -> Exception:
        text = self.text.decode(errors="replace")
        if self.kind == OUT_OF_MEMORY:
            return MemoryError(text)
        if self.kind == FILE_ERROR:
            return MgFileError(text, self.path.decode(errors="replace") if self.path is not None else None)
        assert self.kind == CHECK_FAILED, f"unknown failure kind {self.kind}"
        sizes = (self.size_a, self.size_b) if self.size_a >= 0 else None
        path = self.path.decode(errors="replace") if self.path is not None else None
        # (the first line: a range check's message is its format filled in)
        return RuntimeCheckFailed(text, text.partition("\n")[0], path, self.line if path is not None else None, sizes)


_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]

# One library compiled or loaded at a time in the process: the compiler's passes and caches,
# xDSL's and the kernels' loaded in the process are shared, and two threads compiling at
# once failed inside them (tests/e2e/test_api_two_threads.py). The compiled code runs on
# any number of threads at once. Reentrant: a warning's handler may compile too.
_COMPILING = threading.RLock()
_guard_key_lock = threading.Lock()
_guard_key_value: int | None = None


def _guard_key() -> int:
    """The process's one POSIX thread-specific key under which each thread's guarded call
    keeps its failure record (see ``runtime_ir``). One for all compiled programs: a process
    has only about a thousand keys."""
    global _guard_key_value
    with _guard_key_lock:
        if _guard_key_value is None:
            key = ctypes.c_uint()
            if _libc.pthread_key_create(ctypes.byref(key), None) != 0:
                raise OSError("pthread_key_create failed: no thread-specific key is left")
            _guard_key_value = key.value
        return _guard_key_value


# The record of each element type the language writes, by its name.
RECORDS = {e.name: e for e in IN_LANGUAGE_ORDER}


@lru_cache(maxsize=None)
def dtype_named(element: str) -> np.dtype:
    """The NumPy dtype of the element type the language writes ``element`` (its record's
    ``numpy``). NumPy knows ``bfloat16`` by name once ml_dtypes is imported, which takes half
    a second: it is imported here, for the first def that takes or returns one."""
    name = RECORDS[element].numpy
    try:
        return np.dtype(name)
    except TypeError:  # ("data type 'bfloat16' not understood")
        import ml_dtypes  # noqa: F401  (registers its dtypes with NumPy)

        return np.dtype(name)


_FLOAT_NAMES = tuple(e.numpy for e in ELEMENT_TYPES if e.kind == "float")


@lru_cache(maxsize=2)
def _float_dtypes_known(ml_dtypes_imported: bool) -> frozenset[np.dtype]:
    # (Found again once ml_dtypes is imported: it registers bfloat16 with NumPy.)
    found = set()
    for name in _FLOAT_NAMES:
        try:
            found.add(np.dtype(name))
        except TypeError:  # ("data type 'bfloat16' not understood")
            pass
    return frozenset(found)


def _float_dtypes() -> frozenset[np.dtype]:
    """The dtypes of the language's float types that NumPy knows now: ``bfloat16`` once
    ml_dtypes is imported (before that, there is no array of it to pass)."""
    return _float_dtypes_known("ml_dtypes" in sys.modules)


def _spelled(dtype: np.dtype) -> str:
    """How Python code names ``dtype``: ``np.int32``, ``ml_dtypes.bfloat16``."""
    module = dtype.type.__module__
    return f"{'np' if module == 'numpy' else module}.{dtype}"


_records = threading.local()


def _failure_record() -> tuple[Failure, object]:
    """This thread's failure record (and a reference to pass): a call fills it only when it
    fails, and nothing runs between the failure and the exception made from it, so one per
    thread serves every call."""
    try:
        return _records.failure
    except AttributeError:
        failure = Failure()
        _records.failure = failure, ctypes.byref(failure)
        return _records.failure


class _Buffer:
    """A buffer the compiled code allocated, as NumPy sees it (``__array_interface__``); it
    is the base of the array ``_take`` makes, so that it is freed when the array and every
    view of it are gone."""

    __slots__ = ("__array_interface__", "_allocated")

    def __init__(self, d: ctypes.Structure, shape: tuple[int, ...], dtype: np.dtype):
        self._allocated = d.allocated
        self.__array_interface__ = {
            "data": (d.aligned + dtype.itemsize * d.offset, False),
            "shape": shape,
            "typestr": dtype.str,
            "version": 3,
        }

    def __del__(self) -> None:
        _libc.free(self._allocated)


def _take(d: ctypes.Structure, rank: int, dtype: np.dtype) -> np.ndarray:
    """A NumPy array over a buffer the compiled code returned; freeing it when the array
    (and every view of it) is gone."""
    shape = tuple(d.sizes) if rank else ()
    if 0 in shape:
        _libc.free(d.allocated)
        return np.empty(shape, dtype)
    array = np.asarray(_Buffer(d, shape, dtype))
    return array.view(dtype) if array.dtype != dtype else array  # (bfloat16: from its raw bytes)


def _data_field_offset() -> int | None:
    """Where a NumPy array object keeps its data pointer, counted from the object's address,
    if this interpreter lets it be read: in CPython ``id`` is the address, and NumPy's C API
    (``PyArray_DATA``) reads the pointer right after the object header, 16 bytes on 64-bit
    builds. The offset is checked on an array, never assumed; ``None`` where it differs (a
    free-threaded build's longer header) or ``id`` is no address (PyPy)."""
    if sys.implementation.name != "cpython" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    probe = np.empty((2, 3))
    offset = 16
    if ctypes.c_void_p.from_address(id(probe) + offset).value != probe.ctypes.data:
        return None
    return offset


_DATA_OFFSET = _data_field_offset()


def _address(a: np.ndarray) -> int:
    """Where ``a``'s data starts. Right after a kernel has streamed megabytes through the
    caches, ``a.ctypes.data`` costs 40 us (a fifth of ``a + b`` on 1000x1000); reading the
    array's data field costs a quarter of that."""
    if _DATA_OFFSET is None:
        return a.ctypes.data
    return ctypes.c_void_p.from_address(id(a) + _DATA_OFFSET).value or 0


def _shape_text(shape: Sequence) -> str:
    """``2x3``, or ``rank 0`` for the empty shape."""
    return fmt_shape(shape) or "rank 0"


def _expected(shape: Sequence) -> str:
    return f"a {len(shape)}-D array of shape {fmt_shape(shape)}" if shape else "a 0-D array or a number"


def _described(value: "np.ndarray | numbers.Number | np.generic | None") -> str:
    """What was given for a tensor (None, a number or an array), for an error message."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return f"a 0-D array ({value.item()!r})"
        return f"a {value.ndim}-D array of shape {value.shape}"
    return f"the number {value!r}"


def _written(shape: Shape, element: str) -> str:
    """A tensor type as the language writes it, from its shape and its element type's name:
    ``tensor[2x3]``, ``tensor[3xi32]``, ``tensor[i64]`` (``checker_types.type_text``)."""
    parts = [fmt_shape(shape)] if shape else []
    if element != DEFAULT_ELEMENT.name:
        parts.append(element)
    return f"tensor[{'x'.join(parts)}]"


def _type_text(shape: Shape, element: str) -> str:
    """``2x3``, ``?x3xf32``, ``i64``, ``f64``: a parameter's type as the language writes it in
    brackets (``tensor[]``, rank-0 ``f64``, as ``f64``: an empty text would read as nothing)."""
    return _written(shape, element)[len("tensor[") : -1] or DEFAULT_ELEMENT.name


def _conversion_problem(value, a: np.ndarray, dtype: np.dtype) -> str | None:
    """Why ``value`` (as the array ``a``) does not convert to ``dtype`` keeping every value,
    or None if it does. The one rule: no value may change.

    - Where every value of ``a``'s dtype is one of ``dtype`` (``_exact_by_dtype``), it
      converts, whatever the values.
    - Integers (and booleans) for a number type are checked value by value: an ``int64``
      array of ids for an ``i32`` parameter (NumPy's default integer) converts when every id
      fits, an ``int64`` array for ``f64`` when every value has an exact ``float64`` (up to
      2^53, and beyond where it is one); the first value that does not is named.
    - Floats never become integers or booleans, and an array of floats (or a NumPy number)
      does not narrow (``float64`` for ``f32``). A list or Python number of floats, which
      NumPy makes ``float64``, is taken as the numbers written and rounds to a float
      parameter's precision, as a literal does in the language."""
    if _exact_by_dtype(a.dtype, dtype):
        return None
    floats = _float_dtypes()
    if a.dtype.kind in "biu" and (dtype.kind in "iu" or dtype in floats):
        return _first_changed(value, a, dtype)
    if dtype in floats and a.dtype.kind == "f" and not isinstance(value, (np.ndarray, np.generic)):
        return None
    return f"{a.dtype} values do not convert to it without loss"


def _mantissa_bits(dtype: np.dtype) -> int:
    """The bits of a float type's significand (its stored bits and the implicit one): every
    integer of at most this many bits is one of its values exactly."""
    if dtype.kind == "f":
        return np.finfo(dtype).nmant + 1
    import ml_dtypes  # (bfloat16, whose kind is V: the parameter's dtype_named imported it)

    return ml_dtypes.finfo(dtype).nmant + 1


def _exact_by_dtype(source: np.dtype, target: np.dtype) -> bool:
    """Whether every value of ``source`` is a value of ``target``: NumPy's safe casting, but
    for integers to floats only where the integers' bits fit the significand (NumPy counts
    ``int64`` -> ``float64`` safe, although 2^53 + 1 is no ``float64``)."""
    if not np.can_cast(source, target, "safe"):
        return False
    if source.kind in "iu" and target in _float_dtypes():
        return source.itemsize * 8 - (source.kind == "i") <= _mantissa_bits(target)
    return True


def _first_changed(value, a: np.ndarray, dtype: np.dtype) -> str | None:
    """What is wrong with the first integer of ``a`` (in row-major order) that ``dtype``
    does not hold exactly, or None if it holds them all."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        outside = np.flatnonzero((a < info.min) | (a > info.max))  # (NumPy compares across types exactly)
        changed = int(outside[0]) if outside.size else None
    else:
        # Every integer up to 2^bits is exact; beyond that, those that are multiples of a
        # large enough power of 2 are too (2^60), so each one there is converted and compared
        # as a Python int, until the first that changes.
        limit = 2 ** _mantissa_bits(dtype)
        changed = next(
            (
                int(i)
                for i in np.flatnonzero((a > limit) | (a < -limit))
                if _through_float(int(a.flat[i]), dtype) != int(a.flat[i])
            ),
            None,
        )
    if changed is None:
        return None
    number = int(a.flat[changed])
    where = f" at {[int(i) for i in np.unravel_index(changed, a.shape)]}" if a.ndim else ""
    what = f"the {a.dtype} value {number}" if isinstance(value, (np.ndarray, np.generic)) else f"the value {number}"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return f"{what}{where} is outside {dtype}'s range ({info.min} to {info.max})"
    becomes = dtype.type(number)
    return f"{what}{where} is no {dtype} (it would become {float(becomes)!r})"


def _through_float(number: int, dtype: np.dtype) -> int | None:
    """``number`` converted to the float type ``dtype`` and back to an exact Python integer
    (None where it overflows to infinity)."""
    converted = float(dtype.type(number))
    return None if np.isinf(converted) else int(converted)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class Def:
    """What the API makes of a def's ``Signature``, in plain data (no xDSL types): its name,
    each parameter's name, shape (``None`` for ``?``) and element type's name, and each
    result's shape and element type's name. The disk cache keeps it as JSON (``to_json``),
    so that a library loaded from there needs neither the front end nor xDSL."""

    name: str
    params: tuple[tuple[str, Shape, str], ...]
    results: tuple[tuple[Shape, str], ...]

    @classmethod
    def of(cls, name: str, sig: "Signature") -> "Def":
        from mg_xdsl.core.element_types import NAME_OF  # (xDSL's types: compiled just now)

        return cls(
            name,
            tuple((p, tuple(t.shape), NAME_OF[t.element]) for p, t in zip(sig.names, sig.types)),
            tuple((tuple(t.shape), NAME_OF[t.element]) for t in sig.results),
        )

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "params": [[p, list(shape), element] for p, shape, element in self.params],
            "results": [[list(shape), element] for shape, element in self.results],
        }

    @classmethod
    def from_json(cls, data: object) -> "Def":
        """The ``Def`` that ``to_json`` wrote (``ValueError`` for anything else)."""

        def shape(value: object) -> Shape:
            # (type(d) is int: a bool is an int too)
            if not isinstance(value, list) or not all(d is None or (type(d) is int and d >= 0) for d in value):
                raise ValueError(f"not a shape: {value!r}")
            return tuple(value)

        def element(value: object) -> str:
            if not isinstance(value, str) or value not in RECORDS:
                raise ValueError(f"not an element type: {value!r}")
            return value

        def name(value: object) -> str:
            if not isinstance(value, str) or not value.isidentifier():
                raise ValueError(f"not a name: {value!r}")
            return value

        def items(value: object, size: int) -> list[list]:
            if not isinstance(value, list) or not all(isinstance(v, list) and len(v) == size for v in value):
                raise ValueError(f"not a list of {size}-item lists: {value!r}")
            return value

        if not isinstance(data, dict) or set(data) != {"name", "params", "results"}:
            raise ValueError(f"not a def: {data!r}")
        results = items(data["results"], 2)
        if not results:
            raise ValueError("a def without results")
        return cls(
            name(data["name"]),
            tuple((name(p), shape(s), element(e)) for p, s, e in items(data["params"], 3)),
            tuple((shape(s), element(e)) for s, e in results),
        )

    def signature(self) -> "Signature":
        """The ``Signature`` this was made of (it imports xDSL, whose types it holds)."""
        from mg_xdsl.core.element_types import NAMES
        from mg_xdsl.language.checker_types import Signature
        from mg_xdsl.language.syntax_tree import TensorType

        results = [TensorType(shape, NAMES[element]) for shape, element in self.results]
        return Signature(
            [p for p, _, _ in self.params],
            [TensorType(shape, NAMES[element]) for _, shape, element in self.params],
            results[0],
            results=results,
        )


class Function:
    """One compiled ``def``, called with NumPy arrays (or anything ``np.asarray`` takes), by
    position or by parameter name; it returns an array, or a tuple of arrays for a def of
    several results. ``signature`` is its ``Signature`` (``signature.results``: the results'
    types)."""

    def __init__(self, library: "Library", d: Def, sig: "Signature | None" = None):
        self.name, self._def, self._signature, self._library = d.name, d, sig, library
        self.parameters = [p for p, _, _ in d.params]
        self._params = [(p, shape) for p, shape, _ in d.params]
        self._positions = range(1, len(d.params) + 1)
        # Each array as its data and its sizes.
        arrays = [t for _, shape, _ in d.params for t in (ctypes.c_void_p, *[ctypes.c_int64] * len(shape))]
        self._dtypes = [dtype_named(element) for _, _, element in d.params]
        # Each result as its rank and dtype; one result is a bare array, several a tuple.
        self._results = [(len(shape), dtype_named(element)) for shape, element in d.results]
        self._result_rank, self._result_dtype = self._results[0]
        self._several = len(self._results) > 1
        self._result_type = results_type([rank for rank, _ in self._results])
        self._proto = ctypes.CFUNCTYPE(
            ctypes.c_int32, ctypes.POINTER(Failure), ctypes.POINTER(self._result_type), *arrays
        )
        address = library._address(d.name)
        # (a def that another def calls is compiled at its first call: see ``Library``)
        self._call = self._proto(address) if address else self._compile_then_call
        results = ", ".join(_type_text(*r) for r in d.results)
        self.__doc__ = (
            f"{d.name}("
            + ", ".join(f"{p}: {_type_text(shape, element)}" for p, shape, element in d.params)
            + f") -> {f'({results})' if self._several else results}"
        )

    def _compile_then_call(self, *arguments) -> int:
        self._library._compile_rest()
        address = self._library._address(self.name)
        if not address:  # (a call of address 0 would end the process)
            raise RuntimeError(f"internal compiler error: {self.name} was compiled without its guard")
        self._call = self._proto(address)
        return self._call(*arguments)

    @property
    def signature(self) -> "Signature":
        """The def's ``Signature``. (Of a library from the disk cache, made when first asked
        for: its types are xDSL's, which such a library otherwise never imports.)"""
        if self._signature is None:
            self._signature = self._def.signature()
        return self._signature

    def __repr__(self) -> str:
        return f"<mg function {self.__doc__}>"

    def _argument(self, i: int, value, pname: str, pshape) -> np.ndarray:
        """The array the compiled code reads for argument ``i``: ``value`` itself where it can."""
        if not (
            type(value) is np.ndarray
            and value.dtype == self._dtypes[i - 1]
            and value.ndim == len(pshape)
            and value.flags.c_contiguous
        ):
            return self._converted(i, value, pname, pshape)
        # The common case, an array the compiled code can read as it is, in a few steps: a
        # call on small matrices costs microseconds.
        if any(want is not None and got != want for got, want in zip(value.shape, pshape)):
            self._converted(i, value, pname, pshape)  # (it says what is wrong)
        return value

    def _converted(self, i: int, value, pname: str, pshape) -> np.ndarray:
        """``_argument`` of anything else: checked, with a message for each way it can be
        wrong, and converted to a C-ordered array of the parameter's dtype (a copy where it
        has to be)."""
        where = f"{self.name}: argument {i} ({pname})"
        expected = _expected(pshape)
        if value is None or (pshape and isinstance(value, (numbers.Number, np.generic))):
            raise TypeError(f"{where} must be {expected}, got {_described(value)}")
        try:
            a = np.asarray(value)
        except (TypeError, ValueError) as e:  # e.g. rows of different lengths
            raise TypeError(
                f"{where} must be {expected}, got a {type(value).__name__} that NumPy cannot make an array of ({e})"
            ) from None
        if a.dtype.kind == "c":
            raise TypeError(f"{where} must be real, got complex values ({a.dtype}): pass .real or abs() of them")
        if a.dtype.kind not in "biuf" and a.dtype not in _float_dtypes():  # (bfloat16's kind is V)
            raise TypeError(
                f"{where} must be {expected} of numbers, got a {type(value).__name__} "
                f"that NumPy makes an array of {a.dtype}"
            )
        if a.ndim != len(pshape):
            raise ShapeMismatch(f"{where} must be {expected}, got {_described(a)}")
        if any(want is not None and got != want for got, want in zip(a.shape, pshape)):
            raise ShapeMismatch(f"{where} must be {_shape_text(pshape)}, got {_shape_text(a.shape)}")
        dtype = self._dtypes[i - 1]
        problem = _conversion_problem(value, a, dtype)
        if problem is not None:
            raise TypeError(
                f"{where} is {_written(*self._def.params[i - 1][1:])}, an array of {dtype}: "
                f"{problem} (convert them with "
                f".astype({_spelled(dtype)}) "
                "if that is meant)"
            )
        return np.asarray(a, dtype=dtype, order="C")  # (ascontiguousarray makes 0-D 1-D)

    def _bind(self, args: tuple, kwargs: dict) -> list:
        """The arguments in parameter order, as Python binds them (``TypeError`` for too
        many, a missing one, an unknown name, or one given twice)."""
        params = self.parameters
        if len(args) > len(params):
            raise TypeError(f"{self.name} takes {_plural(len(params), 'argument')}, got {len(args)}")
        bound = dict(zip(params, args))
        for key, value in kwargs.items():
            if key not in params:
                raise TypeError(
                    f"{self.name} got an unexpected keyword argument {key!r} "
                    f"(its parameters: {', '.join(params) or 'none'})"
                )
            if key in bound:
                raise TypeError(f"{self.name} got multiple values for argument {key!r}")
            bound[key] = value
        missing = [p for p in params if p not in bound]
        if missing:
            names = " and ".join(", ".join(repr(p) for p in missing).rsplit(", ", 1))
            raise TypeError(f"{self.name} is missing {_plural(len(missing), 'argument')}: {names}")
        return [bound[p] for p in params]

    @property
    def result_count(self) -> int:
        """How many arrays a call returns: 1 (a bare array), or more (a tuple of them)."""
        return len(self._results)

    def __call__(self, *args, **kwargs) -> "np.ndarray | tuple[np.ndarray, ...]":
        # As little Python as it takes: after a kernel that streamed megabytes through the
        # caches, each step here runs from cold caches, and a call's overhead triples.
        values = args if not kwargs and len(args) == len(self.parameters) else self._bind(args, kwargs)
        # Keep the converted arrays alive for the duration of the call.
        arrays = [self._argument(i, v, p, s) for i, v, (p, s) in zip(self._positions, values, self._params)]
        failure, failure_ref = _failure_record()
        result = self._result_type()
        flat = [x for a in arrays for x in (_address(a), *a.shape)]
        if self._call(failure_ref, ctypes.byref(result), *flat):
            raise failure.exception()
        if self._several:
            # (each result owns its own buffer: buffer-deallocation copies one returned twice)
            return tuple(_take(getattr(result, f"r{i}"), r, d) for i, (r, d) in enumerate(self._results))
        return _take(result, self._result_rank, self._result_dtype)


class Library:
    """The compiled ``def``s of one program, as attributes.

    Compiled in two parts. First the defs that no def calls, the library's entry points, each
    with the defs it calls inlined where the ``inline`` pass inlines them: as JAX compiles a
    function with the Python functions it calls traced into it, and no more. A def that
    another def calls (the attention's ``softmax``) is compiled with the others of its kind
    when one of them is first called (``_compile_rest``): a program that only calls its entry
    points does not wait for a second copy of each helper.

    Each part is made from the disk cache (``mg_xdsl.backend.cache``) where it holds it, else
    compiled (and stored there): see ``_open_cache``. ``_cache_outcome`` says which for the
    first part, in the words of ``mgc run --time`` (``hit (PATH)``, ``miss, stored in PATH``,
    ``off (WHY)``), and ``_compile_times`` where its time went (``mgc run --time``'s steps,
    seconds each, LLVM's part ``driver.LLVM_STEP``; empty where the disk cache served it)."""

    def __init__(
        self,
        source: str | bytes,
        path: str = "<string>",
        gpu: str | None = None,
        optimise: bool = True,
        cpu: str | None = None,
    ):
        malloc_thresholds.settle()
        self._options = (source, path, gpu, optimise, cpu)
        self._engines: list[Engine | SharedPoolEngine] = []
        self._lock = threading.Lock()
        self._compile_times: dict[str, float] = {}
        defs, signatures, self._cache_outcome = self._part(None, warn=True)
        if defs:
            from mg_xdsl.backend.jit import runtime_global  # (llvmlite: here, not at the top)

            # Where the run-time library (the process's core) finds each thread's failure record.
            ctypes.c_int64.from_address(runtime_global("mgrt_guard_key")).value = _guard_key()
        self._functions = {d.name: Function(self, d, signatures.get(d.name)) for d in defs}

    def _part(self, names: "list[str] | None", warn: bool) -> "tuple[list[Def], dict[str, Signature], str]":
        """Load or compile the defs ``names`` (None: the entry points) into a new engine of
        this library; every def's ``Def`` (and ``Signature``, where compiled), and how the
        disk cache served it. The front end's warnings are issued where ``warn``. One
        thread of the process at a time (``_COMPILING``)."""
        with _COMPILING:
            return self._part_alone(names, warn)

    def _part_alone(self, names: "list[str] | None", warn: bool) -> "tuple[list[Def], dict[str, Signature], str]":
        store, key, outcome = _open_cache(*self._options, names)
        loaded = None
        if store is not None:
            loaded, outcome = _load(store, key, self._options[-1])
        signatures: dict[str, Signature] = {}
        if loaded is not None:
            engine, defs, texts = loaded
            # A hit does not run the front end: its warnings were stored with the code.
            for text in texts if warn else ():
                warnings.warn(text, MgWarning, stacklevel=_callers_level())
        else:
            engine, defs, texts, signatures, times = _compiled(*self._options, names, warn)
            if names is None:
                self._compile_times = times
            if store is not None:
                outcome += ", " + store.store_library(key, engine.objects, texts, [d.to_json() for d in defs])
        self._engines.append(engine)
        return defs, signatures, outcome

    def _address(self, name: str) -> int:
        """The address of def ``name``'s guard in this library's code; 0 where not compiled yet."""
        for engine in self._engines:
            address = engine.engine.get_function_address(guard_name(name))
            if address:
                return address
        return 0

    def _compile_rest(self) -> None:
        """Compile (or load) every def not compiled yet, at once: the defs that other defs call."""
        with self._lock:
            rest = [name for name in self._functions if not self._address(name)]
            if rest:
                self._part(rest, warn=False)  # (its warnings were the first part's)

    def __getattr__(self, name: str) -> Function:
        try:
            return self.__dict__["_functions"][name]
        except KeyError:
            defined = ", ".join(self.__dict__.get("_functions", ())) or "none: it has no def"
            raise AttributeError(f"the program defines no function {name!r} (its functions: {defined})") from None

    def __dir__(self):
        return [*super().__dir__(), *self._functions]

    @property
    def functions(self) -> dict[str, Function]:
        return dict(self._functions)


def _callers_level() -> int:
    """The ``stacklevel`` at which ``warnings.warn``, called by the caller of this function,
    names the first frame outside this package: the program's call of ``compile`` (through
    ``mg_xdsl.compile``, ``compile_file`` or ``mg_xdsl.api.compile`` alike)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1  # (level 1: the function that calls warn)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _guards(signatures: "dict[str, Signature]") -> tuple[str, ...]:
    """The LLVM IR of each def's ``mgrt_guarded_NAME``, which ``Function`` calls."""
    return tuple(guarded_wrapper(name, [len(shape) for _, shape in sig.params]) for name, sig in signatures.items())


def _compiled(
    source: str | bytes,
    path: str,
    gpu: str | None,
    optimise: bool,
    cpu: str | None,
    names: list[str] | None,
    warn: bool,
) -> "tuple[Engine, list[Def], list[str], dict[str, Signature], dict[str, float]]":
    """Compile the defs ``names`` of a library (None: its entry points, the defs no def calls):
    their engine (whose ``object`` the disk cache keeps), every def's ``Def``, the front end's
    warnings (issued here where ``warn``, before LLVM compiles, as they are said), every
    def's signature, and the seconds each step took (``Compilation.times``, LLVM's included)."""
    # The compiler and LLVM are imported when a program is first compiled, not with this
    # module: ``mg_xdsl.MgError`` and the other exceptions import it too.
    from mg_xdsl.backend.jit import Engine
    from mg_xdsl.core.target import check_cpu
    from mg_xdsl.driver import ENTRY_DEFS, LLVM_STEP, Compilation

    if cpu is not None:
        check_cpu(cpu)  # (here, not in compile: only what the caches lack is checked)
    exports = ENTRY_DEFS if names is None else names
    with collector.paused():
        comp = Compilation(
            source, path, lib=True, gpu=gpu, optimise=optimise, cpu=cpu, kernels_apart=True, exports=exports
        )
        ir = comp.llvm_ir(verify=False)  # LLVM's verifier checks it
        for text in comp.warnings if warn else ():
            warnings.warn(text, MgWarning, stacklevel=_callers_level())
        guards = _guards({name: comp.signatures[name] for name in comp.exported})
        launcher = comp.launcher()
        exports = [guard_name(name) for name in comp.exported]  # (what ``Function`` calls)
        start = time.perf_counter()
        engine = Engine(
            ir, extra=guards, symbols=launcher and launcher.symbols(), owner=launcher, cpu=cpu, exports=exports
        )
        comp.timed(LLVM_STEP, time.perf_counter() - start)
    defs = [Def.of(name, sig) for name, sig in comp.signatures.items()]
    return engine, defs, list(comp.warnings), dict(comp.signatures), comp.times


# The options of the API that change a library's code, with the mark of a library (its
# entries hold defs and their guards, never a program's @main).
LIBRARY_KIND = "python library"
LEVEL = 2  # (Engine's default: LLVM's -O2 pipeline)


def _directory(path: str) -> str:
    """What the program's relative paths (``load``, ``save``) are relative to, compiled into
    its code: ``IRGen.directory``'s rule (the working directory for a program given as text)."""
    if path.startswith("<") or path == "-":
        return os.getcwd()
    return os.path.dirname(os.path.abspath(path))


def _open_cache(
    source: str | bytes,
    path: str,
    gpu: str | None,
    optimise: bool,
    cpu: str | None,
    names: list[str] | None = None,
) -> "tuple[ObjectCache | None, bytes, str]":
    """The disk cache this library uses and the key there of its defs ``names`` (None: the
    entry points); or None, with why not. The key
    follows ``mgc run``'s rules (``mg_xdsl.backend.cache``: the source, the compiler, the
    xDSL and llvmlite versions, the host, the options that change the code: ``optimise``,
    ``cpu``, the path and its directory), and says that the entry is a library. The
    bypasses are ``mgc run``'s: ``MGC_NO_CACHE=1``, and ``MGC_KEEP`` (whose intermediate
    files a hit would not write). GPU libraries are never cached: their kernels are loaded
    onto the device (or its emulator) by Python callbacks at every compilation."""
    from mg_xdsl.backend import cache  # (llvmlite's version only: not LLVM)

    if gpu:
        return None, b"", f"off (gpu={gpu!r}: the kernels are compiled for the device each time)"
    if cache.no_cache_requested():
        return None, b"", "off (MGC_NO_CACHE)"
    if os.environ.get("MGC_KEEP"):
        return None, b"", "off (MGC_KEEP: the intermediate files need a full compilation)"
    directory = cache.default_directory()
    if directory is None:
        return None, b"", "off (no MGC_CACHE_DIR and no home directory)"
    data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
    try:
        options = {
            "kind": LIBRARY_KIND,
            "opt": LEVEL,
            "optimise": bool(optimise),
            "cpu": cpu,
            "path": path,
            "directory": _directory(path),
            "defs": names,
        }
        from mg_xdsl.core.target import host_identity

        key = cache.key(data, options, host_identity())
    except OSError as e:  # a working directory that is gone, a compiler file unreadable
        return None, b"", f"off ({e})"
    return cache.ObjectCache(directory), key, ""


def _load(
    store: "ObjectCache", key: bytes, cpu: str | None
) -> "tuple[tuple[SharedPoolEngine, list[Def], list[str]] | None, str]":
    """The library stored for ``key``, loaded (its engine, defs and warnings), or None; and
    how it went. An entry that does not load counts as a miss (the compiled library then
    replaces it): a failure of the cache is never an error."""
    objects, texts, functions, outcome = store.load_library(key)
    if objects is None:
        return None, outcome
    try:
        defs = [Def.from_json(f) for f in functions]
        from mg_xdsl.backend.jit import SharedPoolEngine  # (llvmlite: here, not at the top)

        engine = SharedPoolEngine(objects, cpu)
        # (KeyError if none is there; a def missing is compiled when first called)
        if defs and not any(engine.engine.get_function_address(guard_name(d.name)) for d in defs):
            raise KeyError("it holds none of the library's defs")
    except Exception as e:  # (whatever the entry holds, compiling again is the answer)
        return None, f"miss: the entry did not load ({type(e).__name__}: {e})"
    return (engine, defs, texts), outcome


@lru_cache(maxsize=64)
def _compile_cached(source: str | bytes, path: str, gpu: str | None, optimise: bool, cpu: str | None) -> Library:
    return Library(source, path, gpu, optimise, cpu)


def compile(
    source: str | bytes, path: str = "<string>", gpu: bool | str = False, optimise: bool = True, cpu: str | None = None
) -> Library:
    """Compile Mountain Goat source (a str, or bytes of UTF-8 text) to a ``Library`` of its
    defs; raises ``MgError`` (with ``.render()``) if it is invalid and issues its warnings as
    ``MgWarning`` (once in a process: a second compile of the same source is served from a
    cache; a library loaded from the disk cache, in another process, issues them again). Its
    top-level statements are checked but left out (a library holds the defs only): the first
    one draws an ``MgWarning`` naming its line. Another process that compiles the same source
    loads the library from the disk cache of ``mgc run`` (see the module docstring).

    ``gpu=True`` (or ``"cuda"``) runs every parallel loop nest as a kernel on the NVIDIA GPU,
    ``gpu="emulated"`` runs the same kernels on the CPU (``GpuError`` if there is no GPU).
    ``optimise=False`` compiles with the reference pipeline (one nest per op).
    ``cpu`` (an LLVM CPU name such as ``"x86-64-v3"``) compiles for that CPU instead of this
    host: its instruction sets only, its kernels (this host must be able to run them)."""
    if not isinstance(source, (str, bytes)):
        hint = " (for a file, call compile_file(path))" if isinstance(source, os.PathLike) else ""
        raise TypeError(
            f"compile takes the program's source text, a str (or bytes of UTF-8 text), not {_kind(source)}{hint}"
        )
    if not isinstance(path, str):
        raise TypeError(f"the path of compile (the name messages give the source) must be a str, not {_kind(path)}")
    if gpu not in (False, True, None, "cuda", "emulated"):
        raise ValueError(f"gpu must be True, False, 'cuda' or 'emulated', not {gpu!r}")
    return _compile_cached(source, path, "cuda" if gpu is True else gpu or None, optimise, cpu)


def compile_file(path: "str | os.PathLike", gpu: bool | str = False, optimise: bool = True) -> Library:
    """``compile`` of the file at ``path`` (a str or a path object), read as UTF-8 text."""
    # (open() would take an int as a file descriptor, and bytes would be the path in messages)
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"compile_file takes the path of a file, a str or a path object, not {_kind(path)}")
    path = os.fsdecode(path)
    with open(path, "rb") as f:
        return compile(f.read(), path, gpu, optimise)


def _kind(value) -> str:
    """What ``value`` is, for a ``TypeError``: ``None``, ``a bytearray``, ``an int``."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
