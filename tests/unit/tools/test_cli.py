"""The command-line tools: help, stages, kept intermediate files, the stage checks."""

import importlib.metadata
import os

import llvmlite
import llvmlite.binding as llvm
import pytest
from conftest import EXAMPLES, ROOT, mask, mgc, tool
from xdsl.dialects import func, test
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

from mg_xdsl.pipeline import stages as pipeline


def test_help_explains_every_command():
    p = mgc("--help")
    assert p.returncode == 0
    text = p.stdout.decode()
    for word in ("run", "build", "lib", "mlir", "llvm", "MGC_KEEP", "lower-mg-to-affine", "affine"):
        assert word in text
    for command in ("run", "build", "lib", "mlir", "llvm"):
        assert mgc(command, "--help").returncode == 0


def test_usage_errors_exit_2():
    for args, message in [
        ((), "mgc: error: the following arguments are required: COMMAND"),
        (("frobnicate", "x.mg"), "mgc: error: argument COMMAND: invalid choice: 'frobnicate'"),
        (("mlir", "x.mg", "--stage", "nope"), "mgc mlir: error: argument --stage: invalid choice: 'nope'"),
        (("run", "--stage", "affine", "x.mg"), "mgc: error: unrecognized arguments: --stage"),
        (
            ("mlir", "x.mg", "--stage", "linalg", "--reference"),
            "mgc: error: --stage linalg: the reference pipeline (--reference) has no linalg stage",
        ),
    ]:
        p = mgc(*args)
        assert p.returncode == 2, args
        assert message in p.stderr.decode(), (args, p.stderr.decode())


@pytest.mark.parametrize("stage", pipeline.STAGE_NAMES)
def test_every_stage_prints_and_reparses(stage, tmp_path):
    p = mgc("mlir", str(EXAMPLES / "09_dynamic_reductions.mg"), "--stage", stage)
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    gone = pipeline.OPTIMISED_STAGES[pipeline.STAGE_NAMES.index(stage)].gone
    assert not any(f" {g}." in text or f'"{g}.' in text for g in gone)
    path = tmp_path / "out.mlir"
    path.write_bytes(p.stdout)
    import subprocess

    again = subprocess.run([tool("mg-opt"), str(path)], capture_output=True)
    assert again.returncode == 0, again.stderr.decode()


def test_llvm_ir_and_optimised_llvm_ir():
    plain = mgc("llvm", str(EXAMPLES / "01_relu.mg")).stdout.decode()
    assert "define void @main()" in plain and "@llvm.maximum.f64" in plain
    opt = mgc("llvm", str(EXAMPLES / "01_relu.mg"), "--opt", "2").stdout.decode()
    assert "define void @main()" in opt


def test_mgc_keep_writes_every_intermediate_file(tmp_path):
    keep = tmp_path / "keep"
    p = mgc("run", str(EXAMPLES / "07_mlp_layer.mg"), env={"MGC_KEEP": str(keep)})
    assert p.returncode == 0
    names = sorted(f.name for f in keep.iterdir())
    assert names == sorted(
        [
            "07_mlp_layer.mg.mlir",
            "07_mlp_layer.linalg.mlir",
            "07_mlp_layer.affine.mlir",
            "07_mlp_layer.scf.mlir",
            "07_mlp_layer.cf.mlir",
            "07_mlp_layer.llvm.mlir",
            "07_mlp_layer.ll",
            "07_mlp_layer.opt.ll",
        ]
    )
    assert "mg.matmul" in (keep / "07_mlp_layer.mg.mlir").read_text()
    assert "linalg.matmul" in (keep / "07_mlp_layer.linalg.mlir").read_text()
    assert "affine.for" in (keep / "07_mlp_layer.affine.mlir").read_text()
    exe_keep = tmp_path / "keep2"
    mgc("build", str(EXAMPLES / "07_mlp_layer.mg"), "-o", str(tmp_path / "exe"), env={"MGC_KEEP": str(exe_keep)})
    assert (exe_keep / "07_mlp_layer.o").stat().st_size > 0


def test_an_op_left_behind_is_an_error_naming_op_and_stage():
    block = Block()
    block.add_op(test.TestOp())
    module = ModuleOp([func.FuncOp("main", ((), ()), Region(block))])
    stage = pipeline.Stage("demo", ("no-such-pass",), ("test",), "a stage that forbids test ops")
    with pytest.raises(pipeline.PipelineError, match=r"'test.op' is still present after the 'demo' stage"):
        pipeline.check_stage(module, stage)


