"""mg-xdsl: the Mountain Goat tensor-language compiler, built on xDSL.

The package is laid out in the order a program travels through it:

- ``frontend``            .mg text -> the ``mg`` dialect
- ``dialects/mg``         the ``mg`` dialect (ops, verifiers), with shape rules in ``shapes``
- ``transforms/``         one module per pass, from ``lower-mg-to-affine`` down to LLVM
- ``pipeline``            the ordered list of stages that ``mgc`` and the tests share
- ``backend/``            LLVM dialect -> llvmlite -> native code, and the runtime it calls
- ``cli`` / ``mg_opt``    the ``mgc`` and ``mg-opt`` command-line tools
"""


def compile(source, path="<string>", gpu=False, optimise=True):
    """Compile Mountain Goat source to a ``Library`` of Python callables (see ``mg_xdsl.api``);
    ``gpu=True`` runs its parallel loop nests on an NVIDIA GPU, ``gpu="emulated"`` on the CPU; ``optimise=False`` uses the chapter's reference pipeline."""
    from mg_xdsl.api import compile as _compile

    return _compile(source, path, gpu, optimise)


def compile_file(path, gpu=False, optimise=True):
    """``compile`` the program in the file at ``path``."""
    from mg_xdsl.api import compile_file as _compile_file

    return _compile_file(path, gpu, optimise)
