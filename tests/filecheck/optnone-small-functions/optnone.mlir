// optnone-small-functions: a function whose loops run at most max-work iterations in all,
// every bound a constant, is marked for LLVM to compile without optimising it; one with a
// bound known only at run time, more work, or vector code is left as it is.
// RUN: mg-opt %s -p optnone-small-functions | filecheck %s
// RUN: mg-opt %s -p 'optnone-small-functions{max-work=7}' | filecheck %s --check-prefix=SEVEN

// A program (it has a @main, which calls none of these): each function below runs at most once.
func.func @main() {
  func.return
}

// 2 + 2*3 = 8 iterations of loop bodies.
// CHECK-LABEL: func.func @small(
// CHECK-SAME:    attributes {passthrough = ["noinline", "optnone"]}
// SEVEN-LABEL: func.func @small(
// SEVEN-NOT:     passthrough
// SEVEN-SAME:    {
func.func @small(%m: memref<2x3xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      memref.store %x, %m[%i, %j] : memref<2x3xf64>
    }
  }
  func.return
}

// No loops: nothing to optimise; an outlined run keeps its noinline, once.
// CHECK-LABEL: func.func private @no_loops(
// CHECK-SAME:    attributes {passthrough = ["noinline", "optnone"]}
func.func private @no_loops(%x: f64) -> f64 attributes {passthrough = ["noinline"]} {
  %y = arith.addf %x, %x : f64
  func.return %y : f64
}

// A size known only at run time.
// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT:     passthrough
// CHECK:         scf.for
func.func @dynamic(%m: memref<?xf64>, %n: index, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %x, %m[%i] : memref<?xf64>
  }
  func.return
}

// 128 x 128 = 16384 iterations of the inner body and 128 of the outer: one more than the
// default max-work.
// CHECK-LABEL: func.func @large(
// CHECK-NOT:     passthrough
// CHECK:         scf.for
func.func @large(%m: memref<128x128xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      memref.store %x, %m[%i, %j] : memref<128x128xf64>
    }
  }
  func.return
}

// Vector code is only ever made for large or run-time sizes.
// CHECK-LABEL: func.func @vector(
// CHECK-NOT:     passthrough
// CHECK:         vector.load
func.func @vector(%m: memref<8xf64>) -> vector<8xf64> {
  %c0 = arith.constant 0 : index
  %v = vector.load %m[%c0] : memref<8xf64>, vector<8xf64>
  func.return %v : vector<8xf64>
}
