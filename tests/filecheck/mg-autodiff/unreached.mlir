// mg-autodiff: a variable that no differentiated op reads (only a comparison, an argmax or an
// integer op reads it: constants to differentiation) gets zeros of its type.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @unreached(
// CHECK:         %[[ONE:.*]] = mg.full_like %s {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[ONE]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %gw = mg.select %k, %[[ONE]], %[[Z]]
// CHECK-NEXT:    %gv = mg.full_like %v {value = 0.000000e+00 : f64} : tensor<f64> -> tensor<f64>
// CHECK-NEXT:    func.return %gw, %gv
func.func @unreached(%w: tensor<f64>, %v: tensor<f64>, %z: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %k = mg.compare %v, %w {predicate = "lt"} : tensor<f64>, tensor<f64> -> tensor<i1>
  %s = mg.select %k, %w, %z : tensor<i1>, tensor<f64>, tensor<f64> -> tensor<f64>
  %gw, %gv = mg.grad %s wrt %w, %v : tensor<f64>, tensor<f64>, tensor<f64> -> tensor<f64>, tensor<f64>
  func.return %gw, %gv : tensor<f64>, tensor<f64>
}
