// memref.prefetch (upstream's op; xDSL's memref dialect lacks it): printed as upstream
// prints it, and lowered by finalize-memref-to-llvm to llvm.prefetch on the element's
// address, its write flag, locality and cache as i32 constants (0 or 1, 0 to 3, 0 or 1).
// RUN: mg-opt %s | filecheck %s --check-prefix=ROUND
// RUN: mg-opt %s -p finalize-memref-to-llvm | filecheck %s

func.func @f(%c: memref<?x?xf64>, %i: index, %j: index) {
  memref.prefetch %c[%i, %j], write, locality<3>, data : memref<?x?xf64>
  memref.prefetch %c[%j, %i], read, locality<0>, instr : memref<?x?xf64>
  func.return
}
// ROUND:       memref.prefetch %c[%i, %j], write, locality<3>, data : memref<?x?xf64>
// ROUND-NEXT:  memref.prefetch %c[%j, %i], read, locality<0>, instr : memref<?x?xf64>

// CHECK-LABEL: func.func @f(
// CHECK:       %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:  %[[W:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:  %[[L:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:  %[[D:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.prefetch.p0"(%[[P]], %[[W]], %[[L]], %[[D]]) : (!llvm.ptr, i32, i32, i32) -> ()
// CHECK:       %[[P2:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:  %[[R:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  %[[L0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  %[[I:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.prefetch.p0"(%[[P2]], %[[R]], %[[L0]], %[[I]]) : (!llvm.ptr, i32, i32, i32) -> ()
// CHECK-NOT:   memref.prefetch
