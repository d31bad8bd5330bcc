"""``mg.load`` and ``mg.save`` end to end, on hand-written mg IR (``IrCompilation``: the front
end's ``load``/``save`` come separately), in the JIT as ``mgc run`` runs a program (object code
in an ``ObjectEngine``, in a forked child) and in an executable (``mgc build``), through both
pipelines and upstream MLIR's (``--backend mlir``): NumPy's files in, NumPy reading the files
out, value for value; each bad file's message and exit status 1; the Python API's
``MgFileError``.
"""

import ctypes
import os
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helpers.upstream import MLIR_OPT, upstream_accepts
from xdsl.parser import Parser

from mg_xdsl import api
from mg_xdsl.backend import runtime
from mg_xdsl.backend.jit import Engine, ObjectEngine, runtime_global, undefined_symbols
from mg_xdsl.backend.runtime_files_ir import C_FUNCTIONS
from mg_xdsl.backend.runtime_ir import guarded_wrapper
from mg_xdsl.driver import Compilation
from mg_xdsl.pipeline import stages as pipeline

TYPES = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64, "i1": np.bool_}
SHAPES = [(), (5,), (2, 3), (2, 3, 4)]


class IrCompilation(Compilation):
    """A compilation of mg IR text instead of a program's source."""

    def mlir(self, stage: str = "mg", verify: bool = True):
        ctx = pipeline.context()
        module = Parser(ctx, str(self.source)).parse_module()
        for s in pipeline.stages_to(stage, self.optimise):
            pipeline.run_stage(module, s, ctx, self.timed, verify_result=True, target=None)
        return module


def tensor(t: str, shape: tuple[int | None, ...]) -> str:
    return "tensor<" + "".join(f"{'?' if d is None else d}x" for d in shape) + t + ">"


def main(*lines: str) -> str:
    body = "".join(f"  {line}\n" for line in lines)
    return f"func.func @main() {{\n{body}  func.return\n}}\n"


def values(t: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values that catch a lost bit: extremes, NaN, infinities, -0.0."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(TYPES[t])
    n = int(np.prod(shape))
    if t == "i1":
        flat = rng.integers(0, 2, n).astype(bool)
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        flat = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        flat[: min(n, 2)] = [info.min, info.max][: min(n, 2)]
    else:
        flat = rng.standard_normal(n).astype(dtype) * dtype.type(1e30)
        flat[: min(n, 4)] = np.array([np.nan, -np.inf, -0.0, np.finfo(dtype).tiny], dtype)[: min(n, 4)]
    return flat.reshape(shape)


def run_jit(source: str, optimise: bool = True, backend: str = "xdsl") -> tuple[str, str, int]:
    """Run ``@main`` as ``mgc run`` does, in a forked child: (stdout, stderr, exit status)."""
    obj = IrCompilation(source, "prog.mlir", keep_dir=None, optimise=optimise, backend=backend).jit_object()
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without the parent's clean-ups
        status = 3
        try:
            os.close(out_r)
            os.close(err_r)
            os.dup2(err_w, 2)
            runtime._output.append(os.fdopen(out_w, "w"))
            ObjectEngine(obj).run_main()
            status = 0
        finally:
            os._exit(status)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, "rb") as out, os.fdopen(err_r, "rb") as err:
        stdout, stderr = out.read(), err.read()
    _, status = os.waitpid(pid, 0)
    return stdout.decode(), stderr.decode(), os.waitstatus_to_exitcode(status)


def run_exe(source: str, tmp: Path, optimise: bool = True, backend: str = "xdsl") -> tuple[str, str, int]:
    exe = tmp / "prog"
    IrCompilation(source, "prog.mlir", keep_dir=None, optimise=optimise, backend=backend).build(str(exe))
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    return p.stdout, p.stderr, p.returncode


RUNNERS = {"jit": lambda source, tmp, **kw: run_jit(source, **kw), "exe": run_exe}


def round_trip_program(tmp: Path, dynamic: bool) -> tuple[str, dict[str, np.ndarray]]:
    """A program loading a file of every element type and rank (``?`` sizes where ``dynamic``)
    and saving each to ``out_*.npy``; the arrays it loads."""
    lines, arrays = [], {}
    for t in TYPES:
        for r, shape in enumerate(SHAPES):
            name = f"{t}_{r}"
            arrays[name] = values(t, shape, seed=r)
            np.save(tmp / f"in_{name}.npy", arrays[name])
            declared = tensor(t, tuple(None if dynamic and d % 2 == 0 else size for d, size in enumerate(shape)))
            lines.append(f'%{name} = mg.load {{path = "{tmp}/in_{name}.npy"}} : {declared}')
            lines.append(f'mg.save %{name} {{path = "{tmp}/out_{name}.npy"}} : {declared}')
    return main(*lines), arrays


