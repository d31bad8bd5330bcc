"""The run-time library's printers (``printMemrefF64``, ``printMemrefF32``,
``printMemrefI32``, ``printMemrefI64``), in Python for the JIT (``mg_xdsl.backend.runtime``)
and in C for executables (``runtime.c``), print exactly what MLIR's runner library prints:
the same memrefs, of every element type, ranks 0 to 4, one of them strided, printed by one
module run three ways, against ``mlir-runner-22``."""

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.parser import Parser

from mg_xdsl.backend import jit, native, runtime
from mg_xdsl.pipeline import stages as pipeline

RUNNER_LIBS = Path("/usr/lib/llvm-22/lib")
TYPES = {"F64": ("f64", np.float64), "F32": ("f32", np.float32), "I32": ("i32", np.int32), "I64": ("i64", np.int64)}
# Values each type prints in its own way: %g's exponents and 6 significant digits, -0
# (floats); the extremes (integers).
FLOATS = [1.5, -2.0, 1e10, 1e-7, 123456789.0, -0.0, 0.1, 3.0e38, 7.0, 1.0 / 3, -65504.25, 2.5e-30]
INTEGERS = {
    "I32": [0, -1, 2147483647, -2147483648, 42, 7],
    "I64": [0, -1, 9223372036854775807, -9223372036854775807 - 1, 42, 7],
}
SHAPES = [(), (5,), (2, 3), (2, 3, 2), (1, 2, 1, 3)]


def values(kind: str, shape: tuple[int, ...]) -> np.ndarray:
    pool = INTEGERS.get(kind, FLOATS)
    n = int(np.prod(shape))
    return np.array([pool[i % len(pool)] for i in range(n)], dtype=TYPES[kind][1]).reshape(shape)


def literal(a: np.ndarray) -> str:
    """``a`` as the nested list of an MLIR ``dense`` attribute."""
    if a.ndim == 0:
        x = a.item()
        return str(x) if isinstance(x, int) else "%.17e" % x  # (MLIR's floats need a point)
    return "[" + ", ".join(literal(x) for x in a) + "]"


def memref(shape: tuple[int, ...], element: str, layout: str = "") -> str:
    return f"memref<{''.join(f'{d}x' for d in shape)}{element}{layout}>"


def module_text() -> str:
    """``@mg_main``, printing a global of every type and shape, and every other column of
    each type's 2x3 global (a strided view). (Not an empty memref: upstream reads its first
    element anyway and prints whatever is there, where these print ``[]``.)"""
    globals_, declared, body = [], [], []

    def show(kind: str, value: str, typed: str) -> None:
        element = TYPES[kind][0]
        body.append(f'  {value}_u = "memref.cast"({value}) : ({typed}) -> memref<*x{element}>')
        body.append(f"  func.call @printMemref{kind}({value}_u) : (memref<*x{element}>) -> ()")

    for kind, (element, _) in TYPES.items():
        declared.append(f"func.func private @printMemref{kind}(memref<*x{element}>)")
        for k, shape in enumerate(SHAPES):
            name = f"g_{kind}_{k}"
            t = memref(shape, element)
            tensor = t.replace("memref", "tensor")
            globals_.append(
                f'"memref.global"() <{{sym_name = "{name}", sym_visibility = "private", '
                f"type = {t}, initial_value = dense<{literal(values(kind, shape))}> : {tensor}, "
                f"constant}}> : () -> ()"
            )
            body.append(f"  %{name} = memref.get_global @{name} : {t}")
            show(kind, f"%{name}", t)
        strided = memref((2, 2), element, ", strided<[3, 2]>")
        body.append(
            f"  %s_{kind} = memref.subview %g_{kind}_2[0, 0] [2, 2] [1, 2] : {memref((2, 3), element)} to {strided}"
        )
        show(kind, f"%s_{kind}", strided)
    return "\n".join([*globals_, *declared, "func.func @mg_main() {", *body, "  func.return", "}"]) + "\n"


ADDRESS = re.compile(r"base@ = 0x[0-9a-f]+")


def masked(text: str) -> str:
    return ADDRESS.sub("base@ = ADDRESS", text)


@pytest.fixture(scope="module")
def llvm_ir() -> str:
    """The module in LLVM IR, lowered by this project's passes."""
    ctx = pipeline.context()
    module = Parser(ctx, module_text()).parse_module()
    pipeline.run_stage(module, pipeline.REFERENCE_STAGES[-1], ctx)
    return jit.translate(module)


def upstream_output() -> str:
    if shutil.which("mlir-opt-22") is None or shutil.which("mlir-runner-22") is None:
        pytest.skip("mlir-opt-22 and mlir-runner-22 are not installed (apt-get install mlir-22-tools; CI installs it)")
    lowered = subprocess.run(
        [
            "mlir-opt-22",
            "--expand-strided-metadata",
            "--finalize-memref-to-llvm",
            "--convert-func-to-llvm",
            "--convert-arith-to-llvm",
            "--reconcile-unrealized-casts",
        ],
        input=module_text(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    libs = ",".join(
        str(next(RUNNER_LIBS.glob(f"{name}.so*"))) for name in ("libmlir_c_runner_utils", "libmlir_runner_utils")
    )
    run = subprocess.run(
        ["mlir-runner-22", "-e", "mg_main", "-entry-point-result=void", f"-shared-libs={libs}"],
        input=lowered,
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout


def test_the_jits_printers_print_as_mlir_runner(llvm_ir):
    engine = jit.Engine(llvm_ir)
    with runtime.capture() as printed:
        ctypes.CFUNCTYPE(None)(engine.engine.get_function_address("mg_main"))()
    assert masked(printed.getvalue()) == masked(upstream_output())


def test_the_executables_printers_print_as_mlir_runner(llvm_ir, tmp_path):
    if native.c_compiler() is None:
        pytest.skip("no C compiler")
    exe = tmp_path / "prog"
    native.link_executable(native.object_code(llvm_ir), str(exe))
    printed = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert masked(printed) == masked(upstream_output())
