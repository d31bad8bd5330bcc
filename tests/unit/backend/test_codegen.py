"""What the optimised pipeline's code looks like in the machine's assembly: the matrix
product's micro-kernel and the reductions are vector code, not scalar loops.

The host's own target machine is used (as mgc does), so the register names depend on the
CPU: AVX-512 machines use zmm registers for ``vector<8xf64>``, AVX2 ones pairs of ymm."""

import re

import pytest

from mg_xdsl.backend.jit import link, optimise, target_machine
from mg_xdsl.driver import Compilation

VECTOR_REG = r"%[yz]mm\d+"


def assembly(source: str, optimise_pipeline: bool = True) -> str:
    comp = Compilation(source, "prog.mg", lib=True, keep_dir=None, optimise=optimise_pipeline)
    module = optimise(link(comp.llvm_ir()), 2)
    return target_machine().emit_assembly(module)


def count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text))


@pytest.fixture(scope="module")
def matmul_asm() -> str:
    return assembly("def f(a: tensor[?x?], b: tensor[?x?]) = a @ b")


def test_matmul_micro_kernel_is_vector_fma(matmul_asm):
    """16 vector FMAs per k step (8 rows x 16 columns), reading the packed panels."""
    fmas = count(rf"vfmadd\d+pd\s+[^\n]*{VECTOR_REG}", matmul_asm)
    assert fmas >= 16, f"only {fmas} vector FMAs"
    assert count(r"vbroadcastsd", matmul_asm) >= 8


def test_reference_pipeline_has_no_vector_fma():
    """The chapter's nest: scalar multiply and add (what tile-matmul replaces)."""
    asm = assembly("def f(a: tensor[?x?], b: tensor[?x?]) = a @ b", optimise_pipeline=False)
    assert count(rf"vfmadd\d+pd\s+[^\n]*{VECTOR_REG}", asm) == 0


def test_row_sum_accumulates_in_vector_registers():
    asm = assembly("def f(a: tensor[?x?]) = row_sum(a)")
    assert count(rf"vaddpd\s+[^\n]*{VECTOR_REG}", asm) >= 4


def test_fused_elementwise_loop_is_vectorised():
    """relu(a + b) as one loop: vector add and max, no second pass."""
    asm = assembly("def f(a: tensor[1000x1000], b: tensor[1000x1000]) = relu(a + b)")
    assert count(rf"vaddpd\s+[^\n]*{VECTOR_REG}", asm) >= 1
    assert count(rf"vmaxpd\s+[^\n]*{VECTOR_REG}", asm) >= 1


def test_small_static_program_is_compiled_unoptimised():
    """``optnone-small-functions``: a few iterations of work in all reach LLVM as
    ``optnone`` (LLVM would take longer to optimise them than they run); large and run-time
    sizes do not, nor a def called in a long loop, nor a library's defs (called any number
    of times), and both kinds print what NumPy computes."""
    defs = (
        "def f(a: tensor[2x3], b: tensor[2x3]) = relu(a + b)\n"
        "def g(a: tensor[?x?]) = relu(a + 1)\n"
        "def h(a: tensor[200x200]) = relu(a + 1)\n"
        "def k(a: tensor[2x3]) = a * 2\n"
    )
    # (each called twice: the optimised pipeline inlines a def called once)
    calls = "let x = [[1, -2, 3], [-4, 5, -6]]\nprint f(x, x)\nprint f(x, x)\nfor i in range(5000):\n    print k(x)\n    print k(x)\n"
    comp = Compilation(defs + calls, "prog.mg", keep_dir=None, optimise=True)
    ir = comp.llvm_ir()
    defines = {line.split("@")[1].split("(")[0]: line for line in ir.splitlines() if line.startswith("define ")}
    assert "optnone" in defines["f"] and "noinline" in defines["f"]  # 6 iterations, run twice
    assert "optnone" not in defines["k"]  # 6 iterations, run 10000 times
    # g's loop runs on threads, in a function of its own; g itself only calls the pool.
    assert [name for name in defines if name.startswith("g_parallel")]
    assert all("optnone" not in line for name, line in defines.items() if name.startswith("g_"))
    assert "optnone" not in defines["h"]
    library = Compilation(defs, "prog.mg", lib=True, keep_dir=None, optimise=True).llvm_ir()
    assert all(" optnone" not in line for line in library.splitlines() if line.startswith("define ") and "@f(" in line)
    # A program whose every function is optnone is compiled at -O0 throughout; one large
    # function is enough for the optimising pipeline and code generator.
    from mg_xdsl.backend.jit import levels

    assert levels(ir, 2) == (2, 3)
    small = Compilation(
        "def f(a: tensor[2x3], b: tensor[2x3]) = relu(a + b)\nprint f([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]])\n",
        "prog.mg",
        keep_dir=None,
        optimise=True,
    ).llvm_ir()
    assert levels(small, 2) == (0, 0)
    # Unoptimised code computes the same as optimised code: the library's f against NumPy.
    import numpy as np

    from mg_xdsl.api import compile as mg_compile

    lib = mg_compile("def f(a: tensor[2x3], b: tensor[2x3]) = relu(a + b)")
    a = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    b = np.array([[0.5, 0.5, -4.0], [5.0, -5.0, 7.0]])
    np.testing.assert_array_equal(lib.f(a, b), np.maximum(a + b, 0.0))


