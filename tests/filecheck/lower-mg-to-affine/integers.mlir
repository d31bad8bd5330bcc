// Integer tensors: the signed integer arith ops. Division truncates toward zero behind a
// run-time check that the divisor is not zero; MIN / -1 wraps to MIN (0 - MIN), and the
// divisor given to arith.divsi is 1 in both cases, so it is never undefined.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// Upstream accepts the result:
// RUN: %if mlir-opt %{ mg-opt %s -p lower-mg-to-affine | mlir-opt-22 > /dev/null %}

func.func @div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = mg.div %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}
// CHECK-LABEL: func.func @div
// CHECK:        %[[A:.*]] = affine.load %a
// CHECK-NEXT:   %[[B:.*]] = affine.load %b
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[MINUS_ONE:.*]] = arith.constant -1 : i32
// CHECK-NEXT:   %[[NONZERO:.*]] = arith.cmpi ne, %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:   cf.assert %[[NONZERO]], "mg.div: integer division by zero"
// CHECK-NEXT:   %[[NEGATE:.*]] = arith.cmpi eq, %[[B]], %[[MINUS_ONE]] : i32
// CHECK-NEXT:   %[[IS_ZERO:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:   %[[UNSAFE:.*]] = arith.ori %[[NEGATE]], %[[IS_ZERO]] : i1
// CHECK-NEXT:   %[[DIVISOR:.*]] = arith.select %[[UNSAFE]], %[[ONE]], %[[B]] : i32
// CHECK-NEXT:   %[[Q:.*]] = arith.divsi %[[A]], %[[DIVISOR]] : i32
// CHECK-NEXT:   %[[NEG:.*]] = arith.subi %[[ZERO]], %[[A]] : i32
// CHECK-NEXT:   %[[R:.*]] = arith.select %[[NEGATE]], %[[NEG]], %[[Q]] : i32
// CHECK-NEXT:   affine.store %[[R]], %{{.*}}

func.func @others(%a: tensor<2x2xi64>) -> tensor<2x1xi64> {
  %n = mg.neg %a : tensor<2x2xi64> -> tensor<2x2xi64>
  %r = mg.relu %n : tensor<2x2xi64> -> tensor<2x2xi64>
  %s = mg.scalar %r {op = "mul", value = 3 : i64, reversed = false} : tensor<2x2xi64> -> tensor<2x2xi64>
  %p = mg.matmul %s, %a : tensor<2x2xi64>, tensor<2x2xi64> -> tensor<2x2xi64>
  %m = mg.reduce %p {axis = 1 : i64, kind = "max"} : tensor<2x2xi64> -> tensor<2x1xi64>
  func.return %m : tensor<2x1xi64>
}
// CHECK-LABEL: func.func @others
// The negation is 0 - x (arith has no negi), relu is maxsi with 0.
// CHECK:        %[[Z:.*]] = arith.constant 0 : i64
// CHECK:        arith.subi %[[Z]], %{{.*}} : i64
// CHECK:        %[[Z2:.*]] = arith.constant 0 : i64
// CHECK:        arith.maxsi %{{.*}}, %[[Z2]] : i64
// CHECK:        %[[THREE:.*]] = arith.constant 3 : i64
// CHECK:        arith.muli %{{.*}}, %[[THREE]] : i64
// CHECK:        %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:        affine.store %[[ZERO]]
// CHECK:        %[[PRODUCT:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:        arith.addi %{{.*}}, %[[PRODUCT]] : i64
// The identity of max on integers is the type's minimum.
// CHECK:        arith.constant -9223372036854775808 : i64
// CHECK:        arith.maxsi %{{.*}}, %{{.*}} : i64
