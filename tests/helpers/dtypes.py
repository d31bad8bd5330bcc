"""Each element type's NumPy dtype, by the name the language writes it (``f64``, ``bf16``,
``i1``), as the Python API converts arguments and results: ``DTYPES["bf16"]`` is
``ml_dtypes.bfloat16``'s dtype. (The API itself looks each up on first use, so that a
program without ``bf16`` never imports ml_dtypes.)"""

import numpy as np

from mg_xdsl.api import RECORDS, dtype_named

DTYPES: dict[str, np.dtype] = {name: dtype_named(name) for name in RECORDS}
