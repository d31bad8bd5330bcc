# row_* reduce axis 1 (one value per row), col_* axis 0; mean is a sum divided by the count.
# RUN: mg-opt %s | filecheck %s
let a = [[1, 9, 3], [8, 5, 6]]
print row_sum(a)
# CHECK: mg.reduce %{{.*}} {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
print col_max(a)
# CHECK: mg.reduce %{{.*}} {axis = 0 : i64, kind = "max"} : tensor<2x3xf64> -> tensor<1x3xf64>
print row_mean(a)
# CHECK:      %[[S:.*]] = mg.reduce %{{.*}} {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
# CHECK-NEXT: mg.scalar %[[S]] {op = "div", value = 3.000000e+00 : f64, reversed = false} : tensor<2x1xf64> -> tensor<2x1xf64>
print col_mean(a)
# CHECK:      %[[T:.*]] = mg.reduce %{{.*}} {axis = 0 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<1x3xf64>
# CHECK-NEXT: mg.scalar %[[T]] {op = "div", value = 2.000000e+00 : f64, reversed = false}
print relu(a)
# CHECK: mg.relu %{{.*}} : tensor<2x3xf64> -> tensor<2x3xf64>
print transpose(a)
# CHECK: mg.transpose %{{.*}} : tensor<2x3xf64> to tensor<3x2xf64>