def check_round_trip(tmp: Path, arrays: dict[str, np.ndarray]) -> None:
    for name, expected in arrays.items():
        found = np.load(tmp / f"out_{name}.npy")
        assert found.dtype == expected.dtype and found.shape == expected.shape, name
        assert found.tobytes() == expected.tobytes(), name  # (NaN and -0.0 included)
        # the file itself is np.save's, header and padding included
        assert (tmp / f"out_{name}.npy").read_bytes() == (tmp / f"in_{name}.npy").read_bytes(), name
    assert not [p for p in tmp.iterdir() if ".tmp" in p.name]  # no temporary file left


@pytest.mark.parametrize("runner", ["jit", "exe"])
@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_round_trip_every_type_and_rank(tmp_path: Path, runner: str, optimise: bool) -> None:
    source, arrays = round_trip_program(tmp_path, dynamic=runner == "jit")
    out, err, status = RUNNERS[runner](source, tmp_path, optimise=optimise)
    assert (out, err, status) == ("", "", 0)
    check_round_trip(tmp_path, arrays)


@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-22 is not installed (CI installs it)")
def test_round_trip_upstream(tmp_path: Path) -> None:
    """mlir-opt-22 accepts the affine stage of both pipelines, and its lowering (``--backend
    mlir``) reads and writes the same files."""
    source, arrays = round_trip_program(tmp_path, dynamic=True)
    for optimise in (True, False):
        upstream_accepts(str(IrCompilation(source, "prog.mlir", keep_dir=None, optimise=optimise).mlir("affine")))
    assert run_jit(source, backend="mlir") == ("", "", 0)
    check_round_trip(tmp_path, arrays)


@pytest.mark.parametrize("level", [0, 2])
def test_calls_only_the_c_library(tmp_path: Path, level: int) -> None:
    """What the object code of a program that loads and saves leaves undefined: the C
    library's functions the .npy code names (``C_FUNCTIONS``: the list ``tests/unit/backend/
    test_symbols.py`` allows), and those ``runtime_ir`` calls."""
    source, _ = round_trip_program(tmp_path, dynamic=True)
    names = set(undefined_symbols(IrCompilation(source, "prog.mlir", keep_dir=None).jit_object(level)))
    runtime_ir = {"abort", "_setjmp", "pthread_getspecific", "pthread_setspecific", "posix_memalign", "madvise"}
    assert names - runtime_ir <= set(C_FUNCTIONS), sorted(names)


def test_loaded_values_compute(tmp_path: Path) -> None:
    """A loaded tensor is an ordinary one: added, transposed and sliced, then saved."""
    x = np.arange(12.0).reshape(4, 3) - 5.5
    np.save(tmp_path / "x.npy", x)
    source = main(
        f'%x = mg.load {{path = "{tmp_path}/x.npy"}} : tensor<?x3xf64>',
        "%s = mg.add %x, %x : tensor<?x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>",
        f'mg.save %s {{path = "{tmp_path}/sum.npy"}} : tensor<?x3xf64>',
        "%t = mg.transpose %x : tensor<?x3xf64> to tensor<3x?xf64>",
        f'mg.save %t {{path = "{tmp_path}/t.npy"}} : tensor<3x?xf64>',
        "%c = mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<?x3xf64> to tensor<?x2xf64>",
        f'mg.save %c {{path = "{tmp_path}/c.npy"}} : tensor<?x2xf64>',
        "mg.print %c : tensor<?x2xf64>",
    )
    for optimise in (True, False):
        out, err, status = run_jit(source, optimise=optimise)
        assert status == 0, err
        assert "sizes = [4, 2]" in out
        np.testing.assert_array_equal(np.load(tmp_path / "sum.npy"), x + x)
        np.testing.assert_array_equal(np.load(tmp_path / "t.npy"), x.T)
        np.testing.assert_array_equal(np.load(tmp_path / "c.npy"), x[:, 1:3])


