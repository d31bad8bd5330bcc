"""The run-time library's ``.npy`` functions (``runtime_files_ir``) called directly, on
memrefs that the pipeline does not hand them today: strided views (gathered into C order),
empty tensors, ranks up to its limit. (Their failures are tested end to end, in
``tests/e2e/test_files_ir.py``: unguarded, one ends the process.)"""

import ctypes
from pathlib import Path

import numpy as np
import pytest

from mg_xdsl.backend.jit import Engine
from mg_xdsl.backend.runtime_files_ir import MAX_RANK, NPY_DESCRS
from mg_xdsl.core import element_types
from mg_xdsl.dialects.mg import NPY_TYPES

# Entry points under names of this test's own, so that the JIT keeps the library's functions.
_CALLERS = r"""
declare i64 @mgrt_npy_load_f64(i64, ptr, i64, i64, ptr)
declare void @mgrt_npy_read_f64(i64, i64, ptr)
declare void @mgrt_npy_save_f64(i64, ptr, i64, ptr)

define i64 @load(i64 %a, ptr %b, i64 %c, i64 %d, ptr %e) {
  %h = call i64 @mgrt_npy_load_f64(i64 %a, ptr %b, i64 %c, i64 %d, ptr %e)
  ret i64 %h
}

define void @read(i64 %h, i64 %r, ptr %d) {
  call void @mgrt_npy_read_f64(i64 %h, i64 %r, ptr %d)
  ret void
}

define void @save(i64 %a, ptr %b, i64 %c, ptr %d) {
  call void @mgrt_npy_save_f64(i64 %a, ptr %b, i64 %c, ptr %d)
  ret void
}
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(_CALLERS, level=0)


def descriptor(data: int, offset: int, sizes: list[int], strides: list[int]) -> ctypes.Array:
    """Upstream's ranked memref descriptor, as 8-byte words."""
    return (ctypes.c_int64 * (3 + 2 * len(sizes)))(data, data, offset, *sizes, *strides)


def path_memref(path: Path) -> tuple[ctypes.Array, ctypes.Array]:
    text = ctypes.create_string_buffer(str(path).encode())
    return text, descriptor(ctypes.addressof(text), 0, [len(text)], [1])


def save(engine: Engine, path: Path, base: np.ndarray, view: np.ndarray) -> None:
    """``mgrt_npy_save_f64`` of ``view`` (a view of ``base``, float64), as its memref."""
    item = base.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    d = descriptor(base.ctypes.data, offset, list(view.shape), [s // item for s in view.strides])
    text, p = path_memref(path)
    function = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p)
    function(engine.address("save"))(1, ctypes.addressof(p), view.ndim, ctypes.addressof(d))


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a.T,
        lambda a: a[:, 1:3],
        lambda a: a[1:, ::-1],
        lambda a: a[::2, 2:3],
        lambda a: a[2:2],
        lambda a: a[1],
        lambda a: a[1, 2, ...],
    ],
    ids=["transposed", "sliced", "reversed", "strided column", "empty", "row", "element"],
)
def test_save_gathers_a_strided_view(engine: Engine, tmp_path: Path, view) -> None:
    base = np.arange(20.0).reshape(4, 5)
    v = view(base)
    save(engine, tmp_path / "v.npy", base, v)
    found = np.load(tmp_path / "v.npy")
    assert found.shape == v.shape
    np.testing.assert_array_equal(found, v)
    np.save(tmp_path / "numpy.npy", np.array(v, order="C"))
    assert (tmp_path / "v.npy").read_bytes() == (tmp_path / "numpy.npy").read_bytes()


def test_many_dimensions_and_long_sizes(engine: Engine, tmp_path: Path) -> None:
    """The header of the most dimensions a file is read with, and of a long first size."""
    for shape in [(1,) * MAX_RANK, (123456789, 0, 2)]:
        base = np.zeros(shape)
        save(engine, tmp_path / "v.npy", base, base)
        np.save(tmp_path / "numpy.npy", base)
        assert (tmp_path / "v.npy").read_bytes() == (tmp_path / "numpy.npy").read_bytes()


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0,), (1,) * MAX_RANK])
def test_load_sizes_and_data(engine: Engine, tmp_path: Path, shape: tuple[int, ...]) -> None:
    """``mgrt_npy_load_T`` writes the file's sizes over the -1s; ``mgrt_npy_read_T`` the data."""
    x = np.arange(float(np.prod(shape))).reshape(shape)
    np.save(tmp_path / "x.npy", x)
    text, p = path_memref(tmp_path / "x.npy")
    sizes = (ctypes.c_int64 * len(shape))(*([-1] * len(shape)))
    s = descriptor(ctypes.addressof(sizes), 0, [len(shape)], [1])
    load = ctypes.CFUNCTYPE(
        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p
    )
    handle = load(engine.address("load"))(1, ctypes.addressof(p), len(shape), 1, ctypes.addressof(s))
    assert list(sizes) == list(shape)
    out = np.full(shape, np.nan)
    d = descriptor(out.ctypes.data, 0, list(shape), [1] * len(shape))
    read = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
    read(engine.address("read"))(handle, len(shape), ctypes.addressof(d))
    np.testing.assert_array_equal(out, x)


def test_the_dialect_and_the_library_agree_on_the_types() -> None:
    assert [element_types.NAME_OF[t] for t in NPY_TYPES] == list(NPY_DESCRS)
    for name, (descr, size) in NPY_DESCRS.items():
        dtype = np.dtype(element_types.record(element_types.NAMES[name]).numpy)
        assert (dtype.str, dtype.itemsize) == (descr, size)
