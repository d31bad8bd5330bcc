"""What the generated kernels need to know of the CPU they run on, and the shapes they take
there: the one place where register blocks, vector widths and cache blocks are decided.

A CPU is described by its vector unit (``VectorUnit``): how wide a vector register is, how
many of them the instruction set names, and whether it has fused multiply-add. The unit is
read from LLVM itself (``vector_unit``): a small probe function is compiled for the CPU
and the registers and instructions in its assembly say what LLVM will use. That works the
same for this host (its CPU name and feature string) and for any CPU named with ``--cpu``,
with no list of CPU names to keep up to date. The one thing the instruction set does not
say is how wide the hardware executes it: the CPUs whose datapath is narrower than their
registers are listed by name (``HALF_DATAPATH``); their loops that stream memory use
vectors of the datapath's width (``VectorUnit.stream_bits``, ``llvm_tuning``).

Its caches (``Caches``: the bytes of L1 data, L2 and L3 one core may fill) are read from
Linux's ``/sys/devices/system/cpu/cpu0/cache`` for this host (``host_caches``); for a CPU
named with ``--cpu`` they cannot be known, and a typical core's are assumed
(``TYPICAL_CACHES``). A ``Target`` is the two together.

From the target and an element type follow:

- ``matmul_blocks``: the register block of ``tile-matmul``'s micro-kernel (MR rows x NR
  columns of sums held in registers), from the vector unit, and its cache blocks (KC, MC,
  NC), from the caches;
- ``reduction_vectors``: the vector width and the number of accumulators of
  ``vectorize-reductions``;
- ``streaming_min_bytes``: from how many bytes ``stream-large-results`` writes an
  elementwise result with non-temporal stores (``Target.nontemporal``: where the CPU has
  them).

Other elementwise loops are left to LLVM's loop vectoriser, which reads the same target
(tuned by ``llvm_tuning``).

Sizes are in elements per register (``lanes``), never constants written for ``f64``: an
``f32`` kernel on the same unit has twice the lanes and the same register block.
"""

