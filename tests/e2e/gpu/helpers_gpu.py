"""What the GPU tests share: the programs they run through a launcher, and NumPy's answers."""

import numpy as np

# Each def exercises another part of the launch path: grid sizes from run-time sizes
# (`?`), several blocks with a partial last one, a kernel that keeps a sequential loop
# (the reductions' accumulation, by rows and by columns), a broadcast, a constant literal.
SOURCE = """
def layer(x: tensor[?x?], w: tensor[?x?], b: tensor[?x?]) = relu(x @ w + b)
def stats(a: tensor[?x?]) = row_sum(a) + row_max(a)
def center(a: tensor[300x3]) = a - col_mean(a) + [[1, 2, 3]]
def diff(a: tensor[?x?], b: tensor[?x?]) = col_max(a - b) * 2
"""


def reference(name: str, *args: np.ndarray) -> np.ndarray:
    if name == "layer":
        x, w, b = args
        return np.maximum(x @ w + b, 0)
    if name == "stats":
        (a,) = args
        return a.sum(1, keepdims=True) + a.max(1, keepdims=True)
    if name == "center":
        (a,) = args
        return a - a.sum(0, keepdims=True) / 300 + np.array([[1.0, 2.0, 3.0]])
    if name == "diff":
        a, b = args
        return (a - b).max(0, keepdims=True) * 2
    raise KeyError(name)


def cases(rng: np.random.Generator, big: bool = False):
    """(def, arguments) pairs; sizes cross the 256-thread block boundary."""
    n = 700 if big else 300
    yield "layer", (rng.normal(size=(37, 20)), rng.normal(size=(20, 29)), rng.normal(size=(37, 29)))
    yield "layer", (rng.normal(size=(n, 9)), rng.normal(size=(9, 1)), rng.normal(size=(n, 1)))
    yield "stats", (rng.normal(size=(n, 5)),)
    yield "stats", (rng.normal(size=(1, 1)),)
    yield "center", (rng.normal(size=(300, 3)),)
    yield "diff", (rng.normal(size=(n, 7)), rng.normal(size=(n, 7)))
