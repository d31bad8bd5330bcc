// convert-mg-to-linalg in the front end's loops and conditionals: the bodies' mg ops become
// linalg ops, the loops' and conditionals' types memref types. A yielded view (a transpose:
// a strided layout) is copied into a buffer of identity layout before the yield, so that
// every iteration carries the same type; mg.item and mg.from_item are a load and a store.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p convert-mg-to-linalg | mlir-opt-22 > /dev/null %}

func.func @f(%m0: tensor<2x3xf64>, %c: tensor<i1>) -> tensor<2x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = mg.item %c : tensor<i1> -> i1
  %r = scf.for %iv = %c0 to %c4 step %c1 iter_args(%m = %m0) -> (tensor<2x3xf64>) {
    %i64 = arith.index_cast %iv : index to i64
    %i = mg.from_item %i64 : i64 -> tensor<i64>
    %f = mg.convert %i : tensor<i64> to tensor<f64>
    %fb = mg.broadcast %f : tensor<f64> -> tensor<2x3xf64>
    %m1 = mg.add %m, %fb : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
    %m2 = scf.if %b -> (tensor<2x3xf64>) {
      %t = mg.transpose %m1 {permutation = array<i64: 1, 0>} : tensor<2x3xf64> to tensor<3x2xf64>
      %s = mg.reshape %t : tensor<3x2xf64> to tensor<2x3xf64>
      scf.yield %s : tensor<2x3xf64>
    } else {
      scf.yield %m1 : tensor<2x3xf64>
    }
    scf.yield %m2 : tensor<2x3xf64>
  }
  %v = scf.if %b -> (tensor<3x2xf64>) {
    %t = mg.transpose %r {permutation = array<i64: 1, 0>} : tensor<2x3xf64> to tensor<3x2xf64>
    scf.yield %t : tensor<3x2xf64>
  } else {
    %z = mg.full {value = 0.0 : f64} : tensor<3x2xf64>
    scf.yield %z : tensor<3x2xf64>
  }
  mg.print %v : tensor<3x2xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @f(%m0: memref<2x3xf64>, %c: memref<i1>) -> memref<2x3xf64> {
// CHECK:       %[[B:.*]] = memref.load %c[] : memref<i1>
// CHECK:       %[[R:.*]] = scf.for %[[IV:.*]] = %{{.*}} iter_args(%[[M:.*]] = %m0) -> (memref<2x3xf64>) {
// CHECK-NEXT:    %[[I64:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK-NEXT:    %[[I:.*]] = memref.alloc() : memref<i64>
// CHECK-NEXT:    memref.store %[[I64]], %[[I]][] : memref<i64>
// CHECK:         linalg.generic {{.*}} ins(%[[M]], %{{.*}} : memref<2x3xf64>, memref<2x3xf64>)
// CHECK:         %[[M2:.*]] = scf.if %[[B]] -> (memref<2x3xf64>) {
// CHECK:           scf.yield %{{.*}} : memref<2x3xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %{{.*}} : memref<2x3xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %[[M2]] : memref<2x3xf64>
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[V:.*]] = scf.if %[[B]] -> (memref<3x2xf64>) {
// CHECK-NEXT:    %[[T:.*]] = memref.reinterpret_cast %[[R]] to {{.*}} to memref<3x2xf64, strided<[1, 3]>>
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc() : memref<3x2xf64>
// CHECK-NEXT:    affine.for
// CHECK-NEXT:      affine.for
// CHECK-NEXT:        %[[X:.*]] = affine.load %[[T]]
// CHECK-NEXT:        affine.store %[[X]], %[[COPY]]
// CHECK:         scf.yield %[[COPY]] : memref<3x2xf64>
// CHECK-NEXT:  } else {

// The size of a '?' read inside a loop's body or a branch serves only there: after the loop,
// and in the other branch, it is read again (the value from inside does not dominate).
func.func @sizes(%x: tensor<?xf64>, %c: i1) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %n = mg.neg %x : tensor<?xf64> -> tensor<?xf64>
    scf.yield %n : tensor<?xf64>
  }
  %y = scf.if %c -> (tensor<?xf64>) {
    %m = mg.relu %x : tensor<?xf64> -> tensor<?xf64>
    scf.yield %m : tensor<?xf64>
  } else {
    %m = mg.neg %x : tensor<?xf64> -> tensor<?xf64>
    scf.yield %m : tensor<?xf64>
  }
  %s = mg.add %x, %y : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
  %t = mg.add %s, %r : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
  func.return %t : tensor<?xf64>
}
// CHECK-LABEL: func.func @sizes(
// CHECK:       scf.for
// CHECK:         %[[N1:.*]] = memref.dim %x, %{{.*}} : memref<?xf64>
// CHECK-NEXT:    memref.alloc(%[[N1]]) : memref<?xf64>
// CHECK:       scf.if
// CHECK:         %[[N2:.*]] = memref.dim %x, %{{.*}} : memref<?xf64>
// CHECK-NEXT:    memref.alloc(%[[N2]]) : memref<?xf64>
// CHECK:       } else {
// CHECK:         %[[N3:.*]] = memref.dim %x, %{{.*}} : memref<?xf64>
// CHECK-NEXT:    memref.alloc(%[[N3]]) : memref<?xf64>
// CHECK:       %[[N4:.*]] = memref.dim %x, %{{.*}} : memref<?xf64>
// CHECK:       memref.alloc(%[[N4]]) : memref<?xf64>
