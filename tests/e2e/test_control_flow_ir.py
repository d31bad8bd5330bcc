"""Loops and conditionals that carry tensors (``scf.for`` with iteration arguments, ``scf.if``
with results, ``mg.item`` / ``mg.from_item`` between tensors and scalars), written by hand in
the mg dialect as the front end emits them: through the reference pipeline, the optimised
one and ``--backend mlir`` (upstream ``mlir-opt-22`` after the affine stage) to the JIT, each
printing the values NumPy computes; through ``mg-opt``'s pipelines; and, built into an
executable, a loop of 100,000 iterations that allocates temporaries frees all it allocates
(valgrind)."""

import ast
import platform
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import tool

from mg_xdsl.backend import runtime
from mg_xdsl.pipeline import stages as pipeline

HAVE_MLIR_OPT = shutil.which("mlir-opt-22") is not None
BACKENDS = [
    "reference",
    "optimised",
    pytest.param("mlir", marks=pytest.mark.skipif(not HAVE_MLIR_OPT, reason="no mlir-opt-22")),
]

# The example of the front end's IR: a var updated in place in a loop, the loop counter as a
# tensor, a conditional on a reduction inside the loop.
LOOP = """
func.func @main() {
  %z = mg.full {value = 0.000000e+00 : f64} : tensor<3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %iv = %c0 to %c4 step %c1 iter_args(%w = %z) -> (tensor<3xf64>) {
    %i64 = arith.index_cast %iv : index to i64
    %it = mg.from_item %i64 : i64 -> tensor<i64>
    %f = mg.convert %it : tensor<i64> to tensor<f64>
    %fb = mg.broadcast %f : tensor<f64> -> tensor<3xf64>
    %w1 = mg.add %w, %fb {mg.in_place} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %s = mg.reduce %w1 {axis = 0 : i64, kind = "sum"} : tensor<3xf64> -> tensor<1xf64>
    %s0 = mg.reshape %s : tensor<1xf64> to tensor<f64>
    %big = mg.scalar %s0 {op = "gt", value = 5.0 : f64, reversed = false} : tensor<f64> -> tensor<i1>
    %c = mg.item %big : tensor<i1> -> i1
    %w2 = scf.if %c -> (tensor<3xf64>) {
      %h = mg.scalar %w1 {op = "mul", value = 0.5 : f64, reversed = false} : tensor<3xf64> -> tensor<3xf64>
      scf.yield %h : tensor<3xf64>
    } else {
      scf.yield %w1 : tensor<3xf64>
    }
    scf.yield %w2 : tensor<3xf64>
  }
  mg.print %r : tensor<3xf64>
  func.return
}
"""


def loop_expected() -> list[np.ndarray]:
    w = np.zeros(3)
    for i in range(4):
        w += float(i)
        if w.sum() > 5.0:
            w = w * 0.5
    return [w]


