"""Every element type the mg dialect accepts (``mg_xdsl.core.element_types.ARITHMETIC``) runs: one
function per op on ``?x?`` tensors of that type, written in the mg dialect, through the
reference and the optimised CPU pipeline to native code, called on NumPy arrays of that
type, against NumPy. (The dialect's promise, apart from what the language writes.)"""

import ctypes

import ml_dtypes
import numpy as np
import pytest
from xdsl.parser import Parser

from mg_xdsl.backend.jit import Engine, translate
from mg_xdsl.core import element_types
from mg_xdsl.pipeline import stages as pipeline

# op -> (its mg line, with {t} the operand type and {e} the element type; the result's
# shape pattern; NumPy's computation)
OPS = {
    "add": ("mg.add %a, %b : {t}, {t} -> {t}", "?x?", lambda a, b: a + b),
    "sub": ("mg.sub %a, %b : {t}, {t} -> {t}", "?x?", lambda a, b: a - b),
    "mul": ("mg.mul %a, %b : {t}, {t} -> {t}", "?x?", lambda a, b: a * b),
    "div": ("mg.div %a, %b : {t}, {t} -> {t}", "?x?", lambda a, b: divide(a, b)),
    "neg": ("mg.neg %a : {t} -> {t}", "?x?", lambda a, b: -a),
    "relu": ("mg.relu %a : {t} -> {t}", "?x?", lambda a, b: np.maximum(a, 0)),
    "scalar": (
        'mg.scalar %a {{op = "sub", value = {n} : {e}, reversed = true}} : {t} -> {t}',
        "?x?",
        lambda a, b: a.dtype.type(NUMBER[a.dtype.kind]) - a,
    ),
    "scalar_div": (
        'mg.scalar %a {{op = "div", value = {n} : {e}, reversed = false}} : {t} -> {t}',
        "?x?",
        lambda a, b: divide(a, a.dtype.type(NUMBER[a.dtype.kind])),
    ),
    "matmul": ("mg.matmul %a, %b : {t}, {t} -> {t}", "?x?", lambda a, b: a @ b),
    "transpose": ("mg.transpose %a : {t} to {t}", "?x?", lambda a, b: a.T),
    "row_sum": (
        'mg.reduce %a {{axis = 1 : i64, kind = "sum"}} : {t} -> {r}',
        "?x1",
        lambda a, b: a.sum(axis=1, keepdims=True),
    ),
    "col_max": (
        'mg.reduce %a {{axis = 0 : i64, kind = "max"}} : {t} -> {r}',
        "1x?",
        lambda a, b: a.max(axis=0, keepdims=True),
    ),
}
NUMPY = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "bf16": ml_dtypes.bfloat16}
# The ops that take each type: a product or reduction of bf16 is written on f32 by the
# front end (mg.matmul and mg.reduce do not take bf16).
ACCUMULATING = ("matmul", "row_sum", "col_max")
# The number of mg.scalar: by the element type's first letter, and by NumPy's kind (bfloat16's
# is V).
NUMBER = {"f": 2.5, "i": -3, "b": 2.5, "V": 2.5}


def divide(a: np.ndarray, b) -> np.ndarray:
    """The language's division: integers truncate toward zero (C's, not NumPy's floor)."""
    if a.dtype.kind != "i":
        return a / b
    return (np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)).astype(a.dtype)


class Descriptor(ctypes.Structure):
    _fields_ = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
        ("sizes", ctypes.c_int64 * 2),
        ("strides", ctypes.c_int64 * 2),
    ]


def ops_of(e: str) -> list[str]:
    return [name for name in OPS if e != "bf16" or name not in ACCUMULATING]


def module_text(e: str) -> str:
    t = f"tensor<?x?x{e}>"
    functions = []
    for name in ops_of(e):
        line, result, _ = OPS[name]
        r = f"tensor<{result}x{e}>"
        n = NUMBER[e[0]]
        functions.append(
            f"func.func @{name}(%a: {t}, %b: {t}) -> {r} attributes {{llvm.emit_c_interface}} {{\n"
            f"  %r = {line.format(t=t, e=e, r=r, n=n)}\n  func.return %r : {r}\n}}\n"
        )
    return "".join(functions)


@pytest.fixture(
    scope="module",
    params=[(str(t), optimise) for t in element_types.ARITHMETIC for optimise in (False, True)],
    ids=lambda p: f"{p[0]}-{'optimised' if p[1] else 'reference'}",
)
def compiled(request):
    e, optimise = request.param
    ctx = pipeline.context()
    module = Parser(ctx, module_text(e)).parse_module()
    for stage in (pipeline.OPTIMISED_STAGES if optimise else pipeline.REFERENCE_STAGES)[1:]:
        pipeline.run_stage(module, stage, ctx)
    return e, Engine(translate(module))


