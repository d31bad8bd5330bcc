// convert-mg-to-linalg makes slice, transpose and reshape views: no buffer and no copy, the
// next op reads through the view's strided layout. A view is copied (a copying generic
// into a buffer of identity layout) only where it is returned, and a view of a var's buffer
// (updated in place later) is no view at all. mlir-opt-22 verifies the result.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p convert-mg-to-linalg | mlir-opt-22 > /dev/null %}

// A view that is not copied: a slice of a transpose of a reshape, read by one generic.
func.func @not_copied(%x: tensor<2x6xf64>) -> tensor<2x3xf64> {
  %r = mg.reshape %x : tensor<2x6xf64> to tensor<3x4xf64>
  %t = mg.transpose %r {permutation = array<i64: 1, 0>} : tensor<3x4xf64> to tensor<4x3xf64>
  %s = mg.slice %t {axis = 0 : i64, start = 1 : i64, stop = 3 : i64} : tensor<4x3xf64> to tensor<2x3xf64>
  %n = mg.neg %s : tensor<2x3xf64> -> tensor<2x3xf64>
  func.return %n : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @not_copied(%x: memref<2x6xf64>) -> memref<2x3xf64> {
// CHECK-NEXT:    %[[R:.*]] = memref.reinterpret_cast %x to offset: [0], sizes: [3, 4], strides: [4, 1] : memref<2x6xf64> to memref<3x4xf64>
// CHECK-NEXT:    %[[T:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [4, 3], strides: [1, 4] : memref<3x4xf64> to memref<4x3xf64, strided<[1, 4]>>
// CHECK-NEXT:    %[[S:.*]] = memref.subview %[[T]][1, 0] [2, 3] [1, 1] : memref<4x3xf64, strided<[1, 4]>> to memref<2x3xf64, strided<[1, 4], offset: 1>>
// CHECK-NEXT:    %[[N:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[S]] : memref<2x3xf64, strided<[1, 4], offset: 1>>) outs(%[[N]] : memref<2x3xf64>) {
// CHECK:         func.return %[[N]] : memref<2x3xf64>

// A slice of '?' sizes: the run-time check of its stop, then a view whose strides and
// offset are '?' where the source's are; returned, it is copied into a buffer of its own.
func.func @returned(%x: tensor<?x?xf64>) -> tensor<?x2xf64> {
  %s = mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<?x?xf64> to tensor<?x2xf64>
  func.return %s : tensor<?x2xf64>
}
// CHECK-LABEL: func.func @returned(%x: memref<?x?xf64>) -> memref<?x2xf64> {
// CHECK:         cf.assert %{{.*}}, "mg.slice: stop 3 is beyond the size of dimension 1"
// CHECK:         %[[S:.*]] = memref.subview %x[0, 1] [%{{.*}}, 2] [1, 1] : memref<?x?xf64> to memref<?x2xf64, strided<[?, 1], offset: 1>>
// CHECK:         %[[C:.*]] = memref.alloc(%{{.*}}) : memref<?x2xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[S]] : memref<?x2xf64, strided<[?, 1], offset: 1>>) outs(%[[C]] : memref<?x2xf64>) {
// CHECK-NEXT:    ^bb0(%[[E:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      linalg.yield %[[E]] : f64
// CHECK:         func.return %[[C]] : memref<?x2xf64>

// A var's buffer, updated in place after the slice: the slice copies (the old values).
func.func @main() {
  %w = mg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %v = mg.convert %w : tensor<3xf64> to tensor<3xf64>
  %s = mg.slice %v {axis = 0 : i64, start = 0 : i64, stop = 2 : i64} : tensor<3xf64> to tensor<2xf64>
  %u = mg.scalar %v {op = "add", value = 1.0 : f64, reversed = false, mg.in_place} : tensor<3xf64> -> tensor<3xf64>
  mg.print %s : tensor<2xf64>
  func.return
}
// CHECK-LABEL: func.func @main() {
// CHECK-NOT:     memref.subview
// CHECK:         affine.for
// CHECK-NOT:     memref.subview
// CHECK:         func.return

// A transpose of '?' sizes of a contiguous buffer: a view too, its strides the products of
// the sizes to their right (one arith.muli each), computed when the program runs.
func.func @transpose_of_question_marks(%x: tensor<?x3x?xf64>) -> tensor<?x?x3xf64> {
  %t = mg.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<?x3x?xf64> to tensor<?x?x3xf64>
  %n = mg.neg %t : tensor<?x?x3xf64> -> tensor<?x?x3xf64>
  func.return %n : tensor<?x?x3xf64>
}
// CHECK-LABEL: func.func @transpose_of_question_marks(%x: memref<?x3x?xf64>) -> memref<?x?x3xf64> {
// CHECK-DAG:     %[[D0:.*]] = memref.dim %x, %{{.*}} : memref<?x3x?xf64>
// CHECK-DAG:     %[[D2:.*]] = memref.dim %x, %{{.*}} : memref<?x3x?xf64>
// CHECK:         %[[S0:.*]] = arith.muli %[[D2]], %{{.*}} : index
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[T:.*]] = memref.reinterpret_cast %x to offset: [0], sizes: [%[[D2]], %[[D0]], 3], strides: [1, %[[S0]], %[[D2]]] : memref<?x3x?xf64> to memref<?x?x3xf64, strided<[1, ?, ?]>>
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<?x?x3xf64, strided<[1, ?, ?]>>)

// A view whose reader is dead: the walker's dead-code elimination erases the reader and
// then the view; nothing is left to copy (this once failed an assertion).
func.func @dead_reader(%x: tensor<2x3xf64>) {
  %t = mg.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf64> to tensor<3x2xf64>
  %n = mg.neg %t : tensor<3x2xf64> -> tensor<3x2xf64>
  func.return
}
// CHECK-LABEL: func.func @dead_reader(%x: memref<2x3xf64>) {
// CHECK-NEXT:    func.return
