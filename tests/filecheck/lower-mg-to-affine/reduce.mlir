// mg.reduce: an init nest over the result (0.0 for sum, -inf for max), then an accumulate
// nest over the input that folds into [%i, %c0] (row reduction) or [%c0, %j] (column).
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @row_sum(%a: tensor<2x3xf64>) -> tensor<2x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
  func.return %r : tensor<2x1xf64>
}
// CHECK-LABEL: func.func @row_sum(%a: memref<2x3xf64>) -> memref<2x1xf64>
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<2x1xf64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: affine.for %[[I0:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J0:.*]] = 0 to 1 {
// CHECK-NEXT:     affine.store %[[ZERO]], %[[OUT]][%[[I0]], %[[J0]]] : memref<2x1xf64>
// CHECK:      affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[ACC:.*]] = affine.load %[[OUT]][%[[I]], %[[C0]]] : memref<2x1xf64>
// CHECK-NEXT:     %[[X:.*]] = affine.load %a[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK-NEXT:     %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:     affine.store %[[S]], %[[OUT]][%[[I]], %[[C0]]] : memref<2x1xf64>
// CHECK:      func.return %[[OUT]] : memref<2x1xf64>

func.func @col_max(%a: tensor<2x3xf64>) -> tensor<1x3xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "max"} : tensor<2x3xf64> -> tensor<1x3xf64>
  func.return %r : tensor<1x3xf64>
}
// CHECK-LABEL: func.func @col_max(%a: memref<2x3xf64>) -> memref<1x3xf64>
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<1x3xf64>
// CHECK-NEXT: %[[NEGINF:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT: affine.for %{{.*}} = 0 to 1 {
// CHECK-NEXT:   affine.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:     affine.store %[[NEGINF]], %[[OUT]]
// CHECK:      affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[ACC:.*]] = affine.load %[[OUT]][%[[C0]], %[[J]]] : memref<1x3xf64>
// CHECK-NEXT:     %[[X:.*]] = affine.load %a[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK-NEXT:     %[[M:.*]] = arith.maximumf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:     affine.store %[[M]], %[[OUT]][%[[C0]], %[[J]]] : memref<1x3xf64>
// CHECK-NOT:  mg.
