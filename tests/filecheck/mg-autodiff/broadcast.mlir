// mg-autodiff of mg.broadcast: g summed over the axes the broadcast added in front and those
// it grew from 1, then reshaped to the input's shape; the like operands (sizes only) get none.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// 3x1 -> 2x3x4: summed over axis 0 (added) and axis 2 (grown from 1), then 1x3x1 -> 3x1.
// CHECK-LABEL: func.func @broadcast(
// CHECK:         mg.iota {axis = 2 : i64}
// CHECK:         %[[GW:.*]] = mg.mul %{{.*}}, %x : tensor<2x3x4xf64>, tensor<2x3x4xf64> -> tensor<2x3x4xf64>
// CHECK-NEXT:    %[[S0:.*]] = mg.reduce %[[GW]] {axis = 0 : i64, kind = "sum"} : tensor<2x3x4xf64> -> tensor<1x3x4xf64>
// CHECK-NEXT:    %[[S2:.*]] = mg.reduce %[[S0]] {axis = 2 : i64, kind = "sum"} : tensor<1x3x4xf64> -> tensor<1x3x1xf64>
// CHECK-NEXT:    %g = mg.reshape %[[S2]] : tensor<1x3x1xf64> to tensor<3x1xf64>
func.func @broadcast(%b: tensor<3x1xf64>, %x: tensor<2x3x4xf64>) -> tensor<3x1xf64> {
  %w = mg.broadcast %b : tensor<3x1xf64> -> tensor<2x3x4xf64>
  %m = mg.mul %w, %x : tensor<2x3x4xf64>, tensor<2x3x4xf64> -> tensor<2x3x4xf64>
  %e = mg.extract %m {indices = array<i64: 0, 0, 0>} : tensor<2x3x4xf64> -> tensor<f64>
  %g = mg.grad %e wrt %b : tensor<f64>, tensor<3x1xf64> -> tensor<3x1xf64>
  func.return %g : tensor<3x1xf64>
}

// 3 -> ?x3 (like %x): summed over the added '?' axis.
// CHECK-LABEL: func.func @broadcast_like(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %w : tensor<1x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    %[[S:.*]] = mg.reduce %[[G]] {axis = 0 : i64, kind = "sum"} : tensor<?x3xf64> -> tensor<1x3xf64>
// CHECK-NEXT:    %g = mg.reshape %[[S]] : tensor<1x3xf64> to tensor<3xf64>
// CHECK-NEXT:    func.return %g
func.func @broadcast_like(%b: tensor<3xf64>, %x: tensor<?x3xf64>) -> tensor<3xf64> {
  %w = mg.broadcast %b like %x : tensor<3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
  %r = mg.reduce %w {axis = 0 : i64, kind = "sum"} : tensor<?x3xf64> -> tensor<1x3xf64>
  %e = mg.extract %r {indices = array<i64: 0, 2>} : tensor<1x3xf64> -> tensor<f64>
  %g = mg.grad %e wrt %b : tensor<f64>, tensor<3xf64> -> tensor<3xf64>
  func.return %g : tensor<3xf64>
}
