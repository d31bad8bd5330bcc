"""The examples that are programs with blocks (examples/22_generic_softmax.mg,
23_power_iteration.mg, 24_minibatch_accuracy.mg), held to NumPy: each expected output is
computed here again, independently of the compiler (NumPy computes the numbers; ``print``'s
memref dump and ``println``'s Python format specs are written out below), and must equal the
committed ``.expected`` (addresses masked) and what ``mgc run`` and ``mgc run --reference``
print. Then the file 23_power_iteration.mg saves, its ``steps=`` argument, and the matrix it
loads.

To write an ``.expected`` again after changing an example (and its reference below):
    python -c "import sys; sys.path[:0] = ['tests', 'tests/e2e']; \\
        import test_program_examples as t; t.write_expected()"
"""

import shutil
import subprocess

import numpy as np
import pytest
from conftest import EXAMPLES, mask, mgc

# ---- the two output formats, written out from their definitions ---------------------------


def _element(x) -> str:
    """One element as C++'s ``std::cout`` prints it: integers as they are, floats with ``%g``."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%g" % x


def _nested(a: np.ndarray, depth: int, rank: int) -> str:
    if a.ndim == 0:
        return _element(a[()])
    rows = [_nested(row, depth + 1, rank) for row in a]
    # Elements of the innermost axis: ", " and then rank spaces; an outer row ends with
    # ", " and a newline, the next one indented by its depth.
    sep = "," + " " * (rank + 1) if a.ndim == 1 else ", \n" + " " * (depth + 1)
    return "[" + sep.join(rows) + "]"


def memref_dump(a) -> str:
    """What ``print`` writes for a fresh (row-major, offset 0) tensor, address masked."""
    a = np.asarray(a)
    strides = [int(np.prod(a.shape[i + 1 :])) for i in range(a.ndim)]
    header = (
        f"Unranked Memref base@ = 0x… rank = {a.ndim} offset = 0 "
        f"sizes = [{', '.join(map(str, a.shape))}] strides = [{', '.join(map(str, strides))}] data = \n"
    )
    return header + ("[" + _element(a[()]) + "]" if a.ndim == 0 else _nested(a, 0, a.ndim)) + "\n"


class Output:
    """A program's stdout, built as the program prints. ``nudge`` scales every float before it
    is formatted: the tests build each output again with the floats moved by a relative 1e-12 (some 4500 units in the last place)
    and require the same text, so that no printed number sits at a rounding edge where the
    compiler's order of summation (not NumPy's) could change a digit."""

    def __init__(self, nudge: float = 0.0):
        self.text, self.nudge = "", nudge

    def f(self, x):
        return x * (1 + self.nudge) if np.asarray(x).dtype.kind == "f" else x

    def print(self, a) -> None:
        self.text += memref_dump(self.f(np.asarray(a)))

    def println(self, line: str) -> None:
        self.text += line + "\n"


# ---- 22_generic_softmax.mg -----------------------------------------------------------------


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def moments(x):
    mu = x.mean(axis=1, keepdims=True)
    d = x - mu
    return mu, (d * d).mean(axis=1, keepdims=True)


def layer_norm(x):
    mu, variance = moments(x)
    return (x - mu) * (1 / np.sqrt(variance + 1e-5))


def generic_softmax(out: Output) -> str:
    small = np.array([[1, 2, 3], [2, 2, 2]], dtype=np.float64)
    large = np.array([[0.5, -1, 2, 3.5], [10, 10.5, 9.5, 10], [-3, 0, 3, 6]])
    f = out.f

    def report(x):
        mu, variance = moments(x)
        for r in range(x.shape[0]):
            m, v = mu[r, 0], variance[r, 0]
            if v == 0:
                out.println(f"  row {r}: constant {f(m):g}")
            elif v < 1:
                out.println(f"  row {r}: mean {f(m):.3f}, spread {f(np.sqrt(v)):.3f} (narrow)")
            else:
                out.println(f"  row {r}: mean {f(m):.3f}, spread {f(np.sqrt(v)):.3f}")
        return x.shape[0]

    out.print(softmax(small))
    out.print(softmax(large))
    out.println(f"softmax(large) sums to {f(softmax(large).sum()):.6f} over {large.shape[0]} rows")
    mu, variance = moments(large)
    out.print(mu)
    out.print(variance)
    out.print(layer_norm(large))
    n = report(small)  # the def's lines come before the line that calls it
    out.println(f"small: {n} rows")
    n = report(large)
    out.println(f"large: {n} rows")
    return out.text


# ---- 23_power_iteration.mg -----------------------------------------------------------------


def power_matrix() -> np.ndarray:
    """The matrix examples/data/power_matrix.npy holds: symmetric, tridiagonal, its largest
    eigenvalue 4.7533 well apart from the next (3.4601), so the iteration converges by a
    factor of about 0.73 a step."""
    return np.diag([4.0, 3, 2, 2, 1, 1]) + np.eye(6, k=1) + np.eye(6, k=-1)


def power_iteration(a: np.ndarray, steps: int) -> np.ndarray:
    v = np.ones(a.shape[0])
    for _ in range(steps):
        w = a @ v
        v = w / np.sqrt(np.sum(w * w))
    return v


def power_output(out: Output, steps: int = 60) -> str:
    a = np.load(EXAMPLES / "data" / "power_matrix.npy")
    f = out.f
    out.println(f"a {a.shape[0]}x{a.shape[1]} matrix, {steps} steps")
    v = np.ones(a.shape[0])
    for i in range(steps):
        w = a @ v
        v = w / np.sqrt(np.sum(w * w))
        if i % 10 == 0:
            av = a @ v
            estimate = v @ av
            residual = np.sqrt(np.sum((av - estimate * v) ** 2))
            out.println(f"step {i:2d}: eigenvalue {f(estimate):.8f}, residual {f(residual):.2e}")
    out.println(f"after {steps} steps: {f(v @ (a @ v)):.10f}")
    out.print(v)
    return out.text


# ---- 24_minibatch_accuracy.mg --------------------------------------------------------------


def minibatch_output(out: Output) -> str:
    x = np.array(
        [[2, 0.5], [0.2, 1.8], [-1.5, -1], [1.5, -0.5], [0, 2.5], [-2, 0.5]]
        + [[0.5, 0.4], [1, 1.2], [-1, -2], [3, 1], [-0.5, 1], [-1, 0]]
    )
    labels = np.array([0, 1, 2, 0, 1, 2, 1, 1, 2, 0, 2, 2], dtype=np.int64)
    w = np.array([[1, 0, -1], [0, 1, -0.5]])
    bias = np.array([0, 0, 0.5])
    correct = 0
    for b in range(len(labels) // 4):
        scores = x[b * 4 : b * 4 + 4] @ w + bias
        # argmax must not depend on a tie or a near-tie (the compiler may sum in another order)
        top2 = np.sort(scores, axis=1)[:, -2:]
        assert np.all(top2[:, 1] - top2[:, 0] > 1e-6)
        pred = np.argmax(scores, axis=1).astype(np.int64)
        hits = int(np.sum(pred == labels[b * 4 : b * 4 + 4]))
        correct += hits
        out.println(f"batch {b}: {hits} of 4 right")
        out.print(pred)
    out.println(f"accuracy: {correct}/{len(labels)} = {out.f(correct / len(labels)):.1%}")
    return out.text


REFERENCES = {
    "22_generic_softmax": generic_softmax,
    "23_power_iteration": power_output,
    "24_minibatch_accuracy": minibatch_output,
}


def expected(name: str) -> str:
    text = REFERENCES[name](Output())
    for nudge in (1e-12, -1e-12):
        assert REFERENCES[name](Output(nudge)) == text, f"{name}: a printed number sits at a rounding edge"
    return text


def write_expected() -> None:
    for name in REFERENCES:
        (EXAMPLES / f"{name}.expected").write_text(expected(name))
        (EXAMPLES / f"{name}.status").write_text("0\n")


# ---- the tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(REFERENCES))
def test_the_committed_expected_output_is_numpys(name):
    assert (EXAMPLES / f"{name}.expected").read_text() == expected(name)
    assert (EXAMPLES / f"{name}.status").read_text().strip() == "0"


@pytest.mark.parametrize("pipeline", [[], ["--reference"]], ids=["optimised", "reference"])
@pytest.mark.parametrize("name", list(REFERENCES))
def test_mgc_run_prints_numpys_output(name, pipeline):
    p = mgc("run", *pipeline, f"{name}.mg", cwd=EXAMPLES)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stderr == b""
    assert mask(p.stdout.decode()) == expected(name)


def test_the_matrix_file_is_the_documented_matrix():
    path = EXAMPLES / "data" / "power_matrix.npy"
    assert path.stat().st_size < 1024
    a = np.load(path)
    assert a.dtype == np.float64 and a.shape == (6, 6)
    assert np.array_equal(a, power_matrix())
    assert np.array_equal(a, a.T)
    eig = np.linalg.eigvalsh(a)
    assert eig[-2] / eig[-1] < 0.75  # a clear dominant eigenvalue
    # 60 steps reach it: the example's last estimate is NumPy's eigenvalue to 10 decimals
    v = power_iteration(a, 60)
    assert abs(v @ a @ v - eig[-1]) < 1e-10


def copy_power_example(tmp_path):
    """23_power_iteration.mg in a folder of its own (its data, and out/ for what it saves),
    so that the file this test reads is the one its own run wrote."""
    shutil.copy(EXAMPLES / "23_power_iteration.mg", tmp_path)
    (tmp_path / "data").mkdir()
    shutil.copy(EXAMPLES / "data" / "power_matrix.npy", tmp_path / "data")
    (tmp_path / "out").mkdir()
    return tmp_path / "out" / "power_vector.npy"


@pytest.mark.parametrize("steps", [None, 20, 7])
def test_power_iteration_saves_numpys_vector(tmp_path, steps):
    saved = copy_power_example(tmp_path)
    args = [] if steps is None else [f"steps={steps}"]
    p = mgc("run", "23_power_iteration.mg", *args, cwd=tmp_path)
    assert p.returncode == 0, p.stderr.decode()
    v = np.load(saved)
    assert v.dtype == np.float64 and v.shape == (6,)
    want = power_iteration(power_matrix(), 60 if steps is None else steps)
    np.testing.assert_allclose(v, want, rtol=1e-12, atol=1e-15)
    if steps is None:  # converged: NumPy's own eigenvector (up to its sign)
        eigvec = np.linalg.eigh(power_matrix())[1][:, -1]
        np.testing.assert_allclose(v, eigvec * np.sign(eigvec[0]), atol=1e-8)
    # what it printed last is the vector it saved
    assert mask(p.stdout.decode()).endswith(memref_dump(v))


def test_the_steps_argument_changes_what_it_prints():
    p = mgc("run", "23_power_iteration.mg", "steps=20", cwd=EXAMPLES)
    assert p.returncode == 0, p.stderr.decode()
    out = mask(p.stdout.decode())
    assert out == power_output(Output(), steps=20)
    assert out != expected("23_power_iteration")
    lines = out.splitlines()
    assert lines[0] == "a 6x6 matrix, 20 steps"
    assert [line[:7] for line in lines if line.startswith("step")] == ["step  0", "step 10"]
    assert lines[3].startswith("after 20 steps: ")


def test_what_the_example_saves_is_ignored_by_git():
    """23_power_iteration.mg saves into examples/out/ (save makes no folders: out/ is in the
    repository, as its .gitignore), and that .gitignore ignores everything else there, so
    running the examples, as the tests do, leaves nothing for git to show."""
    assert (EXAMPLES / "out" / ".gitignore").read_text().split() == ["*", "!.gitignore"]
    if shutil.which("git") is None or not (EXAMPLES.parent / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "-q", "examples/out/power_vector.npy"], cwd=EXAMPLES.parent)
    assert ignored.returncode == 0
    kept = subprocess.run(["git", "check-ignore", "-q", "examples/out/.gitignore"], cwd=EXAMPLES.parent)
    assert kept.returncode == 1