@pytest.mark.parametrize(
    ("each", "step", "verified"),
    [(False, "mlir", 1), (True, "mlir", 4), (False, "llvm_ir", 1), (False, "jit_object", 0), (True, "jit_object", 5)],
)
def test_what_is_verified(each, step, verified, monkeypatch):
    """A compilation verifies the IR it hands on as text (``mgc mlir``, ``mgc llvm``), not
    the LLVM dialect it compiles (LLVM verifies the LLVM IR made of it: a fifth of a long
    program's compile time is verification); with verify_each (``mgc --verify-each``, the
    test suite's setting) every stage's result, so that invalid IR is caught at the stage
    that made it."""
    from mg_xdsl.driver import Compilation

    calls = []
    real = pipeline.verify
    monkeypatch.setattr(pipeline, "verify", lambda m: calls.append(m) or real(m))
    stages = []
    real_run = pipeline.run_stage
    monkeypatch.setattr(pipeline, "run_stage", lambda m, s, *a, **k: stages.append(s.name) or real_run(m, s, *a, **k))
    comp = Compilation((EXAMPLES / "01_relu.mg").read_text(), "01_relu.mg", keep_dir=None, verify_each=each)
    if step == "mlir":
        comp.mlir("cf")
        assert stages == ["linalg", "affine", "scf", "cf"]
    else:
        getattr(comp, step)()
        assert stages == ["linalg", "affine", "scf", "cf", "llvm"]
    assert len(calls) == verified


def test_verify_each_flag_and_environment(tmp_path):
    from mg_xdsl.tools.mgc import parser

    assert parser().parse_args(["run", "--verify-each", "x.mg"]).verify_each
    help_text = mgc("run", "--help").stdout.decode()
    assert "--verify-each" in help_text
    for env in ({"MGC_VERIFY_EACH": "0"}, {"MGC_VERIFY_EACH": "1"}):
        p = mgc("run", "--no-cache", "--verify-each", str(EXAMPLES / "01_relu.mg"), env=env)
        assert p.returncode == 0, p.stderr


def test_time_breakdown():
    p = mgc("run", str(EXAMPLES / "01_relu.mg"), "--time")
    err = p.stderr.decode()
    for step in (
        "front end",
        "convert-mg-to-linalg",
        "convert-linalg-to-affine-loops",
        "convert-to-llvm",
        "LLVM optimise + JIT",
    ):
        assert step in err


WARNS = "def bias(x: tensor[?x5], b: tensor[1x5]) = x + b\nprint bias([[1,2,3,4,5]], [[1,1,1,1,1]])\n"
WARNING = (
    "warning: a '?' dimension is never broadcast: this aborts at run time unless the sizes "
    "are equal; give the dimension a static size, or grow the 1 to x's size explicitly with "
    "broadcast_to(m, shape(x))"
)


def test_version_names_the_project_xdsl_and_llvm():
    p = mgc("--version")
    assert p.returncode == 0
    assert p.stdout.decode().splitlines() == [
        f"mgc (mg-xdsl, the Mountain Goat compiler) {importlib.metadata.version('mg-xdsl')}",
        f"xDSL {importlib.metadata.version('xdsl')}",
        f"LLVM {'.'.join(map(str, llvm.llvm_version_info))} (llvmlite {llvmlite.__version__})",
    ]


def test_run_help_shows_the_pipelines_and_no_stages():
    text = mgc("run", "--help").stdout.decode()
    assert "--stage" not in text and "stages (for --stage)" not in text
    default, reference = text.index("by default, the optimised pipeline:"), text.index("with --reference")
    assert default < text.index("linalg-fuse-elementwise-ops") < reference
    assert "tile-matmul" not in text[reference:]  # the chapter's pipeline does not tile
    assert "lower-assert-to-stderr" in text[reference:]
    assert "stages (for --stage)" in mgc("mlir", "--help").stdout.decode()