# Defs with loops and conditionals (a loop's bound read from a tensor, a loop starting from a
# parameter and returned, a conditional returning a parameter or a new buffer); in main,
# nested loops carrying two values, a transpose (a view in the optimised pipeline) yielded,
# and a conditional of two results, one of them from outside it.
DEFS = """
func.func @accumulate(%x: tensor<3xf64>, %n: tensor<i64>) -> tensor<3xf64> {
  %n64 = mg.item %n : tensor<i64> -> i64
  %nn = arith.index_cast %n64 : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %nn step %c1 iter_args(%a = %x) -> (tensor<3xf64>) {
    %a1 = mg.add %a, %x : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    scf.yield %a1 : tensor<3xf64>
  }
  func.return %r : tensor<3xf64>
}
func.func @pick(%c: tensor<i1>, %a: tensor<3xf64>) -> tensor<3xf64> {
  %b = mg.item %c : tensor<i1> -> i1
  %r = scf.if %b -> (tensor<3xf64>) {
    %n = mg.neg %a : tensor<3xf64> -> tensor<3xf64>
    scf.yield %n : tensor<3xf64>
  } else {
    scf.yield %a : tensor<3xf64>
  }
  func.return %r : tensor<3xf64>
}
func.func @main() {
  %x = mg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %n = mg.constant dense<4> : tensor<i64>
  %z = mg.constant dense<0> : tensor<i64>
  %y = func.call @accumulate(%x, %n) : (tensor<3xf64>, tensor<i64>) -> tensor<3xf64>
  mg.print %y : tensor<3xf64>
  %y0 = func.call @accumulate(%x, %z) : (tensor<3xf64>, tensor<i64>) -> tensor<3xf64>
  mg.print %y0 : tensor<3xf64>
  %m0 = mg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %s0 = mg.full {value = 0.0 : f64} : tensor<f64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %res:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%m = %m0, %s = %s0) -> (tensor<2x2xf64>, tensor<f64>) {
    %inner = scf.for %j = %c0 to %c3 step %c1 iter_args(%mm = %m) -> (tensor<2x2xf64>) {
      %t = mg.transpose %mm {permutation = array<i64: 1, 0>} : tensor<2x2xf64> to tensor<2x2xf64>
      scf.yield %t : tensor<2x2xf64>
    }
    %i64 = arith.index_cast %i : index to i64
    %it = mg.from_item %i64 : i64 -> tensor<i64>
    %f = mg.convert %it : tensor<i64> to tensor<f64>
    %s1 = mg.add %s, %f : tensor<f64>, tensor<f64> -> tensor<f64>
    %m1 = mg.scalar %inner {op = "add", value = 1.0 : f64, reversed = false} : tensor<2x2xf64> -> tensor<2x2xf64>
    scf.yield %m1, %s1 : tensor<2x2xf64>, tensor<f64>
  }
  mg.print %res#0 : tensor<2x2xf64>
  mg.print %res#1 : tensor<f64>
  %big = mg.scalar %res#1 {op = "gt", value = 2.0 : f64, reversed = false} : tensor<f64> -> tensor<i1>
  %c = mg.item %big : tensor<i1> -> i1
  %o:2 = scf.if %c -> (tensor<2x2xf64>, tensor<f64>) {
    %neg = mg.neg %res#0 : tensor<2x2xf64> -> tensor<2x2xf64>
    scf.yield %neg, %res#1 : tensor<2x2xf64>, tensor<f64>
  } else {
    scf.yield %res#0, %res#1 : tensor<2x2xf64>, tensor<f64>
  }
  mg.print %o#0 : tensor<2x2xf64>
  mg.print %o#1 : tensor<f64>
  %p = func.call @pick(%big, %x) : (tensor<i1>, tensor<3xf64>) -> tensor<3xf64>
  mg.print %p : tensor<3xf64>
  %small = mg.scalar %res#1 {op = "lt", value = 2.0 : f64, reversed = false} : tensor<f64> -> tensor<i1>
  %q = func.call @pick(%small, %x) : (tensor<i1>, tensor<3xf64>) -> tensor<3xf64>
  mg.print %q : tensor<3xf64>
  func.return
}
"""


def defs_expected() -> list[np.ndarray]:
    x = np.array([1.0, 2.0, 3.0])

    def accumulate(x: np.ndarray, n: int) -> np.ndarray:
        a = x.copy()
        for _ in range(n):
            a = a + x
        return a

    m, s = np.array([[1.0, 2.0], [3.0, 4.0]]), 0.0
    for i in range(3):
        inner = m
        for _ in range(3):
            inner = inner.T
        m, s = inner + 1.0, s + i
    o = -m if s > 2.0 else m

    def pick(c: bool, a: np.ndarray) -> np.ndarray:
        return -a if c else a

    return [accumulate(x, 4), accumulate(x, 0), m, np.array(s), o, np.array(s), pick(s > 2.0, x), pick(s < 2.0, x)]


# '?' sizes: a size read inside a loop's body or a branch, and read again after it; a loop
# whose trip count is a tensor's element; a bound of zero.
DYNAMIC = """
func.func @f(%x: tensor<?xf64>, %k: tensor<i64>) -> tensor<?xf64> {
  %k64 = mg.item %k : tensor<i64> -> i64
  %n = arith.index_cast %k64 : i64 to index
  %pos = mg.scalar %k {op = "gt", value = 1 : i64, reversed = false} : tensor<i64> -> tensor<i1>
  %b = mg.item %pos : tensor<i1> -> i1
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %m = mg.neg %x : tensor<?xf64> -> tensor<?xf64>
    %a1 = mg.add %a, %m : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
    scf.yield %a1 : tensor<?xf64>
  }
  %y = scf.if %b -> (tensor<?xf64>) {
    %m = mg.relu %x : tensor<?xf64> -> tensor<?xf64>
    scf.yield %m : tensor<?xf64>
  } else {
    %m = mg.neg %x : tensor<?xf64> -> tensor<?xf64>
    scf.yield %m : tensor<?xf64>
  }
  %s = mg.add %x, %y : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
  %t = mg.add %s, %r : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
  func.return %t : tensor<?xf64>
}
func.func @main() {
  %x3 = mg.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf64>
  %x = mg.cast %x3 : tensor<3xf64> to tensor<?xf64>
  %k3 = mg.constant dense<3> : tensor<i64>
  %k0 = mg.constant dense<0> : tensor<i64>
  %a = func.call @f(%x, %k3) : (tensor<?xf64>, tensor<i64>) -> tensor<?xf64>
  mg.print %a : tensor<?xf64>
  %b = func.call @f(%x, %k0) : (tensor<?xf64>, tensor<i64>) -> tensor<?xf64>
  mg.print %b : tensor<?xf64>
  func.return
}
"""


