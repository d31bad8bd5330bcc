// Elementwise ops: one nest over the result, loads at [%i, %j], one arith op, one store.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @ops(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %a = mg.add %x, %y : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %s = mg.sub %a, %y : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %m = mg.mul %s, %y : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %d = mg.div %m, %y : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %n = mg.neg %d : tensor<2x3xf64> -> tensor<2x3xf64>
  %r = mg.relu %n : tensor<2x3xf64> -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @ops(%x: memref<2x3xf64>, %y: memref<2x3xf64>) -> memref<2x3xf64>
// CHECK:      %[[ADD:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:     %[[A:.*]] = affine.load %x[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK-NEXT:     %[[B:.*]] = affine.load %y[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK-NEXT:     %[[R:.*]] = arith.addf %[[A]], %[[B]] : f64
// CHECK-NEXT:     affine.store %[[R]], %[[ADD]][%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK:      arith.subf
// CHECK:      arith.mulf
// CHECK:      arith.divf
// CHECK:      arith.negf
// relu is a NaN-propagating maximum with 0.0, the constant made once outside the nest:
// CHECK:      %[[RELU:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: affine.for
// CHECK-NEXT:   affine.for
// CHECK-NEXT:     %[[X:.*]] = affine.load
// CHECK-NEXT:     %[[M:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f64
// CHECK-NEXT:     affine.store %[[M]], %[[RELU]]
// CHECK:      func.return %[[RELU]] : memref<2x3xf64>
// CHECK-NOT:  mg.
