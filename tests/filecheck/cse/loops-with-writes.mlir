// cse in the front end's loops: a load is never replaced by one outside the loop's body (an
// iteration may have written the buffer since), nor by one before a store in the body; after
// a loop that writes, a load is not replaced by one before the loop.
// RUN: mg-opt %s -p cse | filecheck %s

func.func @f(%m: memref<3xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.load %m[%c0] : memref<3xf64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (f64) {
    %y = memref.load %m[%c0] : memref<3xf64>
    %z = arith.addf %s, %y : f64
    memref.store %z, %m[%c0] : memref<3xf64>
    %w = memref.load %m[%c0] : memref<3xf64>
    scf.yield %w : f64
  }
  %after = memref.load %m[%c0] : memref<3xf64>
  %t = arith.addf %r, %after : f64
  func.return %t : f64
}
// CHECK:      %[[X:.*]] = memref.load %m[%c0] : memref<3xf64>
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[S:.*]] = %[[X]]) -> (f64) {
// CHECK-NEXT:   %[[Y:.*]] = memref.load %m[%c0] : memref<3xf64>
// CHECK-NEXT:   %[[Z:.*]] = arith.addf %[[S]], %[[Y]] : f64
// CHECK-NEXT:   memref.store %[[Z]], %m[%c0] : memref<3xf64>
// CHECK-NEXT:   %[[W:.*]] = memref.load %m[%c0] : memref<3xf64>
// CHECK-NEXT:   scf.yield %[[W]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: %[[AFTER:.*]] = memref.load %m[%c0] : memref<3xf64>
// CHECK-NEXT: %{{.*}} = arith.addf %[[R]], %[[AFTER]] : f64
