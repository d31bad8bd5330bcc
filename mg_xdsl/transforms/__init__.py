"""Transforms: passes that rewrite within a dialect, grouped by it (``linalg/``: fusion,
tiling, vectorised reductions, streaming stores, buffer reuse; ``affine/``; ``memref/``:
views and deallocation; ``func/``: outlining), and ``cse``. One module per pass, named after
it.

Imports ``core``, ``dialects``, ``support`` and ``kernels``.
"""

import mg_xdsl.support.xdsl_compat  # noqa: F401  (linear-time verification and block splitting)
