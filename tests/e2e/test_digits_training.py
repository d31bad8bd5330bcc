"""examples/25_digits_mlp.mg, a 64-128-10 network trained with value_and_grad and SGD on
scikit-learn's digits (examples/data/), held to a NumPy implementation of the same training
written out here by hand: the same initial weights (Philox 4x32-10 and Box-Muller, as
docs/language.md defines ``normal``, written again in NumPy), the same mini-batches and the
backward pass derived on paper. A short run (``epochs=5``) in both pipelines must print
NumPy's losses and test accuracy and save NumPy's weights, and the two pipelines must agree
up to the order of their sums. The full run (30 epochs, 98.1%) is the example's .expected,
checked by test_examples.py."""

import functools
import re
import shutil

import numpy as np
import pytest
from conftest import EXAMPLES, mgc
from threadpoolctl import threadpool_limits

EPOCHS = 5
BATCH = 128
DATA = ["digits_train_x.npy", "digits_train_y.npy", "digits_test_x.npy", "digits_test_labels.npy"]
WEIGHTS = ["w1", "b1", "w2", "b2"]

# ---- normal(shape, std=, seed=) in NumPy ---------------------------------------------------

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox_normal(shape: tuple[int, ...], seed: int, std: float) -> np.ndarray:
    """Element n (row-major) from the four words of Philox 4x32-10 at counter (n, 0, 0, 0)
    and key (seed): two 53-bit uniforms u1, u2 from words 0-1 and 2-3, then Box-Muller,
    sqrt(-2 log(1 - u1)) cos(2 pi u2)."""
    mask = np.uint64(0xFFFFFFFF)
    n = np.arange(int(np.prod(shape)), dtype=np.uint64)
    c0, c1, c2, c3 = n & mask, n >> np.uint64(32), np.zeros_like(n), np.zeros_like(n)
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for _ in range(10):
        p0, p1 = np.uint64(M0) * c0, np.uint64(M1) * c2  # (32 x 32 bits: exact in 64)
        c0, c1, c2, c3 = (
            ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)) & mask,
            p1 & mask,
            ((p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)) & mask,
            p0 & mask,
        )
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF

    def unit(high, low):
        return ((high << np.uint64(21)) | (low >> np.uint64(11))).astype(np.float64) * 2.0**-53

    u1, u2 = 1.0 - unit(c0, c1), unit(c2, c3)
    return (std * np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * np.pi * u2)).reshape(shape)


# ---- the training, by hand -----------------------------------------------------------------


@functools.cache
def train(epochs: int, lr: float = 0.5):
    """The example's training in NumPy: its per-epoch mean losses, the scores of the test
    images, and the trained weights. (On one BLAS thread: its small products are fastest
    so, on a busy machine by far.)"""
    with threadpool_limits(1):
        return _train(epochs, lr)