# --- kernels shaped for the target ------------------------------------------------------
#
# The micro-kernel's loop is the basic block with the most multiply-adds; on each target
# it must hold the table's register block (MR x NR / lanes multiply-adds, in the target's
# widest registers) and touch no stack (no sums spilled).

MATMUL = "def f(a: tensor[?x?], b: tensor[?x?]) = a @ b"
TARGETS = {  # LLVM CPU name: (register class, multiply-adds per k step, fused)
    "skylake-avx512": ("zmm", 6 * 32 // 8, True),
    "haswell": ("ymm", 6 * 8 // 4, True),
    "x86-64": ("xmm", 4 * 4 // 2, False),
}


def assembly_for(cpu: str, source: str = MATMUL) -> str:
    comp = Compilation(source, "prog.mg", lib=True, keep_dir=None, cpu=cpu)
    module = optimise(link(comp.llvm_ir()), 2, target_machine(cpu))
    return target_machine(cpu).emit_assembly(module)


def blocks_of(asm: str) -> list[str]:
    """The assembly cut at every label: functions and basic blocks."""
    return re.split(r"\n(?=[.\w$]+:)", asm)


def multiply_adds(block: str) -> int:
    return count(r"\n\s*vfmadd\d+pd\s", block) + count(r"\n\s*v?mulpd\s", block)


@pytest.mark.skipif(
    __import__("platform").machine() not in ("x86_64", "AMD64"), reason="the targets named are x86-64 CPUs"
)
@pytest.mark.parametrize("cpu", sorted(TARGETS))
def test_micro_kernel_fits_the_targets_registers(cpu):
    register, per_step, fused = TARGETS[cpu]
    loop = max(blocks_of(assembly_for(cpu)), key=multiply_adds)
    instructions = [
        line.strip() for line in loop.splitlines()[1:] if line.startswith("\t") and not line.startswith("\t.")
    ]
    # The loop ends at its branch back to its label; what follows (an unlabelled exit block
    # that falls through) is not the micro-kernel.
    label = loop.splitlines()[0].split(":")[0]
    back = [k for k, i in enumerate(instructions) if re.match(rf"j\w+\s+{re.escape(label)}$", i)]
    assert back, f"no branch back to {label}:\n" + "\n".join(instructions)
    instructions = instructions[: back[0] + 1]
    products = [i for i in instructions if re.match(r"vfmadd\d+pd|v?mulpd", i)]
    assert len(products) == per_step, "\n".join(instructions)
    assert all(f"%{register}" in i for i in products), "\n".join(instructions)
    assert all(i.startswith("vfmadd") for i in products) == fused
    spills = [i for i in instructions if "(%rsp)" in i]
    assert not spills, f"the micro-kernel spills on {cpu}:\n" + "\n".join(instructions)


@pytest.mark.skipif(
    __import__("platform").machine() not in ("x86_64", "AMD64"), reason="the targets named are x86-64 CPUs"
)
@pytest.mark.parametrize("cpu, register", [("znver4", "ymm"), ("znver5", "zmm")])
@pytest.mark.parametrize(
    "source", ["def f(a: tensor[1000x1000], b: tensor[1000x1000]) = a + b", "def f(a: tensor[?x?]) = row_sum(a)"]
)
def test_streaming_loops_use_the_datapaths_width(cpu, register, source):
    """Zen 4 runs AVX-512 as two 256-bit halves (``target.HALF_DATAPATH``): its elementwise
    loops (LLVM's vectoriser, tuned ``+prefer-256-bit``) and its reductions stream 256-bit
    vectors; Zen 5 executes 512 bits at once and keeps zmm."""
    adds = re.findall(r"\n\s*vaddpd\s+[^\n]*%([xyz]mm)", assembly_for(cpu, source))
    wide = [r for r in adds if r != "xmm"]  # (xmm: the final sum of a row's accumulators)
    assert wide and set(wide) == {register}, adds


@pytest.mark.skipif(
    __import__("platform").machine() not in ("x86_64", "AMD64"), reason="the targets named are x86-64 CPUs"
)
@pytest.mark.parametrize(
    "cpu, register", [("skylake-avx512", "zmm"), ("znver4", "ymm"), ("haswell", "ymm"), ("x86-64", "xmm")]
)
def test_large_results_are_written_with_streaming_stores(cpu, register):
    """``stream-large-results``: a returned ``a + b`` that streams 24 MB stores whole
    vectors of the target's streaming width past the caches (``movntpd``), and fences
    them; one that streams 2.4 MB stores as usual."""
    large = assembly_for(cpu, "def f(a: tensor[1000x1000], b: tensor[1000x1000]) = a + b")
    streaming = re.findall(r"\n\s*v?movntpd\s+%([xyz]mm)", large)
    assert streaming and set(streaming) == {register}, streaming
    assert count(r"\n\s*sfence", large) >= 1
    small = assembly_for(cpu, "def f(a: tensor[100x1000], b: tensor[100x1000]) = a + b")
    assert "movnt" not in small and "sfence" not in small
