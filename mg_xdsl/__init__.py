"""mg-xdsl: the Mountain Goat tensor-language compiler, built on xDSL.

Its packages, in layer order, are listed in the code map of the README (README.md, "Code map").

``import mg_xdsl`` stays cheap (the command-line tools import it at every start): the
exceptions (``MgError``, ``MgWarning``, ``RuntimeCheckFailed``, ``MgFileError``,
``ShapeMismatch``, ``GpuError``) and ``__version__`` are looked up when first used.
"""

from typing import TYPE_CHECKING

from mg_xdsl.support import xdsl_lazy_formats

# xDSL reads an op's assembly format when it is first used, not when its dialect is
# imported: a tenth of every compiler start (see xdsl_lazy_formats). Before anything imports xDSL.
xdsl_lazy_formats.install()

# name -> the module that defines it, imported on first use (PEP 562).
_LAZY = {
    "MgError": "mg_xdsl.language.diagnostics",  # (which imports no xDSL)
    "MgWarning": "mg_xdsl.language.diagnostics",
    "RuntimeCheckFailed": "mg_xdsl.api",
    "MgFileError": "mg_xdsl.api",
    "ShapeMismatch": "mg_xdsl.api",
    "Library": "mg_xdsl.api",
    "GpuError": "mg_xdsl.backend.gpu_runtime",
}

if TYPE_CHECKING:  # what __getattr__ finds when first asked
    from mg_xdsl.api import Library, MgFileError, RuntimeCheckFailed, ShapeMismatch
    from mg_xdsl.backend.gpu_runtime import GpuError
    from mg_xdsl.language.diagnostics import MgError, MgWarning

    __version__: str

__all__ = [
    "compile",
    "compile_file",
    "__version__",
    "MgError",
    "MgWarning",
    "RuntimeCheckFailed",
    "MgFileError",
    "ShapeMismatch",
    "Library",
    "GpuError",
]


def __getattr__(name: str):
    # Each name is imported when first asked for, so that ``import mg_xdsl`` stays cheap.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("mg-xdsl")
        except PackageNotFoundError:  # run from a source tree that was never installed
            value = "0+unknown"
    elif name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'mg_xdsl' has no attribute {name!r}")
    globals()[name] = value  # found once, then an ordinary attribute
    return value


def __dir__():
    return sorted({*globals(), *__all__})


def compile(source, path="<string>", gpu=False, optimise=True, cpu=None):
    """Compile Mountain Goat source to a ``Library`` of Python callables (see ``mg_xdsl.api``);
    ``gpu=True`` runs its parallel loop nests on an NVIDIA GPU, ``gpu="emulated"`` on the CPU; ``optimise=False`` uses the reference pipeline;
    ``cpu="x86-64-v3"`` (an LLVM CPU name) compiles for that CPU instead of this host."""
    from mg_xdsl.api import compile as _compile  # (on first use: it imports xDSL and NumPy)

    return _compile(source, path, gpu, optimise, cpu)


def compile_file(path, gpu=False, optimise=True):
    """``compile`` the program in the file at ``path``."""
    from mg_xdsl.api import compile_file as _compile_file  # (on first use, as compile)

    return _compile_file(path, gpu, optimise)
