"""bf16 gradients that sum: the adjoint of a broadcast (a bias added to every row) sums the
rows' adjoints, which for ``bf16`` is computed in ``f32`` and rounded once, as the forward
``sum`` is (docs/language.md, "bf16"). ``mg.reduce`` and ``mg.matmul`` take no ``bf16``:
the sweep converts around them (``AdjointBuilder.accumulating``); before, the gradient of a
``bf16`` broadcast was an internal compiler error (found by the random gradient programs,
``tests/properties/test_autodiff_random.py``)."""

import numpy as np
import pytest
from conftest import mgc

PIPELINES = pytest.mark.parametrize("flags", [[], ["--reference"]], ids=["optimised", "reference"])

# Column 0 sums to 1 + 2^-8 + 2^-8 = 1.0078125, a bf16: summed in f32 and rounded once it is
# that; summed in bf16, 1 + 2^-8 would round (to even) to 1 at each step.
PROGRAM = """
def f(a: tensor[?x3xbf16], b: tensor[3xbf16]) -> tensor[bf16]:
    return sum(a * b)
let a: tensor[3x3xbf16] = [[1.0, 0.5, 2.0], [0.00390625, 0.25, 1.0], [0.00390625, 0.25, 1.0]]
let b: tensor[3xbf16] = [0.5, 0.25, -1.5]
let w: tensor[3x3xbf16] = [[1.0, 0.00390625, 0.00390625], [0.5, 0.25, 0.25], [2.0, 1.0, 1.0]]
let v: tensor[1x3xbf16] = [[1.0, 1.0, 1.0]]
save("broadcast.npy", cast(grad(sum(a * b), wrt=[b]), f32))
save("dynamic.npy", cast(grad(f(a, b), wrt=[b]), f32))
save("matmul.npy", cast(grad(sum(v @ w), wrt=[v]), f32))
save("keepdims.npy", cast(grad(sum(a * sum(v, axes=[0], keepdims=true)), wrt=[v]), f32))
"""


@PIPELINES
def test_bf16_sums_of_the_sweep_accumulate_in_f32_and_round_once(tmp_path, flags):
    (tmp_path / "prog.mg").write_text(PROGRAM)
    out = mgc("run", "--no-cache", *flags, str(tmp_path / "prog.mg"))
    assert out.returncode == 0, out.stderr.decode()
    got = {name: np.load(tmp_path / f"{name}.npy") for name in ("broadcast", "dynamic", "matmul", "keepdims")}
    np.testing.assert_array_equal(got["broadcast"], [1.0078125, 1.0, 4.0])
    np.testing.assert_array_equal(got["dynamic"], [1.0078125, 1.0, 4.0])
    np.testing.assert_array_equal(got["matmul"], [[1.0078125, 1.0, 4.0]])
    np.testing.assert_array_equal(got["keepdims"], [[1.0078125, 1.0, 4.0]])
