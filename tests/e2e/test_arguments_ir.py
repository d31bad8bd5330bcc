"""``mg.arg`` end to end, on hand-written mg IR (``IrCompilation``; the front end's ``arg`` is
tested with ``mgc`` at the end), in the JIT as ``mgc run`` runs a program (object code in an
``ObjectEngine``, in a forked child) and in an executable (``mgc build``), through both
pipelines and upstream MLIR's (``--backend mlir``): defaults, values set, ``f64`` and ``i64``,
each bad argument's message and exit status 1, ``--help``; a program without arguments given
one; a def of a library reading its default.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.upstream import MLIR_OPT, upstream_accepts
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

from mg_xdsl.backend import runtime
from mg_xdsl.backend.jit import Engine, ObjectEngine, TakesNoArguments, undefined_symbols
from mg_xdsl.backend.runtime_arguments_ir import C_FUNCTIONS, NO_ARGUMENTS
from mg_xdsl.driver import Compilation
from mg_xdsl.pipeline import stages as pipeline

MGC = str(Path(sys.executable).with_name("mgc"))


class IrCompilation(Compilation):
    """A compilation of mg IR text instead of a program's source."""

    def mlir(self, stage: str = "mg", verify: bool = True):
        ctx = pipeline.context()
        module = Parser(ctx, str(self.source)).parse_module()
        for s in pipeline.stages_to(stage, self.optimise):
            pipeline.run_stage(module, s, ctx, self.timed, verify_result=True, target=None)
        return module


# lr (f64) and steps (i64), each printed, and a value computed from each: what the program
# prints before reading an argument shows that a bad one stops it before it begins.
PROGRAM = """
func.func @main() {
  %c = mg.constant dense<2.5> : tensor<f64>
  mg.print %c : tensor<f64>
  %lr = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  %steps = mg.arg {name = "steps", default = 100 : i64} : tensor<i64>
  mg.print %lr : tensor<f64>
  mg.print %steps : tensor<i64>
  %twice = mg.add %steps, %steps : tensor<i64>, tensor<i64> -> tensor<i64>
  mg.print %twice : tensor<i64>
  %lr_again = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  %sum = mg.add %lr, %lr_again : tensor<f64>, tensor<f64> -> tensor<f64>
  mg.print %sum : tensor<f64>
  func.return
}
"""

NO_ARGUMENTS_PROGRAM = """
func.func @main() {
  %c = mg.constant dense<2.5> : tensor<f64>
  mg.print %c : tensor<f64>
  func.return
}
"""

TABLE = "lr (default 0.1), steps (default 100)"
HELP = (
    "this program takes these arguments, each given as NAME=VALUE:\n  lr: f64, default 0.1\n  steps: i64, default 100\n"
)


def data(out: str) -> list[str]:
    """The printed values, one line each (the headers, with their addresses, left out)."""
    return [line for line in out.splitlines() if not line.startswith("Unranked Memref")]


def run_jit(source: str, arguments: list[str], optimise: bool = True, backend: str = "xdsl") -> tuple[str, str, int]:
    """Run ``@main`` with ``arguments`` as ``mgc run`` does, in a forked child: (stdout, stderr,
    exit status). The child's stdout (``--help``'s) and the printers' go to one pipe."""
    obj = IrCompilation(source, "prog.mlir", keep_dir=None, optimise=optimise, backend=backend).jit_object()
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without the parent's clean-ups
        status = 3
        try:
            os.close(out_r)
            os.close(err_r)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            runtime._output.append(os.fdopen(out_w, "w"))
            ObjectEngine(obj).run_main(arguments)
            status = 0
        finally:
            os._exit(status)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, "rb") as out, os.fdopen(err_r, "rb") as err:
        stdout, stderr = out.read(), err.read()
    _, status = os.waitpid(pid, 0)
    return stdout.decode(), stderr.decode(), os.waitstatus_to_exitcode(status)


@pytest.fixture(scope="module")
def executables(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Path]:
    """The two programs built once per pipeline: ``(program, optimise)`` -> executable."""
    tmp = tmp_path_factory.mktemp("exe")
    built = {}
    for name, source in (("args", PROGRAM), ("none", NO_ARGUMENTS_PROGRAM)):
        for optimise in (True, False):
            exe = tmp / f"{name}_{optimise}"
            IrCompilation(source, "prog.mlir", keep_dir=None, optimise=optimise).build(str(exe))
            built[name, optimise] = exe
    return built


def run_exe(exe: Path, arguments: list[str]) -> tuple[str, str, int]:
    p = subprocess.run([str(exe), *arguments], capture_output=True, text=True, timeout=60)
    return p.stdout, p.stderr, p.returncode


