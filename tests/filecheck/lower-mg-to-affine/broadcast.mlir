// mg.broadcast walks the result and reads the input with index 0 in each size-1 dimension.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @row(%b: tensor<1x3xf64>) -> tensor<2x3xf64> {
  %r = mg.broadcast %b : tensor<1x3xf64> -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @row(%b: memref<1x3xf64>) -> memref<2x3xf64>
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[X:.*]] = affine.load %b[%[[C0]], %[[J]]] : memref<1x3xf64>
// CHECK-NEXT:     affine.store %[[X]], %[[OUT]][%[[I]], %[[J]]] : memref<2x3xf64>

func.func @column(%b: tensor<2x1xf64>) -> tensor<2x3xf64> {
  %r = mg.broadcast %b : tensor<2x1xf64> -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @column(
// CHECK:      affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %{{.*}} = affine.load %b[%[[I]], %[[C0]]] : memref<2x1xf64>

func.func @both(%b: tensor<1x1xf64>) -> tensor<2x3xf64> {
  %r = mg.broadcast %b : tensor<1x1xf64> -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @both(
// CHECK:          %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %{{.*}} = affine.load %b[%[[C0]], %[[C0]]] : memref<1x1xf64>
