# The front end inserts an explicit mg.broadcast for a size-1 operand on either side.
# RUN: mg-opt %s | filecheck %s
let a = [[1, 2, 3], [4, 5, 6]]
print a + [[10, 20, 30]]
# CHECK:      %[[A:.*]] = mg.constant {{.*}} : tensor<2x3xf64>
# CHECK:      %[[ROW:.*]] = mg.constant {{.*}} : tensor<1x3xf64>
# CHECK-NEXT: %[[B:.*]] = mg.broadcast %[[ROW]] : tensor<1x3xf64> -> tensor<2x3xf64>
# CHECK-NEXT: %{{.*}} = mg.add %[[A]], %[[B]] : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
print [[100], [200]] - a
# CHECK:      %[[COL:.*]] = mg.constant {{.*}} : tensor<2x1xf64>
# CHECK-NEXT: %[[C:.*]] = mg.broadcast %[[COL]] : tensor<2x1xf64> -> tensor<2x3xf64>
# CHECK-NEXT: %{{.*}} = mg.sub %[[C]], %[[A]] : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
print a * [[2]]
# CHECK:      %[[ONE:.*]] = mg.constant dense<2.000000e+00> : tensor<1x1xf64>
# CHECK-NEXT: %[[D:.*]] = mg.broadcast %[[ONE]] : tensor<1x1xf64> -> tensor<2x3xf64>
# CHECK-NEXT: %{{.*}} = mg.mul %[[A]], %[[D]]
print a + a
# CHECK-NOT:  mg.broadcast
# CHECK:      mg.add %[[A]], %[[A]]
