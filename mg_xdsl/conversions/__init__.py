"""Conversions: passes that rewrite one dialect into another, one module per pass, named
after it (``lower-mg-to-affine`` is ``lower_mg_to_affine``). The mg lowerings and the loop
conversions are here, and ``mg_lowering_common``, no pass but what the two mg lowerings
share; ``gpu/`` maps parallel loops to GPU kernels and ``to_llvm/`` holds the
``convert-*-to-llvm`` passes with their shared type converter.

Imports ``core``, ``dialects``, ``support``, ``kernels`` and ``transforms``; the pipeline and
the tools import these passes through ``pipeline.registry``.
"""

import mg_xdsl.support.xdsl_compat  # noqa: F401  (linear-time verification and block splitting)