def call(engine: Engine, name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    f = ctypes.CFUNCTYPE(None, *[ctypes.POINTER(Descriptor)] * 3)(engine.address(f"_mlir_ciface_{name}"))
    args = [Descriptor(x.ctypes.data, x.ctypes.data, 0, x.shape, (x.shape[1], 1)) for x in (a, b)]
    out = Descriptor()
    f(ctypes.byref(out), *[ctypes.byref(d) for d in args])
    rows, cols = out.sizes[0], out.sizes[1]
    data = ctypes.cast(out.aligned, ctypes.c_void_p).value
    result = np.frombuffer((ctypes.c_char * (rows * cols * a.itemsize)).from_address(data), a.dtype)
    result = result.reshape(rows, cols).copy()
    ctypes.CDLL(None).free(ctypes.c_void_p(out.allocated))
    return result


@pytest.mark.parametrize("name", OPS)
def test_every_op_computes_what_numpy_does_in_each_accepted_type(compiled, name):
    e, engine = compiled
    dtype = NUMPY[e]
    if name not in ops_of(e):  # (its verifier refuses bf16)
        with pytest.raises(Exception, match=r"element type must be f32, f64, i32 or i64, got bf16"):
            Parser(pipeline.context(), module_text("f32").replace("f32", "bf16")).parse_module().verify()
        return
    rng = np.random.default_rng(len(name))
    # Sizes that leave a vector tail and a partial matrix block; b away from zero for div.
    if np.dtype(dtype).kind == "i":
        a = rng.integers(-1000, 1000, size=(37, 37)).astype(dtype)
        b = (rng.integers(1, 30, size=(37, 37)) * rng.choice([-1, 1], size=(37, 37))).astype(dtype)
    else:
        a = rng.normal(size=(37, 37)).astype(dtype)
        b = (rng.normal(size=(37, 37)) + 4).astype(dtype)
    got = call(engine, name, a, b)
    want = OPS[name][2](a, b)
    assert got.dtype == dtype and got.shape == want.shape
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(got, want)
        return
    if dtype == ml_dtypes.bfloat16:  # each operation rounded once, as ml_dtypes rounds it
        np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))
        return
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * np.abs(want).max())


@pytest.mark.parametrize("e", [str(t) for t in element_types.PRINTABLE])
@pytest.mark.parametrize("optimise", [False, True], ids=["reference", "optimised"])
def test_print_calls_the_printer_of_its_element_type(e, optimise):
    """``mg.print`` of each printable type, through a pipeline to native code, prints what
    NumPy's values of that type are (6 significant digits, as C++ prints a float)."""
    from mg_xdsl.backend import runtime

    if e[0] == "i":
        values = np.array([[1, -25, 2**31 - 1], [-(2**31), 0, 7]], dtype=NUMPY[e])
    else:
        values = np.array([[0.1, -2.5, 1e10], [123456789.0, 1.0 / 3, -0.0]], dtype=NUMPY[e])
    text = (
        f"func.func @main() {{\n  %a = mg.constant dense<{values.tolist()}>"
        f" : tensor<2x3x{e}>\n  mg.print %a : tensor<2x3x{e}>\n  func.return\n}}\n"
    )
    ctx = pipeline.context()
    module = Parser(ctx, text).parse_module()
    for stage in (pipeline.OPTIMISED_STAGES if optimise else pipeline.REFERENCE_STAGES)[1:]:
        pipeline.run_stage(module, stage, ctx)
    engine = Engine(translate(module))
    with runtime.capture() as printed:
        ctypes.CFUNCTYPE(None)(engine.address("main"))()
    rows = [",   ".join(str(x) if e[0] == "i" else "%g" % float(x) for x in row) for row in values]
    assert printed.getvalue().endswith("data = \n[[" + "], \n [".join(rows) + "]]\n"), printed.getvalue()


# -- the records ------------------------------------------------------------------------------


def test_each_record_is_consistent_with_itself_and_with_the_others():
    """What the records promise one another: the IR type is the one MLIR writes with the
    record's name; each type a record names (computed in, accumulated in, printed as) has a
    record, and the type printed as has a printer of its own; a type is printed as itself
    exactly when it has a printer; only the booleans have no arithmetic."""
    from mg_xdsl.core.element_records import BY_NAME, ELEMENT_TYPES

    for e in ELEMENT_TYPES:
        assert str(e.ir) == e.name and element_types.record(e.ir) is e
        assert e.kind in ("float", "integer", "boolean")
        for named in (e.computed_in, e.accumulates_in, e.printed_as):
            assert named is None or named in BY_NAME, (e.name, named)
        assert (e.printer is not None) == (e.printed_as == e.name), e.name
        assert BY_NAME[e.printed_as].printer is not None, e.name
        assert (e.accumulates_in is None) == (not e.has_arithmetic), e.name
        assert e.byte_size == ctypes.sizeof(getattr(ctypes, e.ctype)), e.name
        assert e.byte_size == np.dtype(e.numpy).itemsize, e.name


def test_the_executables_runtime_defines_each_printer_of_the_records():
    """``runtime.c`` is C, so it mirrors the records by hand: it defines every printer they
    name (and the JIT's twin, ``runtime.py``, exactly those)."""
    from pathlib import Path

    from mg_xdsl.backend import runtime

    source = (Path(runtime.__file__).parent / "runtime.c").read_text()
    for printer in element_types.PRINTERS.values():
        assert f"void {printer}(int64_t rank, Descriptor *d)" in source, printer
    assert set(runtime.PRINTERS) == set(element_types.PRINTERS.values())
