"""The compilation pipeline: one ordered list of stages, shared by ``mgc`` and the tests.

Each stage names the passes that produce it from the stage before, and the dialects that
must be gone once it is reached. An op of a dialect that should be gone is reported as an
error naming the op and the stage, so a lowering that forgets an op fails loudly at the stage
that should have removed it. The compiler verifies the IR it hands on as text (``mgc mlir``,
``mgc llvm``); the LLVM dialect it compiles to native code is translated to LLVM IR, which
LLVM's own verifier checks. With ``mgc --verify-each`` (``MGC_VERIFY_EACH=1``, as the test
suite sets it) it verifies after every stage, which says which stage broke the IR but costs
a fifth of the compile time of a long program.

    mg      the front end's output (tensors, mg ops)
    linalg  (optimised pipeline only) mg-autodiff (gradients as mg ops), mg-cse (each value once),
            convert-mg-to-linalg: memrefs and upstream linalg ops,
            each op's computation as indexing maps and iterator types; elementwise trees fused
    affine  memrefs, affine loop nests, deallocs (the reference pipeline: mg-autodiff, then
            lower-mg-to-affine straight from mg; the optimised one: kernels for the products and reductions its
            passes recognise on linalg, streaming-store loops for large elementwise
            results, convert-linalg-to-affine-loops for the rest)
    scf     lower-affine: scf.for loops and memref.load/store
    cf      convert-scf-to-cf, lower-assert-to-stderr: blocks and branches
    llvm    the LLVM dialect only, ready for translation to LLVM IR

``REFERENCE_STAGES`` is the reference pipeline: one loop nest per op, every loop as written. The
compiler runs ``OPTIMISED_STAGES`` unless asked for the reference (``mgc --reference``,
``compile(..., optimise=False)``): it goes through ``linalg``, where fusion, matrix-product
tiling, reduction vectorisation and parallelisation are decided from the structured ops'
maps and iterator types (``OPTIMISED_STAGES`` lists the passes, each with what it is for),
and adds passes that make the loops fast. Both give the same results, up to the summation
order of reductions and matrix products.

Every pipeline is here: ``REFERENCE_STAGES``, ``OPTIMISED_STAGES``, the GPU path's ``GPU_STAGES``
and ``UPSTREAM_PASSES``, which ``mlir-opt-22`` runs for ``--backend mlir``. ``mg-opt``
knows the first three by name (``PIPELINES``), each as one pass with the options ``to``
(the last stage to run) and ``cpu``: ``mg-opt prog.mg -p mg-cpu-pipeline`` runs what
``mgc`` runs, stage checks included; ``mg-opt prog.mg -p "$(mgc pipeline)"`` the same pass
by pass.

Four passes shape their code for the CPU: ``vectorize-reductions``,
``tile-matmul`` and ``stream-large-results`` take its vector unit as options
(``mg_xdsl.core.target``), ``tile-matmul`` its cache sizes too, ``stream-large-results`` the
size from which it streams and whether the CPU has streaming stores, and
``math-polynomial-approximation`` whether it has fused multiply-adds (in both CPU
pipelines), filled in here for this host or for ``mgc build/lib --cpu NAME``
(``for_target``). The stage lists name them
without options.
"""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mg_xdsl.core.target import Target, check_cpu, pass_options, target as target_of
from mg_xdsl.pipeline.registry import make_pass
from mg_xdsl.support.thread_work import MIN_WORK
from mg_xdsl.support.xdsl_compat import verify


@dataclass(frozen=True)
class Stage:
    name: str
    passes: tuple[str, ...]
    gone: tuple[str, ...]  # dialect prefixes that may not appear once this stage is reached
    description: str


