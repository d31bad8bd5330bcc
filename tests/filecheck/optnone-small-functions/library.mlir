// A library (a module without @main: the Python API's, mgc lib's): whoever links it may call
// its public functions any number of times, so none is small however little one call does,
// nor a private function they call. (Unoptimised, 8,192 multiplications took 60 us a call
// from Python instead of 3.)
// RUN: mg-opt %s -p optnone-small-functions | filecheck %s

// CHECK-LABEL: func.func @layer(
// CHECK-NOT:     passthrough
// CHECK-SAME:    {
func.func @layer(%m: memref<2x3xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      memref.store %x, %m[%i, %j] : memref<2x3xf64>
    }
  }
  func.call @helper(%m, %x) : (memref<2x3xf64>, f64) -> ()
  func.return
}

// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:     passthrough
// CHECK-SAME:    {
func.func private @helper(%m: memref<2x3xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  memref.store %x, %m[%c0, %c0] : memref<2x3xf64>
  func.return
}
