# @ of stacks of matrices: the batch (leading) axes of each operand grow to the result's
# (NumPy's broadcasting, an explicit mg.broadcast), then one mg.matmul of equal batches.
# RUN: mg-opt %s | filecheck %s
def f(a: tensor[2x3x4], b: tensor[4x5]) = a @ b
# CHECK:      %[[B:.*]] = mg.broadcast %b : tensor<4x5xf64> -> tensor<2x4x5xf64>
# CHECK-NEXT: mg.matmul %a, %[[B]] : tensor<2x3x4xf64>, tensor<2x4x5xf64> -> tensor<2x3x5xf64>