def test_header_versions(tmp_path: Path) -> None:
    """Format versions 2.0 and 3.0 (a 4-byte header length) read as 1.0 does; 4.0 does not."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    lines = []
    for major in (1, 2, 3):
        with open(tmp_path / f"v{major}.npy", "wb") as f:
            np.lib.format.write_array(f, x, version=(major, 0))
        lines.append(f'%x{major} = mg.load {{path = "{tmp_path}/v{major}.npy"}} : tensor<2x?xi32>')
        lines.append(f'mg.save %x{major} {{path = "{tmp_path}/out{major}.npy"}} : tensor<2x?xi32>')
    out, err, status = run_jit(main(*lines))
    assert status == 0, err
    for major in (1, 2, 3):
        np.testing.assert_array_equal(np.load(tmp_path / f"out{major}.npy"), x)


# What each bad file is, and the message (after "load: PATH: ") it gives for a tensor<?x64xf32>.
def _write_text(path: Path) -> None:
    path.write_text("x,y\n1,2\n")


def _cut_short(path: Path) -> None:
    np.save(path, np.zeros((3, 64), np.float32))
    path.write_bytes(path.read_bytes()[:-700])


def _version4(path: Path) -> None:
    np.save(path, np.zeros((3, 64), np.float32))
    data = bytearray(path.read_bytes())
    data[6] = 4
    path.write_bytes(bytes(data))


def _header_cut(path: Path) -> None:
    np.save(path, np.zeros((3, 64), np.float32))
    path.write_bytes(path.read_bytes()[:40])


BAD_FILES = {
    "missing": (lambda p: None, "No such file or directory"),
    "text": (_write_text, "not a .npy file"),
    "empty": (lambda p: p.write_bytes(b""), "not a .npy file"),
    "header cut short": (_header_cut, "not a .npy file (its header is cut short)"),
    "version 4": (_version4, "unsupported .npy format version 4.0"),
    "f64": (lambda p: np.save(p, np.zeros((3, 64))), "expected element type f32 ('<f4'), found '<f8'"),
    "big-endian": (lambda p: np.save(p, np.zeros((3, 64), ">f4")), "expected element type f32 ('<f4'), found '>f4'"),
    "rank 3": (lambda p: np.save(p, np.zeros((3, 64, 1), np.float32)), "expected 2 dimensions, found 3"),
    "rank 0": (lambda p: np.save(p, np.float32(1)), "expected 2 dimensions, found 0"),
    "size": (lambda p: np.save(p, np.zeros((3, 63), np.float32)), "dimension 1 must be 64, found 63"),
    "fortran": (
        lambda p: np.save(p, np.asfortranarray(np.zeros((3, 64), np.float32))),
        "Fortran order is not supported",
    ),
    "cut short": (_cut_short, "the data is cut short: expected 768 bytes, found 68"),
}


@pytest.mark.parametrize("runner", ["jit", "exe"])
def test_bad_files(tmp_path: Path, runner: str) -> None:
    """Each bad file stops the program with ``load: PATH: WHAT`` on stderr and exit status 1
    (not an abort); what the program printed before stays printed."""
    for n, (case, (make, message)) in enumerate(BAD_FILES.items()):
        path = tmp_path / f"bad{n}.npy"
        make(path)
        source = main(
            "%c = mg.constant dense<2.5> : tensor<f64>",
            "mg.print %c : tensor<f64>",
            f'%x = mg.load {{path = "{path}"}} : tensor<?x64xf32>',
            "mg.print %x : tensor<?x64xf32>",
        )
        out, err, status = RUNNERS[runner](source, tmp_path, optimise=n % 2 == 0)
        assert (err, status) == (f"load: {path}: {message}\n", 1), case
        assert out.endswith("[2.5]\n") and out.count("Unranked") == 1, case


@pytest.mark.parametrize("runner", ["jit", "exe"])
def test_fortran_order_of_one_dimension_is_c_order(tmp_path: Path, runner: str) -> None:
    x = np.arange(5, dtype=np.int64)
    header = "{'descr': '<i8', 'fortran_order': True, 'shape': (5,), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    (tmp_path / "x.npy").write_bytes(
        b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + x.tobytes()
    )
    source = main(
        f'%x = mg.load {{path = "{tmp_path}/x.npy"}} : tensor<5xi64>',
        f'mg.save %x {{path = "{tmp_path}/y.npy"}} : tensor<5xi64>',
    )
    assert RUNNERS[runner](source, tmp_path) == ("", "", 0)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), x)


def test_booleans_read_as_zero_or_one(tmp_path: Path) -> None:
    """A ``|b1`` byte other than 0 (which NumPy reads as true) is 1 in the compiled code."""
    np.save(tmp_path / "b.npy", np.array([True, False, True]))
    data = bytearray((tmp_path / "b.npy").read_bytes())
    data[-3] = 7
    (tmp_path / "b.npy").write_bytes(bytes(data))
    source = main(
        f'%b = mg.load {{path = "{tmp_path}/b.npy"}} : tensor<3xi1>',
        "%i = mg.convert %b : tensor<3xi1> to tensor<3xi32>",
        "mg.print %i : tensor<3xi32>",
    )
    out, err, status = run_jit(source)
    assert status == 0, err
    assert out.endswith("[1,  0,  1]\n")


@pytest.mark.parametrize("runner", ["jit", "exe"])
def test_save_to_unwritable_directory(tmp_path: Path, runner: str) -> None:
    """A save that cannot write fails with exit status 1 and leaves no file, partial or not."""
    targets = [tmp_path / "missing" / "w.npy"]
    if os.geteuid() != 0:  # (root writes into a read-only directory)
        (tmp_path / "locked").mkdir(mode=0o555)
        targets.append(tmp_path / "locked" / "w.npy")
    for target in targets:
        source = main(
            "%c = mg.constant dense<[1.0, 2.0]> : tensor<2xf64>", f'mg.save %c {{path = "{target}"}} : tensor<2xf64>'
        )
        out, err, status = RUNNERS[runner](source, tmp_path)
        why = "No such file or directory" if target.parent.name == "missing" else "Permission denied"
        assert (out, err, status) == ("", f"save: {target}: {why}\n", 1)
        assert not target.parent.exists() or list(target.parent.iterdir()) == []


def test_save_replaces_a_file(tmp_path: Path) -> None:
    target = tmp_path / "w.npy"
    target.write_bytes(b"old contents, longer than the new file's " * 100)
    source = main(
        "%c = mg.constant dense<[1.0, 2.0]> : tensor<2xf64>", f'mg.save %c {{path = "{target}"}} : tensor<2xf64>'
    )
    assert run_jit(source) == ("", "", 0)
    np.testing.assert_array_equal(np.load(target), [1.0, 2.0])
    assert [p.name for p in tmp_path.iterdir()] == ["w.npy"]


def guarded_call(source: str, name: str, x: np.ndarray) -> Exception | None:
    """Call the def ``name`` of one rank-1 f64 parameter as the Python API does (through its
    guard, with a failure record): the exception the API would raise, or None."""
    ir = IrCompilation(source, "prog.mlir", keep_dir=None, lib=True).llvm_ir(verify=False)
    engine = Engine(ir, extra=(guarded_wrapper(name, [1]),))
    # (the key lives in the run-time library's core, which the process's programs share)
    ctypes.c_int64.from_address(runtime_global("mgrt_guard_key")).value = api._guard_key()
    descriptor = api.descriptor_type(1)
    call = ctypes.CFUNCTYPE(
        ctypes.c_int32, ctypes.POINTER(api.Failure), ctypes.POINTER(descriptor), ctypes.c_void_p, ctypes.c_int64
    )(engine.address(f"mgrt_guarded_{name}"))
    failure, result = api.Failure(), descriptor()
    failed = call(ctypes.byref(failure), ctypes.byref(result), x.ctypes.data, len(x))
    return failure.exception() if failed else None


def test_api_raises_mg_file_error(tmp_path: Path) -> None:
    """In a guarded call (the Python API's) a bad file is an ``MgFileError``, and the process
    goes on."""
    source = f"""
func.func @f(%x: tensor<?xf64>) -> tensor<?xf64> attributes {{llvm.emit_c_interface}} {{
  mg.save %x {{path = "{tmp_path}/missing/w.npy"}} : tensor<?xf64>
  %y = mg.load {{path = "{tmp_path}/y.npy"}} : tensor<?xf64>
  func.return %y : tensor<?xf64>
}}
"""
    error = guarded_call(source, "f", np.arange(3.0))
    assert isinstance(error, api.MgFileError) and isinstance(error, api.RuntimeCheckFailed)
    assert str(error) == error.message == f"save: {tmp_path}/missing/w.npy: No such file or directory"
    assert error.file == f"{tmp_path}/missing/w.npy" and error.path is None
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is api.MgFileError and (str(copy), copy.file) == (str(error), error.file)
    (tmp_path / "missing").mkdir()
    np.save(tmp_path / "y.npy", np.ones((2, 2)))
    error = guarded_call(source, "f", np.arange(3.0))
    assert isinstance(error, api.MgFileError)
    assert str(error) == f"load: {tmp_path}/y.npy: expected 1 dimension, found 2"