def _train(epochs: int, lr: float):
    x = np.load(EXAMPLES / "data" / DATA[0]).astype(np.float64)
    y = np.load(EXAMPLES / "data" / DATA[1]).astype(np.float64)
    test_x = np.load(EXAMPLES / "data" / DATA[2]).astype(np.float64)
    w = {
        "w1": philox_normal((64, 128), 1, 0.1),
        "b1": np.zeros(128),
        "w2": philox_normal((128, 10), 2, 0.1),
        "b2": np.zeros(10),
    }
    losses = []
    for _ in range(epochs):
        total = 0.0
        for i in range(len(x) // BATCH):
            xb, yb = x[i * BATCH : (i + 1) * BATCH], y[i * BATCH : (i + 1) * BATCH]
            a = xb @ w["w1"] + w["b1"]
            h = np.maximum(a, 0)
            z = h @ w["w2"] + w["b2"]
            m = z.max(axis=1, keepdims=True)
            log_total = m + np.log(np.exp(z - m).sum(axis=1, keepdims=True))
            total += -np.sum(yb * (z - log_total)) / BATCH
            # d loss / d z = (softmax(z) - y) / batch, then back through the layers
            dz = (np.exp(z - log_total) - yb) / BATCH
            da = (dz @ w["w2"].T) * (a > 0)
            grads = {"w1": xb.T @ da, "b1": da.sum(axis=0), "w2": h.T @ dz, "b2": dz.sum(axis=0)}
            for k in WEIGHTS:
                w[k] -= lr * grads[k]
        losses.append(total / (len(x) // BATCH))
    scores = np.maximum(test_x @ w["w1"] + w["b1"], 0) @ w["w2"] + w["b2"]
    return losses, scores, w


# ---- the tests -----------------------------------------------------------------------------

LOSS = re.compile(r"^epoch +(\d+): loss (\d+\.\d{6})$")
ACCURACY = re.compile(r"^test accuracy: (\d+)/(\d+) = (\d+\.\d)%$")


def run_example(tmp_path, *flags: str):
    """25_digits_mlp.mg run in a folder of its own (its data, and out/ for the weights it
    saves): its printed lines and the weights its run saved."""
    folder = tmp_path / "x"
    (folder / "data").mkdir(parents=True)
    (folder / "out").mkdir()
    shutil.copy(EXAMPLES / "25_digits_mlp.mg", folder)
    for name in DATA:
        shutil.copy(EXAMPLES / "data" / name, folder / "data")
    p = mgc("run", "--no-cache", *flags, "25_digits_mlp.mg", f"epochs={EPOCHS}", cwd=folder)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stderr == b""
    saved = {k: np.load(folder / "out" / f"digits_{k}.npy") for k in WEIGHTS}
    return p.stdout.decode().splitlines(), saved


@pytest.fixture(scope="module")
def numpy_run():
    return train(EPOCHS)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return {
        name: run_example(tmp_path_factory.mktemp(name), *flags)
        for name, flags in (("optimised", []), ("reference", ["--reference"]))
    }


def test_the_data_files_are_the_documented_split():
    x, y, test_x, labels = (np.load(EXAMPLES / "data" / name) for name in DATA)
    assert x.dtype == y.dtype == test_x.dtype == np.float32 and labels.dtype == np.int64
    assert x.shape == (1280, 64) and y.shape == (1280, 10) and test_x.shape == (517, 64) and labels.shape == (517,)
    for pixels in (x, test_x):  # k / 16 for k in 0..16
        assert np.array_equal(pixels * 16, np.round(pixels * 16)) and pixels.min() == 0 and pixels.max() == 1
    assert np.array_equal(y, np.eye(10, dtype=np.float32)[y.argmax(axis=1)])  # one-hot
    assert set(np.unique(labels)) == set(range(10)) and set(y.argmax(axis=1)) == set(range(10))
    assert sum((EXAMPLES / "data" / name).stat().st_size for name in DATA) < 600_000


def test_the_numpy_training_learns(numpy_run):
    """The reference itself: the loss falls every epoch; no test image sits at a tie of two
    classes, where the order of sums could change its prediction."""
    losses, scores, _ = numpy_run
    assert all(b < a for a, b in zip(losses, losses[1:]))
    top2 = np.sort(scores, axis=1)[:, -2:]
    assert np.all(top2[:, 1] - top2[:, 0] > 1e-6)


def expected_output(epochs: int, nudge: float = 0.0) -> str:
    """What the example prints, from NumPy's training (each float scaled by 1 + nudge)."""
    losses, scores, _ = train(epochs)
    labels = np.load(EXAMPLES / "data" / DATA[3])
    correct = int(np.sum(scores.argmax(axis=1) == labels))
    lines = ["1280 training images in 10 batches of 128, 517 test images"]
    lines += [f"epoch {e + 1:2d}: loss {loss * (1 + nudge):.6f}" for e, loss in enumerate(losses)]
    lines.append(f"test accuracy: {correct}/517 = {correct / 517 * (1 + nudge):.1%}")
    return "\n".join(lines) + "\n"


def test_the_committed_expected_output_is_numpys():
    """The full run (30 epochs at lr 0.5), which test_examples.py holds mgc to: NumPy's
    output, with no printed number at a rounding edge (moved by 1e-12 relative, each prints
    the same), and at least 97% of the test images right."""
    text = expected_output(30)
    assert (EXAMPLES / "25_digits_mlp.expected").read_text() == text
    assert (EXAMPLES / "25_digits_mlp.status").read_text().strip() == "0"
    assert all(expected_output(30, nudge) == text for nudge in (1e-12, -1e-12))
    correct = int(ACCURACY.match(text.splitlines()[-1])[1])
    assert correct / 517 >= 0.97


@pytest.mark.parametrize("pipeline", ["optimised", "reference"])
def test_a_short_run_prints_numpys_losses_and_accuracy(runs, numpy_run, pipeline):
    lines, _ = runs[pipeline]
    losses, scores, _ = numpy_run
    labels = np.load(EXAMPLES / "data" / DATA[3])
    assert lines[0] == "1280 training images in 10 batches of 128, 517 test images"
    printed = [LOSS.match(line) for line in lines[1:-1]]
    assert all(printed) and [int(m[1]) for m in printed] == list(range(1, EPOCHS + 1)), lines
    printed_losses = [float(m[2]) for m in printed]
    # printed with 6 decimals: NumPy's curve to within the rounding (and 1e-6 relative)
    np.testing.assert_allclose(printed_losses, losses, rtol=1e-6, atol=5e-7 + 1e-12)
    assert all(b < a for a, b in zip(printed_losses, printed_losses[1:]))
    accuracy = ACCURACY.match(lines[-1])
    assert accuracy, lines[-1]
    correct = int(np.sum(scores.argmax(axis=1) == labels))
    assert (int(accuracy[1]), int(accuracy[2])) == (correct, 517)
    assert accuracy[3] == f"{100 * correct / 517:.1f}"
    assert correct / 517 >= 0.9  # (30 epochs reach 98.1%: the example's .expected)


@pytest.mark.parametrize("pipeline", ["optimised", "reference"])
def test_a_short_run_saves_numpys_weights(runs, numpy_run, pipeline):
    """The trained weights after 50 steps: any wrong gradient would show here."""
    _, saved = runs[pipeline]
    _, _, weights = numpy_run
    for k in WEIGHTS:
        assert saved[k].dtype == np.float64 and saved[k].shape == weights[k].shape
        np.testing.assert_allclose(saved[k], weights[k], rtol=1e-9, atol=1e-12, err_msg=k)


def test_both_pipelines_agree(runs):
    """The same printed lines, and the same weights up to the order of the sums."""
    (lines_o, saved_o), (lines_r, saved_r) = runs["optimised"], runs["reference"]
    assert lines_o == lines_r
    for k in WEIGHTS:
        np.testing.assert_allclose(saved_o[k], saved_r[k], rtol=1e-11, atol=1e-14, err_msg=k)
