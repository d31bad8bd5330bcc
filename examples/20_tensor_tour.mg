let x: tensor[2x3xf32] = [[1, -2, 3], [0.5, 5, -6]]
print where(x > 0, x, 0) * 2
let i: tensor[2x3xi32] = [[7, -7, 9], [1, 2, 3]]
print i / 2
print sum(i, axes=[-1], keepdims=true)
def normalise(z: tensor[?x3]) = z / sum(z, axes=[1], keepdims=true)
print normalise([[1, 2, 3], [1, 1, 2]])
print cast(x, i64) + iota([2, 3], axis=1, dtype=i64)
