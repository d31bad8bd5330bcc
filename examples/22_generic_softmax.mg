# A softmax and a layer norm written once for matrices of any size. A `tensor[?x?]`
# parameter has sizes known only when the program runs: each def below is compiled once
# and serves every input. A def's body is a block (4 spaces in), with its own `let`s.
def softmax(x: tensor[?x?]) -> tensor[?x?]:
    # Each row's largest value, kept as a column (keepdims: a ?x1 matrix, not a vector).
    let m = max(x, axes=[1], keepdims=true)
    # A `?` is never broadcast implicitly: broadcast_to grows the ?x1 column to x's
    # run-time shape, shape(x), before the subtraction (the shift keeps exp from overflowing).
    let e = exp(x - broadcast_to(m, shape(x)))
    let total = sum(e, axes=[1], keepdims=true)
    return e / broadcast_to(total, shape(x))

# Two results: the type after -> lists both, `return` gives both.
def moments(x: tensor[?x?]) -> (tensor[?x1], tensor[?x1]):
    # mean over a `?` axis: the run-time size of axis 1 is the divisor.
    let mu = mean(x, axes=[1], keepdims=true)
    let d = x - broadcast_to(mu, shape(x))
    return mu, mean(d * d, axes=[1], keepdims=true)

def layer_norm(x: tensor[?x?]) -> tensor[?x?]:
    # `let a, b = f(...)` binds the two results of a def.
    let mu, variance = moments(x)
    let inv = rsqrt(variance + 1e-5)
    return (x - broadcast_to(mu, shape(x))) * broadcast_to(inv, shape(x))

# A def that only prints: a for loop over the rows, its count dim(x, 0) known at run time;
# `r` is a rank-0 i64, usable as an index and in a format string.
def report(x: tensor[?x?]) -> tensor[i64]:
    let mu, variance = moments(x)
    for r in range(dim(x, 0)):
        if variance[r, 0] == 0:
            println("  row {r}: constant {mu[r, 0]:g}")
        elif variance[r, 0] < 1:
            println("  row {r}: mean {mu[r, 0]:.3f}, spread {sqrt(variance[r, 0]):.3f} (narrow)")
        else:
            println("  row {r}: mean {mu[r, 0]:.3f}, spread {sqrt(variance[r, 0]):.3f}")
    return dim(x, 0)

# Two inputs of different sizes, 2x3 and 3x4, through the same compiled defs.
let small = [[1, 2, 3], [2, 2, 2]]
let large = [[0.5, -1, 2, 3.5], [10, 10.5, 9.5, 10], [-3, 0, 3, 6]]
print softmax(small)
print softmax(large)
# Every row of a softmax sums to 1 (sum with no axes folds them all: a number).
println("softmax(large) sums to {sum(softmax(large)):.6f} over {dim(large, 0)} rows")
let mu, variance = moments(large)
print mu
print variance
print layer_norm(large)
# A def called for what it prints; its result, an i64 number, formats as an integer.
println("small: {report(small)} rows")
println("large: {report(large)} rows")
