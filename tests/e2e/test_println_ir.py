"""``mg.println`` end to end, from hand-written mg IR (the front end does not emit it yet):
every value and spec below printed by compiled code (the JIT under ``mgc run``, both
pipelines, upstream's lowering, an executable) must be exactly Python's ``format(value,
spec)`` (``str(np.float32(x))`` for an ``f32``/``bf16`` without a spec), and lines of
``println`` and ``print`` must come out in program order into a pipe.

``println/run_ir.py`` is ``mgc`` with xDSL's IR parser in place of the front end."""

import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT, tool

RUN_IR = Path(__file__).with_name("println") / "run_ir.py"
SPECS_FLOAT = ["", ".4f", ".0f", "e", ".3E", "g", ".10g", "G", "%", ".1%", "+", " ", "+.2e", "10", "<10", "^11.3f",
               "*>12.2e", "=+10.1f", "010.3f", "z.1f", "z", "+z.0f", "#.0f", "#g", ".3", ".1", ".17", "-^9",
               "x<8", "F", ".2F", "08", "z.2e", "#.0e", ".25f"]  # fmt: skip
SPECS_INT = ["", "d", "+d", " d", "5", "<6", "^7d", "08", "+08d", "=+9", "*^9", ".2f", "e", "%", "g", ".3e"]
SPECS_BOOL = ["", "d", "5", "<4", ".1f", "+"]
F64 = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-5, 1e-4, 0.00012345, 1e16, 9999999999999998.0, 1e15, 123456.789, -2.5e-300,
       5e-324, 1.7976931348623157e308, 2.0 / 3.0, 0.5, 1.5, 2.5, -0.04, 100.0, 12.04, 1e22, math.pi * 1e10]  # fmt: skip
F32 = [0.1, 3.0, 1e10, 1e-4, 1.5e-45, 3.4e38, -0.0, 123456.0, 999999.0, 1e6, 16777216.0, 0.00011, 2.0 / 3.0, -7.25]
I64 = [0, 1, -1, 42, -9223372036854775808, 9223372036854775807, 1234567]
I32 = [0, -7, 2147483647, -2147483648]
NAN_INF = ["nan", "inf", "-inf"]


def _ir_number(x: float) -> str:
    """A finite float as an MLIR float literal that parses back to it (a point is needed)."""
    text = repr(float(x))
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


class Program:
    """An mg-dialect main with one ``mg.println`` per (value, spec), and the lines Python prints."""

    def __init__(self, every: int = 1) -> None:
        self.ops: list[str] = []
        self.expected: list[str] = []
        self.n = 0
        self.every, self.lines = every, 0  # (keep every k-th line: a shorter program)

    def value(self, text: str, t: str) -> str:
        self.n += 1
        self.ops.append(f"%v{self.n} = mg.constant dense<{text}> : tensor<{t}>")
        return f"%v{self.n}"

    def special(self, kind: str, t: str) -> str:
        """NaN or an infinity of float type ``t``, computed (IR has no literal for them)."""
        zero, one = self.value("0.0", t), self.value("-1.0" if kind == "-inf" else "1.0", t)
        top = zero if kind == "nan" else one
        self.n += 1
        self.ops.append(f"%v{self.n} = mg.div {top}, {zero} : tensor<{t}>, tensor<{t}> -> tensor<{t}>")
        return f"%v{self.n}"

    def println(self, value: str, t: str, spec: str, expected: str) -> None:
        self.lines += 1
        if self.lines % self.every:
            return
        spec_text = spec.replace("\\", "\\\\").replace('"', '\\"')
        self.ops.append(f'mg.println ["<", ">"] ["{spec_text}"] {value} : tensor<{t}>')
        self.expected.append(f"<{expected}>")

    def text(self) -> str:
        body = "\n    ".join([*self.ops, "func.return"])
        return f"builtin.module {{\n  func.func @main() {{\n    {body}\n  }}\n}}\n"


def _bf16(x: float) -> np.float32:
    import ml_dtypes

    return np.float32(np.array(x, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32))


def _float32_text(x: np.float32, spec: str) -> str:
    return str(x) if spec == "" else format(float(x), spec)


def values_program(every: int = 1) -> Program:
    p = Program(every)
    for spec in SPECS_FLOAT:
        for x in F64:
            p.println(p.value(_ir_number(x), "f64"), "f64", spec, format(x, spec))
        for kind in NAN_INF:
            p.println(p.special(kind, "f64"), "f64", spec, format(float(kind), spec))
        for x in F32:
            f = np.float32(x)
            p.println(p.value(_ir_number(float(f)), "f32"), "f32", spec, _float32_text(f, spec))
        for kind in NAN_INF:
            p.println(p.special(kind, "f32"), "f32", spec, _float32_text(np.float32(kind), spec))
        for x in (0.1, 3.0, 1e10, -1.5e-3, 255.0):
            b = _bf16(x)
            p.println(p.value(_ir_number(float(b)), "bf16"), "bf16", spec, _float32_text(b, spec))
    for spec in SPECS_INT:
        for x in I64:
            p.println(p.value(str(x), "i64"), "i64", spec, format(x, spec))
        for x in I32:
            p.println(p.value(str(x), "i32"), "i32", spec, format(x, spec))
    for spec in SPECS_BOOL:
        for b in (True, False):
            p.println(p.value("true" if b else "false", "i1"), "i1", spec, format(b, spec))
    # several values, text pieces with escapes and braces, no values at all
    a, b = p.value("7", "i64"), p.value("0.25", "f64")
    p.ops.append(
        'mg.println ["epoch ", ": loss ", " {tab}\\t\\"q\\" \\\\"] ["", ".4f"] '
        + f"{a}, {b} : tensor<i64>, tensor<f64>"
    )
    p.expected.append('epoch 7: loss 0.2500 {tab}\t"q" \\')
    p.ops.append('mg.println ["plain text, no values"] []')
    p.expected.append("plain text, no values")
    p.ops.append('mg.println [""] []')
    p.expected.append("")
    return p


