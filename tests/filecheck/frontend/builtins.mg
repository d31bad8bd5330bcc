# The builtins in the mg dialect: a reduction over axes is one mg.reduce per
# axis, the last first (each keeps its axis, of size 1), mg.reshape drops the axes without
# keepdims, a mean
# divides by the count; math functions are an op each; creation ops make mg.full, mg.iota
# and mg.full_like.
# RUN: mg-opt %s | filecheck %s
def f(x: tensor[2x3x4]) = sum(x, axes=[0, -1])
# CHECK:      %[[A:.*]] = mg.reduce %x {axis = 2 : i64, kind = "sum"} : tensor<2x3x4xf64> -> tensor<2x3x1xf64>
# CHECK-NEXT: %[[B:.*]] = mg.reduce %[[A]] {axis = 0 : i64, kind = "sum"} : tensor<2x3x1xf64> -> tensor<1x3x1xf64>
# CHECK-NEXT: %[[C:.*]] = mg.reshape %[[B]] : tensor<1x3x1xf64> to tensor<3xf64>
# CHECK-NEXT: func.return %[[C]] : tensor<3xf64>
def m(x: tensor[?x3x4]) = mean(x, axes=[2], keepdims=true)
# CHECK:      %[[S:.*]] = mg.reduce %x {axis = 2 : i64, kind = "sum"} : tensor<?x3x4xf64> -> tensor<?x3x1xf64>
# CHECK-NEXT: mg.scalar %[[S]] {op = "div", value = 4.000000e+00 : f64, reversed = false} : tensor<?x3x1xf64> -> tensor<?x3x1xf64>
def g(x: tensor[3]) = exp(x) + maximum(x, 0) + pow(2, x) + abs(x)
# CHECK:      mg.exp %x : tensor<3xf64> -> tensor<3xf64>
# CHECK:      mg.scalar %x {op = "max", value = 0.000000e+00 : f64, reversed = false}
# CHECK:      mg.scalar %x {op = "pow", value = 2.000000e+00 : f64, reversed = true}
# CHECK:      mg.abs %x : tensor<3xf64> -> tensor<3xf64>
def h(x: tensor[2x3xi32]) = zeros([2, 3], dtype=i32) + iota([2, 3], axis=-1) + ones_like(x) + min(x, axes=[1], keepdims=true)
# CHECK:      mg.full {value = 0 : i32} : tensor<2x3xi32>
# CHECK:      mg.iota {axis = 1 : i64} : tensor<2x3xi32>
# CHECK:      mg.full_like %x {value = 1 : i32} : tensor<2x3xi32> -> tensor<2x3xi32>
# CHECK:      mg.reduce %x {axis = 1 : i64, kind = "min"} : tensor<2x3xi32> -> tensor<2x1xi32>
