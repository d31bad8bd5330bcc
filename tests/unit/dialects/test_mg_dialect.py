"""The mg dialect's ops as a pass or the front end builds them: result types inferred from
the operands by the shared shape rules (``mg_xdsl.core.shapes``), of the operands' element type;
operands that break a rule are the verifier's error, and each inferred type verifies. What
each op computes on one element (``scalar``, ``REDUCTIONS``) is checked against NumPy."""

import io
import math

import numpy as np
import pytest
from helpers.interpreters import MissingFunctions
from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, test as xdsl_test
from xdsl.dialects.builtin import Float64Type, FloatAttr, f32
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import VerifyException

from mg_xdsl.dialects import mg

f64 = Float64Type()


def value(shape, element=f64):
    return xdsl_test.TestOp(result_types=[mg.tensor_type(shape, element)]).results[0]


@pytest.mark.parametrize(
    "lhs, rhs, result",
    [
        ((2, 3), (2, 3), (2, 3)),
        ((None, 3), (2, 3), (2, 3)),  # a static size wins; the ? is checked at run time
        ((None, None), (None, 4), (None, 4)),
        ((None, None), (None, None), (None, None)),
    ],
)
@pytest.mark.parametrize("op", [mg.AddOp, mg.SubOp, mg.MulOp, mg.DivOp])
def test_an_elementwise_result_merges_its_operands_shapes(op, lhs, rhs, result):
    made = op(value(lhs, f32), value(rhs, f32))
    assert made.result.type == mg.tensor_type(result, f32)
    made.verify()


@pytest.mark.parametrize(
    "lhs, rhs, result", [((2, 3), (3, 4), (2, 4)), ((None, 3), (3, None), (None, None)), ((5, None), (7, 1), (5, 1))]
)
def test_a_matrix_products_result_is_rows_by_columns(lhs, rhs, result):
    made = mg.MatmulOp(value(lhs), value(rhs))
    assert made.result.type == mg.tensor_type(result)
    made.verify()


@pytest.mark.parametrize(
    "shape, axis, result", [((2, 3), 1, (2, 1)), ((2, 3), 0, (1, 3)), ((None, 4), 1, (None, 1)), ((None, 4), 0, (1, 4))]
)
def test_a_reduction_collapses_its_axis_and_a_transpose_swaps(shape, axis, result):
    for kind in mg.REDUCE_KINDS:
        made = mg.ReduceOp(value(shape), axis, kind)
        assert made.result.type == mg.tensor_type(result)
        made.verify()
    flipped = mg.TransposeOp(value(shape, f32))
    assert flipped.result.type == mg.tensor_type(shape[::-1], f32)
    flipped.verify()


def test_operands_that_break_a_rule_are_the_verifiers_error():
    with pytest.raises(
        VerifyException,
        match=r"^mg.matmul: cannot matrix-multiply shapes 2x3 and 2x3: "
        r"inner dimensions 3 and 2 differ$",
    ):
        mg.MatmulOp(value((2, 3)), value((2, 3)))
    with pytest.raises(VerifyException, match=r"^mg.add: cannot combine shapes 2x3 and 4x3"):
        mg.AddOp(value((2, 3)), value((4, 3)))
    with pytest.raises(VerifyException, match=r"^mg.reduce: axis must be 0 or 1, got 2$"):
        mg.ReduceOp(value((2, 3)), 2, "sum")


def run(ops: list[Operation], env: dict) -> dict:
    """``env`` (values -> numbers) after running ``ops`` in xDSL's arith interpreter."""
    interpreter = Interpreter(ops[0])  # (any op serves as the interpreter's module)
    interpreter.register_implementations(ArithFunctions())
    interpreter.register_implementations(MissingFunctions(io.StringIO()))  # divf, negf
    for op in ops:
        outs = interpreter.run_op(op, tuple(FloatAttr(env[v], f64) for v in op.operands))
        env.update((r, o.value.data) for r, o in zip(op.results, outs))
    return env


def scalar_of(op, *xs: float) -> float:
    """What ``op.scalar`` computes on the numbers ``xs``."""
    block = Block(arg_types=[f64] * len(xs))
    with ImplicitBuilder(block):
        constants = [arith.ConstantOp(FloatAttr(c, f64)) for c in op.scalar_constants()]
        result = op.scalar(list(block.args), [c.result for c in constants])
    env = dict(zip(block.args, xs))
    env.update((c.result, c.value.value.data) for c in constants)
    return run([o for o in block.ops if o not in constants], env)[result]


NUMBERS = [-2.5, -0.0, 0.0, 1.0, 3.0, math.inf, -math.inf]


@pytest.mark.parametrize(
    "op, reference", [(mg.AddOp, np.add), (mg.SubOp, np.subtract), (mg.MulOp, np.multiply), (mg.DivOp, np.divide)]
)
def test_each_binary_op_computes_what_numpy_does(op, reference):
    made = op(value((2, 2)), value((2, 2)))
    with np.errstate(all="ignore"):
        for x in NUMBERS:
            for y in NUMBERS:
                np.testing.assert_equal(scalar_of(made, x, y), reference(x, y))


def test_neg_relu_and_scalar_compute_what_numpy_does():
    x = value((2, 2))
    with np.errstate(all="ignore"):
        for a in [*NUMBERS, math.nan]:
            np.testing.assert_equal(scalar_of(mg.NegOp(x), a), -a)
            np.testing.assert_equal(scalar_of(mg.ReluOp(x), a), np.maximum(a, 0.0))  # NaN stays NaN
            for name, reference in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)):
                for reversed_ in (False, True):
                    op = mg.ScalarOp(x, name, 2.0, reversed_)
                    want = reference(2.0, a) if reversed_ else reference(a, 2.0)
                    np.testing.assert_equal(scalar_of(op, a), want)


@pytest.mark.parametrize("kind, reference", [("sum", np.sum), ("max", np.max)])
def test_each_reduction_starts_at_its_identity_and_combines_as_numpy(kind, reference):
    reduction = mg.REDUCTIONS[kind]
    assert reference(np.array([reduction.identity, 7.5])) == 7.5
    rows = [[1.0, -3.0, 2.5], [-math.inf, -1.0, -2.0], [0.0, math.nan, 1.0]]
    for row in rows:
        acc = reduction.identity
        for x in row:
            a, b = xdsl_test.TestOp(result_types=[f64]).results[0], xdsl_test.TestOp(result_types=[f64]).results[0]
            combine = reduction.combine(a, b)
            acc = run([combine], {a: acc, b: x})[combine.results[0]]
        np.testing.assert_equal(acc, reference(np.array(row)))
