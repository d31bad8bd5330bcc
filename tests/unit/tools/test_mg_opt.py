"""`mg-opt` reports like `mgc`: one clear error and no Python traceback for a bad pass name,
a missing file, text that does not parse, IR that does not verify or a pass that declines
its input; `mg-opt: internal error` (exit 3) for a bug; xdsl-opt's own behaviour where it
has a clean one (--verify-diagnostics, --parsing-diagnostics)."""

import importlib.metadata
import re
import subprocess

import llvmlite
import llvmlite.binding as llvm
import pytest
from conftest import EXAMPLES, tool
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mg_xdsl.tools import mg_opt

RELU = str(EXAMPLES / "01_relu.mg")
WARNS = "def bias(x: tensor[?x5], b: tensor[1x5]) = x + b\nprint bias([[1,2,3,4,5]], [[1,1,1,1,1]])\n"
WARNING = (
    "warning: a '?' dimension is never broadcast: this aborts at run time unless the sizes "
    "are equal; give the dimension a static size, or grow the 1 to x's size explicitly with "
    "broadcast_to(m, shape(x))"
)


def mg_opt_run(*args: str, input: bytes | None = None, cwd=None) -> subprocess.CompletedProcess:
    p = subprocess.run([tool("mg-opt"), *args], capture_output=True, input=input, cwd=cwd, timeout=120)
    p.out, p.err = p.stdout.decode(), p.stderr.decode()
    assert "Traceback" not in p.err, p.err
    return p


def test_an_unknown_pass_is_a_usage_error_naming_it_and_the_nearest():
    p = mg_opt_run(RELU, "-p", "no-such-pass")
    assert (p.returncode, p.err) == (2, "mg-opt: error: unknown pass 'no-such-pass' (mg-opt --help lists the passes)\n")
    p = mg_opt_run(RELU, "-p", "lower-mg-to-affine,lower-afine")
    assert p.returncode == 2
    assert p.err.startswith("mg-opt: error: unknown pass 'lower-afine' (did you mean lower-affine, ")


def test_a_malformed_pipeline_or_pass_option_is_a_usage_error():
    p = mg_opt_run(RELU, "-p", "lower-affine{")
    assert p.returncode == 2 and p.err.startswith("mg-opt: error: cannot parse the pass pipeline -p 'lower-affine{':")
    assert "Expected argument name here" in p.err
    p = mg_opt_run(RELU, "-p", "lower-affine{foo=1}")
    assert p.returncode == 2
    assert p.err == (
        "mg-opt: error: bad pass pipeline -p 'lower-affine{foo=1}': "
        'Provided arguments ["foo"] not found in expected arguments []\n'
    )


def test_a_file_that_cannot_be_read(tmp_path):
    p = mg_opt_run("/nonexistent.mg")
    assert (p.returncode, p.err) == (1, "mg-opt: error: cannot read /nonexistent.mg: No such file or directory\n")
    other = tmp_path / "prog.txt"
    other.write_text("")
    p = mg_opt_run(str(other))
    assert p.returncode == 1
    assert p.err.startswith(f"mg-opt: error: cannot tell the language of {other} from its extension")


def test_an_undefined_value_is_reported_where_it_is_used(tmp_path):
    path = tmp_path / "undefined.mlir"
    path.write_text('func.func @f() {\n  "test.op"(%1) : (i32) -> ()\n  func.return\n}\n')
    p = mg_opt_run(str(path), "--allow-unregistered-dialect")
    assert p.returncode == 1
    assert p.err == (f'{path}:2:13: error: use of undefined value %1\n  "test.op"(%1) : (i32) -> ()\n            ^^\n')


def test_an_undefined_value_in_a_split_file_is_reported_on_its_line(tmp_path):
    path = tmp_path / "split.mlir"
    path.write_text(
        "func.func @g() {\n  func.return\n}\n// -----\nfunc.func @f() {\n"
        '  %0 = arith.constant 1 : i32\n  "test.op"(%0, %7) : (i32, i32) -> ()\n'
        "  func.return\n}\n"
    )
    p = mg_opt_run(str(path), "--split-input-file", "--allow-unregistered-dialect")
    assert p.returncode == 1
    assert p.err.startswith(f"{path}:7:17: error: use of undefined value %7\n")


