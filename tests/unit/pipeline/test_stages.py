"""Stage equivalence: one program, run at every stage of the pipeline, prints the same.

The mg stage runs on a NumPy interpreter of the mg dialect, the affine, scf and cf stages on
xDSL's interpreters, and the llvm stage as native code through the JIT; the optimised
pipeline's linalg stage (fused elementwise trees, buffers reused) on xDSL's linalg
interpreter.
"""

import pytest
from conftest import EXAMPLES, mask, run_in_process
from helpers.interpreters import interpret

from mg_xdsl.language.frontend import compile_source
from mg_xdsl.pipeline import stages as pipeline

PROGRAM = """
def layer(x: tensor[2x3], w: tensor[3x2], bias: tensor[1x2]) = relu(x @ w + bias)
let a = [[1, -2, 3], [4, 5, -6]]
let h = layer(a, [[1, -1], [0.5, 1], [1, 0]], [[0.5, -10]])
print h
print transpose(a) / 4 - row_mean(transpose(a))
print 2 - [[100], [200]] * -a
print row_max(-a) + row_sum(a) / 3
print [[0, 1]] / [[0], [2]]
"""

STATIC = [
    "01_relu",
    "02_row_and_col_sums",
    "03_max_and_mean",
    "04_broadcast_bias",
    "05_center_columns",
    "06_normalize_rows",
    "07_mlp_layer",
    "08_two_layers",
    "09_dynamic_reductions",
    "12_broadcast_left",
    "13_negative_max",
]


def at_every_stage(source: str) -> dict[str, str]:
    printed = {}
    module = compile_source(source, "prog.mg")
    ctx = pipeline.context()
    printed["mg"] = interpret(module)
    for stage in pipeline.REFERENCE_STAGES[1:]:
        pipeline.run_stage(module, stage, ctx)
        if stage.name != "llvm":
            printed[stage.name] = interpret(module)
    optimised = compile_source(source, "prog.mg")
    pipeline.run_stage(optimised, pipeline.OPTIMISED_STAGES[1], ctx)
    printed["optimised linalg"] = interpret(optimised)
    printed["native"] = mask(run_in_process(source)).replace("base@ = 0x…", "base@ = 0")
    return printed


@pytest.mark.parametrize(
    "source", [PROGRAM] + [(EXAMPLES / f"{n}.mg").read_text() for n in STATIC], ids=["program"] + STATIC
)
def test_every_stage_prints_the_same(source):
    printed = at_every_stage(source)
    assert printed["mg"].count("Unranked Memref") == source.count("print ")
    for stage, text in printed.items():
        assert text == printed["mg"], f"stage {stage} differs:\n{text}\nmg stage:\n{printed['mg']}"
