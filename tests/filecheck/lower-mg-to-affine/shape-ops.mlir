// Shape operations, each a copy in the reference pipeline (the optimised one makes views:
// convert-mg-to-linalg/views.mlir): mg.transpose with a permutation stores
// in[i, k, j] at out[i, j, k]; mg.slice reads `start` further along its axis (a stop
// beyond a '?' size checked first); a general mg.reshape reads the input at the result's
// row-major position, its digits in the input's sizes.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @permuted(%x: tensor<2x3x4xf64>) -> tensor<2x4x3xf64> {
  %t = mg.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf64> to tensor<2x4x3xf64>
  func.return %t : tensor<2x4x3xf64>
}
// CHECK-LABEL: func.func @permuted(
// CHECK:       affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[K:.*]] = 0 to 3 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %x[%[[I]], %[[K]], %[[J]]] : memref<2x3x4xf64>
// CHECK-NEXT:        affine.store %[[V]], %{{.*}}[%[[I]], %[[J]], %[[K]]] : memref<2x4x3xf64>

func.func @sliced(%x: tensor<?x4xf64>) -> tensor<?x2xf64> {
  %s = mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<?x4xf64> to tensor<?x2xf64>
  %r = mg.slice %s {axis = 0 : i64, start = 0 : i64, stop = 5 : i64} : tensor<?x2xf64> to tensor<5x2xf64>
  %c = mg.cast %r : tensor<5x2xf64> to tensor<?x2xf64>
  func.return %c : tensor<?x2xf64>
}
// CHECK-LABEL: func.func @sliced(
// CHECK:       affine.for %[[I:.*]] = 0 to %{{.*}} {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[J1:.*]] = arith.addi %[[J]], %[[C1]] : index
// CHECK-NEXT:      %{{.*}} = memref.load %x[%[[I]], %[[J1]]] : memref<?x4xf64>
// CHECK:       %[[OK:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  cf.assert %[[OK]], "mg.slice: stop 5 is beyond the size of dimension 0"

func.func @reshaped(%x: tensor<3x4xf64>) -> tensor<2x6xf64> {
  %r = mg.reshape %x : tensor<3x4xf64> to tensor<2x6xf64>
  func.return %r : tensor<2x6xf64>
}
// CHECK-LABEL: func.func @reshaped(
// CHECK:       affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 6 {
// CHECK-NEXT:      %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I]], %[[C6]] : index
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:      %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[COL:.*]] = arith.remui %[[N]], %[[C4]] : index
// CHECK-NEXT:      %[[C4B:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[R:.*]] = arith.divui %[[N]], %[[C4B]] : index
// CHECK-NEXT:      %{{.*}} = memref.load %x[%[[R]], %[[COL]]] : memref<3x4xf64>

// mg.concat: one copying nest per input, the second's stored 2 further along the axis.
func.func @joined(%a: tensor<2x3xf64>, %b: tensor<1x3xf64>) -> tensor<3x3xf64> {
  %c = mg.concat %a, %b {axis = 0 : i64} : tensor<2x3xf64>, tensor<1x3xf64> -> tensor<3x3xf64>
  func.return %c : tensor<3x3xf64>
}
// CHECK-LABEL: func.func @joined(
// CHECK:       %[[OUT:.*]] = memref.alloc() : memref<3x3xf64>
// CHECK-NEXT:  affine.for %[[I:.*]] = 0 to 2 {
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK:       affine.for %[[K:.*]] = 0 to 1 {
// CHECK-NEXT:    affine.for %[[L:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[K2:.*]] = arith.addi %[[K]], %[[C2]] : index
// CHECK-NEXT:      %[[X:.*]] = affine.load %b[%[[K]], %[[L]]] : memref<1x3xf64>
// CHECK-NEXT:      memref.store %[[X]], %[[OUT]][%[[K2]], %[[L]]] : memref<3x3xf64>
