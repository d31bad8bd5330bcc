// The front end's loops count like any other: a loop whose trip count is known only at run
// time (a bound read from a tensor), or a large one, makes its function not small, however
// little its body does; a short one with a small body leaves it small.
// RUN: mg-opt %s -p optnone-small-functions | filecheck %s

// A program (it has a @main, which calls none of these): each function below runs at most once.
func.func @main() {
  func.return
}

func.func @unknown(%m: memref<f64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.load %m[] : memref<f64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (f64) {
    %t = arith.addf %s, %s : f64
    scf.yield %t : f64
  }
  memref.store %r, %m[] : memref<f64>
  func.return
}
// CHECK: func.func @unknown(%m: memref<f64>, %n: index) {

func.func @huge(%m: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100000 = arith.constant 100000 : index
  %x = memref.load %m[] : memref<f64>
  %r = scf.for %i = %c0 to %c100000 step %c1 iter_args(%s = %x) -> (f64) {
    %t = arith.addf %s, %s : f64
    scf.yield %t : f64
  }
  memref.store %r, %m[] : memref<f64>
  func.return
}
// CHECK: func.func @huge(%m: memref<f64>) {

func.func @short(%m: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = memref.load %m[] : memref<f64>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %x) -> (f64) {
    %t = arith.addf %s, %s : f64
    scf.yield %t : f64
  }
  memref.store %r, %m[] : memref<f64>
  func.return
}
// CHECK: func.func @short(%m: memref<f64>) attributes {passthrough = ["noinline", "optnone"]} {
