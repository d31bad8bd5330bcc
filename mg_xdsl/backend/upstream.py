"""The second backend: upstream MLIR 22 lowers the affine-level IR instead of this project's
passes (``mgc run --backend mlir``, also ``build`` and ``lib``).

The affine-level module (after ``lower-mg-to-affine`` and ``buffer-deallocation``) gets
``lower-assert-to-stderr`` (so failed checks still report on stderr; upstream would lower
``cf.assert`` with ``puts``), then ``mlir-opt-22`` runs upstream's passes
(``pipeline.UPSTREAM_PASSES``): ``lower-affine``,
``convert-vector-to-llvm``, ``convert-scf-to-cf`` (which also lowers ``scf.parallel``, so
loops that threads would share run on one thread here), ``convert-*-to-llvm``, ``finalize-memref-to-llvm`` and
``reconcile-unrealized-casts``, and ``mlir-translate-22 --mlir-to-llvmir`` produces the LLVM
IR that the same llvmlite code generation compiles. Comparing the two backends' outputs
tests this project's conversions against upstream's.
"""

import shutil
import subprocess
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from mg_xdsl.pipeline.registry import get_pass
from mg_xdsl.pipeline.stages import UPSTREAM_PASSES, mlir_opt_arguments

UPSTREAM_PIPELINE = mlir_opt_arguments(UPSTREAM_PASSES)
"""``mlir-opt``'s arguments: upstream's passes from the affine stage to the LLVM dialect."""


class UpstreamToolMissing(Exception):
    """mlir-opt-22 / mlir-translate-22 are not installed."""


def tool(name: str) -> str:
    for candidate in (f"{name}-22", name):
        path = shutil.which(candidate)
        if path:
            return path
    raise UpstreamToolMissing(
        f"--backend mlir needs {name}-22 (Debian package mlir-22-tools: apt-get install mlir-22-tools)"
    )


def run(cmd: list[str], text: str) -> str:
    p = subprocess.run(cmd, input=text, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr.strip()}")
    return p.stdout


def lower_with_mlir_opt(module: ModuleOp, keep: Callable[[str, object], None] | None = None) -> str:
    """LLVM IR text for an affine-level module, lowered by upstream MLIR."""
    get_pass("lower-assert-to-stderr")().apply(Context(), module)
    llvm_dialect = run([tool("mlir-opt"), *UPSTREAM_PIPELINE], str(module))
    if keep:
        keep("upstream.llvm.mlir", llvm_dialect)
    return run([tool("mlir-translate"), "--mlir-to-llvmir"], llvm_dialect)
