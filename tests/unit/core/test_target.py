"""The target model (``mg_xdsl.core.target``): the vector unit read from LLVM for named CPUs, the
table's register blocks fitting their registers, and the code compiled for every CPU this
host can run agreeing with NumPy."""

import platform

import llvmlite.binding as llvm
import numpy as np
import pytest

import mg_xdsl
from mg_xdsl.core import target
from mg_xdsl.core.target import AVX2, AVX512, NEON, SSE2, VectorUnit, host

X86 = platform.machine() in ("x86_64", "AMD64")
x86_only = pytest.mark.skipif(not X86, reason="the CPUs named are x86-64 ones")


@x86_only
@pytest.mark.parametrize(
    "cpu, unit",
    [
        ("x86-64", SSE2),
        ("x86-64-v2", SSE2),
        ("x86-64-v3", AVX2),
        ("haswell", AVX2),
        ("znver3", AVX2),
        ("x86-64-v4", AVX512),
        ("skylake-avx512", AVX512),
        ("znver5", AVX512),
        ("znver4", VectorUnit(512, 32, True, datapath=256)),
    ],
)
def test_vector_unit_of_named_cpus(cpu, unit):
    assert target.vector_unit(cpu) == unit


def test_a_half_datapath_narrows_the_streaming_kernels_only():
    """Zen 4: reductions of 256-bit vectors (eight accumulators, 256 bytes a step, as on
    AVX2), a matrix block of AVX-512's 32 zmm registers of its own (8 x 16 f64, where a
    full-width unit has 6 x 32), and LLVM tuned to prefer 256-bit vectors; a CPU that is
    not in the table gets no tuning."""
    zen4 = VectorUnit(512, 32, True, datapath=256)
    assert zen4.stream_bits == 256 and AVX512.stream_bits == 512
    assert target.reduction_vectors(zen4, 64) == target.reduction_vectors(AVX2, 64)
    assert target.reduction_vectors(zen4, 32).lanes == 8
    assert (target.matmul_blocks(zen4, 64).mr, target.matmul_blocks(zen4, 64).nr) == (8, 16)
    assert (target.matmul_blocks(AVX512, 64).mr, target.matmul_blocks(AVX512, 64).nr) == (6, 32)
    assert target.llvm_tuning("znver4") == "+prefer-256-bit"
    assert target.llvm_tuning("znver5") == target.llvm_tuning("x86-64-v3") == ""
    assert "datapath-bits=256" in target.pass_options(target.Target(zen4), datapath=True)
    assert "datapath" not in target.pass_options(target.Target(AVX512), datapath=True)


def test_unit_from_aarch64_assembly():
    asm = "\tfadd\tv0.2d, v0.2d, v4.2d\n\tfmla\tv0.2d, v1.2d, v2.2d\n"
    assert target.unit_from_assembly(asm) == NEON


@pytest.mark.parametrize(
    "table, key",
    [("REGISTER_BLOCKS", k) for k in sorted(target.REGISTER_BLOCKS)]
    + [("HALF_DATAPATH_BLOCKS", k) for k in sorted(target.HALF_DATAPATH_BLOCKS)],
)
def test_register_blocks_fit_their_registers(table, key):
    """MR x NR/L sums, one row of B (NR/L registers) and one broadcast value of A."""
    bits, registers = key
    mr, nr_registers = getattr(target, table)[key]
    assert mr * nr_registers + nr_registers + 1 <= registers


