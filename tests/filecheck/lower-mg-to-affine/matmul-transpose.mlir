// mg.matmul: zero-fill, then an i, j, k nest accumulating lhs[i, k] * rhs[k, j] into out[i, j].
// mg.transpose: out[i, j] = in[j, i].
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @mm(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %r = mg.matmul %a, %b : tensor<2x3xf64>, tensor<3x4xf64> -> tensor<2x4xf64>
  func.return %r : tensor<2x4xf64>
}
// CHECK-LABEL: func.func @mm(
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<2x4xf64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:      affine.store %[[ZERO]], %[[OUT]]
// CHECK:      affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:     affine.for %[[K:.*]] = 0 to 3 {
// CHECK-NEXT:       %[[X:.*]] = affine.load %a[%[[I]], %[[K]]] : memref<2x3xf64>
// CHECK-NEXT:       %[[Y:.*]] = affine.load %b[%[[K]], %[[J]]] : memref<3x4xf64>
// CHECK-NEXT:       %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f64
// CHECK-NEXT:       %[[ACC:.*]] = affine.load %[[OUT]][%[[I]], %[[J]]] : memref<2x4xf64>
// CHECK-NEXT:       %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT:       affine.store %[[S]], %[[OUT]][%[[I]], %[[J]]] : memref<2x4xf64>

func.func @tr(%a: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %r = mg.transpose %a : tensor<2x3xf64> to tensor<3x2xf64>
  func.return %r : tensor<3x2xf64>
}
// CHECK-LABEL: func.func @tr(
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<3x2xf64>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:     %[[X:.*]] = affine.load %a[%[[J]], %[[I]]] : memref<2x3xf64>
// CHECK-NEXT:     affine.store %[[X]], %[[OUT]][%[[I]], %[[J]]] : memref<3x2xf64>