def dynamic_expected() -> list[np.ndarray]:
    x = np.array([1.0, -2.0, 3.0])

    def f(k: int) -> np.ndarray:
        r = x - k * x
        y = np.maximum(x, 0) if k > 1 else -x
        return x + y + r

    return [f(3), f(0)]


# 100,000 iterations: each allocates temporaries (a product, a reduction, a comparison, a
# branch's result or copy) and updates a var in place; a second value is carried through a
# conditional that either makes a new buffer or yields the (copied) transpose of the old.
MANY = """
func.func @main() {
  %x = mg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %w0 = mg.full {value = 0.0 : f64} : tensor<3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%w = %w0, %a = %x) -> (tensor<3xf64>, tensor<3xf64>) {
    %g = mg.scalar %x {op = "mul", value = 0.5 : f64, reversed = false} : tensor<3xf64> -> tensor<3xf64>
    %w1 = mg.add %w, %g {mg.in_place} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %t = mg.transpose %a {permutation = array<i64: 0>} : tensor<3xf64> to tensor<3xf64>
    %s = mg.reduce %w1 {axis = 0 : i64, kind = "sum"} : tensor<3xf64> -> tensor<1xf64>
    %s0 = mg.reshape %s : tensor<1xf64> to tensor<f64>
    %big = mg.scalar %s0 {op = "gt", value = 10.0 : f64, reversed = false} : tensor<f64> -> tensor<i1>
    %c = mg.item %big : tensor<i1> -> i1
    %a1 = scf.if %c -> (tensor<3xf64>) {
      %h = mg.scalar %t {op = "add", value = 1.0 : f64, reversed = false} : tensor<3xf64> -> tensor<3xf64>
      %h1 = mg.scalar %h {op = "sub", value = 1.0 : f64, reversed = false} : tensor<3xf64> -> tensor<3xf64>
      scf.yield %h1 : tensor<3xf64>
    } else {
      scf.yield %t : tensor<3xf64>
    }
    scf.yield %w1, %a1 : tensor<3xf64>, tensor<3xf64>
  }
  mg.print %r#0 : tensor<3xf64>
  mg.print %r#1 : tensor<3xf64>
  func.return
}
"""
MANY_EXPECTED = [np.array([50000.0, 100000.0, 150000.0]), np.array([1.0, 2.0, 3.0])]

HEADER = re.compile(
    r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ sizes = \[[^\]]*\] strides = \[[^\]]*\] data = \n"
)


def printed(out: str) -> list[np.ndarray]:
    """The tensors that ``out`` (printMemref's format) shows, in order."""
    _, *parts = HEADER.split(out)  # (rank, data) after each header
    values = [np.array(ast.literal_eval(" ".join(data.split()))) for data in parts[1::2]]
    return [v.reshape(()) if rank == "0" else v for rank, v in zip(parts[::2], values)]


def lowered(text: str, to: str, optimise: bool):
    """The module ``text`` lowered to stage ``to``, verified after every pass."""
    from xdsl.parser import Parser

    ctx = pipeline.context()
    module = Parser(ctx, text).parse_module()
    for stage in pipeline.stages_to(to, optimise):
        pipeline.run_stage(module, stage, ctx, verify_each_pass=True)
    return module


def llvm_ir(text: str, backend: str) -> str:
    if backend == "mlir":
        from mg_xdsl.backend.upstream import lower_with_mlir_opt

        return lower_with_mlir_opt(lowered(text, "affine", optimise=True))
    from mg_xdsl.backend.jit import translate

    return translate(lowered(text, "llvm", optimise=backend == "optimised"))


