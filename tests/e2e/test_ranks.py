"""Tensors of any rank, in f64: types ``tensor[2x3x4]``, ``tensor[3]``,
``tensor[]``, literals of any depth, elementwise operators, ``relu``, ``transpose`` (which
reverses the axes) and NumPy's broadcasting at ranks 0 to 4, through ``mgc run``, the Python
API and both CPU pipelines, against NumPy. (Rank-2-only builtins refusing other ranks:
tests/unit/language/test_compile_errors.py; the C++ and Python interfaces of every rank:
test_cpp.py, test_api.py.)"""

import numpy as np
import pytest
from conftest import mgc
from helpers.printed import printed_arrays
from hypothesis import HealthCheck, given, settings, strategies as st

import mg_xdsl
from mg_xdsl.language.frontend import MgError

# -- printing and literals -----------------------------------------------------------------


PROGRAM = """
let a = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]
let v = [10, 20]
print a + v
print -v * 2
print [[[[1.5]]]] - 1
def f(x: tensor[2x2x2], y: tensor[2]) = relu(y - x * 5)
print f(a, v)
def scale(x: tensor[], y: tensor[3]) = x * y + x
print transpose(a) / 4
"""


def test_mgc_run_prints_tensors_of_any_rank_as_numpy_computes_them():
    out = mgc("run", "-", input=PROGRAM.encode())
    assert out.returncode == 0, out.stderr
    a = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=float)
    v = np.array([10, 20], dtype=float)
    want = [a + v, -v * 2, np.array([[[[1.5]]]]) - 1, np.maximum(v - a * 5, 0), a.T / 4]
    got = printed_arrays(out.stdout.decode())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert "rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data = \n[[[11,    22], \n" in out.stdout.decode()


# -- random programs ------------------------------------------------------------------------


