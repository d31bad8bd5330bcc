// lower-affine: affine.for -> scf.for (constant bounds and run-time bounds from operands),
// affine.load/store -> memref.load/store with the map's arithmetic, affine.yield -> scf.yield.
// The input is in generic form: xDSL's custom affine parser builds symbol maps for indices.
// RUN: mg-opt %s -p lower-affine | filecheck %s

"func.func"() <{sym_name = "f", function_type = (memref<?x3xf64>, index) -> ()}> ({
^bb0(%m: memref<?x3xf64>, %n: index):
  "affine.for"(%n) <{lowerBoundMap = affine_map<() -> (0)>, upperBoundMap = affine_map<()[s0] -> (s0)>, step = 1 : index, operandSegmentSizes = array<i32: 0, 1, 0>}> ({
  ^bb1(%i: index):
    "affine.for"() <{lowerBoundMap = affine_map<() -> (1)>, upperBoundMap = affine_map<() -> (3)>, step = 2 : index, operandSegmentSizes = array<i32: 0, 0, 0>}> ({
    ^bb2(%j: index):
      %x = "affine.load"(%m, %i, %j) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : (memref<?x3xf64>, index, index) -> f64
      "affine.store"(%x, %m, %i, %j) <{map = affine_map<(d0, d1) -> (d0 + 1, d1 * 2)>}> : (f64, memref<?x3xf64>, index, index) -> ()
      "affine.store"(%x, %m, %i, %n) <{map = affine_map<(d0)[s0] -> (d0, s0)>}> : (f64, memref<?x3xf64>, index, index) -> ()
      "affine.yield"() : () -> ()
    }) : () -> ()
    "affine.yield"() : () -> ()
  }) : (index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// CHECK:      func.func @f(%m: memref<?x3xf64>, %n: index) {
// CHECK-NEXT:   %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[STEP:.*]] = arith.constant 1 : index
// CHECK-NEXT:   scf.for %[[I:.*]] = %[[LB]] to %n step %[[STEP]] {
// CHECK-NEXT:     %[[LB2:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[UB2:.*]] = arith.constant 3 : index
// CHECK-NEXT:     %[[STEP2:.*]] = arith.constant 2 : index
// CHECK-NEXT:     scf.for %[[J:.*]] = %[[LB2]] to %[[UB2]] step %[[STEP2]] {
// CHECK-NEXT:       %[[X:.*]] = memref.load %m[%[[I]], %[[J]]] : memref<?x3xf64>
// CHECK-NEXT:       %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:       %[[I1:.*]] = arith.addi %[[I]], %[[ONE]] : index
// CHECK-NEXT:       %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:       %[[J2:.*]] = arith.muli %[[J]], %[[TWO]] : index
// CHECK-NEXT:       memref.store %[[X]], %m[%[[I1]], %[[J2]]] : memref<?x3xf64>
// CHECK-NEXT:       memref.store %[[X]], %m[%[[I]], %n] : memref<?x3xf64>
// CHECK-NOT:  affine.
