// mg.linear_scan: a loop over the other dimensions around an scf.for along the axis that
// carries h from 0: h = a[t] * h + b[t], stored at t. Reversed, t = n - 1 - k.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @rows(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %h = mg.linear_scan %a, %b {axis = 1 : i64, reverse = true} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  func.return %h : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @rows(
// CHECK:       %[[OUT:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK:       affine.for %[[I:.*]] = 0 to 2 {
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %{{.*}} = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %[[ZERO]]) -> (f64) {
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.subi %{{.*}}, %[[C1]] : index
// CHECK-NEXT:      %[[T:.*]] = arith.subi %[[LAST]], %[[K]] : index
// CHECK-NEXT:      %[[A:.*]] = memref.load %a[%[[I]], %[[T]]] : memref<2x3xf64>
// CHECK-NEXT:      %[[B:.*]] = memref.load %b[%[[I]], %[[T]]] : memref<2x3xf64>
// CHECK-NEXT:      %[[AH:.*]] = arith.mulf %[[A]], %[[H]] : f64
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[AH]], %[[B]] : f64
// CHECK-NEXT:      memref.store %[[NEW]], %[[OUT]][%[[I]], %[[T]]] : memref<2x3xf64>
// CHECK-NEXT:      scf.yield %[[NEW]] : f64
