# Power iteration: the largest eigenvalue of a symmetric matrix, and its eigenvector.
# The matrix comes from a NumPy file shipped beside the example (a path relative to this
# file); its size is known only when the program runs, hence `?x?`. It is tridiagonal:
#     np.diag([4.0, 3, 2, 2, 1, 1]) + np.eye(6, k=1) + np.eye(6, k=-1)
# (tests/e2e/test_program_examples.py makes it again and checks the file).
let a: tensor[?x?] = load("data/power_matrix.npy")

# The number of steps, 60 unless the command line says otherwise:
#     mgc run 23_power_iteration.mg steps=20
let steps = arg("steps", 60)
println("a {dim(a, 0)}x{dim(a, 1)} matrix, {steps} steps")

# The start: all ones, a vector as long as a row of `a` (a[0] is the first row: tensor[?]).
var v = ones_like(a[0])
# The loop count is a run-time number; `i` is a rank-0 i64 counting from 0.
for i in range(steps):
    # One step: multiply by the matrix (@ of a matrix and a vector gives a vector), then
    # scale to length 1. Assigning to `v`, a var declared outside, carries it to the next step.
    let w = a @ v
    v = w / sqrt(sum(w * w))
    if i % 10 == 0:
        # The Rayleigh quotient v.(Av) of the unit vector v: the eigenvalue estimate.
        let av = a @ v
        let estimate = v @ av
        # How far v is from an eigenvector: the length of Av - (estimate) v.
        let residual = sqrt(sum((av - estimate * v) * (av - estimate * v)))
        println("step {i:2d}: eigenvalue {estimate:.8f}, residual {residual:.2e}")

let estimate = v @ (a @ v)
println("after {steps} steps: {estimate:.10f}")
print v
# save writes v as a NumPy file, relative to this file like load's path. It goes to out/,
# a folder kept in the repository only for such results: its .gitignore ignores all that
# lands there, so running the examples (as the tests do) leaves nothing for git to show.
save("out/power_vector.npy", v)
