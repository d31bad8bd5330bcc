"""Upstream MLIR 22 as an oracle, for the tests that hold a feature's IR to it
(``e2e/test_upstream.py`` and the feature modules beside it): ``mlir-opt-22`` accepts the IR
of every stage, and ``mgc run --backend mlir`` prints what this project's lowering prints.
``MLIR_OPT`` is None where mlir-opt-22 is not installed (the callers skip)."""

import shutil
import subprocess

from mg_xdsl.pipeline import stages as pipeline

MLIR_OPT = shutil.which("mlir-opt-22")


def upstream_accepts(text: str, generic_mg: bool = False) -> None:
    flags = ["--allow-unregistered-dialect"] if generic_mg else []
    p = subprocess.run([MLIR_OPT, *flags], input=text, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr + "\n" + text[:3000]


def stages_of(source: str, path: str = "prog.mg") -> dict[str, str]:
    """The IR after every stage of both pipelines, the chapter's and the optimised one (which
    has the linalg stage); the mg stage in generic form (mlir-opt has no mg dialect)."""
    import io

    from xdsl.printer import Printer

    from mg_xdsl.language.frontend import compile_source

    module = compile_source(source, path)
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    texts = {"mg": out.getvalue()}
    ctx = pipeline.context()
    for name, stages in (("reference", pipeline.REFERENCE_STAGES), ("optimised", pipeline.OPTIMISED_STAGES)):
        module = compile_source(source, path)
        for stage in stages[1:]:
            pipeline.run_stage(module, stage, ctx)
            texts[f"{name} {stage.name}"] = str(module)
    return texts


def upstream_agrees(source: str) -> None:
    """mlir-opt-22 accepts every stage of both pipelines of ``source``, and ``mgc run
    --backend mlir`` (upstream's lowering) prints what this project's lowering prints."""
    from conftest import mask, mgc

    for stage, text in stages_of(source).items():
        upstream_accepts(text, generic_mg=stage == "mg")
    ours = mgc("run", "-", input=source.encode())
    theirs = mgc("run", "--backend", "mlir", "-", input=source.encode())
    assert theirs.returncode == ours.returncode == 0, theirs.stderr
    assert mask(theirs.stdout.decode()) == mask(ours.stdout.decode())
