// optnone-small-functions counts a function's work over every run of it: @main runs once,
// a function as often as its calls (a call in a loop of constant trip count that many times
// per run of its caller, in a loop of run-time bounds any number of times). In a library
// (no @main) a public function runs any number of times: never small.
// RUN: mg-opt %s -p optnone-small-functions | filecheck %s
// RUN: mg-opt %s -p 'optnone-small-functions{max-work=47}' | filecheck %s --check-prefix=LESS

// 6 iterations a run, 2 calls from main and 4 from @four in a loop: 6 * 2 + 6 * 4 = 36.
// CHECK-LABEL: func.func private @body(
// CHECK-SAME:    passthrough = ["noinline", "optnone"]
// LESS-LABEL:  func.func private @body(
// LESS-SAME:     passthrough = ["noinline", "optnone"]
func.func private @body(%m: memref<6xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    memref.store %x, %m[%i] : memref<6xf64>
  }
  func.return
}

// Its loop runs 4 iterations, and @body 4 times in it: 4 + 24 = 28 iterations counted at
// @body's own; @four itself 4 iterations, run once.
func.func private @four(%m: memref<6xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    func.call @body(%m, %x) : (memref<6xf64>, f64) -> ()
  }
  func.return
}

// 8 iterations a run, called in a loop of 10: 80, more than max-work=47 allows.
// CHECK-LABEL: func.func private @ten_times(
// CHECK-SAME:    passthrough = ["noinline", "optnone"]
// LESS-LABEL:  func.func private @ten_times(
// LESS-NOT:      passthrough
// LESS-SAME:     {
func.func private @ten_times(%m: memref<8xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %x, %m[%i] : memref<8xf64>
  }
  func.return
}

// One iteration a run, but called in a loop that runs until a value read at run time: any
// number of times.
// CHECK-LABEL: func.func private @in_a_run_time_loop(
// CHECK-NOT:     passthrough
// CHECK-SAME:    {
func.func private @in_a_run_time_loop(%m: memref<1xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    memref.store %x, %m[%i] : memref<1xf64>
  }
  func.return
}

// CHECK-LABEL: func.func @main(
// CHECK-NOT:     passthrough
// CHECK-SAME:    {
func.func @main(%m6: memref<6xf64>, %m8: memref<8xf64>, %m1: memref<1xf64>, %n: index, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  func.call @body(%m6, %x) : (memref<6xf64>, f64) -> ()
  func.call @body(%m6, %x) : (memref<6xf64>, f64) -> ()
  func.call @four(%m6, %x) : (memref<6xf64>, f64) -> ()
  scf.for %i = %c0 to %c10 step %c1 {
    func.call @ten_times(%m8, %x) : (memref<8xf64>, f64) -> ()
  }
  scf.for %i = %c0 to %n step %c1 {
    func.call @in_a_run_time_loop(%m1, %x) : (memref<1xf64>, f64) -> ()
  }
  func.return
}