def test_pipeline_prints_what_mgc_runs():
    for args, optimise in ((), True), (("--reference",), False):
        p = mgc("pipeline", *args)
        assert p.returncode == 0
        assert p.stdout.decode() == pipeline.pass_pipeline(optimise) + "\n"
        stages = pipeline.OPTIMISED_STAGES if optimise else pipeline.REFERENCE_STAGES
        assert p.stdout.decode().strip().split(",") == [pipeline.for_target(name) for s in stages for name in s.passes]
    assert "buffer-deallocation" in pipeline.pass_pipeline(False)
    assert "lower-assert-to-stderr" in pipeline.pass_pipeline(True)


def test_pipeline_for_another_cpu():
    """The kernels' passes carry the CPU's vector unit, and tile-matmul a typical core's
    caches (another CPU's cannot be read); an unknown CPU is a usage error."""
    passes = mgc("pipeline", "--cpu", "x86-64").stdout.decode().strip().split(",")
    assert "vectorize-reductions{vector-bits=128 vector-registers=16}" in passes
    assert (
        "tile-matmul{vector-bits=128 vector-registers=16 fma=false l1-cache=32768 l2-cache=524288 l3-cache=4194304}"
        in passes
    )
    avx2 = mgc("pipeline", "--cpu", "x86-64-v3").stdout.decode()
    assert (
        "tile-matmul{vector-bits=256 vector-registers=16 fma=true l1-cache=32768 l2-cache=524288 l3-cache=4194304}"
        in avx2
    )
    p = mgc("pipeline", "--cpu", "no-such-cpu")
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode().startswith("mgc: error: LLVM does not know the CPU 'no-such-cpu'")


def test_the_program_from_standard_input(tmp_path):
    p = mgc("run", "-", input=b"print relu([[1, -2]])\n")
    assert p.returncode == 0 and p.stdout.decode().endswith("[[1,   0]]\n")
    p = mgc("mlir", "-", input=b"print relu([[1, -2]]\n")
    assert p.returncode == 1
    assert p.stderr.decode() == (
        "<stdin>:1: error: expected ',' or ')' in the argument list, found the end of the line\n"
        "  --> <stdin>:1:21 [E-SYN-002]\n"
        "   |\n"
        " 1 | print relu([[1, -2]]\n"
        "   |                     ^\n"
    )  # (the end of the line)
    p = mgc("build", "-", input=b"print [[1]]\n")
    assert p.returncode == 2 and p.stderr.decode() == (
        "mgc: error: give -o EXE: a program read from standard input has no name to name the executable after\n"
    )
    exe = tmp_path / "from_stdin"
    p = mgc("build", "-", "-o", str(exe), input=b"print [[7]]\n")
    assert p.returncode == 0, p.stderr
    p = mgc("lib", "-", input=b"def f(a: tensor[1x1]) = a\n")
    assert p.returncode == 2 and p.stderr.decode().startswith("mgc: error: mgc lib names its files after the program")


def test_a_missing_c_compiler_is_named(tmp_path):
    p = mgc("build", str(EXAMPLES / "01_relu.mg"), "-o", str(tmp_path / "e1"), env={"CC": "bogus-cc"})
    assert p.returncode == 1
    assert p.stderr.decode() == "mgc: error: C compiler 'bogus-cc' not found (set CC to a C compiler, e.g. CC=gcc)\n"
    assert not (tmp_path / "e1").exists()


def test_cc_may_carry_arguments(tmp_path):
    import shutil

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    p = mgc("build", str(EXAMPLES / "01_relu.mg"), "-o", str(tmp_path / "e1"), env={"CC": f"{cc} -O1"})
    assert p.returncode == 0, p.stderr.decode()
    assert (tmp_path / "e1").exists()


def test_a_missing_program_file():
    p = mgc("run", "/nonexistent.mg")
    assert (p.returncode, p.stderr.decode()) == (
        1,
        "mgc: error: cannot read /nonexistent.mg: No such file or directory\n",
    )


@pytest.mark.parametrize("command", ["run", "mlir", "llvm", "ptx"])
def test_warnings_go_to_stderr_and_change_nothing_else(command, tmp_path):
    prog = tmp_path / "bias.mg"
    prog.write_text(WARNS)
    loud = mgc(command, str(prog), env={"MGC_CACHE_DIR": str(tmp_path / "cache")})
    assert loud.returncode == 0, loud.stderr.decode()
    assert loud.stderr.decode() == f"{prog}:1: {WARNING}\n"
    for flag in ("--no-warnings", "-w"):
        quiet = mgc(command, flag, str(prog), env={"MGC_CACHE_DIR": str(tmp_path / "cache")})
        assert quiet.returncode == 0 and quiet.stderr == b""
        if command != "llvm":  # (LLVM IR names its module after nothing that changes)
            assert mask(quiet.stdout.decode()) == mask(loud.stdout.decode())
    if command == "run":
        assert loud.stdout.decode().endswith("[[2,   3,   4,   5,   6]]\n")


