"""Make the digits data of examples/25_digits_mlp.mg: scikit-learn's bundled copy of the UCI
handwritten digits (1797 images of 8x8 pixels, 10 classes), split once, at random with a
fixed seed, into 1280 images to train on (ten mini-batches of 128) and 517 to test on.

scikit-learn is needed only to run this script, not by the project (DIGITS-LICENSE.md says
where the data comes from). To make the files again, from the repository root:

    python3 -m venv /tmp/sk && /tmp/sk/bin/pip install scikit-learn
    /tmp/sk/bin/python examples/data/make_digits.py

The files, beside this script:
    digits_train_x.npy       float32, 1280x64: the training images, a row each, pixels / 16
    digits_train_y.npy       float32, 1280x10: their labels, one-hot
    digits_test_x.npy        float32, 517x64: the test images
    digits_test_labels.npy   int64, 517: their labels, 0 to 9
A pixel is a count from 0 to 16, so pixel / 16 is exact in float32 (and in the float64 the
example casts it to), and the files are half the size of float64 ones.
"""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

TRAIN = 1280
SEED = 1
HERE = Path(__file__).resolve().parent


def main() -> None:
    digits = load_digits()
    pixels, labels = digits.data, digits.target
    assert pixels.shape == (1797, 64) and pixels.min() == 0 and pixels.max() == 16
    order = np.random.default_rng(SEED).permutation(len(labels))
    x = (pixels[order] / 16.0).astype(np.float32)
    y = labels[order].astype(np.int64)
    one_hot = np.eye(10, dtype=np.float32)[y]
    files = {
        "digits_train_x.npy": x[:TRAIN],
        "digits_train_y.npy": one_hot[:TRAIN],
        "digits_test_x.npy": x[TRAIN:],
        "digits_test_labels.npy": y[TRAIN:],
    }
    for name, array in files.items():
        np.save(HERE / name, np.ascontiguousarray(array))
        print(f"{name}: {array.dtype} {array.shape}")


if __name__ == "__main__":
    main()
