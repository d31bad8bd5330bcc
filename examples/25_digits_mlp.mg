# A network trained end to end on handwritten digits: an 8x8 image (64 pixels) in, scores
# for the 10 digits out, 128 hidden units with relu between (64-128-10), trained with
# plain SGD on mini-batches of 128 for a softmax cross-entropy loss whose gradients
# value_and_grad computes. The data is scikit-learn's copy of the UCI handwritten digits,
# split once into 1280 images to train on and 517 to test on: data/make_digits.py made
# the files and data/DIGITS-LICENSE.md says where they come from.

# The loss of one mini-batch: x holds 128 images (a row each), y their labels one-hot.
def loss(w1: tensor[64x128], b1: tensor[128], w2: tensor[128x10], b2: tensor[10],
         x: tensor[128x64], y: tensor[128x10]) -> tensor[]:
    let h = relu(x @ w1 + b1)
    let z = h @ w2 + b2
    # log softmax(z) = z - log(sum(exp(z))), with each row's largest score taken out
    # first so that exp cannot overflow.
    let m = max(z, axes=[1], keepdims=true)
    let log_total = m + log(sum(exp(z - m), axes=[1], keepdims=true))
    # the mean over the batch of minus the log-probability of the right class
    return -sum(y * (z - log_total)) / 128

# The files hold f32 (each pixel is k/16 for k from 0 to 16: exact in f32); the training
# computes in f64. `?` sizes: the files' row counts are read when the program runs.
let train_x32: tensor[?x64xf32] = load("data/digits_train_x.npy")
let train_y32: tensor[?x10xf32] = load("data/digits_train_y.npy")
let test_x32: tensor[?x64xf32] = load("data/digits_test_x.npy")
let test_labels: tensor[?xi64] = load("data/digits_test_labels.npy")
let train_x = cast(train_x32, f64)
let train_y = cast(train_y32, f64)
let test_x = cast(test_x32, f64)

# The learning rate and the number of passes over the training images, which the command
# line may change: mgc run 25_digits_mlp.mg epochs=5 lr=0.1
let lr = arg("lr", 0.5)
let epochs = arg("epochs", 30)
let batches = dim(train_x, 0) // 128
println("{dim(train_x, 0)} training images in {batches} batches of 128, {dim(test_x, 0)} test images")

# The weights, drawn with a spread of 0.1 (a fixed seed: the same numbers on every run),
# the biases zero.
var w1 = normal([64, 128], std=0.1, seed=1)
var b1 = zeros([128])
var w2 = normal([128, 10], std=0.1, seed=2)
var b2 = zeros([10])

for epoch in range(epochs):
    var total: tensor[] = 0.0
    for i in range(batches):
        # the batch: 128 rows from a run-time start
        let x = train_x[i * 128 : i * 128 + 128]
        let y = train_y[i * 128 : i * 128 + 128]
        # the loss and its gradient with respect to each weight, in one sweep
        let l, gw1, gb1, gw2, gb2 = value_and_grad(loss(w1, b1, w2, b2, x, y), wrt=[w1, b1, w2, b2])
        # one step of gradient descent, each weight updated in its own buffer
        w1 -= lr * gw1
        b1 -= lr * gb1
        w2 -= lr * gw2
        b2 -= lr * gb2
        total += l
    println("epoch {epoch + 1:2d}: loss {total / cast(batches, f64):.6f}")

# The test images, all at once: each one's class is the index of its largest score.
let scores = relu(test_x @ w1 + b1) @ w2 + b2
let predicted = argmax(scores, axis=1)
let correct = sum(cast(predicted == test_labels, i64))
let accuracy = cast(correct, f64) / cast(dim(test_x, 0), f64)
println("test accuracy: {correct}/{dim(test_x, 0)} = {accuracy:.1%}")

# The trained weights, as NumPy files in out/ (which git ignores).
save("out/digits_w1.npy", w1)
save("out/digits_b1.npy", b1)
save("out/digits_w2.npy", w2)
save("out/digits_b2.npy", b2)
