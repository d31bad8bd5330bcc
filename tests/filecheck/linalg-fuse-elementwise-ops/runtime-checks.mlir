// With ? sizes, each elementwise op's run-time check is made by convert-mg-to-linalg before
// the op, from its operands' buffers; fusion removes buffers, never checks. A check that
// read the size of a buffer fused away reads its allocation's size instead.
// RUN: mg-opt %s -p convert-mg-to-linalg,linalg-fuse-elementwise-ops | filecheck %s

func.func @dyn(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %d: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %0 = mg.add %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %1 = mg.sub %c, %d : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %2 = mg.mul %0, %1 : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %2 : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @dyn(
// CHECK:       %[[A0:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:       %[[A1:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:       cf.assert %{{.*}}, "mg.add: operand shapes differ at runtime in dimension 0"
// CHECK:       cf.assert %{{.*}}, "mg.add: operand shapes differ at runtime in dimension 1"
// CHECK:       %[[C0:.*]] = memref.dim %c, %{{.*}} : memref<?x?xf64>
// CHECK:       %[[C1:.*]] = memref.dim %c, %{{.*}} : memref<?x?xf64>
// CHECK:       cf.assert %{{.*}}, "mg.sub: operand shapes differ at runtime in dimension 0"
// CHECK:       cf.assert %{{.*}}, "mg.sub: operand shapes differ at runtime in dimension 1"
// The product's check compares the sizes of the sum's and the difference's buffers, which
// are gone: the sizes they were allocated with (a's and c's).
// CHECK:       %[[SAME0:.*]] = arith.cmpi eq, %[[A0]], %[[C0]] : index
// CHECK-NEXT:  cf.assert %[[SAME0]], "mg.mul: operand shapes differ at runtime in dimension 0"
// CHECK-NEXT:  %[[SAME1:.*]] = arith.cmpi eq, %[[A1]], %[[C1]] : index
// CHECK-NEXT:  cf.assert %[[SAME1]], "mg.mul: operand shapes differ at runtime in dimension 1"
// CHECK-NEXT:  %[[R:.*]] = memref.alloc(%[[A0]], %[[A1]]) : memref<?x?xf64>
// CHECK-NEXT:  linalg.generic {{.*}} ins(%a, %b, %c, %d : memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>) outs(%[[R]] : memref<?x?xf64>)
// CHECK-NOT:   linalg.generic
// CHECK:       func.return %[[R]]

// A broadcast leaf: the right operand of mg.sub is the 1x3 sum of a broadcast 1x1 and a
// 1x3. The check compares %x's sizes with that operand's static 1x3, never with the 1x1
// (which, read as the operand's size, would make a correct program abort).
func.func @broadcast_leaf(%x: tensor<?x?xf64>, %c: tensor<1x1xf64>, %r: tensor<1x3xf64>) -> tensor<?x3xf64> {
  %0 = mg.broadcast %c : tensor<1x1xf64> -> tensor<1x3xf64>
  %1 = mg.add %0, %r : tensor<1x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
  %2 = mg.sub %x, %1 : tensor<?x?xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
  %3 = mg.cast %2 : tensor<1x3xf64> to tensor<?x3xf64>
  func.return %3 : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @broadcast_leaf(
// CHECK:       %[[ROWS:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf64>
// CHECK:       %[[COLS:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf64>
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %[[SAME0:.*]] = arith.cmpi eq, %[[ROWS]], %[[ONE]] : index
// CHECK-NEXT:  cf.assert %[[SAME0]], "mg.sub: operand shapes differ at runtime in dimension 0"
// CHECK-NEXT:  %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:  %[[SAME1:.*]] = arith.cmpi eq, %[[COLS]], %[[THREE]] : index
// CHECK-NEXT:  cf.assert %[[SAME1]], "mg.sub: operand shapes differ at runtime in dimension 1"
// One generic computes the whole tree, reading %c at [i, 0] (i is 0: the result has one row).
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %c, %r : memref<?x?xf64>, memref<1x1xf64>, memref<1x3xf64>)
// CHECK-NOT:   linalg.generic