# arguments -> the values printed (lr, steps, 2 * steps, 2 * lr)
GOOD = {
    (): ["[0.1]", "[100]", "[200]", "[0.2]"],
    ("lr=0.05", "steps=10"): ["[0.05]", "[10]", "[20]", "[0.1]"],
    ("steps=-7",): ["[0.1]", "[-7]", "[-14]", "[0.2]"],
    ("lr=1e3",): ["[1000]", "[100]", "[200]", "[2000]"],
    ("lr=-inf",): ["[-inf]", "[100]", "[200]", "[-inf]"],
    ("steps=9223372036854775807",): ["[0.1]", "[9223372036854775807]", "[-2]", "[0.2]"],
    ("lr=1", "lr=3"): ["[3]", "[100]", "[200]", "[6]"],  # the last one given
}

# arguments -> the message on stderr (exit status 1, nothing printed)
BAD = {
    ("steps=2.5",): "argument 'steps': expected an integer (i64), got '2.5'",
    ("steps=",): "argument 'steps': expected an integer (i64), got ''",
    ("steps=99999999999999999999",): "argument 'steps': expected an integer (i64), got '99999999999999999999'",
    ("lr=fast",): "argument 'lr': expected a number (f64), got 'fast'",
    ("lr=0.1x",): "argument 'lr': expected a number (f64), got '0.1x'",
    ("lrr=1",): f"unknown argument 'lrr': this program takes {TABLE}",
    ("lr=1", "Steps=3"): f"unknown argument 'Steps': this program takes {TABLE}",
    ("lr",): f"malformed argument 'lr' (expected NAME=VALUE): this program takes {TABLE}",
    ("=1",): f"malformed argument '=1' (expected NAME=VALUE): this program takes {TABLE}",
    ("-v",): f"malformed argument '-v' (expected NAME=VALUE): this program takes {TABLE}",
}


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("runner", ["jit", "exe"])
def test_values_bad_arguments_and_help(runner: str, optimise: bool, executables) -> None:
    def run(arguments: list[str]) -> tuple[str, str, int]:
        if runner == "jit":
            return run_jit(PROGRAM, arguments, optimise=optimise)
        return run_exe(executables["args", optimise], arguments)

    for arguments, values in GOOD.items():
        out, err, status = run(list(arguments))
        assert (err, status) == ("", 0), arguments
        assert data(out) == ["[2.5]", *values], arguments
    for arguments, message in BAD.items():
        # checked before the program begins: nothing printed
        assert run(list(arguments)) == ("", message + "\n", 1), arguments
    assert run(["--help"]) == (HELP, "", 0)
    assert run(["lr=2", "--help"]) == (HELP, "", 0)
    assert run(["--help", "nonsense"]) == (HELP, "", 0)  # (each argument in turn: --help first)


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_a_program_without_arguments_given_some(optimise: bool, executables) -> None:
    exe = executables["none", optimise]
    assert data(run_exe(exe, [])[0]) == ["[2.5]"]
    assert run_exe(exe, ["lr=1"]) == ("", f"unknown argument 'lr': {NO_ARGUMENTS}\n", 1)
    assert run_exe(exe, ["junk"]) == ("", f"unknown argument 'junk': {NO_ARGUMENTS}\n", 1)
    assert run_exe(exe, ["--help"]) == (NO_ARGUMENTS + "\n", "", 0)
    # the JIT: the same words, from the engine before anything runs (mgc run prints them)
    engine = ObjectEngine(IrCompilation(NO_ARGUMENTS_PROGRAM, "p.mlir", keep_dir=None, optimise=optimise).jit_object())
    for argument, message, help in (
        ("lr=1", f"unknown argument 'lr': {NO_ARGUMENTS}", False),
        ("--help", NO_ARGUMENTS, True),
    ):
        with pytest.raises(TakesNoArguments) as caught:
            engine.run_main([argument])
        assert (str(caught.value), caught.value.help) == (message, help)
    engine.close()


@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-22 is not installed (CI installs it)")
def test_upstream() -> None:
    """mlir-opt-22 accepts the affine stage of both pipelines, and its lowering (``--backend
    mlir``) reads the same arguments and rejects the same bad ones."""
    for optimise in (True, False):
        upstream_accepts(str(IrCompilation(PROGRAM, "prog.mlir", keep_dir=None, optimise=optimise).mlir("affine")))
    out, err, status = run_jit(PROGRAM, ["lr=0.05", "steps=10"], backend="mlir")
    assert (err, status) == ("", 0)
    assert data(out) == ["[2.5]", "[0.05]", "[10]", "[20]", "[0.1]"]
    assert run_jit(PROGRAM, ["lrr=1"], backend="mlir") == (
        "",
        f"unknown argument 'lrr': this program takes {TABLE}\n",
        1,
    )