import os
import tempfile
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class VectorUnit:
    """A CPU's vector registers as the kernels see them."""

    bits: int  # width of one vector register
    registers: int  # vector registers the instruction set names
    fma: bool  # fused multiply-add in hardware (without it, a multiply and an add)
    datapath: int = 0  # bits one instruction works on at a time, where fewer than ``bits``

    def lanes(self, element_bits: int, bits: int | None = None) -> int:
        """Elements of ``element_bits`` in one vector of ``bits`` (a register by default),
        at least one."""
        return max(1, (bits or self.bits) // element_bits)

    @property
    def stream_bits(self) -> int:
        """The vector width for loops that stream memory (reductions, elementwise loops):
        the datapath's, where it is narrower than the registers. There a full-width load
        or store takes two turns of the load/store unit, and a loop of half-width vectors
        keeps more of them in flight. The matrix product, which computes rather than
        streams, keeps the full registers: twice the columns per register at the same
        register count."""
        return self.datapath or self.bits


AVX512 = VectorUnit(512, 32, True)  # x86-64-v4: Skylake-SP and later, Zen 4, Zen 5
AVX2 = VectorUnit(256, 16, True)  # x86-64-v3: Haswell and later, Zen 1-3
SSE2 = VectorUnit(128, 16, False)  # x86-64 (and -v2): every 64-bit x86 CPU
NEON = VectorUnit(128, 32, True)  # AArch64 (Advanced SIMD)

DEFAULT = AVX512
"""The unit that pass options default to: the one the kernels were first written for."""

HALF_DATAPATH: dict[str, int] = {
    # Zen 4 runs each 512-bit AVX-512 instruction as two 256-bit halves, and loads or
    # stores one 512-bit vector per cycle where it loads two of 256 bits. Measured on a
    # Zen 4 guest (one thread, against NumPy in the same run, 2026-12-04): a row sum of
    # 4096 x 4096 at 0.92-0.97 of NumPy with four vector<8xf64> accumulators and 1.01-1.02
    # with eight vector<4xf64>; ``a + b`` of 1000 x 1000 about 10% faster with 256-bit
    # vectors than with LLVM's 512-bit ones. Its matrix block stays 8x16 (0.96-1.01:
    # HALF_DATAPATH_BLOCKS).
    # Zen 5 and Intel's AVX-512 cores execute 512 bits at once and are not listed.
    "znver4": 256,
}
"""LLVM CPU names whose vector datapath is narrower than their registers, and its width."""


def llvm_tuning(cpu: str) -> str:
    """LLVM target features that tune code for CPU ``cpu`` (an LLVM name) as this table
    says: ``+prefer-256-bit`` where its datapath is 256 bits, so that LLVM's loop and SLP
    vectorisers use 256-bit vectors (as LLVM does by default for Intel's AVX-512 cores).
    Explicit 512-bit vectors, as in the matrix kernel, stay legal. Empty otherwise."""
    return "+prefer-256-bit" if HALF_DATAPATH.get(cpu) == 256 else ""


# ----------------------------------------------------------------------------- matmul

# The micro-kernel keeps MR x NR sums in registers: MR rows of NR_REGISTERS registers each.
# Each step over k loads one row of NR values of B (NR_REGISTERS registers) and broadcasts
# MR values of A, one at a time (one register), so MR * NR_REGISTERS + NR_REGISTERS + 1
# registers must fit or the kernel spills its sums to the stack on every step. Within that,
# a larger block loads less per multiply-add: each loaded value of B is used MR times, each
# value of A NR times.
REGISTER_BLOCKS: dict[tuple[int, int], tuple[int, int]] = {
    # (register bits, registers): (MR, NR_REGISTERS)
    #
    # AVX-512 executed 512 bits at once (Intel's cores, Zen 5): 6 x 4 = 24 sums + 4 + 1 = 29
    # of 32 registers. Two multiply-adds a cycle of 4 cycles' latency need 8 sums in flight;
    # 24 leave the loads of B and the broadcasts of A room. Measured on an Intel Xeon
    # (icelake-server, 2.8 GHz, one thread, against OpenBLAS's SkylakeX kernel, alternating
    # calls, 2026-12-06), f64 n = 512 / 1024: 6 x 32 at 1.00-1.03 / 0.87-0.92 of NumPy,
    # where 8 x 16 was at 0.71-0.83 / 0.63-0.76 (4 x 6, 5 x 5, 7 x 3, 6 x 3 and 4 x 5
    # registers: 0.92-0.98 / 0.83-0.89); f32 6 x 64 at 1.06 / 0.99-1.01, 8 x 32 at 0.97 / 0.95.
    (512, 32): (6, 4),
    # AVX2: 6 x 2 = 12 sums + 2 + 1 = 15 of 16 (BLIS's Haswell block for f64, 6x8). The
    # AVX-512 block, 8 x 16 f64, would need 37 ymm registers: its kernel spilled on every
    # step, at 0.65 of OpenBLAS's Haswell kernel (n = 1024, one thread, --cpu x86-64-v3 on
    # an AVX-512 Xeon), where 6 x 8 reached 0.80 (and 4 x 12, 4 x 3 registers, the same).
    (256, 16): (6, 2),
    # SSE2: 4 x 2 = 8 sums + 2 + 1 = 11 of 16. Without FMA a multiply and an add need a
    # temporary each, so the block leaves room.
    (128, 16): (4, 2),
    # NEON: 6 x 4 = 24 sums + 4 + 1 = 29 of 32 (BLIS's ARMv8 block for f64, 6x8).
    (128, 32): (6, 4),
}


HALF_DATAPATH_BLOCKS: dict[tuple[int, int], tuple[int, int]] = {
    # AVX-512 executed as two 256-bit halves (Zen 4): 8 x 2 = 16 sums + 2 + 1 = 19 of 32,
    # the best of the blocks tried there (0.96-1.01 of NumPy, f64).
    (512, 32): (8, 2),
}
"""The register blocks of units whose datapath is narrower than their registers."""


def _register_block(unit: VectorUnit) -> tuple[int, int]:
    if unit.datapath and (unit.bits, unit.registers) in HALF_DATAPATH_BLOCKS:
        return HALF_DATAPATH_BLOCKS[unit.bits, unit.registers]
    if (unit.bits, unit.registers) in REGISTER_BLOCKS:
        return REGISTER_BLOCKS[unit.bits, unit.registers]
    # A unit not in the table: two registers per row, as many rows as fit.
    return max(1, (unit.registers - 3) // 2), 2


@dataclass(frozen=True)
class MatmulBlocks:
    """The blocking of ``tile-matmul``'s kernel for one unit and element type."""

    lanes: int  # elements of one vector register
    mr: int  # rows of the register block
    nr: int  # columns of the register block (NR_REGISTERS * lanes)
    kc: int  # products per pass over C (a KC x NR panel of packed B stays in L1)
    mc: int  # rows per block of packed A (MC x KC in L2); also what a thread takes
    nc: int  # columns per block of packed B
    fma: bool  # fused multiply-adds (otherwise a multiply and an add)


@dataclass(frozen=True)
class Caches:
    """The cache one core may fill at each level, in bytes: its own L1 data cache and L2,
    and its share of the L3 (split evenly between the cores that share it)."""

    l1: int
    l2: int
    l3: int


KiB, MiB = 1024, 1024 * 1024

TYPICAL_CACHES = Caches(32 * KiB, 512 * KiB, 4 * MiB)
"""A Zen 3 core's (32 MiB of L3 for 8 cores); Skylake-SP has 32 KiB, 1 MiB and about
1.4 MiB, Zen 4 32 KiB, 1 MiB and 4 MiB. Assumed for a CPU named with ``--cpu``, whose
caches cannot be read, and where this host's cannot be; the blocks below are those that
were tuned on such cores."""


def caches_from_sysfs(directory: Path) -> Caches | None:
    """A core's caches as Linux describes them (``directory`` is
    ``/sys/devices/system/cpu/cpu0/cache``): ``indexN/level``, ``type``, ``size`` (``48K``)
    and ``shared_cpu_list`` (``0-1,4``) for each. None if any level is missing."""
    sizes: dict[int, int] = {}
    try:
        for index in sorted(directory.glob("index*")):
            if (index / "type").read_text().strip() == "Instruction":
                continue
            level = int((index / "level").read_text())
            size = _bytes((index / "size").read_text().strip())
            sharing = _count_cpus((index / "shared_cpu_list").read_text().strip())
            sizes[level] = size // max(1, sharing)
    except (OSError, ValueError):
        return None
    if not {1, 2, 3} <= sizes.keys():
        return None
    return Caches(sizes[1], sizes[2], sizes[3])


def _bytes(size: str) -> int:
    scale = {"K": KiB, "M": MiB, "G": 1024 * MiB}.get(size[-1:], 1)
    return int(size.rstrip("KMG")) * scale


def _count_cpus(cpu_list: str) -> int:
    count = 0
    for part in cpu_list.split(","):
        first, _, last = part.partition("-")
        count += int(last or first) - int(first) + 1
    return count


HOST_CACHES_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


@cache
def host_caches() -> Caches:
    """This host's caches, or ``TYPICAL_CACHES`` where they cannot be read (not Linux)."""
    return caches_from_sysfs(HOST_CACHES_SYSFS) or TYPICAL_CACHES


# The cache blocks, from the innermost out (as BLIS chooses them):
# - KC: a KC x NR panel of packed B is read again for every MR rows of A, so it must stay in
#   L1: KC * NR elements fit in L1 (256 x 16 f64 is 32 KiB). At most KC_MAX, 512: AVX2's
#   panels of 16 f32 or 8 f64 columns (32 KiB at 512) made 1024 x 1024 products some 3%
#   faster than at 256 on a Zen 3 (fewer passes over C; A/B, one and two threads,
#   2026-12-06); more was not measured.
# - MC: MC rows of packed A (MC x KC) are read again for every NR columns of B, so they
#   stay in L2, in half of it (B's panels and C pass through the rest). MC is a multiple of
#   MR, at most the first from MC_MAX on: MC rows are also what a thread takes, and from 128
#   on a power-of-two M from 256 on splits into as many row blocks as with 128 (126 rows
#   would give 256 rows three blocks, two for one thread and one for the other).
# - NC: KC x NC of packed B stays in half of this core's share of L3. At most NC_MAX.
KC_MAX, MC_MAX, NC_MAX = 512, 128, 1024


def matmul_blocks(unit: VectorUnit, element_bits: int, caches: Caches = TYPICAL_CACHES) -> MatmulBlocks:
    mr, nr_registers = _register_block(unit)
    lanes = unit.lanes(element_bits)
    nr = nr_registers * lanes
    element_bytes = max(1, element_bits // 8)
    kc = max(8, min(KC_MAX, caches.l1 // (nr * element_bytes) // 8 * 8))
    mc_rows = max(mr, min(MC_MAX, caches.l2 // 2 // (kc * element_bytes)))
    nc = max(nr, min(NC_MAX, caches.l3 // 2 // (kc * element_bytes) // nr * nr))
    return MatmulBlocks(lanes=lanes, mr=mr, nr=nr, kc=kc, mc=mr * -(-mc_rows // mr), nc=nc, fma=unit.fma)


# ----------------------------------------------------------------------------- reductions

# A row reduction adds into several independent vector accumulators, so that one addition
# need not wait for the one before (3-4 cycles each, two units): 256 bytes per step, four
# cache lines, in as many registers as that takes, but never more than half of them.
REDUCTION_STEP_BYTES = 256


@dataclass(frozen=True)
class ReductionVectors:
    lanes: int  # elements per vector
    accumulators: int  # independent vector sums of a row reduction

    @property
    def step(self) -> int:
        """Elements a row reduction's vector loop takes per iteration."""
        return self.lanes * self.accumulators


def reduction_vectors(unit: VectorUnit, element_bits: int) -> ReductionVectors:
    """Vectors of the unit's streaming width (``VectorUnit.stream_bits``)."""
    bits = unit.stream_bits
    accumulators = min(REDUCTION_STEP_BYTES * 8 // bits, unit.registers // 2)
    return ReductionVectors(unit.lanes(element_bits, bits), max(1, accumulators))


# ----------------------------------------------------------------------------- streaming stores

# A store to a line that is not in the cache first reads the line from memory (write-
# allocate), so ``c = a + b`` moves four bytes for every three it needs. A non-temporal store
# writes whole lines to memory without reading them, and leaves them out of the cache.
# That pays where the lines would have come from memory anyway: where the loop streams more
# than the cache keeps. Measured on a Zen 4 guest (L3 share 16 MiB, one thread, 2026-12-04,
# a C loop of ``a + b`` into a fresh buffer against the same loop with 256-bit streaming
# stores): 7.2 MB streamed (3 x 300k f64), streaming 5-25% slower; 14.4 MB, the same; 24 MB
# and 72 MB, 20-40% faster. So a loop streams its result from about the size of the L3
# share on, and never below 16 MiB, where a CPU's caches cannot be read (a typical core's
# 4 MiB share would otherwise stream loops that a single thread keeps in a 32 MiB L3).
STREAMING_MIN_BYTES = 16 * MiB

# Except into a result of 32 MiB or more: the run time allocates those in fresh pages
# (``_mlir_memref_to_llvm_alloc``, ``mg_xdsl.backend.runtime_ir``), which the kernel zeroes
# when the loop first touches them, bringing each page into the cache just before the loop
# writes it. There ordinary stores hit the cache and streaming ones were 3-8% slower
# (``a + b`` of 10000 x 1000, the same guest).
FRESH_PAGES_BYTES = 32 * MiB

# The result's buffer is aligned to a cache line: a non-temporal vector store must be
# aligned to its size, and a whole line written at once needs no read.
CACHE_LINE = 64


def worth_streaming(result_bytes: int, inputs: int, min_bytes: int, max_result_bytes: int = FRESH_PAGES_BYTES) -> bool:
    """Whether an elementwise loop that reads ``inputs`` arrays of its result's size and
    writes a result of ``result_bytes`` streams ``min_bytes`` or more in all, into a result
    smaller than ``max_result_bytes`` (one of fresh pages)."""
    return min_bytes <= result_bytes * (inputs + 1) and result_bytes < max_result_bytes


def streaming_min_bytes(caches: Caches) -> int:
    """The bytes (inputs read and result written) from which an elementwise loop writes its
    result with non-temporal stores."""
    return max(STREAMING_MIN_BYTES, caches.l3)


# ----------------------------------------------------------------------------- the CPU


@cache
def host() -> tuple[str, str, str]:
    """This host as LLVM sees it: target triple, CPU name and CPU features; the code is
    compiled for exactly these (and the compile cache keys on them)."""
    import llvmlite.binding as llvm  # (here, not at the top: a cached run may never ask)

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return (llvm.get_default_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())


def host_identity() -> tuple[str, ...]:
    """The host as the compile caches' keys see it (``mgc run``'s and the Python API's): LLVM's
    triple, CPU name and features, and the caches, which shape the matrix product's blocks."""
    return (*host(), str(host_caches()))


def known_cpu(cpu: str) -> bool:
    """Whether LLVM knows ``cpu`` for this host's target (it would otherwise warn and
    fall back to a generic CPU)."""
    import llvmlite.binding as llvm  # (here, not at the top: see host)

    host()  # (initialises LLVM's native target)
    target = llvm.Target.from_default_triple()
    # LLVM writes its warning to file descriptor 2 itself: catch it there.
    with tempfile.TemporaryFile() as err:
        saved = os.dup(2)
        os.dup2(err.fileno(), 2)
        try:
            target.create_target_machine(cpu=cpu, features="")
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        err.seek(0)
        return b"is not a recognized processor" not in err.read()


def check_cpu(cpu: str) -> None:
    """Refuse (``ValueError``) a CPU name that LLVM does not know, as ``--cpu`` and the
    Python API's ``cpu=`` do."""
    if not known_cpu(cpu):
        raise ValueError(f"LLVM does not know the CPU {cpu!r} (e.g. x86-64, x86-64-v3, skylake-avx512, znver4)")


_PROBE = """
define <16 x double> @width(<16 x double> %a, <16 x double> %b) {
  %r = fadd <16 x double> %a, %b
  ret <16 x double> %r
}
define <2 x double> @fused(<2 x double> %a, <2 x double> %b, <2 x double> %c) {
  %r = call <2 x double> @llvm.fma.v2f64(<2 x double> %a, <2 x double> %b, <2 x double> %c)
  ret <2 x double> %r
}
declare <2 x double> @llvm.fma.v2f64(<2 x double>, <2 x double>, <2 x double>)
"""


def unit_from_assembly(asm: str) -> VectorUnit:
    """The vector unit that the probe's assembly shows: the widest register class used for
    a wide addition, and whether a fused multiply-add became one instruction (otherwise it
    is a call to the C library's ``fma``)."""
    fma = any(name in asm for name in ("vfmadd", "fmla"))
    if "%zmm" in asm:
        return VectorUnit(512, 32, fma)  # AVX-512 also doubles the registers to 32
    if "%ymm" in asm:
        return VectorUnit(256, 16, fma)
    if "%xmm" in asm:
        return VectorUnit(128, 16, fma)
    if ".2d" in asm:  # AArch64's v registers: 32 of 128 bits
        return VectorUnit(128, 32, fma)
    return VectorUnit(64, 16, fma)  # no vector unit LLVM would use: one element per "register"


@cache
def vector_unit(cpu: str | None = None) -> VectorUnit:
    """The vector unit of ``cpu`` (an LLVM CPU name such as ``x86-64-v3``), or of this host
    (its CPU and features) when ``None``. Compiles the probe once per CPU and process
    (about 2 ms)."""
    import llvmlite.binding as llvm  # (here, not at the top: see host)

    triple, host_cpu, host_features = host()
    name = cpu or host_cpu
    machine = llvm.Target.from_triple(triple).create_target_machine(
        cpu=name, features="" if cpu else host_features, opt=2
    )
    unit = unit_from_assembly(machine.emit_assembly(llvm.parse_assembly(_PROBE)))
    datapath = HALF_DATAPATH.get(name, 0)
    return replace(unit, datapath=datapath) if 0 < datapath < unit.bits else unit


@dataclass(frozen=True)
class Target:
    """What the kernels are shaped for: a CPU's vector unit and its caches, and whether
    it has non-temporal stores that an ``sfence`` orders (x86-64; the kernels use none on
    other CPUs)."""

    unit: VectorUnit
    caches: Caches = TYPICAL_CACHES
    nontemporal: bool = False


@cache
def target(cpu: str | None = None) -> Target:
    """``cpu``'s target (its caches assumed typical), or this host's when ``None``."""
    x86 = host()[0].startswith(("x86_64", "amd64"))
    return Target(vector_unit(cpu), TYPICAL_CACHES if cpu else host_caches(), nontemporal=x86)


def pass_options(
    t: Target,
    fma: bool = False,
    caches: bool = False,
    datapath: bool = False,
    streaming: bool = False,
    vector: bool = True,
) -> str:
    """The pass options that describe ``t``: its vector unit (unless not ``vector``), and
    its fused multiply-add, cache sizes, (where narrower than its registers) datapath and
    streaming stores where asked."""
    unit = t.unit
    options = f"vector-bits={unit.bits} vector-registers={unit.registers}" if vector else ""
    if streaming:
        options += f" min-bytes={streaming_min_bytes(t.caches)} nontemporal={'true' if t.nontemporal else 'false'}"
    if datapath and unit.datapath:
        options += f" datapath-bits={unit.datapath}"
    if fma:
        options += f" fma={'true' if unit.fma else 'false'}"
    if caches:
        options += f" l1-cache={t.caches.l1} l2-cache={t.caches.l2} l3-cache={t.caches.l3}"
    return options.strip()
