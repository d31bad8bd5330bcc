"""Reading back what a program printed: the memrefs ``mgc run`` prints, as NumPy arrays, for
the end-to-end tests that compare them with NumPy."""

import numpy as np


def printed_arrays(text: str) -> list[np.ndarray]:
    """The memrefs ``mgc run`` printed, as arrays (any rank, shapes from the headers)."""
    import re

    out = []
    for block in text.split("Unranked Memref")[1:]:
        header, data = block.split("data = \n", 1)
        sizes = [int(s) for s in re.search(r"sizes = \[([^\]]*)\]", header).group(1).split(",") if s.strip()]
        numbers = re.findall(r"-?nan|-?inf|-?[0-9.]+(?:e[+-]?[0-9]+)?", data)
        out.append(np.array([float(x) for x in numbers]).reshape(sizes))
    return out