@pytest.mark.parametrize("unit", [AVX512, AVX2, SSE2, NEON, VectorUnit(128, 8, False)])
@pytest.mark.parametrize("element_bits", [64, 32])
def test_blocks_are_in_elements_per_register(unit, element_bits):
    blocks = target.matmul_blocks(unit, element_bits)
    assert blocks.lanes == unit.bits // element_bits
    assert blocks.nr % blocks.lanes == 0 and blocks.mc % blocks.mr == 0
    assert blocks.mr * (blocks.nr // blocks.lanes) + blocks.nr // blocks.lanes + 1 <= unit.registers
    vectors = target.reduction_vectors(unit, element_bits)
    assert vectors.lanes == blocks.lanes and 1 <= vectors.accumulators <= unit.registers // 2


def write_sysfs(directory, caches):
    """A ``/sys/devices/system/cpu/cpu0/cache`` as Linux writes it: (level, type, size,
    shared_cpu_list) per index."""
    for i, (level, kind, size, shared) in enumerate(caches):
        index = directory / f"index{i}"
        index.mkdir(parents=True)
        for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
            (index / name).write_text(f"{value}\n")
    return directory


def test_caches_read_as_linux_describes_them(tmp_path):
    """This machine's kind (a 2-core Xeon guest): L3 split between the cores that share it,
    the instruction cache ignored."""
    sysfs = write_sysfs(
        tmp_path,
        [
            (1, "Data", "48K", "0"),
            (1, "Instruction", "64K", "0"),
            (2, "Unified", "2048K", "0"),
            (3, "Unified", "491520K", "0-1"),
        ],
    )
    assert target.caches_from_sysfs(sysfs) == target.Caches(48 * 1024, 2 * 1024**2, 240 * 1024**2)
    zen3 = write_sysfs(
        tmp_path / "zen3",
        [(1, "Data", "32K", "0,8"), (2, "Unified", "512K", "0,8"), (3, "Unified", "32768K", "0-7,8-15")],
    )
    assert target.caches_from_sysfs(zen3) == target.Caches(16 * 1024, 256 * 1024, 2 * 1024**2)


def test_caches_that_cannot_be_read_are_typical(tmp_path):
    assert target.caches_from_sysfs(tmp_path / "missing") is None
    no_l3 = write_sysfs(tmp_path / "no_l3", [(1, "Data", "32K", "0"), (2, "Unified", "1024K", "0")])
    assert target.caches_from_sysfs(no_l3) is None
    garbled = write_sysfs(
        tmp_path / "garbled", [(1, "Data", "lots", "0"), (2, "Unified", "1M", "0"), (3, "Unified", "8M", "0-3")]
    )
    assert target.caches_from_sysfs(garbled) is None
    assert target.target("x86-64-v3").caches == target.TYPICAL_CACHES


@pytest.mark.parametrize("unit", [AVX512, AVX2, SSE2, NEON])
def test_cache_blocks_fit_the_caches(unit):
    """Typical caches give the blocks that were tuned; smaller ones shrink them to fit:
    a KC x NR panel of B in L1, MC x KC of A in half of L2, KC x NC of B in half the L3
    share; larger ones never grow them past what was measured."""
    typical = target.matmul_blocks(unit, 64)
    l1, l2, l3 = target.TYPICAL_CACHES.l1, target.TYPICAL_CACHES.l2, target.TYPICAL_CACHES.l3
    assert typical.kc == min(512, l1 // (typical.nr * 8) // 8 * 8)  # (AVX-512's 32 columns: 128)
    rows = min(128, l2 // 2 // (typical.kc * 8))  # (AVX2's 512-deep panels: 64, so 66 rows)
    assert typical.mc == typical.mr * -(-rows // typical.mr)
    assert typical.nc == min(1024, l3 // 2 // (typical.kc * 8) // typical.nr * typical.nr)
    huge = target.matmul_blocks(unit, 64, target.Caches(10**9, 10**9, 10**9))
    assert (huge.kc, huge.mc, huge.nc) == (512, huge.mr * -(-128 // huge.mr), 1024)  # (KC_MAX, MC_MAX, NC_MAX)
    small = target.Caches(16 * 1024, 128 * 1024, 512 * 1024)
    blocks = target.matmul_blocks(unit, 64, small)
    assert blocks.kc * blocks.nr * 8 <= small.l1 and blocks.kc % 8 == 0
    assert blocks.mc % blocks.mr == 0 and (blocks.mc - blocks.mr) * blocks.kc * 8 < small.l2 // 2
    assert blocks.nc % blocks.nr == 0 and blocks.kc * blocks.nc * 8 <= small.l3 // 2
    assert (blocks.kc, blocks.mc, blocks.nc) < (typical.kc, typical.mc, typical.nc)


def test_tile_matmul_takes_the_cache_blocks_from_its_options():
    """The pipeline hands tile-matmul the caches; its KC shows as the k-loop's step."""
    from mg_xdsl.language.frontend import parse_program
    from mg_xdsl.pipeline.registry import make_pass

    def steps(options: str) -> set[int]:
        module = parse_program("def f(a: tensor[?x?], b: tensor[?x?]) = a @ b\n", "f.mg", with_main=False).module
        from mg_xdsl.pipeline import stages as pipeline

        ctx = pipeline.context()
        for name in ("convert-mg-to-linalg", f"tile-matmul{{{options}}}"):
            make_pass(name).apply(ctx, module)
        return {
            c.value.value.data
            for c in module.walk()
            if c.name == "arith.constant" and hasattr(c.value, "value") and isinstance(c.value.value.data, int)
        }

    typical = steps("vector-bits=512 vector-registers=32")
    small = steps("vector-bits=512 vector-registers=32 l1-cache=16384 l2-cache=131072 l3-cache=524288")
    blocks = target.matmul_blocks(AVX512, 64, target.Caches(16384, 131072, 524288))
    default = target.matmul_blocks(AVX512, 64)
    assert {default.kc, default.mc, default.nc} <= typical and not {blocks.kc, blocks.mc, blocks.nc} <= typical
    assert {blocks.kc, blocks.mc, blocks.nc} <= small


def runnable_cpus() -> list[str]:
    """The x86-64 levels this host can run (each needs the features of the one before)."""
    features = llvm.get_host_cpu_features() if X86 else {}
    host()  # initialises LLVM's native target
    levels = [
        ("x86-64", ()),
        ("x86-64-v2", ("sse4.2", "popcnt")),
        ("x86-64-v3", ("avx2", "fma", "bmi2")),
        ("x86-64-v4", ("avx512f", "avx512bw", "avx512dq", "avx512vl")),
    ]
    out = []
    for cpu, needs in levels:
        if not all(features.get(f) for f in needs):
            break
        out.append(cpu)
    return out


PROGRAM = """
def mm(a: tensor[?x?], b: tensor[?x?]) = relu(a @ b - 1)
def mm32(a: tensor[?x?xf32], b: tensor[?x?xf32]) = a @ b
def rows(a: tensor[?x?]) = row_sum(a) + row_max(a)
def cols(a: tensor[?x?]) = col_sum(a) - col_max(a)
"""


@x86_only
@pytest.mark.parametrize("cpu", [None, "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"])
def test_every_runnable_target_agrees_with_numpy(cpu):
    if cpu is not None and cpu not in runnable_cpus():
        pytest.skip(f"this host cannot run {cpu} code")
    lib = mg_xdsl.compile(PROGRAM, cpu=cpu)
    rng = np.random.default_rng(14)
    # Edges of every block: rows and columns not multiples of MR, NR or the lanes, K past KC;
    # K shorter than the steps in which A's panels are packed, a multiple of them, and
    # whole steps with single k's after them, in the last of several blocks of KC too.
    for m, k, n in [(1, 1, 1), (7, 5, 3), (13, 300, 17), (130, 257, 70), (9, 64, 1030), (67, 1100, 33)]:
        a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        np.testing.assert_allclose(lib.mm(a, b), np.maximum(a @ b - 1, 0), rtol=1e-10, atol=1e-10)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        want = a32.astype(np.float64) @ b32.astype(np.float64)
        np.testing.assert_allclose(lib.mm32(a32, b32), want, rtol=1e-4, atol=1e-5 * k)
        np.testing.assert_allclose(
            lib.rows(a), a.sum(1, keepdims=True) + a.max(1, keepdims=True), rtol=1e-10, atol=1e-10
        )
        np.testing.assert_allclose(
            lib.cols(a), a.sum(0, keepdims=True) - a.max(0, keepdims=True), rtol=1e-10, atol=1e-10
        )


def test_unknown_cpu_is_refused():
    with pytest.raises(ValueError, match="LLVM does not know the CPU 'no-such-cpu'"):
        mg_xdsl.compile("def f(a: tensor[2x2]) = a", cpu="no-such-cpu")


@x86_only
@pytest.mark.parametrize("cpu", [None, "x86-64", "x86-64-v3"])
def test_maxima_order_zeros_and_propagate_nan_exactly(cpu):
    """The vector maxima ignore the sign of zeros (nsz, for speed on AVX2); a zero result is
    recomputed exactly, so +0 wins over -0 as IEEE's maximum says, wherever it stands."""
    if cpu is not None and cpu not in runnable_cpus():
        pytest.skip(f"this host cannot run {cpu} code")
    lib = mg_xdsl.compile("def rows(a: tensor[?x?]) = row_max(a)\ndef cols(a: tensor[?x?]) = col_max(a)", cpu=cpu)
    a = np.full((600, 70), -0.0)
    a[0, 50] = a[1, 0] = a[2, 69] = 0.0  # rows 0-2 hold one +0 each, in the vector part or not
    a[3, 5] = -1.0  # row 3: -0 is the maximum
    a[4, 33] = np.nan  # row 4: NaN
    a[599, 1] = 0.0  # column 1: +0 in the last row (past the last block of 256 rows)
    a[300, 2] = np.nan
    rows, cols = lib.rows(a).ravel(), lib.cols(a).ravel()
    assert list(np.signbit(rows[:4])) == [False, False, False, True]
    assert np.isnan(rows[4]) and not np.isnan(rows[5]) and np.signbit(rows[5])
    assert not np.signbit(cols[0]) and not np.signbit(cols[1]) and np.isnan(cols[2])
    assert np.signbit(cols[3])  # -0 and -1 only


def test_streaming_starts_at_the_l3_share_and_never_below_16_mib():
    assert target.streaming_min_bytes(target.TYPICAL_CACHES) == 16 * target.MiB
    assert (
        target.streaming_min_bytes(target.Caches(48 * target.KiB, 2 * target.MiB, 64 * target.MiB)) == 64 * target.MiB
    )


def test_fresh_pages_start_where_the_run_time_allocates_them():
    """``stream-large-results`` leaves results of FRESH_PAGES_BYTES or more alone because the
    run time's allocator gives those fresh huge pages: the two numbers must agree."""
    from mg_xdsl.backend.runtime_ir import RUNTIME_IR

    assert f"%large = icmp uge i64 %bytes, {target.FRESH_PAGES_BYTES}\n" in RUNTIME_IR