def test_a_syntax_error_is_one_located_error(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f() {\n  %0 = arith.constant : i32\n}\n")
    p = mg_opt_run(str(path))
    assert p.returncode == 1
    assert p.err.splitlines()[0] == f"{path}:2:23: error: attribute expected"


INVALID = "func.func @f() -> i32 {\n  func.return\n}\n"


def test_invalid_ir_keeps_the_annotated_message_without_a_traceback(tmp_path):
    path = tmp_path / "invalid.mlir"
    path.write_text(INVALID)
    p = mg_opt_run(str(path))
    assert p.returncode == 1
    lines = p.err.splitlines()
    assert lines[0] == (
        "mg-opt: error: invalid IR in the input: Expected arguments to have the same "
        "types as the function output types: expected [i32], got []"
    )
    assert "| Operation does not verify: Expected arguments to have the same types" in p.err
    assert '"func.return"() : () -> ()' in p.err


@pytest.mark.parametrize("passes", ["lower-mg-to-affine", "mg-cpu-pipeline"])
def test_an_element_type_no_lowering_handles_is_invalid_input_not_a_crash(tmp_path, passes):
    # (lower-mg-to-affine used to fail an assertion on an i32 relu, before i32 was lowered.)
    path = tmp_path / "i16.mlir"
    path.write_text(
        "func.func @f(%a: tensor<2x2xi16>) -> tensor<2x2xi16> {\n"
        "  %r = mg.relu %a : tensor<2x2xi16> -> tensor<2x2xi16>\n"
        "  func.return %r : tensor<2x2xi16>\n}\n"
    )
    p = mg_opt_run(str(path), "-p", passes)
    assert p.returncode == 1 and p.out == ""
    assert p.err.splitlines()[0] == (
        "mg-opt: error: invalid IR in the input: mg.relu: element type must be f32, f64, bf16, i32 or i64, got i16"
    )


def test_the_diagnostics_modes_of_xdsl_opt_are_kept(tmp_path):
    path = tmp_path / "invalid.mlir"
    path.write_text(INVALID)
    p = mg_opt_run(str(path), "--verify-diagnostics")
    assert p.returncode == 0 and p.out.startswith("Expected arguments to have the same types")
    path = tmp_path / "undefined.mlir"
    path.write_text('func.func @f() {\n  "test.op"(%1) : (i32) -> ()\n  func.return\n}\n')
    p = mg_opt_run(str(path), "--parsing-diagnostics", "--allow-unregistered-dialect")
    assert p.returncode == 0 and "use of undefined value %1" in p.out


def test_llvm_output_of_ir_not_yet_lowered_is_an_error():
    p = mg_opt_run(RELU, "-p", "lower-mg-to-affine", "-t", "llvm")
    assert p.returncode == 1
    assert p.err.startswith("mg-opt: error: -t llvm: Conversion not implemented for op: ")
    assert 'lower to the LLVM dialect first, e.g. -p "$(mgc pipeline)"' in p.err


def test_standard_input_and_mg_programs(tmp_path):
    mlir = mg_opt_run(RELU, "-p", "lower-mg-to-affine").stdout
    p = mg_opt_run("-", "-p", "lower-affine", input=mlir)
    assert p.returncode == 0 and "scf.for" in p.out
    prog = tmp_path / "bad.mg"
    prog.write_text("print [[1]] + [[1, 2], [3, 4], [5, 6]] @ [[1]]\n")
    p = mg_opt_run(str(prog))
    assert (p.returncode, p.err.splitlines()[0].split(": error: ")[0]) == (1, f"{prog}:1")


def test_mg_programs_warn_unless_told_not_to(tmp_path):
    prog = tmp_path / "bias.mg"
    prog.write_text(WARNS)
    p = mg_opt_run(str(prog))
    assert p.returncode == 0 and p.err == f"{prog}:1: {WARNING}\n"
    quiet = mg_opt_run(str(prog), "--no-warnings")
    assert quiet.returncode == 0 and quiet.err == "" and quiet.out == p.out


def test_version_names_the_project_xdsl_and_llvm():
    p = mg_opt_run("--version")
    assert p.returncode == 0
    assert p.out.splitlines() == [
        f"mg-opt (mg-xdsl, the Mountain Goat compiler) {importlib.metadata.version('mg-xdsl')}",
        f"xDSL {importlib.metadata.version('xdsl')}",
        f"LLVM {'.'.join(map(str, llvm.llvm_version_info))} (llvmlite {llvmlite.__version__})",
    ]


def test_help_names_the_project_and_lists_its_passes_first():
    p = mg_opt_run("--help")
    assert p.returncode == 0
    assert "mg-xdsl (the Mountain Goat compiler)" in p.out
    ours, theirs = p.out.index("this project's passes"), p.out.index("xDSL's passes:")
    assert ours < theirs
    for name in ("lower-mg-to-affine", "convert-mg-to-linalg", "finalize-memref-to-llvm"):
        assert ours < p.out.index(f"  {name} ") < theirs
    assert p.out.index("convert-linalg-to-loops") > theirs  # an xDSL pass, listed after
    assert 'mg-opt prog.mg -p "$(mgc pipeline)" -t llvm' in p.out


# Passes that misbehave, registered for one in-process run of mg-opt.
class DeclinePass(ModulePass):
    name = "test-decline"

    def apply(self, ctx, op: ModuleOp) -> None:
        raise PassFailedException("test-decline: 'memref.subview' with a strided layout is not supported")


class CrashPass(ModulePass):
    name = "test-crash"

    def apply(self, ctx, op: ModuleOp) -> None:
        raise KeyError("a bug")


class BreakPass(ModulePass):
    """Leaves IR that does not verify: a function that claims to return an i32."""

    name = "test-break"

    def apply(self, ctx, op: ModuleOp) -> None:
        for f in op.walk():
            if isinstance(f, func.FuncOp):
                f.function_type = func.FunctionType.from_lists([], [i32])
                return


@pytest.fixture
def misbehaving_passes(monkeypatch):
    real = mg_opt.project_passes
    extra = {p.name: (lambda p=p: p) for p in (DeclinePass, CrashPass, BreakPass)}
    monkeypatch.setattr(mg_opt, "project_passes", lambda: {**real(), **extra})


def test_a_pass_that_declines_is_an_error(misbehaving_passes, capsys):
    status = mg_opt.main([RELU, "-p", "lower-mg-to-affine,test-decline"])
    err = capsys.readouterr().err
    assert (status, err) == (
        1,
        "mg-opt: error: test-decline: 'memref.subview' with a strided layout is not supported\n",
    )


def test_invalid_ir_after_a_pass_names_the_pass(misbehaving_passes, capsys):
    status = mg_opt.main([RELU, "-p", "test-break"])
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("mg-opt: error: invalid IR after pass test-break: ")
    assert "Operation does not verify" in err


def test_a_bug_is_an_internal_error_with_the_traceback_on_request(misbehaving_passes, capsys, monkeypatch):
    monkeypatch.delenv("MGC_DEBUG", raising=False)
    status = mg_opt.main([RELU, "-p", "test-crash"])
    err = capsys.readouterr().err
    assert (status, err) == (
        3,
        "mg-opt: internal error: KeyError: 'a bug'\nmg-opt: (set MGC_DEBUG=1 for the Python traceback)\n",
    )
    monkeypatch.setenv("MGC_DEBUG", "1")
    with pytest.raises(KeyError, match="a bug"):
        mg_opt.main([RELU, "-p", "test-crash"])


def test_verification_between_passes_is_linear(monkeypatch, capsys):
    """mg-opt verifies the input and the IR after each pass inside xdsl_compat.verifying(),
    so that block counts and symbol look-ups are not walked again for every block and call
    (a 300-statement program through the whole pipeline: 16.0 s -> 13.9 s)."""
    from contextlib import contextmanager

    from mg_xdsl.support import xdsl_compat

    entered = []

    @contextmanager
    def recording():
        with xdsl_compat.verifying():
            entered.append(xdsl_compat._verifying.counts is not None)
            yield

    monkeypatch.setattr(mg_opt, "verifying", recording)
    assert mg_opt.main([RELU, "-p", "lower-mg-to-affine,lower-affine"]) == 0
    capsys.readouterr()
    assert entered == [True, True, True]  # the input, then after each of the two passes


@pytest.mark.parametrize("name, reference", [("mg-cpu-pipeline", False), ("mg-reference-pipeline", True)])
def test_a_named_pipeline_runs_what_mgc_runs(name, reference):
    """`-p mg-cpu-pipeline` gives what the pass list `mgc pipeline` prints gives."""
    from mg_xdsl.pipeline.stages import pass_pipeline

    named = mg_opt_run(RELU, "-p", name)
    listed = mg_opt_run(RELU, "-p", pass_pipeline(optimise=not reference))
    assert named.returncode == listed.returncode == 0
    assert named.out == listed.out and "llvm.func @main" in named.out


def test_a_named_pipeline_stops_at_a_stage_for_a_cpu(tmp_path):
    """`to=STAGE` stops where `mgc mlir --stage STAGE` does; `cpu=NAME` shapes the kernels."""
    from mg_xdsl.core.target import target
    from mg_xdsl.driver import Compilation
    from mg_xdsl.pipeline import stages as pipeline

    source = "def f(a: tensor[?x?], b: tensor[?x?]) = a @ b\n"
    prog = tmp_path / "mm.mg"
    prog.write_text(source)
    p = mg_opt_run(str(prog), "-p", "mg-cpu-pipeline{to=scf cpu=x86-64-v3}")
    # AVX2's micro-kernel: multiply-adds of 4 doubles (AVX-512's, the default unit, of 8).
    assert p.returncode == 0 and set(re.findall(r"vector\.fma .* : (vector<\d+xf64>)", p.out)) == {"vector<4xf64>"}
    expected = Compilation(source, str(prog), cpu="x86-64-v3").mlir("scf")
    assert pipeline.for_target("tile-matmul", target("x86-64-v3")).endswith("l3-cache=4194304}")
    assert p.out.rstrip("\n") == str(expected).rstrip("\n")


def test_a_named_pipeline_refuses_a_stage_or_cpu_it_does_not_know():
    p = mg_opt_run(RELU, "-p", "mg-reference-pipeline{to=mg}")
    assert (p.returncode, p.err) == (
        1,
        "mg-opt: error: mg-reference-pipeline: no stage 'mg' (choose from affine, scf, cf, llvm)\n",
    )
    p = mg_opt_run(RELU, "-p", "mg-cpu-pipeline{cpu=no-such-cpu}")
    assert p.returncode == 1 and p.err.startswith("mg-opt: error: mg-cpu-pipeline: LLVM does not know the CPU")


def test_help_lists_the_named_pipelines():
    p = mg_opt_run("--help")
    for name in ("mg-cpu-pipeline", "mg-reference-pipeline", "mg-gpu-pipeline"):
        assert f"  {name} " in p.out
