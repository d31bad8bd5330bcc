// mg-fuse-elementwise-ops: every tree of elementwise ops becomes one mg.elementwise whose
// body computes one element; broadcasts become inputs read in place; a value with two uses
// stays a value of its own.
// RUN: mg-opt %s -p mg-fuse-elementwise-ops | filecheck %s

// relu(x @ w + b): the matmul stays, the bias (broadcast) and relu fuse into one op.
func.func @layer(%x: tensor<4x3xf64>, %w: tensor<3x5xf64>, %b: tensor<1x5xf64>) -> tensor<4x5xf64> {
  %0 = mg.matmul %x, %w : tensor<4x3xf64>, tensor<3x5xf64> -> tensor<4x5xf64>
  %1 = mg.broadcast %b : tensor<1x5xf64> -> tensor<4x5xf64>
  %2 = mg.add %0, %1 : tensor<4x5xf64>, tensor<4x5xf64> -> tensor<4x5xf64>
  %3 = mg.relu %2 : tensor<4x5xf64> -> tensor<4x5xf64>
  func.return %3 : tensor<4x5xf64>
}
// CHECK-LABEL: func.func @layer(
// CHECK-NEXT:  %[[M:.*]] = mg.matmul %x, %w
// CHECK-NEXT:  %[[R:.*]] = mg.elementwise %[[M]], %b : tensor<4x5xf64>, tensor<1x5xf64> -> tensor<4x5xf64> {
// CHECK-NEXT:  ^bb0(%[[E:.*]]: f64, %[[B:.*]]: f64):
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[E]], %[[B]] : f64
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[Y:.*]] = arith.maximumf %[[S]], %[[Z]] : f64
// CHECK-NEXT:    mg.yield %[[Y]] : f64
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %[[R]]
// CHECK-NOT:   mg.broadcast
// CHECK-NOT:   mg.add
// CHECK-NOT:   mg.relu

// Scalars keep their operand order; an input used twice is passed once.
func.func @scalars(%a: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = mg.scalar %a {op = "sub", value = 2.0 : f64, reversed = true} : tensor<2x2xf64> -> tensor<2x2xf64>
  %1 = mg.mul %0, %a : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  %2 = mg.neg %1 : tensor<2x2xf64> -> tensor<2x2xf64>
  func.return %2 : tensor<2x2xf64>
}
// CHECK-LABEL: func.func @scalars(
// CHECK-NEXT:  mg.elementwise %a : tensor<2x2xf64> -> tensor<2x2xf64> {
// CHECK-NEXT:  ^bb0(%[[A:.*]]: f64):
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %[[D:.*]] = arith.subf %[[TWO]], %[[A]] : f64
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[D]], %[[A]] : f64
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[P]] : f64
// CHECK-NEXT:    mg.yield %[[N]] : f64

// A value used twice is computed once, by a fused op of its own.
func.func @shared(%a: tensor<2x2xf64>, %b: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = mg.add %a, %b : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  %1 = mg.relu %0 : tensor<2x2xf64> -> tensor<2x2xf64>
  %2 = mg.mul %1, %0 : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  func.return %2 : tensor<2x2xf64>
}
// CHECK-LABEL: func.func @shared(
// CHECK-NEXT:  %[[SUM:.*]] = mg.elementwise %a, %b : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64> {
// CHECK:         arith.addf
// CHECK:       mg.elementwise %[[SUM]] : tensor<2x2xf64> -> tensor<2x2xf64> {
// CHECK-NEXT:  ^bb0(%[[S:.*]]: f64):
// CHECK:         %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : f64
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[R]], %[[S]] : f64

// Other ops are not fused: a reduction reads a fused op's result.
func.func @reduce(%a: tensor<2x3xf64>) -> tensor<2x1xf64> {
  %0 = mg.relu %a : tensor<2x3xf64> -> tensor<2x3xf64>
  %1 = mg.reduce %0 {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
  func.return %1 : tensor<2x1xf64>
}
// CHECK-LABEL: func.func @reduce(
// CHECK-NEXT:  %[[R:.*]] = mg.elementwise %a
// CHECK:       mg.reduce %[[R]]
