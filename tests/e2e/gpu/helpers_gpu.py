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


# Programs with blocks (loops carrying vars, conditionals on run-time values, defs with
# block bodies and several results), with the new subscripts, operators and run-time sizes:
# on the GPU their loop nests become kernels inside the host's loops. NumPy's answers are
# printed by `print` in the same order (tests/e2e/test_blocks.py has the CPU side).
BLOCK_PROGRAMS = {
    "loop_and_branches": """
var w = zeros([300, 3])
var best: tensor[] = inf
for i in range(12):
    w += cast(i % 5, f64)
    let loss = sum(w) / 900.0 - 7.0
    if loss < best and i > 2:
        best = loss
    elif i // 4 == 2:
        w = w * 0.5
print w[0]
print best
""",
    "defs_and_sizes": """
def moments(x: tensor[?x?]) -> (tensor[?x1], tensor[?x1]):
    let m = mean(x, axes=[1], keepdims=true)
    let d = x - broadcast_to(m, shape(x))
    return m, mean(d * d, axes=[1], keepdims=true)
def batches(x: tensor[?x4]) -> tensor[4]:
    var acc = zeros([4])
    for b in range(dim(x, 0) // 2):
        acc += sum(x[b * 2 : b * 2 + 2], axes=[0])
    return acc
let x = reshape(cast(iota([1200]), f64), [300, 4]) % 7.0
let m, v = moments(x)
print m[0:3]
print v[0:3]
print batches(x)
print argmax(x, axis=1)[0:8]
""",
}


def block_reference(name: str) -> list[np.ndarray]:
    if name == "loop_and_branches":
        w, best = np.zeros((300, 3)), np.inf
        for i in range(12):
            w += i % 5
            loss = w.sum() / 900.0 - 7.0
            if loss < best and i > 2:
                best = loss
            elif i // 4 == 2:
                w = w * 0.5
        return [w[0], np.float64(best)]
    x = (np.arange(1200.0).reshape(300, 4)) % 7.0
    m = x.mean(axis=1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=1, keepdims=True)
    acc = sum(x[b * 2 : b * 2 + 2].sum(axis=0) for b in range(150))
    return [m[0:3], v[0:3], acc, x.argmax(axis=1)[0:8].astype(float)]
