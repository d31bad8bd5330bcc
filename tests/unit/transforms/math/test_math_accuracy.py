"""The compiled math functions (``math-polynomial-approximation``) within the ULP bounds of
docs/math-accuracy.md, on a sample of each function and type (``scripts/math_accuracy.py``,
whose ``--exhaustive`` run checks every f32 input): the edges (0, subnormals, infinities,
NaN, the overflow thresholds) exactly, random bit patterns and the functions' ranges; and
the same bits from both pipelines, both thread counts and the upstream backend."""

import importlib.util
import math

import numpy as np
import pytest
from conftest import ROOT, mgc

import mg_xdsl

spec = importlib.util.spec_from_file_location("math_accuracy", ROOT / "scripts" / "math_accuracy.py")
assert spec and spec.loader
accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(accuracy)

SAMPLE = 100_000


@pytest.fixture(scope="module")
def lib():
    return mg_xdsl.compile(accuracy.source(("f32", "f64")))


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", accuracy.FUNCTIONS)
def test_within_the_documented_bound(lib, name, t):
    rng = np.random.default_rng(sorted(accuracy.FUNCTIONS).index(name))
    dtype = np.float32 if t == "f32" else np.float64
    r = accuracy.measure(lib, name, t, accuracy.sample(name, dtype, SAMPLE, rng))
    assert r.count >= SAMPLE // 2
    assert r.max_ulp <= accuracy.BOUNDS[(name, t)], f"{name} {t}: {r.max_ulp:.3f} ULP at {r.worst}"
    if r.beyond:  # sin and cos beyond their range reduction's bound: still in [-1, 1]
        assert r.beyond["in_range"]


def bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """The same bits, but for a NaN's sign and payload: IEEE leaves those to the hardware,
    and x86 gives the first operand's NaN where both are, an order LLVM may swap (acos of
    -2 is one NaN or the other as the registers fall)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    return bool((nan_a == nan_b).all()) and a[~nan_a].tobytes() == b[~nan_b].tobytes()


SPECIAL = [
    # (function, arguments, expected), f64 and f32 alike
    ("exp", (-math.inf,), 0.0),
    ("exp", (math.inf,), math.inf),
    ("exp", (math.nan,), math.nan),
    ("exp", (1e-310,), 1.0),
    ("exp", (-1000.0,), 0.0),
    ("exp", (1000.0,), math.inf),
    ("log", (0.0,), -math.inf),
    ("log", (-0.0,), -math.inf),
    ("log", (-1.0,), math.nan),
    ("log", (-math.inf,), math.nan),
    ("log", (math.inf,), math.inf),
    ("log", (1.0,), 0.0),
    ("log", (math.nan,), math.nan),
    ("tanh", (-0.0,), -0.0),
    ("tanh", (math.inf,), 1.0),
    ("tanh", (-math.inf,), -1.0),
    ("tanh", (-30.0,), -1.0),
    ("sin", (-0.0,), -0.0),
    ("sin", (math.inf,), math.nan),
    ("cos", (-math.inf,), math.nan),
    ("cos", (0.0,), 1.0),
    ("asin", (-0.0,), -0.0),
    ("asin", (1.5,), math.nan),
    ("asin", (1.0,), math.pi / 2),
    ("acos", (1.0,), 0.0),
    ("acos", (-1.0,), math.pi),
    ("acos", (-1.0000001,), math.nan),
    ("atan2", (-0.0, -0.0), -math.pi),
    ("atan2", (0.0, -0.0), math.pi),
    ("atan2", (-0.0, 0.0), -0.0),
    ("atan2", (math.inf, -math.inf), 3 * math.pi / 4),
    ("atan2", (-math.inf, math.inf), -math.pi / 4),
    ("atan2", (1.0, -0.0), math.pi / 2),
    ("atan2", (-5.0, math.inf), -0.0),
    ("atan2", (math.nan, 1.0), math.nan),
    ("pow", (math.nan, 0.0), 1.0),
    ("pow", (1.0, math.nan), 1.0),
    ("pow", (-1.0, math.inf), 1.0),
    ("pow", (-8.0, 1 / 3), math.nan),
    ("pow", (-2.0, 3.0), -8.0),
    ("pow", (-2.0, -2.0), 0.25),
    ("pow", (-0.0, -3.0), -math.inf),
    ("pow", (-0.0, 0.5), 0.0),
    ("pow", (0.0, -2.0), math.inf),
    ("pow", (-math.inf, 3.0), -math.inf),
    ("pow", (-math.inf, -3.0), -0.0),
    ("pow", (0.5, math.inf), 0.0),
    ("pow", (2.0, -math.inf), 0.0),
    ("pow", (1e300, 2.0), math.inf),
    ("pow", (3.0, 4.0), 81.0),  # (exact results: within 1 ULP, these round to them)
    ("pow", (2.0, -10.0), 2.0**-10),
]


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_special_values(lib, t):
    dtype = np.float32 if t == "f32" else np.float64
    for name, args, expected in SPECIAL:
        with np.errstate(over="ignore"):  # (1e300 is inf in f32)
            got = getattr(lib, f"{name}_{t}")(*(np.array([a], dtype) for a in args))[0]
            want = dtype(expected)
        assert (np.isnan(got) and np.isnan(want)) or (got == want and np.signbit(got) == np.signbit(want)), (
            f"{name}{args} {t}: {got!r}, not {want!r}"
        )


def test_same_bits_in_both_pipelines_and_at_any_thread_count(lib, monkeypatch):
    """The functions of a loop large enough for threads: the optimised pipeline at one and
    two threads and the reference pipeline give the same bits."""
    reference = mg_xdsl.compile(accuracy.source(("f32", "f64")), optimise=False)
    rng = np.random.default_rng(7)
    for t, dtype in (("f32", np.float32), ("f64", np.float64)):
        for name in accuracy.FUNCTIONS:
            args = [a[:300_000] for a in accuracy.sample(name, dtype, 400_000, rng)]
            want = getattr(reference, f"{name}_{t}")(*args)
            for threads in ("1", "2"):
                monkeypatch.setenv("MG_NUM_THREADS", threads)
                assert bits_equal(getattr(lib, f"{name}_{t}")(*args), want), f"{name} {t} at {threads} threads"


def test_the_upstream_backend_gives_the_same_bits(tmp_path):
    """``--backend mlir`` receives the expanded IR: mlir-opt-22 and this project's lowering
    give the same bits (saved as .npy files)."""
    if mgc("llvm", "--backend", "mlir", "-", input=b"print 1\n").returncode != 0:
        pytest.skip("no mlir-opt-22")
    rng = np.random.default_rng(3)
    x = np.concatenate([accuracy.edges(np.float64), rng.uniform(-20, 20, 2000)])
    np.save(tmp_path / "x.npy", x)
    lines = ['let x: tensor[?] = load("x.npy")', "let y = cast(x, f32)"]
    for f in ("exp", "log", "tanh", "sin", "cos", "asin", "acos"):
        lines += [f'save("{f}_64_OUT.npy", {f}(x))', f'save("{f}_32_OUT.npy", {f}(y))']
    for f in ("atan2", "pow"):
        lines += [f'save("{f}_64_OUT.npy", {f}(x, x / 3))', f'save("{f}_32_OUT.npy", {f}(y, y / 3))']
    source = "\n".join(lines) + "\n"
    outputs = {}
    for backend in ("xdsl", "mlir"):
        program = tmp_path / f"{backend}.mg"
        program.write_text(source.replace("OUT", backend))
        extra = ["--backend", "mlir"] if backend == "mlir" else []
        p = mgc("run", *extra, str(program), cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        outputs[backend] = {f.name.replace(backend, ""): np.load(f) for f in tmp_path.glob(f"*_{backend}.npy")}
    assert len(outputs["xdsl"]) == 18
    for name, a in outputs["xdsl"].items():
        assert bits_equal(a, outputs["mlir"][name]), name
