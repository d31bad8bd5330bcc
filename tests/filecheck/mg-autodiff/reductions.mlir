// mg-autodiff of mg.reduce: sum repeats g along the axis; prod is g * result / x; max and min
// share g among the elements equal to the result (as many as there are, as JAX does).
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @sum(
// CHECK:         %[[ONE:.*]] = mg.full_like %l {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[G1:.*]] = mg.reshape %[[ONE]] : tensor<f64> to tensor<1x1xf64>
// CHECK-NEXT:    %[[G2:.*]] = mg.broadcast %[[G1]] like %r : tensor<1x1xf64>, tensor<2x1xf64> -> tensor<2x1xf64>
// CHECK-NEXT:    %g = mg.broadcast %[[G2]] like %x : tensor<2x1xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT:    func.return %g
func.func @sum(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
  %s = mg.reduce %r {axis = 0 : i64, kind = "sum"} : tensor<2x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %s : tensor<1x1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<2x3xf64> -> tensor<2x3xf64>
  func.return %g : tensor<2x3xf64>
}

// CHECK-LABEL: func.func @prod(
// CHECK:         %[[G1:.*]] = mg.reshape %{{.*}} : tensor<f64> to tensor<1xf64>
// CHECK-NEXT:    %[[T:.*]] = mg.mul %[[G1]], %r : tensor<1xf64>, tensor<1xf64> -> tensor<1xf64>
// CHECK-NEXT:    %[[B:.*]] = mg.broadcast %[[T]] like %x : tensor<1xf64>, tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT:    %g = mg.div %[[B]], %x
func.func @prod(%x: tensor<4xf64>) -> tensor<4xf64> {
  %r = mg.reduce %x {axis = 0 : i64, kind = "prod"} : tensor<4xf64> -> tensor<1xf64>
  %l = mg.reshape %r : tensor<1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<4xf64> -> tensor<4xf64>
  func.return %g : tensor<4xf64>
}

// (a '?' axis: the result broadcast like x; the count of equal elements is a sum of the mask)
// CHECK-LABEL: func.func @max(
// CHECK:         %[[GR:.*]] = mg.select %{{.*}} : tensor<1x3xi1>, tensor<1x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
// CHECK-NEXT:    %[[R:.*]] = mg.broadcast %r like %x : tensor<1x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    %[[EQ:.*]] = mg.compare %x, %[[R]] {predicate = "eq"}
// CHECK-NEXT:    %[[F:.*]] = mg.convert %[[EQ]] : tensor<?x3xi1> to tensor<?x3xf64>
// CHECK-NEXT:    %[[N:.*]] = mg.reduce %[[F]] {axis = 0 : i64, kind = "sum"} : tensor<?x3xf64> -> tensor<1x3xf64>
// CHECK-NEXT:    %[[SHARE:.*]] = mg.div %[[GR]], %[[N]]
// CHECK-NEXT:    %[[B:.*]] = mg.broadcast %[[SHARE]] like %x : tensor<1x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[B]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %g = mg.select %[[EQ]], %[[B]], %[[Z]]
func.func @max(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %r = mg.reduce %x {axis = 0 : i64, kind = "max"} : tensor<?x3xf64> -> tensor<1x3xf64>
  %e = mg.extract %r {indices = array<i64: 0, 1>} : tensor<1x3xf64> -> tensor<f64>
  %g = mg.grad %e wrt %x : tensor<f64>, tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %g : tensor<?x3xf64>
}