REFERENCE_STAGES: tuple[Stage, ...] = (
    Stage("mg", (), (), "the mg dialect, as the front end produces it"),
    # mg-autodiff, first in every pipeline: each mg.grad becomes its reverse sweep, in mg
    # ops that every later pass optimises as the rest (a program without one costs a walk).
    # math-polynomial-approximation, last in both CPU pipelines' affine stage: exp, log,
    # tanh, sin... as arithmetic that LLVM vectorises, the same bits in every pipeline
    # (docs/math-accuracy.md); the GPU path keeps libdevice.
    Stage(
        "affine",
        ("mg-autodiff", "lower-mg-to-affine", "buffer-deallocation", "math-polynomial-approximation"),
        ("mg",),
        "affine loop nests on memrefs, each buffer freed after its last use",
    ),
    # affine-loop-normalize: a loop of one iteration (a ?x1 result's columns) is its body,
    # a fifth of a typical program's loops fewer for every later pass.
    # cse: lower-affine makes the constants of each loop's bounds afresh, 70% of the ops it
    # emits; every later pass would convert each copy. (A function of many loop nests is
    # then split, a run of nests a function: LLVM's time grows with the square of a
    # function's size.)
    # optnone-small-functions: LLVM would spend longer optimising a function of a few
    # thousand loop iterations than the function runs.
    Stage(
        "scf",
        (
            "affine-loop-normalize{promote-single-iter=true}",
            "lower-affine",
            "cse",
            "outline-loop-nests",
            "optnone-small-functions",
        ),
        ("mg", "affine"),
        "scf.for loops",
    ),
    Stage(
        "cf",
        ("convert-scf-to-cf", "lower-assert-to-stderr"),
        ("mg", "affine", "scf", "cf.assert"),
        "blocks and branches; run-time checks call mgrt_check_failed",
    ),
    Stage(
        "llvm",
        (
            # convert-vector-to-llvm, convert-arith-to-llvm, convert-func-to-llvm,
            # convert-cf-to-llvm and finalize-memref-to-llvm in one walk. Allocations go
            # through the run-time library's allocator, which reports a failed allocation
            # (and gives large buffers huge pages).
            "convert-to-llvm{use-generic-functions=true}",
            "reconcile-unrealized-casts",
        ),
        ("mg", "affine", "scf", "cf", "arith", "math", "func", "memref", "builtin.unrealized_conversion_cast"),
        "the LLVM dialect",
    ),
)


def _with(stage: Stage, *passes: str) -> Stage:
    return Stage(stage.name, passes, stage.gone, stage.description)


_MG, _AFFINE, _SCF, _CF, _LLVM = REFERENCE_STAGES
OPTIMISED_STAGES: tuple[Stage, ...] = (
    _MG,
    Stage(
        "linalg",
        (
            "mg-autodiff",
            "inline",  # a def called once: its body in place of the call, for the passes below to see
            "mg-cse",  # a value the program writes twice (exp(s - m) in a softmax) computed once
            "convert-mg-to-linalg",
            "linalg-fuse-elementwise-ops",  # one generic, and no buffer, per tree of elementwise ops
            "reuse-dying-buffers",
        ),  # an elementwise result written over an input that dies there
        ("mg",),
        "linalg ops on memrefs: what each op computes, as maps and iterator types",
    ),
    Stage(
        "affine",
        (
            "linalg-fuse-rows",  # a softmax's passes over a row done while it is in the cache
            "vectorize-reductions",  # row sums with vector accumulators, column sums by rows
            "tile-matmul",  # packed, cache-tiled, register-blocked matrix products
            "stream-large-results",  # large results written past the caches
            # loop nests; the parallel loops of those with enough work for threads
            f"convert-linalg-to-affine-loops{{min-parallel-work={MIN_WORK}}}",
            "buffer-deallocation",
            "math-polynomial-approximation",  # math functions as vectorisable arithmetic
        ),
        ("mg", "linalg"),
        _AFFINE.description,
    ),
    _with(
        _SCF,
        "affine-loop-normalize{promote-single-iter=true}",
        "lower-affine",
        "cse",
        "convert-parallel-loops-to-threads",  # large parallel loops split across cores
        "outline-loop-nests",
        "optnone-small-functions",
    ),
    _CF,
    _LLVM,
)
STAGE_NAMES = tuple(s.name for s in OPTIMISED_STAGES)
"""Every stage's name, in pipeline order; the reference pipeline has all but ``linalg``."""


# The GPU path (``mgc run --gpu``, ``mgc ptx``): from the mg dialect to host code that
# launches kernels, the kernels in ``gpu.module`` ops in the LLVM dialect (NVVM); then the
# kernel modules are compiled to PTX apart (``mg_xdsl.backend.ptx``), ``gpu-to-runtime-calls``
# turns the launches into calls of the run-time library, and the host code takes the CPU
# pipeline's ``cf`` and ``llvm`` stages.
GPU_STAGES: tuple[Stage, ...] = (
    _MG,
    Stage(
        "gpu",
        (
            "mg-autodiff",
            "lower-mg-to-affine",
            "buffer-deallocation",
            "affine-parallelize",  # every parallel loop, however small, is a kernel
            "lower-affine",
            "convert-parallel-loops-to-gpu",
            "gpu-kernel-outlining",
            "dce",
            "convert-gpu-to-nvvm",
        ),
        ("mg", "affine", "scf.parallel"),
        "kernels in the LLVM dialect",
    ),
    Stage("host", ("gpu-to-runtime-calls",), ("gpu",), "kernel launches as calls"),
    _CF,
    _LLVM,
)

