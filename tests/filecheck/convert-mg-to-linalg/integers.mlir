// Integer ops in linalg.generic bodies: the same scalar computation as lower-mg-to-affine's
// (mg.ScalarComputation), so the division's zero check is in the body, and fusion and the
// loops carry it along.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p convert-mg-to-linalg | mlir-opt-22 > /dev/null %}

func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xf64> {
  %q = mg.div %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %r = mg.convert %q : tensor<4xi32> to tensor<4xf64>
  func.return %r : tensor<4xf64>
}
// CHECK:      linalg.generic
// CHECK-SAME:   ins(%a, %b : memref<4xi32>, memref<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK:        cf.assert %{{.*}}, "mg.div: integer division by zero"
// CHECK:        %[[Q:.*]] = arith.divsi %[[X]], %{{.*}} : i32
// CHECK:        linalg.yield %{{.*}} : i32
// CHECK:      linalg.generic
// CHECK-NEXT: ^bb0(%[[I:.*]]: i32, %{{.*}}: f64):
// CHECK-NEXT:   %[[F:.*]] = arith.sitofp %[[I]] : i32 to f64
// CHECK-NEXT:   linalg.yield %[[F]] : f64
