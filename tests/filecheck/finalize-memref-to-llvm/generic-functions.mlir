// With use-generic-functions=true (the optimised pipeline), buffers come from the run-time
// library's _mlir_memref_to_llvm_alloc/_free, as upstream's option of this name does.
// RUN: mg-opt %s -p "finalize-memref-to-llvm{use-generic-functions=true}" | filecheck %s

// CHECK:      llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-NEXT: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-NOT:  @malloc
// CHECK-LABEL: func.func @f
func.func @f(%n: index) {
  // CHECK:      %[[EIGHT:.*]] = llvm.mlir.constant(8) : i64
  // CHECK-NEXT: %[[BYTES:.*]] = llvm.mul %{{.*}}, %[[EIGHT]] : i64
  // CHECK-NEXT: %[[P:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(%[[BYTES]]) : (i64) -> !llvm.ptr
  %a = memref.alloc(%n) : memref<?x4xf64>
  // CHECK:      %[[A:.*]] = llvm.extractvalue %{{.*}}[0]
  // CHECK-NEXT: llvm.call @_mlir_memref_to_llvm_free(%[[A]]) : (!llvm.ptr) -> ()
  memref.dealloc %a : memref<?x4xf64>
  func.return
}
// CHECK-NOT:  @free
