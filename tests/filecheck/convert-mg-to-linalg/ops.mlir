// convert-mg-to-linalg: each mg op becomes a buffer (memref.alloc) and the upstream linalg
// op that fills it; mlir-opt-22 verifies the result.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p convert-mg-to-linalg | mlir-opt-22 > /dev/null %}

// Elementwise ops: identity maps, all loops parallel, the op's scalar computation as body
// (relu's 0.0 made in the body).
func.func @elementwise(%a: tensor<4x3xf64>, %b: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0 = mg.sub %a, %b : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
  %1 = mg.relu %0 : tensor<4x3xf64> -> tensor<4x3xf64>
  %2 = mg.scalar %1 {op = "div", value = 2.0 : f64, reversed = true} : tensor<4x3xf64> -> tensor<4x3xf64>
  func.return %2 : tensor<4x3xf64>
}
// CHECK-LABEL: func.func @elementwise(%a: memref<4x3xf64>, %b: memref<4x3xf64>) -> memref<4x3xf64> {
// CHECK-NEXT:    %[[S:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<4x3xf64>, memref<4x3xf64>) outs(%[[S]] : memref<4x3xf64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X]], %[[Y]] : f64
// CHECK-NEXT:      linalg.yield %[[D]] : f64
// CHECK:         %[[R:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[S]] : memref<4x3xf64>) outs(%[[R]] : memref<4x3xf64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %{{.*}} = arith.maximumf %[[X]], %[[Z]] : f64
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : memref<4x3xf64>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:      %{{.*}} = arith.divf %[[TWO]], %[[X]] : f64

// A broadcast reads index 0 where its input has size 1 and the result does not.
func.func @broadcast(%v: tensor<4x1xf64>) -> tensor<4x3xf64> {
  %0 = mg.broadcast %v : tensor<4x1xf64> -> tensor<4x3xf64>
  func.return %0 : tensor<4x3xf64>
}
// CHECK-LABEL: func.func @broadcast(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v : memref<4x1xf64>)

// A reduction: a fill with the identity, then a generic whose output map drops the
// reduced loop, that loop a reduction, the body the combining op (running value first).
func.func @reduce(%a: tensor<?x?xf64>) -> (tensor<?x1xf64>, tensor<1x?xf64>) {
  %0 = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  %1 = mg.reduce %a {axis = 0 : i64, kind = "max"} : tensor<?x?xf64> -> tensor<1x?xf64>
  func.return %0, %1 : tensor<?x1xf64>, tensor<1x?xf64>
}
// CHECK-LABEL: func.func @reduce(
// CHECK:         %[[R:.*]] = memref.alloc(%{{.*}}) : memref<?x1xf64>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : f64) outs(%[[R]] : memref<?x1xf64>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<?x?xf64>) outs(%[[R]] : memref<?x1xf64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         %[[C:.*]] = memref.alloc(%{{.*}}) : memref<1x?xf64>
// CHECK-NEXT:    %[[NEG:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT:    linalg.fill ins(%[[NEG]] : f64) outs(%[[C]] : memref<1x?xf64>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK:           arith.maximumf

// A matrix product: its run-time check, a zero fill, linalg.matmul. A transpose: a view
// (views.mlir), which the return copies into a buffer of its own.
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = mg.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = mg.transpose %0 : tensor<?x?xf32> to tensor<?x?xf32>
  func.return %1 : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @matmul(
// CHECK:         cf.assert %{{.*}}, "mg.matmul: inner dimensions differ at runtime (columns of the left operand, rows of the right)"
// CHECK-NEXT:    %[[C:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : f32) outs(%[[C]] : memref<?x?xf32>)
// CHECK-NEXT:    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%[[C]] : memref<?x?xf32>)
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[C]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [1, %{{.*}}] : memref<?x?xf32> to memref<?x?xf32, strided<[1, ?]>>
// CHECK:         %[[T:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[V]] : memref<?x?xf32, strided<[1, ?]>>) outs(%[[T]] : memref<?x?xf32>)
// CHECK:         func.return %[[T]] : memref<?x?xf32>

// ? sizes: the checks of lower-mg-to-affine, with its messages, before the op.
func.func @checked(%a: tensor<?x3xf64>, %b: tensor<2x?xf64>) -> tensor<2x3xf64> {
  %0 = mg.add %a, %b : tensor<?x3xf64>, tensor<2x?xf64> -> tensor<2x3xf64>
  func.return %0 : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @checked(
// CHECK:         cf.assert %{{.*}}, "mg.add: operand shapes differ at runtime in dimension 0"
// CHECK:         cf.assert %{{.*}}, "mg.add: operand shapes differ at runtime in dimension 1"
// CHECK-NEXT:    memref.alloc() : memref<2x3xf64>
// CHECK-NEXT:    linalg.generic

// A buffer's sizes are those it was allocated with and an operand's ? sizes are read once,
// so (a - a) - a compares no size with itself: no check at all.
func.func @same_sizes(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = mg.sub %a, %a : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %1 = mg.sub %0, %a : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %1 : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @same_sizes(
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[M:.*]] = memref.dim %a, %[[C0]] : memref<?x?xf64>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[N:.*]] = memref.dim %a, %[[C1]] : memref<?x?xf64>
// CHECK-NEXT:    %[[T:.*]] = memref.alloc(%[[M]], %[[N]]) : memref<?x?xf64>
// CHECK-NEXT:    linalg.generic
// CHECK-NOT:     cf.assert
// CHECK:         memref.alloc(%[[M]], %[[N]]) : memref<?x?xf64>
// CHECK-NOT:     cf.assert
// CHECK:         func.return