# ``--backend mlir``: this project's passes up to the affine stage (of either pipeline) and
# ``lower-assert-to-stderr``, then upstream MLIR's ``mlir-opt-22`` with these passes.
UPSTREAM_PASSES: tuple[str, ...] = (
    "expand-strided-metadata",  # memref.collapse_shape and the views (subview), as memref.reinterpret_cast
    "lower-affine",  # (which also lowers the affine.apply of the sizes that makes)
    "convert-vector-to-llvm",  # the optimised pipeline's vector loads, stores, reductions
    "convert-scf-to-cf",  # which also lowers scf.parallel: such loops run on one thread
    "convert-arith-to-llvm",
    "convert-math-to-llvm",
    "convert-math-to-libm",  # (tanh, acos, asin, atan2: calls of the C library's functions)
    "finalize-memref-to-llvm{use-generic-functions=true}",  # the run-time library's allocator
    "convert-func-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
)


def mlir_opt_arguments(passes: Sequence[str]) -> list[str]:
    """``mlir-opt`` flags for passes written as in a pipeline (``name{option=value}`` ->
    ``--name=option=value``)."""
    return [f"--{p.replace('{', '=').rstrip('}')}" for p in passes]


class PipelineError(Exception):
    """A stage left behind an op it should have removed, or produced invalid IR."""


def context() -> Context:
    """A context with only the dialects the pipeline uses (registering all of xDSL's would
    cost a noticeable part of a second at every start). The dialects are imported here, not
    at the top: ``mgc --help`` reads this module's stages, and needs none of them."""
    from xdsl.dialects import affine, arith, builtin, cf, func, llvm, memref, scf

    from mg_xdsl.dialects import load_upstream_extras
    from mg_xdsl.dialects.mg import Mg

    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, memref.MemRef, affine.Affine, scf.Scf, cf.Cf, llvm.LLVM, Mg):
        ctx.load_dialect(d)
    # linalg (11 ms to import) is loaded when a text names one of its ops; the passes that
    # make linalg ops import it themselves.
    ctx.register_dialect("linalg", lambda: import_module("xdsl.dialects.linalg").Linalg)
    load_upstream_extras(ctx)
    return ctx


def check_stage(module: ModuleOp, stage: Stage) -> None:
    gone, prefixes = set(stage.gone), tuple(g + "." for g in stage.gone)
    for op in module.walk():
        if op is module:
            continue
        if op.name in gone or op.name.startswith(prefixes):
            raise PipelineError(
                f"'{op.name}' is still present after the '{stage.name}' stage "
                f"({', '.join(stage.passes)}) should have lowered it"
            )


Timer = Callable[[str, float], None]


def stages_to(to: str, optimise: bool = False) -> tuple[Stage, ...]:
    """The stages after ``mg`` up to and including ``to`` (of the optimised pipeline when
    ``optimise``)."""
    if to not in STAGE_NAMES:
        raise ValueError(f"unknown stage {to!r} (choose from {', '.join(STAGE_NAMES)})")
    stages = OPTIMISED_STAGES if optimise else REFERENCE_STAGES
    names = [s.name for s in stages]
    if to not in names:
        raise ValueError(
            f"the reference pipeline has no {to!r} stage: it lowers the mg dialect "
            "straight to affine loops (leave out --reference to see it)"
        )
    return stages[1 : names.index(to) + 1]


TARGETED_PASSES = {
    "vectorize-reductions": {"datapath": True},
    "tile-matmul": {"fma": True, "caches": True, "datapath": True},
    "stream-large-results": {"datapath": True, "streaming": True},
    "math-polynomial-approximation": {"vector": False, "fma": True},
}
"""The passes whose code depends on the CPU (their options describe its vector unit), and
what else of it they take: its datapath, its fused multiply-add, its cache sizes, its
streaming stores."""


