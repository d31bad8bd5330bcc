// mg-autodiff: a value used twice (by one op or by two) gets the sum of its uses' adjoints.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// w * w: g * w from each operand, added.
// CHECK-LABEL: func.func @square(
// CHECK:         %[[ONE:.*]] = mg.full_like %m {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[G1:.*]] = mg.mul %[[ONE]], %w
// CHECK-NEXT:    %[[G2:.*]] = mg.mul %[[ONE]], %w
// CHECK-NEXT:    %g = mg.add %[[G1]], %[[G2]]
// CHECK-NEXT:    func.return %g
func.func @square(%w: tensor<f64>) -> tensor<f64> {
  %m = mg.mul %w, %w : tensor<f64>, tensor<f64> -> tensor<f64>
  %g = mg.grad %m wrt %w : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// e = exp(w) read by a sin and a cos: e's adjoint is the sum, then exp's rule once.
// CHECK-LABEL: func.func @two_users(
// CHECK:         %[[ONE:.*]] = mg.full_like %s {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[GC:.*]] = mg.sin %e
// CHECK-NEXT:    %[[T:.*]] = mg.mul %[[ONE]], %[[GC]]
// CHECK-NEXT:    %[[FROM_COS:.*]] = mg.neg %[[T]]
// CHECK-NEXT:    %[[COS:.*]] = mg.cos %e
// CHECK-NEXT:    %[[FROM_SIN:.*]] = mg.mul %[[ONE]], %[[COS]]
// CHECK-NEXT:    %[[GE:.*]] = mg.add %[[FROM_COS]], %[[FROM_SIN]]
// CHECK-NEXT:    %g = mg.mul %[[GE]], %e
// CHECK-NEXT:    func.return %g
func.func @two_users(%w: tensor<f64>) -> tensor<f64> {
  %e = mg.exp %w : tensor<f64> -> tensor<f64>
  %a = mg.sin %e : tensor<f64> -> tensor<f64>
  %b = mg.cos %e : tensor<f64> -> tensor<f64>
  %s = mg.add %a, %b : tensor<f64>, tensor<f64> -> tensor<f64>
  %g = mg.grad %s wrt %w : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}