def test_warnings_are_printed_again_from_the_cache(tmp_path):
    prog = tmp_path / "bias.mg"
    prog.write_text(WARNS)
    env = {"MGC_CACHE_DIR": str(tmp_path / "cache")}
    cold = mgc("run", "--time", str(prog), env=env)
    warm = mgc("run", "--time", str(prog), env=env)
    assert "mgc: cache: miss" in cold.stderr.decode() and "mgc: cache: hit" in warm.stderr.decode()
    for p in (cold, warm):
        assert p.returncode == 0
        assert p.stderr.decode().splitlines()[0] == f"{prog}:1: {WARNING}"
    quiet = mgc("run", "--time", "-w", str(prog), env=env)
    assert "mgc: cache: hit" in quiet.stderr.decode() and WARNING not in quiet.stderr.decode()
    # the same source under another name is another entry (a failed check's report names
    # the path), and warns about itself, cold and from the cache
    copy = tmp_path / "other.mg"
    copy.write_text(WARNS)
    for outcome in ("miss", "hit"):
        p = mgc("run", "--time", str(copy), env=env)
        assert f"mgc: cache: {outcome}" in p.stderr.decode()
        assert p.stderr.decode().splitlines()[0] == f"{copy}:1: {WARNING}"


@pytest.mark.parametrize("source", ["print relu([[1, -2]])\n", "# only a comment\n", ""])
def test_a_library_of_no_def_is_an_error_and_writes_nothing(tmp_path, source):
    prog = tmp_path / "script.mg"
    prog.write_text(source)
    p = mgc("lib", "-w", str(prog), "-o", str(tmp_path / "out"))
    assert (p.returncode, p.stderr.decode()) == (
        1,
        f"mgc: error: {prog} defines no function, so its library would "
        "be empty (a library holds the program's defs, not its top-level "
        "statements): nothing was written\n",
    )
    assert not (tmp_path / "out").exists()


def test_a_library_leaves_out_the_top_level_statements_with_a_warning(tmp_path):
    prog = tmp_path / "both.mg"
    prog.write_text("def f(a: tensor[1]) = a\nprint f([1])\nprint [2]\n")
    p = mgc("lib", str(prog), "-o", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert p.stderr.decode() == (
        f"{prog}:2: warning: a library holds only the program's defs: this top-level "
        "statement and any after it are left out (mgc run runs them)\n"
    )
    assert mgc("lib", "-w", str(prog), "-o", str(tmp_path / "out")).stderr == b""


def test_an_output_that_cannot_be_written_is_an_error(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    p = mgc("lib", str(ROOT / "tests" / "cpp" / "ops.mg"), "-o", str(blocker / "out"))
    assert (p.returncode, p.stderr.decode()) == (1, f"mgc: error: {blocker / 'out'}: Not a directory\n")


@pytest.mark.parametrize("cache", ["0", "1"])
def test_run_into_a_reader_that_leaves_is_quiet(tmp_path, cache):
    """``mgc run prog.mg | head -1``: once the reader has gone, the rest of the output goes
    nowhere, without a traceback for every print left (the printer is a callback from the
    compiled code, where an exception cannot stop the program)."""
    import subprocess

    prog = tmp_path / "big.mg"
    prog.write_text("def f(a: tensor[?x?]) = a * 2\n" + ("print f(" + repr([[1.5] * 300] * 300) + ")\n") * 4)
    env = {**os.environ, "MGC_NO_CACHE": "" if cache == "1" else "1"}
    if cache == "1":
        subprocess.run([tool("mgc"), "run", str(prog)], capture_output=True, env=env, check=True)
    p = subprocess.Popen([tool("mgc"), "run", str(prog)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert p.stdout.readline().startswith(b"Unranked Memref")
    p.stdout.close()
    stderr = p.stderr.read().decode()
    p.wait(timeout=120)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
