"""Row-wise programs as users write them (softmax, layer norm, a row's maximum subtracted),
which ``linalg-fuse-rows`` runs as one loop over the rows, against NumPy and against the
reference pipeline, at one and two threads; and the programs it must leave op by op.

The sizes put the loop over rows on both sides of the threads' threshold (a plain loop below
65536 elements' work), with rows of ``?`` length, rows of one element's cell, a batch of
matrices (rank 3), integer and ``bf16`` elements, and a result the loop writes that is also
used after it."""

import ml_dtypes
import numpy as np
import pytest
from helpers.threads import at_one_and_two_threads

import mg_xdsl
from mg_xdsl.driver import Compilation

PROGRAM = """
def softmax(s: tensor[300x1000xf32]) -> tensor[300x1000xf32]:
    let e = exp(s - max(s, axes=[1], keepdims=true))
    return e / sum(e, axes=[1], keepdims=true)

def softmax_any(x: tensor[?x?]) -> tensor[?x?]:
    let e = exp(x - broadcast_to(max(x, axes=[-1], keepdims=true), shape(x)))
    return e / broadcast_to(sum(e, axes=[-1], keepdims=true), shape(x))

def heads(s: tensor[?x33x129xf32]) -> tensor[?x33x129xf32]:
    let e = exp(s - max(s, axes=[-1], keepdims=true))
    return e / sum(e, axes=[-1], keepdims=true)

def layer_norm(x: tensor[300x768], g: tensor[1x768], b: tensor[1x768]) -> tensor[300x768]:
    let c = x - mean(x, axes=[1], keepdims=true)
    let v = mean(c * c, axes=[1], keepdims=true)
    return c / sqrt(v + 0.00001) * g + b

def sum_used_after(x: tensor[?x200]) -> tensor[?x200]:
    let e = exp(x - max(x, axes=[1], keepdims=true))
    let s = sum(e, axes=[1], keepdims=true)
    return e / s * 2.0 + s

def ints(x: tensor[100x300xi32]) -> tensor[100x300xi32]:
    return x * 2 - max(x, axes=[1], keepdims=true)

def softmax_bf16(x: tensor[?x?xbf16]) -> tensor[?x?xbf16]:
    let e = exp(x - broadcast_to(max(x, axes=[-1], keepdims=true), shape(x)))
    return e / broadcast_to(sum(e, axes=[-1], keepdims=true), shape(x))

def first_row_sum(x: tensor[64x1024xf32]) -> tensor[64x1024xf32]:
    let s = sum(x, axes=[1], keepdims=true)
    return x / s[0:1, :]
"""


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layer_norm(x, g, b):
    c = x - x.mean(1, keepdims=True)
    return c / np.sqrt((c * c).mean(1, keepdims=True) + 1e-5) * g + b


def sum_used_after(x):
    e = np.exp(x - x.max(1, keepdims=True))
    s = e.sum(1, keepdims=True)
    return e / s * 2 + s


REFERENCE = {
    "softmax": softmax,
    "softmax_any": softmax,
    "heads": softmax,
    "layer_norm": layer_norm,
    "sum_used_after": sum_used_after,
    "ints": lambda x: x * 2 - x.max(1, keepdims=True),
    "softmax_bf16": lambda x: softmax(x.astype(np.float32)),
    "first_row_sum": lambda x: x / x.sum(1, keepdims=True)[0:1, :],
}


def cases():
    r = np.random.default_rng(11)
    yield "softmax", (r.normal(0, 4, (300, 1000)).astype(np.float32),)
    for shape in [(1, 1), (1, 17), (3, 1000), (257, 333), (70, 2000)]:
        yield "softmax_any", (r.normal(0, 4, shape),)
    for batch in (1, 4):
        yield "heads", (r.normal(0, 4, (batch, 33, 129)).astype(np.float32),)
    yield "layer_norm", (r.normal(size=(300, 768)), r.normal(size=(1, 768)), r.normal(size=(1, 768)))
    yield "sum_used_after", (r.normal(size=(333, 200)),)
    yield "ints", (r.integers(-1000, 1000, (100, 300)).astype(np.int32),)
    yield "softmax_bf16", (r.normal(size=(37, 300)).astype(ml_dtypes.bfloat16),)
    yield "first_row_sum", (r.random((64, 1024), dtype=np.float32) + 0.5,)


CASES = list(cases())


@pytest.fixture(scope="module")
def libraries():
    return mg_xdsl.compile(PROGRAM), mg_xdsl.compile(PROGRAM, optimise=False)


def tolerance(name, want) -> tuple[float, float]:
    """(rtol, atol) for ``name``'s results."""
    if name == "softmax_bf16":
        return 2e-2, 1e-3
    if want.dtype == np.float32:
        return 1e-5, 1e-7
    return 1e-10, 1e-12


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{n}-{'x'.join(map(str, a[0].shape))}" for n, a in CASES])
def test_agrees_with_numpy_and_the_reference_at_any_thread_count(case, libraries, monkeypatch):
    name, args = CASES[case]
    fast, ref = libraries
    results = at_one_and_two_threads(getattr(fast, name), args, monkeypatch)
    want = REFERENCE[name](*args)
    rtol, atol = tolerance(name, want)
    np.testing.assert_allclose(results[0].astype(want.dtype), want, rtol=rtol, atol=atol)
    np.testing.assert_allclose(getattr(ref, name)(*args).astype(want.dtype), want, rtol=rtol, atol=atol)
    # Each row is computed the same way whichever thread takes it.
    np.testing.assert_array_equal(results[0], results[1])


def function_ir(name: str) -> str:
    """The ``affine`` stage of ``name``'s function in PROGRAM (optimised)."""
    text = str(Compilation(PROGRAM, "<test>").mlir("affine"))
    start = text.index(f"func.func @{name}(")
    end = text.find("\n  func.func ", start + 1)
    return text[start:end]


@pytest.mark.parametrize("name", ["softmax", "softmax_any", "heads", "layer_norm", "sum_used_after", "softmax_bf16"])
def test_row_wise_programs_are_one_loop_over_rows(name):
    ir = function_ir(name)
    # No reduction kernel (its rows are folded in the loop), one loop nest over the rows.
    assert "call @mg_row_" not in ir
    assert ir.count('"scf.parallel"') == 1
    assert "memref.subview" in ir


def test_a_broadcast_of_a_written_result_stays_op_by_op():
    # s[0:1, :] is row 0 of the sums for every row: in a loop over rows it would be read
    # before it is written.
    ir = function_ir("first_row_sum")
    assert "call @mg_row_sum_f32" in ir