def run_ir(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "prog.mlir"
    path.write_text(text)
    return subprocess.run(
        [sys.executable, str(RUN_IR), *args, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def check_lines(out: subprocess.CompletedProcess, expected: list[str]) -> None:
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[-1] == "", "the output ends with a newline"
    wrong = [(i, got, want) for i, (got, want) in enumerate(zip(lines[:-1], expected)) if got != want]
    assert not wrong, f"{len(wrong)} lines differ from Python's format, e.g. {wrong[:5]}"
    assert len(lines) - 1 == len(expected)


@pytest.mark.parametrize("options", [[], ["--reference"]], ids=["optimised", "reference"])
def test_values_as_python_formats_them(tmp_path: Path, options: list[str]) -> None:
    p = values_program()
    check_lines(run_ir(tmp_path, p.text(), "run", "--no-cache", *options), p.expected)


@pytest.mark.skipif(not shutil.which("mlir-opt-22"), reason="needs mlir-opt-22")
def test_values_upstream_backend(tmp_path: Path) -> None:
    """A fifth of the values (every spec and type still), through upstream MLIR."""
    p = values_program(every=5)
    check_lines(run_ir(tmp_path, p.text(), "run", "--no-cache", "--backend", "mlir"), p.expected)


def test_values_in_an_executable(tmp_path: Path) -> None:
    p = values_program()
    exe = tmp_path / "prog"
    built = run_ir(tmp_path, p.text(), "build", "-o", str(exe))
    assert built.returncode == 0, built.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    check_lines(out, p.expected)


ORDER = """builtin.module {
  func.func @main() {
    %a = mg.constant dense<1.5> : tensor<f64>
    %i = mg.constant dense<3> : tensor<i32>
    mg.println ["first ", ""] [""] %a : tensor<f64>
    mg.print %a : tensor<f64>
    mg.println ["second ", ""] ["03d"] %i : tensor<i32>
    mg.print %i : tensor<i32>
    mg.println ["third"] []
    func.return
  }
}
"""
ORDER_EXPECTED = ["first 1.5", "[1.5]", "second 003", "[3]", "third"]


def _without_headers(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("Unranked Memref")]


def test_order_with_print_jit_and_executable(tmp_path: Path) -> None:
    out = run_ir(tmp_path, ORDER, "run", "--no-cache")
    assert out.returncode == 0, out.stderr
    assert _without_headers(out.stdout) == ORDER_EXPECTED
    exe = tmp_path / "prog"
    assert run_ir(tmp_path, ORDER, "build", "-o", str(exe)).returncode == 0
    with open(tmp_path / "out.txt", "w") as f:  # stdout a file, then a pipe
        subprocess.run([str(exe)], stdout=f, check=True, timeout=60)
    assert _without_headers((tmp_path / "out.txt").read_text()) == ORDER_EXPECTED
    piped = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60)
    assert _without_headers(piped.stdout) == ORDER_EXPECTED


def test_in_process_capture_holds_println(tmp_path: Path) -> None:
    """Under the JIT, println's lines go where print's do: ``runtime.capture()`` gets both."""
    code = f"""
import sys
sys.path.insert(0, {str(RUN_IR.parent)!r})
import run_ir
from mg_xdsl.backend import runtime
from mg_xdsl.driver import Compilation
engine = Compilation({ORDER!r}, "prog.mlir", keep_dir=None).engine()
with runtime.capture() as out:
    engine.run_main()
print(repr(out.getvalue()))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert _without_headers(eval(done.stdout)) == ORDER_EXPECTED


LOOP = """
let a: tensor[] = 0.123456789
for i in range(10000):
    println("step {i}: {a:.6f}")
"""


def test_ten_thousand_lines_are_quick(tmp_path: Path) -> None:
    """10^4 lines from a loop into a pipe: each line is written once, with no cost that
    grows with the lines before it."""
    (tmp_path / "prog.mg").write_text(LOOP)
    exe = tmp_path / "prog"
    built = subprocess.run(
        [tool("mgc"), "build", str(tmp_path / "prog.mg"), "-o", str(exe)], capture_output=True, text=True, timeout=300
    )
    assert built.returncode == 0, built.stderr
    start = time.perf_counter()
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60)
    seconds = time.perf_counter() - start
    assert out.stdout == "".join(f"step {i}: 0.123457\n" for i in range(10_000))
    assert seconds < 2.0, f"10^4 lines took {seconds:.2f} s"
