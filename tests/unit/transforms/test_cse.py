"""The project's ``cse`` against xDSL's (the reference it replaces for speed): on the IR
that ``lower-affine`` makes of the examples and of random programs, in both pipelines,
the two leave the same module, op for op."""

import pytest
from conftest import ROOT
from helpers.programs import dynamic_program, program
from hypothesis import HealthCheck, given, settings
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from mg_xdsl.driver import Compilation
from mg_xdsl.pipeline import stages as pipeline
from mg_xdsl.pipeline.registry import make_pass
from mg_xdsl.transforms.cse import CsePass

EXAMPLES = sorted((ROOT / "examples").glob("*.mg"))


def before_cse(source: str, optimise: bool):
    """The module as the pipeline hands it to ``cse``."""
    comp = Compilation(source, "prog.mg", keep_dir=None, optimise=optimise)
    module = comp.mlir("mg")
    ctx = pipeline.context()
    for stage in pipeline.stages_to("scf", optimise):
        for name in stage.passes:
            if name == "cse":
                return module, ctx
            make_pass(pipeline.for_target(name)).apply(ctx, module)
    raise AssertionError("the pipeline has no cse")


def assert_same_as_xdsl(source: str, optimise: bool) -> None:
    ours, ctx = before_cse(source, optimise)
    reference = ours.clone()
    CsePass().apply(ctx, ours)
    CommonSubexpressionElimination().apply(ctx, reference)
    assert str(ours) == str(reference)


@pytest.mark.parametrize("optimise", [True, False])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_examples(example, optimise):
    assert_same_as_xdsl(example.read_text(), optimise)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_random_programs(case):
    source, _ = case
    assert_same_as_xdsl(source, optimise=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_program())
def test_random_dynamic_programs(case):
    source, _ = case
    assert_same_as_xdsl(source, optimise=True)
