"""Upstream MLIR 22 as an oracle: it accepts the IR of every stage, and the second backend
(upstream's lowering from the affine level) produces exactly the same output as ours."""

import contextlib
import io
import re
import shlex
import subprocess

import pytest
from conftest import EXAMPLES, ROOT, mask, mgc, run_in_process
from helpers.programs import program
from helpers.upstream import MLIR_OPT, stages_of, upstream_accepts
from hypothesis import HealthCheck, given, settings

from mg_xdsl.backend import runtime
from mg_xdsl.driver import Compilation

pytestmark = pytest.mark.skipif(
    MLIR_OPT is None, reason="mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)"
)

PROGRAMS = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*.mg") if p.parent == EXAMPLES)


@pytest.mark.parametrize("rel", PROGRAMS, ids=[str(p) for p in PROGRAMS])
def test_upstream_accepts_every_stage_of_every_example(rel):
    for stage, text in stages_of((EXAMPLES / rel).read_text(), str(rel)).items():
        upstream_accepts(text, generic_mg=stage == "mg")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_upstream_accepts_every_stage_of_random_programs(case):
    for stage, text in stages_of(case[0]).items():
        upstream_accepts(text, generic_mg=stage == "mg")


RUN = re.compile(r"RUN: mg-opt %s ([^|\n]*)\| filecheck")


def filecheck_pass_runs():
    for path in sorted((ROOT / "tests" / "filecheck").rglob("*.mlir")):
        for m in RUN.finditer(path.read_text()):
            args = shlex.split(m.group(1))
            if "--verify-diagnostics" in args or "-p" not in args:
                continue
            yield pytest.param(path, args, id=f"{path.relative_to(ROOT / 'tests' / 'filecheck')}:{' '.join(args)}")


@pytest.mark.parametrize("path,args", list(filecheck_pass_runs()))
def test_upstream_accepts_every_pass_output_of_the_filecheck_inputs(path, args):
    args = [a for a in args if a != "--print-debuginfo"]
    upstream_accepts(mg_opt_in_process(str(path), *args, "--print-op-generic"), generic_mg=True)


def mg_opt_in_process(*args: str) -> str:
    """What ``mg-opt ARGS`` prints, run in this process: its start (importing xDSL, most of
    a second) is paid once for the module's 130 runs, not once each. (The lit suite runs
    the command itself.)"""
    from mg_xdsl.tools.mg_opt import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    assert status == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("rel", PROGRAMS, ids=[str(p) for p in PROGRAMS])
def test_both_backends_print_the_same(rel):
    ours = mgc("run", str(rel), cwd=EXAMPLES)
    theirs = mgc("run", "--backend", "mlir", str(rel), cwd=EXAMPLES)
    assert theirs.returncode == ours.returncode, theirs.stderr
    assert mask(theirs.stdout.decode()) == mask(ours.stdout.decode())
    assert theirs.stderr == ours.stderr


def run_upstream(source: str) -> str:
    engine = Compilation(source, "prog.mg", keep_dir=None, backend="mlir").engine()
    with runtime.capture() as out:
        engine.run_main()
    return out.getvalue()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_both_backends_agree_on_random_programs(case):
    source, _ = case
    assert mask(run_upstream(source)) == mask(run_in_process(source)), source


def test_build_and_lib_with_the_upstream_backend(tmp_path):
    exe = tmp_path / "exe"
    assert mgc("build", "--backend", "mlir", "08_two_layers.mg", "-o", str(exe), cwd=EXAMPLES).returncode == 0
    p = subprocess.run([str(exe)], capture_output=True, text=True)
    assert mask(p.stdout) == (EXAMPLES / "08_two_layers.expected").read_text()
    lib = mgc("lib", "--backend", "mlir", str(ROOT / "tests" / "cpp" / "ops.mg"), "-o", str(tmp_path))
    assert lib.returncode == 0, lib.stderr
    symbols = subprocess.run(["nm", str(tmp_path / "ops.o")], capture_output=True, text=True).stdout
    assert " T _mlir_ciface_layer" in symbols
