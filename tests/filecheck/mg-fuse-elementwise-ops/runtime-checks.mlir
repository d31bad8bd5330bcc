// With `?` sizes, each fused binary op's run-time check stays where the op was, as an
// mg.check_same_shape of its operands' types, with each `?` size read from an input that has
// it (the leftmost input of each operand's tree); lower-mg-to-affine makes the same
// cf.asserts as the unfused ops.
// RUN: mg-opt %s -p mg-fuse-elementwise-ops | filecheck %s
// RUN: mg-opt %s -p mg-fuse-elementwise-ops,lower-mg-to-affine | filecheck %s --check-prefix=LOWERED

func.func @dyn(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %d: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = mg.add %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %1 = mg.sub %c, %d : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %2 = mg.mul %0, %1 : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %2 : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @dyn(
// CHECK-NEXT:  mg.check_same_shape %a, %b as tensor<?x?xf64>, tensor<?x?xf64> {op = "mg.add"} : tensor<?x?xf64>, tensor<?x?xf64>
// CHECK-NEXT:  mg.check_same_shape %c, %d as tensor<?x?xf64>, tensor<?x?xf64> {op = "mg.sub"} : tensor<?x?xf64>, tensor<?x?xf64>
// CHECK-NEXT:  mg.check_same_shape %a, %c as tensor<?x?xf64>, tensor<?x?xf64> {op = "mg.mul"} : tensor<?x?xf64>, tensor<?x?xf64>
// CHECK-NEXT:  mg.elementwise %a, %b, %c, %d

// LOWERED-LABEL: func.func @dyn(
// LOWERED:       cf.assert %{{.*}}, "mg.add: operand shapes differ at runtime in dimension 0"
// LOWERED:       cf.assert %{{.*}}, "mg.add: operand shapes differ at runtime in dimension 1"
// LOWERED:       cf.assert %{{.*}}, "mg.sub: operand shapes differ at runtime in dimension 0"
// LOWERED:       cf.assert %{{.*}}, "mg.sub: operand shapes differ at runtime in dimension 1"
// LOWERED:       cf.assert %{{.*}}, "mg.mul: operand shapes differ at runtime in dimension 0"
// LOWERED:       cf.assert %{{.*}}, "mg.mul: operand shapes differ at runtime in dimension 1"
// LOWERED:       memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// LOWERED:       affine.for
// LOWERED-NOT:   cf.assert

// Static shapes need no check.
func.func @static(%a: tensor<2x2xf64>, %b: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = mg.add %a, %b : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  func.return %0 : tensor<2x2xf64>
}
// CHECK-LABEL: func.func @static(
// CHECK-NOT:   mg.check_same_shape
// CHECK:       mg.elementwise

// A broadcast leaf: the right operand of mg.sub is 1x3 although its leftmost input is the
// 1x1 %c. The check compares %x's sizes with the static 1x3 of the operand, never with the
// 1x1 input (which made a correct program abort).
func.func @broadcast_leaf(%x: tensor<?x?xf64>, %c: tensor<1x1xf64>, %r: tensor<1x3xf64>) -> tensor<?x3xf64> {
  %0 = mg.broadcast %c : tensor<1x1xf64> -> tensor<1x3xf64>
  %1 = mg.add %0, %r : tensor<1x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
  %2 = mg.sub %x, %1 : tensor<?x?xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
  %3 = mg.cast %2 : tensor<1x3xf64> to tensor<?x3xf64>
  func.return %3 : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @broadcast_leaf(
// CHECK-NEXT:  mg.check_same_shape %x, %c as tensor<?x?xf64>, tensor<1x3xf64> {op = "mg.sub"} : tensor<?x?xf64>, tensor<1x1xf64>

// LOWERED-LABEL: func.func @broadcast_leaf(
// LOWERED:       %[[ROWS:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf64>
// LOWERED:       %[[COLS:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf64>
// LOWERED-NEXT:  %[[ONE:.*]] = arith.constant 1 : index
// LOWERED-NEXT:  %[[SAME0:.*]] = arith.cmpi eq, %[[ROWS]], %[[ONE]] : index
// LOWERED-NEXT:  cf.assert %[[SAME0]], "mg.sub: operand shapes differ at runtime in dimension 0"
// LOWERED-NEXT:  %[[THREE:.*]] = arith.constant 3 : index
// LOWERED-NEXT:  %[[SAME1:.*]] = arith.cmpi eq, %[[COLS]], %[[THREE]] : index
// LOWERED-NEXT:  cf.assert %[[SAME1]], "mg.sub: operand shapes differ at runtime in dimension 1"
