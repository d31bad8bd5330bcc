"""The command-line tools: help, stages, kept intermediate files, the stage checks."""

import pytest
from xdsl.dialects import func, test
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

from conftest import EXAMPLES, mgc, tool
from mg_xdsl import pipeline


def test_help_explains_every_command():
    p = mgc("--help")
    assert p.returncode == 0
    text = p.stdout.decode()
    for word in ("run", "build", "lib", "mlir", "llvm", "MGC_KEEP", "lower-mg-to-affine", "affine"):
        assert word in text
    for command in ("run", "build", "lib", "mlir", "llvm"):
        assert mgc(command, "--help").returncode == 0


def test_usage_errors_exit_2():
    assert mgc().returncode == 2
    assert mgc("frobnicate", "x.mg").returncode == 2
    assert mgc("mlir", "x.mg", "--stage", "nope").returncode == 2


@pytest.mark.parametrize("stage", pipeline.STAGE_NAMES)
def test_every_stage_prints_and_reparses(stage, tmp_path):
    p = mgc("mlir", str(EXAMPLES / "09_dynamic_reductions.mg"), "--stage", stage)
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    gone = pipeline.STAGES[pipeline.STAGE_NAMES.index(stage)].gone
    assert not any(f" {g}." in text or f'"{g}.' in text for g in gone)
    path = tmp_path / "out.mlir"
    path.write_bytes(p.stdout)
    import subprocess

    again = subprocess.run([tool("mg-opt"), str(path)], capture_output=True)
    assert again.returncode == 0, again.stderr.decode()


def test_llvm_ir_and_optimised_llvm_ir():
    plain = mgc("llvm", str(EXAMPLES / "01_relu.mg")).stdout.decode()
    assert "define void @\"main\"()" in plain and "@\"llvm.maximum.f64\"" in plain
    opt = mgc("llvm", str(EXAMPLES / "01_relu.mg"), "--opt", "2").stdout.decode()
    assert "define void @main()" in opt


def test_mgc_keep_writes_every_intermediate_file(tmp_path):
    keep = tmp_path / "keep"
    p = mgc("run", str(EXAMPLES / "07_mlp_layer.mg"), env={"MGC_KEEP": str(keep)})
    assert p.returncode == 0
    names = sorted(f.name for f in keep.iterdir())
    assert names == sorted(["07_mlp_layer.mg.mlir", "07_mlp_layer.affine.mlir", "07_mlp_layer.scf.mlir",
                            "07_mlp_layer.cf.mlir", "07_mlp_layer.llvm.mlir", "07_mlp_layer.ll",
                            "07_mlp_layer.opt.ll"])
    assert "mg.matmul" in (keep / "07_mlp_layer.mg.mlir").read_text()
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


def test_time_breakdown():
    p = mgc("run", str(EXAMPLES / "01_relu.mg"), "--time")
    err = p.stderr.decode()
    for step in ("front end", "lower-mg-to-affine", "finalize-memref-to-llvm", "LLVM optimise + JIT"):
        assert step in err
