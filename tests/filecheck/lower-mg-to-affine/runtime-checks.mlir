// Where a size is '?' on either side, the lowering compares sizes at run time (cf.assert
// with the message the program stops with); where both are static there is no check.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @dyn_add(%a: tensor<?x3xf64>, %b: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %r = mg.add %a, %b : tensor<?x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
  func.return %r : tensor<1x3xf64>
}
// CHECK-LABEL: func.func @dyn_add(
// CHECK:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ROWS:.*]] = memref.dim %a, %[[C0]] : memref<?x3xf64>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[SAME:.*]] = arith.cmpi eq, %[[ROWS]], %[[ONE]] : index
// CHECK-NEXT: cf.assert %[[SAME]], "mg.add: operand shapes differ at runtime in dimension 0"
// CHECK-NOT:  cf.assert
// CHECK:      memref.alloc() : memref<1x3xf64>

func.func @both_dynamic(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = mg.mul %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @both_dynamic(
// CHECK-DAG:  %[[A0:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK-DAG:  %[[B0:.*]] = memref.dim %b, %{{.*}} : memref<?x?xf64>
// CHECK:      cf.assert %{{.*}}, "mg.mul: operand shapes differ at runtime in dimension 0"
// CHECK:      cf.assert %{{.*}}, "mg.mul: operand shapes differ at runtime in dimension 1"
// The result takes its run-time sizes from the left operand; the loops run to them.
// CHECK:      %[[OUT:.*]] = memref.alloc(%[[A0]], %{{.*}}) : memref<?x?xf64>
// CHECK-NEXT: affine.for %{{.*}} = 0 to %[[A0]] {

func.func @dyn_matmul(%a: tensor<2x?xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %r = mg.matmul %a, %b : tensor<2x?xf64>, tensor<3x4xf64> -> tensor<2x4xf64>
  func.return %r : tensor<2x4xf64>
}
// CHECK-LABEL: func.func @dyn_matmul(
// CHECK:      %[[K:.*]] = memref.dim %a, %{{.*}} : memref<2x?xf64>
// CHECK-NEXT: %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[K]], %[[THREE]] : index
// CHECK-NEXT: cf.assert %[[OK]], "mg.matmul: inner dimensions differ at runtime (columns of the left operand, rows of the right)"

func.func @forget(%a: tensor<2x3xf64>) -> tensor<?x?xf64> {
  %forget = mg.cast %a : tensor<2x3xf64> to tensor<?x?xf64>
  func.return %forget : tensor<?x?xf64>
}
// Forgetting sizes needs no check.
// CHECK-LABEL: func.func @forget(
// CHECK-NEXT: %{{.*}} = "memref.cast"(%a) : (memref<2x3xf64>) -> memref<?x?xf64>
// CHECK-NEXT: func.return

func.func @claim(%d: tensor<?x3xf64>) -> tensor<2x3xf64> {
  %claim = mg.cast %d : tensor<?x3xf64> to tensor<2x3xf64>
  func.return %claim : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @claim(
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[N:.*]] = memref.dim %d, %[[C0]] : memref<?x3xf64>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[N]], %[[TWO]] : index
// CHECK-NEXT: cf.assert %[[OK]], "mg.cast: dimension 0 differs at runtime from the static size 2"
// CHECK-NEXT: %{{.*}} = "memref.cast"(%d) : (memref<?x3xf64>) -> memref<2x3xf64>

// A cast the front end made carries each dimension's message, in the program's terms.
func.func @claim_for_a_call(%d: tensor<?x?xf64>) -> tensor<2x3xf64> {
  %claim = mg.cast %d {mg.check_messages = ["argument 1 of f (x) must be tensor[2x3]: its size in dimension 0 differs at runtime", "argument 1 of f (x) must be tensor[2x3]: its size in dimension 1 differs at runtime"]} : tensor<?x?xf64> to tensor<2x3xf64>
  func.return %claim : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @claim_for_a_call(
// CHECK:      cf.assert %{{.*}}, "argument 1 of f (x) must be tensor[2x3]: its size in dimension 0 differs at runtime"
// CHECK:      cf.assert %{{.*}}, "argument 1 of f (x) must be tensor[2x3]: its size in dimension 1 differs at runtime"

func.func @static(%a: tensor<2x3xf64>, %b: tensor<1x3xf64>, %w: tensor<3x3xf64>) -> tensor<2x3xf64> {
  %bb = mg.broadcast %b : tensor<1x3xf64> -> tensor<2x3xf64>
  %s = mg.sub %a, %bb : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %m = mg.matmul %s, %w : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64>
  func.return %m : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @static(
// CHECK-NOT:  cf.assert
// CHECK-NOT:  memref.dim
// CHECK:      func.return
