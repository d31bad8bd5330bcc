// With `?` sizes, each fused binary op's run-time check stays where the op was, as an
// mg.check_same_shape of the inputs whose sizes its operands have (the leftmost input of
// each operand's tree); lower-mg-to-affine makes the same cf.asserts as the unfused ops.
// RUN: mg-opt %s -p mg-fuse-elementwise-ops | filecheck %s
// RUN: mg-opt %s -p mg-fuse-elementwise-ops,lower-mg-to-affine | filecheck %s --check-prefix=LOWERED

func.func @dyn(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %d: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = mg.add %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %1 = mg.sub %c, %d : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %2 = mg.mul %0, %1 : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %2 : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @dyn(
// CHECK-NEXT:  mg.check_same_shape %a, %b {op = "mg.add"} : tensor<?x?xf64>, tensor<?x?xf64>
// CHECK-NEXT:  mg.check_same_shape %c, %d {op = "mg.sub"} : tensor<?x?xf64>, tensor<?x?xf64>
// CHECK-NEXT:  mg.check_same_shape %a, %c {op = "mg.mul"} : tensor<?x?xf64>, tensor<?x?xf64>
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