@st.composite
def broadcast_operand(draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``shape`` (NumPy's rule): some leading axes dropped, some
    sizes made 1."""
    rank = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - rank :]
    return tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d for d in tail)


@st.composite
def elementwise(draw, shape: tuple[int, ...], params: list, depth: int, number_ok: bool = True):
    """(source, NumPy function of the parameters' values) of an expression whose shape
    broadcasts to ``shape`` (a number only where ``number_ok``: relu needs a tensor)."""

    def param(pshape: tuple[int, ...], transposed: bool = False):
        name = f"p{len(params)}"
        params.append((pshape, transposed))
        return name, (lambda env: env[name])

    choice = draw(st.integers(0, 5 if depth < 3 else 1))
    if choice == 0 or (choice == 1 and not number_ok):
        return param(draw(broadcast_operand(shape)))
    if choice == 1:
        x = draw(st.sampled_from([0.5, 2.0, -3.0, 1.25]))
        return repr(x), (lambda env: x)
    if choice == 2:
        src, f = draw(elementwise(shape, params, depth + 1, number_ok=False))
        return f"relu({src})", (lambda env: np.maximum(f(env), 0))
    if choice == 3:  # (of a whole tensor: a part of lower rank would transpose differently)
        src, f = param(shape[::-1], transposed=True)
        return f"transpose({src})", (lambda env: np.transpose(f(env)))
    op = draw(st.sampled_from("+-*/"))
    ls, lf = draw(elementwise(shape, params, depth + 1, number_ok))
    rs, rf = draw(elementwise(shape, params, depth + 1))
    fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op]
    return f"({ls} {op} {rs})", (lambda env: fn(lf(env), rf(env)))


@st.composite
def rank_program(draw):
    """A def of random elementwise expressions; some dimensions declared '?'. A '?' is
    never broadcast (against a static 1 it would take size 1), so an axis may be '?' only
    where no parameter has a 1 that grows along it; there, each parameter may declare it
    '?' or static (checked equal at run time). Parameters of lower rank grow along the
    axes they lack, '?' or not."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=4)))
    params: list = []
    src, f = draw(elementwise(shape, params, 0, number_ok=False))
    rank = len(shape)

    def axes(pshape, transposed):  # the result's axis of each dimension of a parameter
        return (
            [rank - 1 - d for d in range(len(pshape))]
            if transposed
            else [rank - len(pshape) + d for d in range(len(pshape))]
        )

    # (a parameter of lower rank lacks the leading axes: it grows along them whatever their
    # sizes, '?' included, as NumPy's do)
    grows = {a for pshape, t in params for a, size in zip(axes(pshape, t), pshape) if size != shape[a]}
    types = []
    for i, (pshape, t) in enumerate(params):
        dims = [
            "?" if a not in grows and draw(st.booleans()) else str(size) for a, size in zip(axes(pshape, t), pshape)
        ]
        types.append(f"p{i}: tensor[{'x'.join(dims)}]")
    return f"def f({', '.join(types)}) = {src}\n", [p for p, _ in params], f


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rank_program(), st.integers(0, 2**32 - 1))
def test_random_programs_of_ranks_0_to_4_agree_with_numpy(case, seed):
    """Elementwise operators, relu, transpose and numbers on parameters whose shapes
    broadcast as NumPy's do, in both pipelines: the same shape and the same bits."""
    source, params, f = case
    rng = np.random.default_rng(seed)
    args = {f"p{i}": rng.normal(size=s) for i, s in enumerate(params)}
    with np.errstate(all="ignore"):
        want = np.asarray(f(args), dtype=float)
    for optimise in (True, False):
        got = mg_xdsl.compile(source, optimise=optimise).f(*args.values())
        assert got.shape == want.shape, source
        np.testing.assert_array_equal(got, want, err_msg=f"{source} optimise={optimise}")


@pytest.mark.skipif(
    __import__("shutil").which("mlir-opt-22") is None,
    reason="mlir-opt-22 is not installed (apt-get install mlir-22-tools; CI installs it)",
)
def test_upstream_accepts_every_stage_and_prints_the_same():
    """Every stage of both pipelines of a program of ranks 0 to 4 is IR mlir-opt-22 accepts,
    and its own lowering (``--backend mlir``) prints what ours does."""
    from helpers.upstream import upstream_agrees

    upstream_agrees(PROGRAM + "def four(x: tensor[1x2x1x3], y: tensor[3]) = transpose(x) * y\n")


def test_a_number_is_a_rank_0_tensor_argument():
    """A number passed for a ``tensor[]`` parameter is a rank-0 tensor; printed as
    ``mlir-runner`` prints rank 0 (``[-2.5]``). Another rank still needs a tensor."""
    out = mgc(
        "run",
        "-",
        input=b"def f(x: tensor[], y: tensor[3]) = x * y + x\nprint f(2, [1, 2, 3])\n"
        b"def g(x: tensor[]) = -x\nprint g(2.5)\nprint g(g(1))\n",
    )
    assert out.returncode == 0, out.stderr
    got = printed_arrays(out.stdout.decode())
    for g, w in zip(got, [np.array([4.0, 6.0, 8.0]), np.array(-2.5), np.array(1.0)]):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    assert "rank = 0 offset = 0 sizes = [] strides = [] data = \n[-2.5]\n" in out.stdout.decode()
    with pytest.raises(MgError, match=r"argument 1 of f \(x\) must be a tensor\[2\], got the number 3"):
        mg_xdsl.compile("def f(x: tensor[2]) = x\nprint f(3)\n")


# -- '?' operands growing along their static 1s ---------------------------------------------

GROWING = """
def normalise(x: tensor[?x4]) = x / row_sum(x)
def centre(x: tensor[?x?x3], m: tensor[?x?x1]) = x - m
"""


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_an_operand_with_a_question_mark_grows_along_its_static_ones(optimise):
    """The batch dimension of a layer is a '?': ``x / row_sum(x)`` divides each row of a
    ``?x4`` by its ``?x1`` sum (the chapter's front end refused it: "broadcasting needs
    static shapes"). A '?' itself is still never broadcast (see the warning tests)."""
    lib = mg_xdsl.compile(GROWING, optimise=optimise)
    rng = np.random.default_rng(5)
    for rows in (1, 3, 17):
        x = rng.random((rows, 4)) + 0.5
        np.testing.assert_array_equal(lib.normalise(x), x / x.sum(axis=1, keepdims=True))
        y, m = rng.normal(size=(rows, 2, 3)), rng.normal(size=(rows, 2, 1))
        np.testing.assert_array_equal(lib.centre(y, m), y - m)
