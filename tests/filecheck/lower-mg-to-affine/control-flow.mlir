// The front end's loops and conditionals carry tensors: lower-mg-to-affine lowers the mg ops
// of their bodies like any other, then their results, iteration arguments and yields take
// memref types. mg.item is a load of the rank-0 buffer; mg.from_item a new rank-0 buffer
// and a store.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p lower-mg-to-affine,buffer-deallocation | mlir-opt-22 > /dev/null %}

func.func @f(%x: tensor<3xf64>, %n: tensor<i64>) -> tensor<3xf64> {
  %n64 = mg.item %n : tensor<i64> -> i64
  %ub = arith.index_cast %n64 : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %iv = %c0 to %ub step %c1 iter_args(%w = %x, %s = %n) -> (tensor<3xf64>, tensor<i64>) {
    %i64 = arith.index_cast %iv : index to i64
    %i = mg.from_item %i64 : i64 -> tensor<i64>
    %s1 = mg.add %s, %i : tensor<i64>, tensor<i64> -> tensor<i64>
    %w1 = mg.add %w, %x {mg.in_place} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %pos = mg.scalar %s1 {op = "gt", value = 2 : i64, reversed = false} : tensor<i64> -> tensor<i1>
    %c = mg.item %pos : tensor<i1> -> i1
    %w2 = scf.if %c -> (tensor<3xf64>) {
      %h = mg.neg %w1 : tensor<3xf64> -> tensor<3xf64>
      scf.yield %h : tensor<3xf64>
    } else {
      scf.yield %w1 : tensor<3xf64>
    }
    scf.yield %w2, %s1 : tensor<3xf64>, tensor<i64>
  }
  func.return %r#0 : tensor<3xf64>
}
// CHECK-LABEL: func.func @f(%x: memref<3xf64>, %n: memref<i64>) -> memref<3xf64> {
// CHECK:       %[[N64:.*]] = memref.load %n[] : memref<i64>
// CHECK-NEXT:  %[[UB:.*]] = arith.index_cast %[[N64]] : i64 to index
// CHECK:       %[[R:.*]], %{{.*}} = scf.for %[[IV:.*]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[W:.*]] = %x, %[[S:.*]] = %n) -> (memref<3xf64>, memref<i64>) {
// CHECK-NEXT:    %[[I64:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK-NEXT:    %[[I:.*]] = memref.alloc() : memref<i64>
// CHECK-NEXT:    memref.store %[[I64]], %[[I]][] : memref<i64>
// CHECK:         %[[S1:.*]] = memref.alloc() : memref<i64>
// CHECK:         affine.load %[[S]][]
// CHECK:         affine.load %[[I]][]
// CHECK:         affine.for
// CHECK:           affine.load %[[W]]
// CHECK:           affine.store %{{.*}}, %[[W]]
// CHECK:         %[[POS:.*]] = memref.alloc() : memref<i1>
// CHECK:         %[[C:.*]] = memref.load %[[POS]][] : memref<i1>
// CHECK-NEXT:    %[[W2:.*]] = scf.if %[[C]] -> (memref<3xf64>) {
// CHECK-NEXT:      %[[H:.*]] = memref.alloc() : memref<3xf64>
// CHECK:           scf.yield %[[H]] : memref<3xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[W]] : memref<3xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %[[W2]], %[[S1]] : memref<3xf64>, memref<i64>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %[[R]] : memref<3xf64>

// A nest bounded by a size computed inside a loop's body (of a '?' iteration argument) is
// no valid affine nest upstream (its affine scope is the function): it is made of scf.for
// loops and memref.load/store instead. A size of a parameter is valid: that nest stays affine.
func.func @dynamic(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %iv = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %n = mg.neg %x : tensor<?xf64> -> tensor<?xf64>
    %a1 = mg.relu %a : tensor<?xf64> -> tensor<?xf64>
    %a2 = mg.add %a1, %n : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
    scf.yield %a2 : tensor<?xf64>
  }
  func.return %r : tensor<?xf64>
}
// CHECK-LABEL: func.func @dynamic(
// CHECK:       scf.for {{.*}} iter_args(%[[A:.*]] = %x)
// CHECK:         %[[N:.*]] = memref.dim %x
// CHECK:         affine.for %{{.*}} = 0 to %[[N]] {
// CHECK:         %[[M:.*]] = memref.dim %[[A]]
// CHECK-NEXT:    memref.alloc(%[[M]])
// CHECK-NOT:     affine.for
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[M]] step %{{.*}} {
// CHECK-NEXT:      memref.load %[[A]][%[[I]]]
// CHECK-NOT:     affine.for
// CHECK:         scf.yield