@pytest.mark.parametrize("level", [0, 2])
def test_calls_only_the_c_library(level: int) -> None:
    """What the object code of a program with arguments leaves undefined beyond what the
    same program with constants instead does: the C library's functions the argument code
    names (``C_FUNCTIONS``, which ``tests/unit/backend/test_symbols.py`` allows)."""
    constants = re.sub(r"mg\.arg \{name = \"\w+\", default = ([^ ]+) : (\w+)\}", r"mg.constant dense<\1>", PROGRAM)
    assert "mg.arg" not in constants

    def names(source: str) -> set[str]:
        return set(undefined_symbols(IrCompilation(source, "prog.mlir", keep_dir=None).jit_object(level)))

    added = names(PROGRAM) - names(constants)
    assert added and added <= set(C_FUNCTIONS), sorted(added)


def test_a_library_def_reads_its_default() -> None:
    """A library has no ``@main``: nothing checks or sets arguments, and a def reads its
    default (the Python API's case)."""
    source = """
func.func @scale() -> tensor<f64> attributes {llvm.emit_c_interface} {
  %s = mg.arg {name = "scale", default = 2.500000e+00 : f64} : tensor<f64>
  func.return %s : tensor<f64>
}
"""
    compilation = IrCompilation(source, "prog.mlir", keep_dir=None, lib=True)
    assert "mgrt_arg_check" not in str(compilation.mlir("affine"))
    import ctypes

    engine = Engine(compilation.llvm_ir())
    result = (ctypes.c_int64 * 3)()  # a rank-0 descriptor: allocated, aligned, offset
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.address("_mlir_ciface_scale"))(ctypes.addressof(result))
    assert ctypes.c_double.from_address(result[1]).value == 2.5


def mgc(*arguments: str, cwd: Path) -> tuple[str, str, int]:
    env = {**os.environ, "MGC_CACHE_DIR": str(cwd / "cache")}
    p = subprocess.run([MGC, *arguments], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)
    return p.stdout, p.stderr, p.returncode


def test_mgc_run_and_build(tmp_path: Path) -> None:
    """The front end's ``arg``, through ``mgc run`` (arguments after the program; options
    among them are mgc's) and an executable of ``mgc build``; the cache does not keep values."""
    (tmp_path / "prog.mg").write_text('let lr = arg("lr", 0.1)\nlet steps = arg("steps", 100)\nprint lr\nprint steps\n')
    (tmp_path / "none.mg").write_text("print 1\n")
    out, err, status = mgc("run", "prog.mg", cwd=tmp_path)
    assert (data(out), err, status) == (["[0.1]", "[100]"], "", 0)
    out, err, status = mgc("run", "prog.mg", "lr=0.05", "--reference", "steps=10", cwd=tmp_path)
    assert (data(out), err, status) == (["[0.05]", "[10]"], "", 0)
    out, err, status = mgc("run", "prog.mg", "lr=7", cwd=tmp_path)  # (from the cache)
    assert (data(out), err, status) == (["[7]", "[100]"], "", 0)
    assert mgc("run", "prog.mg", "--", "--help", cwd=tmp_path) == (HELP, "", 0)
    assert mgc("run", "prog.mg", "steps=2.5", cwd=tmp_path) == (
        "",
        "argument 'steps': expected an integer (i64), got '2.5'\n",
        1,
    )
    assert mgc("run", "none.mg", "lr=1", cwd=tmp_path) == ("", f"unknown argument 'lr': {NO_ARGUMENTS}\n", 1)
    assert mgc("run", "none.mg", "--", "--help", cwd=tmp_path) == (NO_ARGUMENTS + "\n", "", 0)
    _, err, status = mgc("build", "prog.mg", "-o", "train", "lr=1", cwd=tmp_path)
    assert status == 2 and "unrecognized arguments: lr=1" in err
    assert mgc("build", "prog.mg", "-o", "train", cwd=tmp_path) == ("", "", 0)
    out, err, status = run_exe(tmp_path / "train", ["steps=3"])
    assert (data(out), err, status) == (["[0.1]", "[3]"], "", 0)
    assert run_exe(tmp_path / "train", ["--help"]) == (HELP, "", 0)


def test_one_name_has_one_type_and_one_default() -> None:
    """Two ``mg.arg`` of one name that differ (the front end makes none) are a compile error."""
    source = """
func.func @main() {
  %a = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  %b = mg.arg {name = "lr", default = 2.000000e-01 : f64} : tensor<f64>
  func.return
}
"""
    for optimise in (True, False):
        with pytest.raises(
            DiagnosticException, match="argument 'lr' is read as f64 with default 0.1, and as f64 with default 0.2"
        ):
            IrCompilation(source, "prog.mlir", keep_dir=None, optimise=optimise).mlir("affine")
