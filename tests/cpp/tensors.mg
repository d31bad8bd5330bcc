# The element types and ranks beyond mg::Matrix, for tensors.cpp.
def affine3(a: tensor[?x5x1xf32], b: tensor[?x1x4xf32]) = 2 * a + b
def column_sums(a: tensor[?x3xi32]) = sum(a, axes=[0])
def total(a: tensor[?xi64]) = sum(a)
def positive(a: tensor[?x?]) = a > 0
def pick(m: tensor[?xi1], a: tensor[?xbf16], b: tensor[?xbf16]) = where(m, a, b) * a
def scaled(s: tensor[], v: tensor[3]) = s * v
def halves(a: tensor[?x?xi32], d: tensor[?x?xi32]) = a / d
def batched(a: tensor[?x3x4xf32], b: tensor[?x4x2xf32]) = a @ b
def layer(x: tensor[?x3], w: tensor[3x2]) = relu(x @ w)
