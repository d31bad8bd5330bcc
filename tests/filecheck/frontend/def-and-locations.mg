# A def becomes a func.func with its parameters' names; top-level statements form @main;
# every op keeps the source line and column it came from.
# RUN: mg-opt %s | filecheck %s
# RUN: mg-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
def layer(x: tensor[2x3], w: tensor[3x2], bias: tensor[1x2]) = relu(x @ w + bias)
print layer([[1, 2, 3], [-1, -2, -3]], [[1, -1], [0, 1], [1, 0]], [[0.5, -10]])
# CHECK:      func.func @layer(%x: tensor<2x3xf64>, %w: tensor<3x2xf64>, %bias: tensor<1x2xf64>) -> tensor<2x2xf64> attributes {llvm.emit_c_interface} {
# CHECK-NEXT:   %[[T1:.*]] = mg.matmul %x, %w : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
# CHECK-NEXT:   %[[T2:.*]] = mg.broadcast %bias : tensor<1x2xf64> -> tensor<2x2xf64>
# CHECK-NEXT:   %[[T3:.*]] = mg.add %[[T1]], %[[T2]] : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
# CHECK-NEXT:   %[[T4:.*]] = mg.relu %[[T3]] : tensor<2x2xf64> -> tensor<2x2xf64>
# CHECK-NEXT:   func.return %[[T4]] : tensor<2x2xf64>
# CHECK:      func.func @main() {
# CHECK:        %[[R:.*]] = func.call @layer(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xf64>, tensor<3x2xf64>, tensor<1x2xf64>) -> tensor<2x2xf64>
# CHECK-NEXT:   mg.print %[[R]] : tensor<2x2xf64>
# LOC: mg.matmul {{.*}} loc("{{.*}}def-and-locations.mg":5:71)
# LOC: mg.add {{.*}} loc("{{.*}}def-and-locations.mg":5:75)
# LOC: mg.relu {{.*}} loc("{{.*}}def-and-locations.mg":5:64)
# LOC: func.call @layer{{.*}} loc("{{.*}}def-and-locations.mg":6:7)
# LOC: mg.print {{.*}} loc("{{.*}}def-and-locations.mg":6:1)
