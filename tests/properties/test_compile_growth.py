"""Compile time grows linearly with the program: checked by the shape of the growth, not by
timing. The IR each stage makes per statement stays bounded as a program grows (a pass that
copied its machinery into every op, or a lowering whose output grew with the program's size,
would fail here), in both pipelines."""

import pytest

from mg_xdsl.driver import Compilation
from mg_xdsl.pipeline.stages import OPTIMISED_STAGES, REFERENCE_STAGES

KINDS = [
    "let x{k} = relu(x{p} @ w + b)",
    "let x{k} = x{p} * 0.5 - b",
    "let x{k} = x{p} + row_sum(x{p}) / 3",
    "let x{k} = x{p} / (col_max(x{p}) + 10)",
]


def chain(n: int) -> str:
    """A generated program of n statements on 2x3 and 3x3 matrices."""
    lines = [
        "let w = [[0.5, -1, 2], [1, 0.25, -0.5], [0, 1, 1]]",
        "let b = [[1, 2, 3]]",
        "let x0 = [[1, 2, 3], [4, 5, 6]]",
    ]
    lines += [KINDS[(k - 1) % 4].format(k=k, p=k - 1) for k in range(1, n + 1)]
    return "\n".join(lines + [f"print x{n}"]) + "\n"


def ops_after_each_stage(source: str, optimise: bool) -> dict[str, int]:
    stages = [s.name for s in (OPTIMISED_STAGES if optimise else REFERENCE_STAGES)]
    comp = Compilation(source, "chain.mg", keep_dir=None, optimise=optimise)
    return {stage: sum(1 for _ in comp.mlir(stage).walk()) for stage in stages}


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_ops_per_statement_stay_bounded(optimise):
    """Each further block of 16 statements adds as many ops, at every stage, as the block
    before it did: no stage's output grows faster than the program."""
    sizes = (16, 32, 48)  # all past outline-loop-nests' threshold of 32 loop nests
    ops = [ops_after_each_stage(chain(n), optimise) for n in sizes]
    for stage in ops[0]:
        first, second = ops[1][stage] - ops[0][stage], ops[2][stage] - ops[1][stage]
        assert first > 0 and second <= 1.05 * first, (stage, [o[stage] for o in ops])


@pytest.mark.parametrize("expression", ["a @ b", "row_sum(a)", "col_sum(b)", "row_max(b)", "col_max(a)"])
def test_kernels_are_shared(expression):
    """Every tiled matrix product, and every vectorised reduction of a kind, calls one
    kernel function: a further `?x?` product or reduction adds a call, not another copy of
    the kernel (some 1,200 LLVM-dialect ops for a product, 300 to 500 for a reduction)."""

    def program(n: int) -> str:
        defs = [f"def f{k}(a: tensor[?x?], b: tensor[?x?]) = {expression} + {k}" for k in range(n)]
        return "\n".join(defs) + "\n"

    ops = [
        sum(1 for _ in Compilation(program(n), "k.mg", lib=True, keep_dir=None).mlir("llvm").walk()) for n in (1, 2, 6)
    ]
    per_def = (ops[2] - ops[1]) / 4
    assert per_def == ops[1] - ops[0] and per_def < 250, ops