def for_target(name: str, t: Target | None = None) -> str:
    """``name`` with the options that describe target ``t`` (this host's when ``None``) if
    the pass shapes its code for a CPU; otherwise ``name`` itself."""
    if name not in TARGETED_PASSES:
        return name
    if t is None:
        t = target_of()
    return f"{name}{{{pass_options(t, **TARGETED_PASSES[name])}}}"


def run_stage(
    module: ModuleOp,
    stage: Stage,
    ctx: Context,
    timer: Timer | None = None,
    verify_each_pass: bool = False,
    verify_result: bool = True,
    target: Target | None = None,
) -> None:
    """Run one stage's passes in place, verify the result (unless not ``verify_result``),
    then check what must be gone. (``mg-opt`` verifies after every single pass; so does this
    with ``verify_each_pass``.) The kernels are shaped for ``target`` (this host's when
    ``None``)."""
    for i, name in enumerate(stage.passes):
        name = for_target(name, target)
        start = time.perf_counter()
        make_pass(name).apply(ctx, module)
        if timer:
            timer(name, time.perf_counter() - start)
        if verify_each_pass or (verify_result and i == len(stage.passes) - 1):
            start = time.perf_counter()
            try:
                verify(module)
            except Exception as e:
                raise PipelineError(f"invalid IR after pass {name}: {e}") from e
            if timer:
                timer("verify", time.perf_counter() - start)
    check_stage(module, stage)


def lower(
    module: ModuleOp,
    to: str = "llvm",
    ctx: Context | None = None,
    timer: Timer | None = None,
    optimise: bool = False,
    target: Target | None = None,
) -> ModuleOp:
    """Lower an mg-dialect module in place to stage ``to``; returns ``module``."""
    ctx = ctx or context()
    for stage in stages_to(to, optimise):
        run_stage(module, stage, ctx, timer, target=target)
    return module


# ----------------------------------------------------------------------------- by name

PIPELINES: dict[str, tuple[tuple[Stage, ...], str]] = {
    "mg-cpu-pipeline": (OPTIMISED_STAGES, "what mgc runs: mg to the LLVM dialect, optimised"),
    "mg-reference-pipeline": (REFERENCE_STAGES, "the reference pipeline (mgc --reference): a nest per op"),
    "mg-gpu-pipeline": (GPU_STAGES[:2], "mg to host code and kernels in the LLVM dialect"),
}
"""The pipelines by the names ``mg-opt -p NAME`` knows them: its stages and what it does."""


@dataclass(frozen=True)
class PipelinePass(ModulePass):
    """A whole pipeline as one pass (``mg-opt prog.mg -p mg-cpu-pipeline``): its stages in
    order, each verified and checked as ``mgc`` does, up to the stage ``to`` (the last by
    default); the kernels shaped for ``cpu`` (this host when empty)."""

    name = "pipeline"
    stages: ClassVar[tuple[Stage, ...]] = ()

    to: str = ""
    cpu: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = [s.name for s in self.stages]
        to = self.to or names[-1]
        if to not in names[1:]:
            raise PassFailedException(f"{self.name}: no stage {to!r} (choose from {', '.join(names[1:])})")
        target = None
        if self.cpu:
            try:
                check_cpu(self.cpu)
            except ValueError as e:
                raise PassFailedException(f"{self.name}: {e}") from None
            target = target_of(self.cpu)
        for stage in self.stages[1 : names.index(to) + 1]:
            run_stage(op, stage, ctx, target=target)


def pipeline_passes() -> dict[str, type[PipelinePass]]:
    """A pass class for each of ``PIPELINES``, by name."""
    return {
        name: type(
            name.title().replace("-", ""),
            (PipelinePass,),
            {"name": name, "stages": stages, "__doc__": f"``{name}``: {what}."},
        )
        for name, (stages, what) in PIPELINES.items()
    }


def pass_pipeline(optimise: bool = True, target: Target | None = None) -> str:
    """Every pass from the mg dialect to the LLVM dialect, in order, as one ``mg-opt -p``
    argument, for ``target`` (this host's when ``None``): ``mg-opt prog.mg -p "$(mgc
    pipeline)" -t llvm`` runs what ``mgc`` runs (without the per-stage checks). ``mgc
    pipeline [--reference] [--cpu NAME]`` prints it, and the copy in docs/pipeline.md is checked
    against it, so the two cannot drift apart."""
    stages = OPTIMISED_STAGES if optimise else REFERENCE_STAGES
    return ",".join(for_target(p, target) for stage in stages for p in stage.passes)
