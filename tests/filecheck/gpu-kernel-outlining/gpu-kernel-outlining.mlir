// RUN: mg-opt %S/../../../examples/10_gpu_layer.mg -p lower-mg-to-affine,buffer-deallocation,affine-parallelize,lower-affine,convert-parallel-loops-to-gpu,gpu-kernel-outlining,dce | filecheck %s

// CHECK:      builtin.module attributes {gpu.container_module}
// CHECK:      func.func @f(%x: memref<2x3xf64>, %bias: memref<1x3xf64>)
// The launch records which kernel operands the kernel stores into (mg.gpu_written): the
// broadcast kernel writes its second operand, the add kernel its third.
// CHECK:        "gpu.launch_func"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %bias, %{{.*}}) <{kernel = @f_kernels::@f_kernel, {{.*}}}> {mg.gpu_written = array<i64: 1>}
// CHECK:        "gpu.launch_func"(%{{.*}}, %x, %{{.*}}, %{{.*}}) <{kernel = @f_kernels::@f_kernel_0, {{.*}}}> {mg.gpu_written = array<i64: 2>}
// CHECK:        "gpu.launch_func"{{.*}}kernel = @f_kernels::@f_kernel_1,
// CHECK:        "gpu.launch_func"{{.*}}kernel = @f_kernels::@f_kernel_2,
// CHECK:        "gpu.launch_func"{{.*}}kernel = @f_kernels::@f_kernel_3,
// CHECK-NOT:  "gpu.launch"(
// CHECK:      "gpu.module"() <{sym_name = "f_kernels"}>
// CHECK:        "gpu.func"() <{function_type = (memref<1x3xf64>, memref<2x3xf64>) -> (), kernel}>
// CHECK-NEXT:   ^bb0(%{{.*}}: memref<1x3xf64>, %{{.*}}: memref<2x3xf64>):
// CHECK:          "gpu.block_id"() <{dimension = #gpu<dim x>}>
// CHECK:          "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK:          "gpu.return"()
// CHECK:        }) {sym_name = "f_kernel"}
// CHECK:        }) {sym_name = "f_kernel_0"}
// CHECK:        }) {sym_name = "f_kernel_1"}
// CHECK:        }) {sym_name = "f_kernel_2"}
// CHECK:        "gpu.func"() <{function_type = (memref<2x1xf64>, memref<2x3xf64>) -> (), kernel}>
// CHECK:        }) {sym_name = "f_kernel_3"}
