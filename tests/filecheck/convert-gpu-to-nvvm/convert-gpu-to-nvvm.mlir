// RUN: mg-opt %S/../../../examples/10_gpu_layer.mg -p mg-gpu-pipeline | filecheck %s

// CHECK:      "gpu.module"() <{sym_name = "f_kernels"}>
// CHECK:        llvm.func @f_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr,
// CHECK-SAME:   gpu.kernel
// CHECK-SAME:   nvvm.kernel
// CHECK:          %[[B:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// CHECK-NEXT:     %{{.*}} = llvm.sext %[[B]] : i32 to i64
// CHECK-NEXT:     %[[T:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT:     %{{.*}} = llvm.sext %[[T]] : i32 to i64
// CHECK:          llvm.icmp "ult"
// CHECK:          llvm.return
// CHECK-NOT:    gpu.func
// CHECK-NOT:    scf.
// CHECK-NOT:    memref.
