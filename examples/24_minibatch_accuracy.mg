# A linear classifier scored over mini-batches: a for loop takes 4 rows at a time with a
# run-time slice, argmax picks each row's class, and the hits add up to an accuracy.
# Twelve points of three classes (one row per point), and their labels.
let x = [[2, 0.5], [0.2, 1.8], [-1.5, -1], [1.5, -0.5],
         [0, 2.5], [-2, 0.5], [0.5, 0.4], [1, 1.2],
         [-1, -2], [3, 1], [-0.5, 1], [-1, 0]]
let labels: tensor[12xi64] = [0, 1, 2, 0, 1, 2, 1, 1, 2, 0, 2, 2]
# The classifier's weights: a score per class is x @ w + bias.
let w = [[1, 0, -1], [0, 1, -0.5]]
let bias = [0, 0, 0.5]

# A counter the loop updates must be a tensor (here a rank-0 i64), not a compile-time number.
var correct: tensor[i64] = 0
# numel(labels) // 4 is known when compiling (12 // 4 = 3 batches): `//` is floor division.
for b in range(numel(labels) // 4):
    # A run-time start (b*4, with b the loop's rank-0 i64) and a static length (4): xb is
    # a 4x2 matrix, yb a vector of 4 labels.
    let xb = x[b*4 : b*4 + 4]
    let yb = labels[b*4 : b*4 + 4]
    # argmax along axis 1: the index of each row's largest score, an i64 vector of 4.
    let pred = argmax(xb @ w + bias, axis=1)
    # == gives i1; cast to i64 to count the hits.
    let hits = sum(cast(pred == yb, i64))
    correct += hits
    println("batch {b}: {hits} of 4 right")
    print pred

# The accuracy as a float; format spec % multiplies by 100 as Python's does.
let accuracy = cast(correct, f64) / numel(labels)
println("accuracy: {correct}/{numel(labels)} = {accuracy:.1%}")
