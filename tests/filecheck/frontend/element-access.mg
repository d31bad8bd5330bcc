# Element access gives a rank-0 tensor (mg.extract), which combines with a tensor of '?'
# sizes as NumPy's scalars do: mg.broadcast adds the '?' dimension, its size from the other
# operand. Compile-time values of a type (rank, dim, numel, shape) are numbers and lists.
# A number prints as a rank-0 tensor.
# RUN: mg-opt %s 2>/dev/null | filecheck %s
def f(a: tensor[?x3]) = a[-1, 2] * a
# CHECK:      %[[E:.*]] = mg.extract %a {indices = array<i64: -1, 2>} : tensor<?x3xf64> -> tensor<f64>
# CHECK-NEXT: %[[B:.*]] = mg.broadcast %[[E]] like %a : tensor<f64>, tensor<?x3xf64> -> tensor<?x3xf64>
# CHECK-NEXT: mg.mul %[[B]], %a : tensor<?x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
def g(a: tensor[2x3]) = full(shape(transpose(a)), numel(a) + rank(a) * dim(a, -1))
# CHECK:      mg.full {value = 1.200000e+01 : f64} : tensor<3x2xf64>
print 6 / 4
# CHECK:      %[[N:.*]] = mg.constant dense<1.500000e+00> : tensor<f64>
# CHECK-NEXT: mg.print %[[N]] : tensor<f64>
