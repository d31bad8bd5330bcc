// The host side of `mgc run --gpu`: each gpu.launch_func becomes a call to a launch function
// of the run time, with the grid and block sizes first and the kernel's operands after
// them; a non-zero status stops the program like a failed run-time check. The declaration
// names the kernel and which operands it writes (only those are copied back), and the
// device code (the gpu.module) is gone from the host module.
// RUN: mg-opt %S/../../../examples/10_gpu_layer.mg -p lower-mg-to-affine,buffer-deallocation,affine-parallelize,lower-affine,convert-parallel-loops-to-gpu,gpu-kernel-outlining,dce,gpu-to-runtime-calls | filecheck %s

// CHECK:      builtin.module {
// CHECK:      func.func @f(%x: memref<2x3xf64>, %bias: memref<1x3xf64>) -> memref<2x1xf64>
// CHECK:        %[[BCAST:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT:   %[[THREADS:.*]] = arith.constant 256 : index
// CHECK-NEXT:   %[[BLOCKS:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[STATUS:.*]] = func.call @mgrt_launch_f_kernels_f_kernel(%[[BLOCKS]], %[[ONE]], %[[ONE]], %[[THREADS]], %[[ONE]], %[[ONE]], %bias, %[[BCAST]]) : (index, index, index, index, index, index, memref<1x3xf64>, memref<2x3xf64>) -> i32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[OK:.*]] = arith.cmpi eq, %[[STATUS]], %[[ZERO]] : i32
// CHECK-NEXT:   cf.assert %[[OK]], "gpu: launching kernel f_kernel failed"
// CHECK:        func.call @mgrt_launch_f_kernels_f_kernel_0({{.*}}, %x, %[[BCAST]], %{{.*}})
// CHECK:        func.call @mgrt_launch_f_kernels_f_kernel_1(
// CHECK:        func.call @mgrt_launch_f_kernels_f_kernel_2(
// CHECK:        func.call @mgrt_launch_f_kernels_f_kernel_3(
// CHECK-NOT:  gpu.launch_func
// CHECK:      func.func private @mgrt_launch_f_kernels_f_kernel(index, index, index, index, index, index, memref<1x3xf64>, memref<2x3xf64>) -> i32 attributes {mg.gpu_kernel = @f_kernels::@f_kernel, mg.gpu_written = array<i64: 1>}
// CHECK:      func.func private @mgrt_launch_f_kernels_f_kernel_0({{.*}}) -> i32 attributes {mg.gpu_kernel = @f_kernels::@f_kernel_0, mg.gpu_written = array<i64: 2>}
// CHECK:      func.func private @mgrt_launch_f_kernels_f_kernel_3(index, index, index, index, index, index, memref<2x1xf64>, memref<2x3xf64>) -> i32 attributes {mg.gpu_kernel = @f_kernels::@f_kernel_3, mg.gpu_written = array<i64: 0>}
// CHECK-NOT:  gpu.module
// CHECK-NOT:  gpu.container_module
