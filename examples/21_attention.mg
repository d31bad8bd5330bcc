# Attention over a batch of two heads, in f32: batched @, a softmax along the last axis
# (shifted by its maximum, as a stable softmax is), and a product with the values.
def softmax(s: tensor[2x3x3xf32]) = exp(s - max(s, axes=[-1], keepdims=true)) / sum(exp(s - max(s, axes=[-1], keepdims=true)), axes=[-1], keepdims=true)
def attention(q: tensor[2x3x2xf32], kt: tensor[2x2x3xf32], v: tensor[2x3x2xf32]) = softmax(q @ kt * 0.5) @ v
let q: tensor[2x3x2xf32] = [[[1, 0], [0, 1], [1, 1]], [[2, -1], [0, 0], [-1, 3]]]
let kt: tensor[2x2x3xf32] = [[[1, 0, 2], [0, 1, -1]], [[1, 1, 0], [0, 2, 1]]]
let v: tensor[2x3x2xf32] = [[[1, 2], [3, 4], [5, 6]], [[0, 1], [1, 0], [2, 2]]]
print attention(q, kt, v)
print sum(attention(q, kt, v), axes=[0, 1])
