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

// A dimension added in front that is a '?': its size is the like operand's, read at run
// time (memref.dim), and the input is read without it.
func.func @added_question_mark(%b: tensor<3xf64>, %x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %r = mg.broadcast %b like %x : tensor<3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %r : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @added_question_mark(
// CHECK:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[N:.*]] = memref.dim %x, %[[C0]] : memref<?x3xf64>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc(%[[N]]) : memref<?x3xf64>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to %[[N]] {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK:          %[[X:.*]] = affine.load %b[%[[J]]] : memref<3xf64>
// CHECK-NEXT:     affine.store %[[X]], %[[OUT]][%[[I]], %[[J]]] : memref<?x3xf64>
