// mg.elementwise (made by mg-fuse-elementwise-ops) is one nest: each input loaded at the
// result's indices (index 0 where it is broadcast), the body's ops, one store. The result
// goes into an input's buffer where that buffer dies here: relu(x @ w + b)'s bias and relu
// run in place in the matmul's result, with no allocation of their own.
// RUN: mg-opt %s -p mg-fuse-elementwise-ops,lower-mg-to-affine | filecheck %s

func.func @layer(%x: tensor<4x3xf64>, %w: tensor<3x5xf64>, %b: tensor<1x5xf64>) -> tensor<4x5xf64> {
  %0 = mg.matmul %x, %w : tensor<4x3xf64>, tensor<3x5xf64> -> tensor<4x5xf64>
  %1 = mg.broadcast %b : tensor<1x5xf64> -> tensor<4x5xf64>
  %2 = mg.add %0, %1 : tensor<4x5xf64>, tensor<4x5xf64> -> tensor<4x5xf64>
  %3 = mg.relu %2 : tensor<4x5xf64> -> tensor<4x5xf64>
  func.return %3 : tensor<4x5xf64>
}
// CHECK-LABEL: func.func @layer(
// The matmul's buffer, zero-filled and accumulated into.
// CHECK:       %[[C:.*]] = memref.alloc() : memref<4x5xf64>
// CHECK:       arith.mulf
// CHECK:       affine.store %{{.*}}, %[[C]]
// The epilogue: one nest, reading C and the bias row, writing C; no second buffer.
// CHECK-NOT:   memref.alloc
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 5 {
// CHECK-NEXT:      %[[E:.*]] = affine.load %[[C]][%[[I]], %[[J]]] : memref<4x5xf64>
// CHECK-NEXT:      %[[B:.*]] = affine.load %b[%[[C0]], %[[J]]] : memref<1x5xf64>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[E]], %[[B]] : f64
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[S]], %[[ZERO]] : f64
// CHECK-NEXT:      affine.store %[[R]], %[[C]][%[[I]], %[[J]]] : memref<4x5xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %[[C]] : memref<4x5xf64>

// A parameter is never overwritten: the result gets a buffer of its own.
func.func @param(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = mg.relu %a : tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %0 : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @param(
// CHECK:       %[[ROWS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:       %[[COLS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:       %[[OUT:.*]] = memref.alloc(%[[ROWS]], %[[COLS]]) : memref<?x?xf64>
// CHECK:       affine.for %{{.*}} = 0 to %[[ROWS]] {
// CHECK-NEXT:    affine.for %{{.*}} = 0 to %[[COLS]] {

// A buffer used again later is not overwritten either.
func.func @reused(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = mg.matmul %x, %x : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  %1 = mg.relu %0 : tensor<2x2xf64> -> tensor<2x2xf64>
  %2 = mg.matmul %1, %0 : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  func.return %2 : tensor<2x2xf64>
}
// CHECK-LABEL: func.func @reused(
// CHECK:       %[[M:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK:       arith.mulf
// CHECK:       %[[R:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:  affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[X:.*]] = affine.load %[[M]][%[[I]], %[[J]]] : memref<2x2xf64>
// CHECK-NEXT:      %[[Y:.*]] = arith.maximumf %[[X]], %[[Z]] : f64
// CHECK-NEXT:      affine.store %[[Y]], %[[R]][%[[I]], %[[J]]] : memref<2x2xf64>
