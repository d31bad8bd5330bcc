// affine-loop-normalize: loops from 0 in steps of 1; with promote-single-iter=true a loop
// that runs once is replaced by its body (as upstream's pass of this name). The loads and
// stores are in generic form: xDSL reads `%m[%i, %j]` as symbols, which upstream refuses
// for a loop's index.
// RUN: mg-opt %s -p 'affine-loop-normalize{promote-single-iter=true}' | filecheck %s
// RUN: mg-opt %s -p affine-loop-normalize | filecheck %s --check-prefix=KEEP

// A ?x1 result's columns: the inner loop runs once, at index 0, a constant at the top of the
// function (upstream accepts an affine index defined there, not one in a loop's body).
func.func @column(%m: memref<?x1xf64>, %n: index, %x: f64) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 1 {
      "affine.store"(%x, %m, %i, %j) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : (f64, memref<?x1xf64>, index, index) -> ()
    }
  }
  func.return
}
// CHECK-LABEL: func.func @column(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to %n {
// CHECK-NEXT:      affine.store %x, %m[%[[I]], %c0] : memref<?x1xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// Without the option the loop of one iteration stays: it is normal already.
// KEEP-LABEL:  func.func @column(
// KEEP:          affine.for %{{.*}} = 0 to 1 {

// Nested loops of one iteration, one not starting at 0, with a loop-carried value.
func.func @once(%m: memref<4x4xf64>, %x: f64) -> f64 {
  %r = affine.for %i = 3 to 4 iter_args(%acc = %x) -> (f64) {
    %s = affine.for %j = 0 to 1 step 2 iter_args(%a = %acc) -> (f64) {
      %v = "affine.load"(%m, %i, %j) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : (memref<4x4xf64>, index, index) -> f64
      %t = arith.addf %a, %v : f64
      affine.yield %t : f64
    }
    affine.yield %s : f64
  }
  func.return %r : f64
}
// CHECK-LABEL: func.func @once(
// CHECK-NOT:     affine.for
// CHECK-DAG:     %c3 = arith.constant 3 : index
// CHECK-DAG:     %c0 = arith.constant 0 : index
// CHECK:         %[[V:.*]] = affine.load %m[%c3, %c0] : memref<4x4xf64>
// CHECK-NEXT:    %[[T:.*]] = arith.addf %x, %[[V]] : f64
// CHECK-NEXT:    func.return %[[T]] : f64

// Constant bounds and a step: from 0 in steps of 1, the old index recomputed.
func.func @strided(%m: memref<16xf64>, %x: f64) {
  affine.for %i = 2 to 11 step 3 {
    "affine.store"(%x, %m, %i) <{map = affine_map<(d0) -> (d0)>}> : (f64, memref<16xf64>, index) -> ()
  }
  affine.for %k = 5 to 5 {
    "affine.store"(%x, %m, %k) <{map = affine_map<(d0) -> (d0)>}> : (f64, memref<16xf64>, index) -> ()
  }
  func.return
}
// 2, 5, 8: three iterations.
// CHECK-LABEL: func.func @strided(
// CHECK:         affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[OLD:.*]] = affine.apply affine_map<(d0) -> (((d0 * 3) + 2))> (%[[I]])
// CHECK-NEXT:      affine.store %x, %m[%[[OLD]]] : memref<16xf64>
// A loop that never runs is normalised too, to 0 to 0 (not removed).
// CHECK:         affine.for %[[K:.*]] = 0 to 0 {
// CHECK-NEXT:      %[[OLDK:.*]] = affine.apply affine_map<(d0) -> ((d0 + 5))> (%[[K]])
// CHECK-NEXT:      affine.store %x, %m[%[[OLDK]]] : memref<16xf64>
