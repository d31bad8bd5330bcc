// mg-autodiff of mg.matmul: g @ B^T for A, A^T @ g for B; in a batch, each matrix's transpose
// (the last two axes swapped).
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @matmul(
// CHECK:         mg.iota {axis = 1 : i64}
// CHECK:         %[[G:.*]] = mg.select {{.*}} -> tensor<2x4xf64>
// CHECK-NEXT:    %[[BT:.*]] = mg.transpose %b : tensor<3x4xf64> to tensor<4x3xf64>
// CHECK-NEXT:    %ga = mg.matmul %[[G]], %[[BT]] : tensor<2x4xf64>, tensor<4x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT:    %[[AT:.*]] = mg.transpose %a : tensor<2x3xf64> to tensor<3x2xf64>
// CHECK-NEXT:    %gb = mg.matmul %[[AT]], %[[G]] : tensor<3x2xf64>, tensor<2x4xf64> -> tensor<3x4xf64>
// CHECK-NEXT:    func.return %ga, %gb
func.func @matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> (tensor<2x3xf64>, tensor<3x4xf64>) {
  %c = mg.matmul %a, %b : tensor<2x3xf64>, tensor<3x4xf64> -> tensor<2x4xf64>
  %e = mg.extract %c {indices = array<i64: 1, 2>} : tensor<2x4xf64> -> tensor<f64>
  %ga, %gb = mg.grad %e wrt %a, %b : tensor<f64>, tensor<2x3xf64>, tensor<3x4xf64> -> tensor<2x3xf64>, tensor<3x4xf64>
  func.return %ga, %gb : tensor<2x3xf64>, tensor<3x4xf64>
}

// Only B's adjoint is wanted: no product is built for A.
// CHECK-LABEL: func.func @batched(
// CHECK:         mg.iota {axis = 2 : i64}
// CHECK:         %[[G:.*]] = mg.select {{.*}} -> tensor<5x2x4xf64>
// CHECK-NEXT:    %[[AT:.*]] = mg.transpose %a {permutation = array<i64: 0, 2, 1>} : tensor<5x2x3xf64> to tensor<5x3x2xf64>
// CHECK-NEXT:    %gb = mg.matmul %[[AT]], %[[G]] : tensor<5x3x2xf64>, tensor<5x2x4xf64> -> tensor<5x3x4xf64>
// CHECK-NEXT:    func.return %gb
func.func @batched(%a: tensor<5x2x3xf64>, %b: tensor<5x3x4xf64>) -> tensor<5x3x4xf64> {
  %c = mg.matmul %a, %b : tensor<5x2x3xf64>, tensor<5x3x4xf64> -> tensor<5x2x4xf64>
  %e = mg.extract %c {indices = array<i64: 0, 1, 2>} : tensor<5x2x4xf64> -> tensor<f64>
  %gb = mg.grad %e wrt %b : tensor<f64>, tensor<5x3x4xf64> -> tensor<5x3x4xf64>
  func.return %gb : tensor<5x3x4xf64>
}
