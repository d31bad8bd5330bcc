// stream-large-results: an elementwise result that the function returns, large enough,
// is written by a vector loop over the flattened buffers with non-temporal stores.
// RUN: mg-opt %s -p 'convert-mg-to-linalg,linalg-fuse-elementwise-ops,stream-large-results{vector-bits=256}' | filecheck %s
// With no streaming stores on the target, nothing changes:
// RUN: mg-opt %s -p 'convert-mg-to-linalg,linalg-fuse-elementwise-ops,stream-large-results{nontemporal=false}' | filecheck %s --check-prefix=OFF

// 1000 x 1000 f64: 8 MB of result, 24 MB streamed (min-bytes: 16 MiB by default).
// CHECK-LABEL: func.func @large(
// The result is aligned to a cache line; every buffer is seen as one row.
// CHECK:         %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1000x1000xf64>
// CHECK-DAG:     %[[FA:.*]] = memref.collapse_shape %a {{\[}}[0 : i64, 1 : i64]] : memref<1000x1000xf64> into memref<1000000xf64>
// CHECK-DAG:     %[[FB:.*]] = memref.collapse_shape %b {{\[}}[0 : i64, 1 : i64]] : memref<1000x1000xf64> into memref<1000000xf64>
// CHECK-DAG:     %[[FC:.*]] = memref.collapse_shape %[[C]] {{\[}}[0 : i64, 1 : i64]] : memref<1000x1000xf64> into memref<1000000xf64>
// Blocks of 8192 elements in parallel: ceil(1000000 / 8192) = 123.
// CHECK:         %[[BLOCKS:.*]] = arith.constant 123 : index
// CHECK:         "scf.parallel"(%{{.*}}, %[[BLOCKS]], %{{.*}})
// CHECK:           %[[LO:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:           %[[HI:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// Whole vectors of 4 lanes (256 bits), then what is left one element at a time.
// CHECK:           %[[REM:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK:           %[[END:.*]] = arith.addi %[[LO]], %{{.*}} : index
// CHECK:           scf.for %[[I:.*]] = %[[LO]] to %[[END]] step %{{.*}} {
// CHECK-NEXT:        %[[X:.*]] = vector.load %[[FA]][%[[I]]] : memref<1000000xf64>, vector<4xf64>
// CHECK-NEXT:        %[[Y:.*]] = vector.load %[[FB]][%[[I]]] : memref<1000000xf64>, vector<4xf64>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[X]], %[[Y]] : vector<4xf64>
// A constant of the body is broadcast to a vector.
// CHECK:             %[[ZERO:.*]] = vector.broadcast %{{.*}} : f64 to vector<4xf64>
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[S]], %[[ZERO]] : vector<4xf64>
// CHECK-NEXT:        vector.store %[[R]], %[[FC]][%[[I]]] {alignment = 32 : i64, nontemporal = true} : memref<1000000xf64>, vector<4xf64>
// CHECK-NEXT:      }
// CHECK:           scf.for %[[J:.*]] = %[[END]] to %[[HI]] step %{{.*}} {
// CHECK:             memref.load %[[FA]][%[[J]]] : memref<1000000xf64>
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK:             memref.store %{{.*}}, %[[FC]][%[[J]]] : memref<1000000xf64>
// The stores of the block are visible before the block is reported done.
// CHECK:           llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// Each block counts as its 8192 elements' work for the threads.
// CHECK:         }) {mg.work_scale = 8192 : index}
// CHECK-NOT:     linalg.generic
// CHECK:         func.return %[[C]]
// OFF-LABEL: func.func @large(
// OFF-NOT:     nontemporal
// OFF:         linalg.generic
// OFF-NOT:     nontemporal
func.func @large(%a: tensor<1000x1000xf64>, %b: tensor<1000x1000xf64>) -> tensor<1000x1000xf64> {
  %s = mg.add %a, %b : tensor<1000x1000xf64>, tensor<1000x1000xf64> -> tensor<1000x1000xf64>
  %r = mg.relu %s : tensor<1000x1000xf64> -> tensor<1000x1000xf64>
  func.return %r : tensor<1000x1000xf64>
}

// At the limits: 1 x 699051 f64 streams 16777224 bytes, at least 16 MiB; its result of
// 1 x 4194303 f64 is just under 32 MiB.
// CHECK-LABEL: func.func @just_enough(
// CHECK:         vector.store {{.*}}nontemporal = true
// CHECK-LABEL: func.func @just_small_enough(
// CHECK:         vector.store {{.*}}nontemporal = true
func.func @just_enough(%a: tensor<1x699051xf64>, %b: tensor<1x699051xf64>) -> tensor<1x699051xf64> {
  %r = mg.sub %a, %b : tensor<1x699051xf64>, tensor<1x699051xf64> -> tensor<1x699051xf64>
  func.return %r : tensor<1x699051xf64>
}
func.func @just_small_enough(%a: tensor<1x4194303xf64>) -> tensor<1x4194303xf64> {
  %r = mg.neg %a : tensor<1x4194303xf64> -> tensor<1x4194303xf64>
  func.return %r : tensor<1x4194303xf64>
}
