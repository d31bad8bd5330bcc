// The optimised pipeline's lowering of a loop that only updates a var in place: after
// buffer-deallocation its body allocates nothing (the generic writes into the iteration
// argument, which the body yields), and the temporary made before the loop is freed after it.
// RUN: mg-opt %s -p 'convert-mg-to-linalg,linalg-fuse-elementwise-ops,reuse-dying-buffers,convert-linalg-to-affine-loops,buffer-deallocation' | filecheck %s

func.func @main() {
  %x = mg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %g = mg.neg %x : tensor<3xf64> -> tensor<3xf64>
  %w0 = mg.full {value = 0.0 : f64} : tensor<3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r = scf.for %i = %c0 to %c9 step %c1 iter_args(%w = %w0) -> (tensor<3xf64>) {
    %w1 = mg.add %w, %g {mg.in_place} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %w2 = mg.scalar %w1 {op = "mul", value = 0.5 : f64, reversed = false, mg.in_place} : tensor<3xf64> -> tensor<3xf64>
    scf.yield %w2 : tensor<3xf64>
  }
  mg.print %r : tensor<3xf64>
  func.return
}
// CHECK:       %[[G:.*]] = memref.alloc() : memref<3xf64>
// CHECK:       %[[W0:.*]] = memref.alloc() : memref<3xf64>
// CHECK:       %[[R:.*]] = scf.for %{{.*}} iter_args(%[[W:.*]] = %[[W0]]) -> (memref<3xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK-NOT:     memref.copy
// CHECK:         scf.yield %[[W]] : memref<3xf64>
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[G]] : memref<3xf64>
// CHECK:       func.call @printMemrefF64
// CHECK-NEXT:  memref.dealloc %[[R]] : memref<3xf64>