def run(text: str, backend: str) -> list[np.ndarray]:
    from mg_xdsl.backend.jit import Engine

    engine = Engine(llvm_ir(text, backend))
    with runtime.capture() as out:
        engine.run_main()
    return printed(out.getvalue())


def check(got: list[np.ndarray], expected: list[np.ndarray]) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e)


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_with_in_place_update_and_conditional(backend):
    check(run(LOOP, backend), loop_expected())


@pytest.mark.parametrize("backend", BACKENDS)
def test_defs_nested_loops_and_conditionals(backend):
    check(run(DEFS, backend), defs_expected())


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_sizes(backend):
    check(run(DYNAMIC, backend), dynamic_expected())


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_iterations(backend):
    check(run(MANY, backend), MANY_EXPECTED)


@pytest.mark.parametrize("name", ["mg-cpu-pipeline", "mg-reference-pipeline"])
def test_mg_opt_pipelines(tmp_path, name):
    path = tmp_path / "defs.mlir"
    path.write_text(DEFS)
    p = subprocess.run([tool("mg-opt"), str(path), "-p", name], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "llvm.func @main" in p.stdout


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="no mlir-opt-22")
@pytest.mark.parametrize("optimise", [False, True], ids=["reference", "optimised"])
@pytest.mark.parametrize("text", [LOOP, DEFS, DYNAMIC, MANY], ids=["loop", "defs", "dynamic", "many"])
def test_upstream_accepts_the_affine_stage(text, optimise):
    p = subprocess.run(["mlir-opt-22"], input=str(lowered(text, "affine", optimise)), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize("optimise", [False, True], ids=["reference", "optimised"])
def test_no_leaks_in_100000_iterations(tmp_path, optimise):
    from xdsl.dialects.builtin import StringAttr

    from mg_xdsl.backend.jit import translate
    from mg_xdsl.backend.native import link_executable, object_code

    module = lowered(MANY, "llvm", optimise)
    for op in module.body.block.ops:  # (the executable's C main calls mg_main)
        if op.properties.get("sym_name") == StringAttr("main"):
            op.properties["sym_name"] = StringAttr("mg_main")
    exe = Path(tmp_path, "many")
    # valgrind 3.19 does not decode AVX-512: code for a CPU level it knows
    cpu = "x86-64-v3" if platform.machine() == "x86_64" else None
    link_executable(object_code(translate(module), 2, cpu), str(exe))
    p = subprocess.run(
        ["valgrind", "--leak-check=full", "--error-exitcode=99", str(exe)], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert "ERROR SUMMARY: 0 errors" in p.stderr, p.stderr
    assert "All heap blocks were freed" in p.stderr, p.stderr
    check(printed(p.stdout), MANY_EXPECTED)


def run_on_emulated_gpu(text: str) -> list[np.ndarray]:
    """``text`` through the GPU path (``pipeline.GPU_STAGES``, as ``mgc run --gpu-emulated``
    runs it): the loops and conditionals stay in the host code, each parallel loop nest of
    their bodies a kernel launched at every iteration."""
    from xdsl.dialects import gpu
    from xdsl.parser import Parser

    from mg_xdsl.backend import gpu_runtime, ptx
    from mg_xdsl.backend.jit import Engine, translate

    ctx = pipeline.context()
    ctx.load_dialect(gpu.GPU)
    module = Parser(ctx, text).parse_module()
    _, device, host, *rest = pipeline.GPU_STAGES
    pipeline.run_stage(module, device, ctx, verify_each_pass=True)
    ptx.check_kernels(module)
    kernel_modules = ptx.kernel_modules(module)
    pipeline.run_stage(module, host, ctx, verify_each_pass=True)
    kernels = gpu_runtime.kernels(module)
    assert kernels, "no kernel was launched"
    for stage in rest:
        pipeline.run_stage(module, stage, ctx)
    launcher = gpu_runtime.Launcher(gpu_runtime.device("emulated"), kernel_modules, kernels)
    engine = Engine(translate(module), symbols=launcher.symbols(), owner=launcher)
    with runtime.capture() as out:
        engine.run_main()
    return printed(out.getvalue())


@pytest.mark.parametrize(
    "text, expected",
    [(LOOP, loop_expected), (DEFS, defs_expected), (DYNAMIC, dynamic_expected)],
    ids=["loop", "defs", "dynamic"],
)
def test_emulated_gpu(text, expected):
    check(run_on_emulated_gpu(text), expected())
