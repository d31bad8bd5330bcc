// A product of stacks of matrices: a linalg.generic over (batch, i, k, j), k the one
// reduction loop (j innermost: it reads rows); the batch sizes are checked against each other at run time where one is
// a '?'. (A product of two matrices stays linalg.matmul, for tile-matmul.)
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p convert-mg-to-linalg | mlir-opt-22 > /dev/null %}

func.func @f(%a: tensor<?x3x4xi32>, %b: tensor<2x4x5xi32>) -> tensor<2x3x5xi32> {
  %r = mg.matmul %a, %b : tensor<?x3x4xi32>, tensor<2x4x5xi32> -> tensor<2x3x5xi32>
  func.return %r : tensor<2x3x5xi32>
}
// CHECK:      cf.assert %{{.*}}, "mg.matmul: batch dimension 0 differs at runtime"
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<2x3x5xi32>
// CHECK:      linalg.fill
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT:   %[[P:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT:   %[[S:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT:   linalg.yield %[[S]] : i32
