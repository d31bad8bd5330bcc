// cse: an op that repeats an earlier one in scope is replaced by it; a pure op nobody uses
// goes. (tests/unit/transforms/test_cse.py checks that the pass does what xDSL's cse does on whole programs.)
// RUN: mg-opt %s -p cse | filecheck %s

// The loop's body sees the constants before the loop; a duplicate inside it goes.
// CHECK-LABEL: func.func @nested(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    scf.for %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      memref.store %x, %m[%i, %c0] : memref<2x1xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @nested(%m: memref<2x1xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %c0_1 = arith.constant 0 : index
    memref.store %x, %m[%i, %c0_1] : memref<2x1xf64>
  }
  %unused = arith.constant 7 : index
  func.return
}

// Ops in a loop's body are not visible after the loop: the second constant stays.
// CHECK-LABEL: func.func @scoped(
// CHECK:         scf.for
// CHECK-NEXT:      %[[IN:.*]] = arith.constant 5 : index
// CHECK:         }
// CHECK-NEXT:    %[[OUT:.*]] = arith.constant 5 : index
// CHECK-NEXT:    func.return %[[OUT]] : index
func.func @scoped(%m: memref<8xindex>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %five = arith.constant 5 : index
    memref.store %five, %m[%i] : memref<8xindex>
  }
  %five_again = arith.constant 5 : index
  func.return %five_again : index
}

// Reads: the same load twice is one load, unless a store may come between.
// CHECK-LABEL: func.func @loads(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.load %m[%c0] : memref<4xf64>
// CHECK-NEXT:    %s = arith.addf %a, %a : f64
// CHECK-NEXT:    memref.store %s, %m[%c0] : memref<4xf64>
// CHECK-NEXT:    %c = memref.load %m[%c0] : memref<4xf64>
// CHECK-NEXT:    func.return %c : f64
func.func @loads(%m: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %a = memref.load %m[%c0] : memref<4xf64>
  %b = memref.load %m[%c0] : memref<4xf64>
  %s = arith.addf %a, %b : f64
  memref.store %s, %m[%c0] : memref<4xf64>
  %c = memref.load %m[%c0] : memref<4xf64>
  func.return %c : f64
}

// Different attributes or types are different computations.
// CHECK-LABEL: func.func @different(
// CHECK-NEXT:    %0 = arith.constant 1 : index
// CHECK-NEXT:    %1 = arith.constant 1 : i64
// CHECK-NEXT:    %2 = arith.constant 2 : index
// CHECK-NEXT:    func.return %0, %1, %2 : index, i64, index
func.func @different() -> (index, i64, index) {
  %0 = arith.constant 1 : index
  %1 = arith.constant 1 : i64
  %2 = arith.constant 2 : index
  func.return %0, %1, %2 : index, i64, index
}

// A function sees nothing outside it, and a region of several blocks is left alone.
// CHECK-LABEL: func.func @blocks(
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    cf.br ^bb1
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    %c3_1 = arith.constant 3 : index
// CHECK-NEXT:    %s = arith.addi %c3, %c3_1 : index
func.func @blocks() -> index {
  %c3 = arith.constant 3 : index
  cf.br ^bb1
^bb1:
  %c3_1 = arith.constant 3 : index
  %s = arith.addi %c3, %c3_1 : index
  func.return %s : index
}
