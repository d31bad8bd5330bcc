// lower-affine keeps a loop's mg.parallel_accesses mark (convert-linalg-to-affine-loops')
// on the scf loop that replaces it.
// RUN: mg-opt %s -p lower-affine | filecheck %s

func.func @f(%a: memref<4x8xf64>, %r: memref<4x8xf64>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<4x8xf64>
      affine.store %x, %r[%i, %j] : memref<4x8xf64>
    } {mg.parallel_accesses}
  }
  "affine.parallel"() <{reductions = [], lowerBoundsMap = affine_map<() -> (0)>, lowerBoundsGroups = dense<1> : tensor<1xi32>, upperBoundsMap = affine_map<() -> (32)>, upperBoundsGroups = dense<1> : tensor<1xi32>, steps = [1 : i64]}> ({
  ^bb0(%k: index):
    %c0 = arith.constant 0 : index
    %y = affine.load %a[%c0, %k] : memref<4x8xf64>
    affine.store %y, %r[%c0, %k] : memref<4x8xf64>
    affine.yield
  }) {mg.parallel_accesses} : () -> ()
  func.return
}
// CHECK:      scf.for
// CHECK-NOT:  mg.parallel_accesses
// CHECK:        scf.for
// CHECK:          memref.store
// CHECK-NEXT:   } {mg.parallel_accesses}
// CHECK-NEXT: }
// CHECK:      "scf.parallel"
// CHECK:        memref.store
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) {mg.parallel_accesses} : (index, index, index) -> ()
