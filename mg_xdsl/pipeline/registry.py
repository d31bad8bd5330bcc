"""Every pass of the project, by its command-line name.

Each pass lives in a module of its own, named after what it does. The registry maps a pass
name to a function that imports the module only when the pass is wanted, so that starting
``mgc`` does not pay for passes it never runs.
"""

from collections.abc import Callable
from functools import cache
from importlib import import_module

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline

import mg_xdsl.support.xdsl_compat  # noqa: F401  (linear-time verification and block splitting)

# pass name -> (its module, under mg_xdsl, and its class)
_PROJECT_PASSES: dict[str, tuple[str, str]] = {
    "mg-autodiff": ("transforms.mg.autodiff", "MgAutodiffPass"),
    "mg-cse": ("transforms.mg.mg_cse", "MgCsePass"),
    "inline": ("transforms.func.inline", "InlinePass"),
    "lower-mg-to-affine": ("conversions.lower_mg_to_affine", "LowerMgToAffinePass"),
    "convert-mg-to-linalg": ("conversions.convert_mg_to_linalg", "ConvertMgToLinalgPass"),
    "linalg-fuse-elementwise-ops": ("transforms.linalg.linalg_fuse_elementwise_ops", "LinalgFuseElementwiseOpsPass"),
    "reuse-dying-buffers": ("transforms.linalg.reuse_dying_buffers", "ReuseDyingBuffersPass"),
    "convert-linalg-to-affine-loops": ("conversions.convert_linalg_to_affine_loops", "ConvertLinalgToAffineLoopsPass"),
    "linalg-fuse-rows": ("transforms.linalg.linalg_fuse_rows", "LinalgFuseRowsPass"),
    "tile-matmul": ("transforms.linalg.tile_matmul", "TileMatmulPass"),
    "vectorize-reductions": ("transforms.linalg.vectorize_reductions", "VectorizeReductionsPass"),
    "stream-large-results": ("transforms.linalg.stream_large_results", "StreamLargeResultsPass"),
    "buffer-deallocation": ("transforms.memref.buffer_deallocation", "BufferDeallocationPass"),
    "math-polynomial-approximation": (
        "transforms.math.math_polynomial_approximation",
        "MathPolynomialApproximationPass",
    ),
    "lower-affine": ("conversions.lower_affine", "LowerAffinePass"),
    "cse": ("transforms.cse", "CsePass"),
    "outline-loop-nests": ("transforms.func.outline_loop_nests", "OutlineLoopNestsPass"),
    "optnone-small-functions": ("transforms.func.optnone_small_functions", "OptnoneSmallFunctionsPass"),
    "convert-scf-to-cf": ("conversions.convert_scf_to_cf", "ConvertScfToCfPass"),
    "lower-assert-to-stderr": ("conversions.lower_assert_to_stderr", "LowerAssertToStderrPass"),
    "convert-arith-to-llvm": ("conversions.to_llvm.convert_arith_to_llvm", "ConvertArithToLLVMPass"),
    "convert-math-to-llvm": ("conversions.to_llvm.convert_math_to_llvm", "ConvertMathToLLVMPass"),
    "convert-func-to-llvm": ("conversions.to_llvm.convert_func_to_llvm", "ConvertFuncToLLVMPass"),
    "convert-cf-to-llvm": ("conversions.to_llvm.convert_cf_to_llvm", "ConvertCfToLLVMPass"),
    "convert-vector-to-llvm": ("conversions.to_llvm.convert_vector_to_llvm", "ConvertVectorToLLVMPass"),
    "finalize-memref-to-llvm": ("conversions.to_llvm.finalize_memref_to_llvm", "FinalizeMemRefToLLVMPass"),
    "convert-to-llvm": ("conversions.to_llvm.convert_to_llvm", "ConvertToLLVMPass"),
    "reconcile-unrealized-casts": ("conversions.to_llvm.reconcile_unrealized_casts", "ReconcileUnrealizedCastsPass"),
    "affine-parallelize": ("transforms.affine.affine_parallelize", "AffineParallelizePass"),
    "affine-loop-normalize": ("transforms.affine.affine_loop_normalize", "AffineLoopNormalizePass"),
    "convert-parallel-loops-to-threads": (
        "conversions.convert_parallel_loops_to_threads",
        "ConvertParallelLoopsToThreadsPass",
    ),
    "convert-parallel-loops-to-gpu": ("conversions.gpu.convert_parallel_loops_to_gpu", "ConvertParallelLoopsToGpuPass"),
    "gpu-kernel-outlining": ("conversions.gpu.gpu_kernel_outlining", "GpuKernelOutliningPass"),
    "convert-gpu-to-nvvm": ("conversions.gpu.convert_gpu_to_nvvm", "ConvertGpuToNVVMPass"),
    "gpu-to-runtime-calls": ("conversions.gpu.gpu_to_runtime_calls", "GpuToRuntimeCallsPass"),
}

# Passes that xDSL already provides and the pipeline uses as they are.
_XDSL_PASSES: dict[str, tuple[str, str]] = {
    "canonicalize": ("xdsl.transforms.canonicalize", "CanonicalizePass"),
    "dce": ("xdsl.transforms.dead_code_elimination", "DeadCodeElimination"),
}


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(module), cls)

    return load


def project_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes this project defines, name -> lazy class loader."""
    return {name: _loader(f"mg_xdsl.{mod}", cls) for name, (mod, cls) in _PROJECT_PASSES.items()}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass mg-opt and the pipeline may use: the project's and xDSL's."""
    passes = {name: _loader(mod, cls) for name, (mod, cls) in _XDSL_PASSES.items()}
    passes.update(project_passes())
    return passes


@cache
def _all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return all_passes()


def get_pass(name: str) -> type[ModulePass]:
    return _all_passes()[name]()


@cache
def make_pass(spec: str) -> ModulePass:
    """A pass from its pipeline text: a name, with options as in ``mg-opt -p``, e.g.
    ``finalize-memref-to-llvm{use-generic-functions=true}``. Made once per process and
    text (every pass is a frozen dataclass, which ``test_passes_are_frozen`` checks: a pass
    keeps nothing from one module to the next), as reading the options takes a few
    milliseconds a compilation."""
    if "{" not in spec:
        return get_pass(spec)()
    (parsed,) = parse_pipeline(spec)
    return get_pass(parsed.name).from_pass_spec(parsed)
