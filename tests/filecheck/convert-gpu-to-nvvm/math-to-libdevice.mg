# The math functions NVPTX has no instruction for become calls of CUDA's libdevice, declared
# in the kernels' gpu.module: `__nv_expf` on f32, `__nv_atan2` on f64 (mgc ptx links
# libdevice in). sqrt stays an NVPTX instruction.
# RUN: mg-opt %s -p 'mg-gpu-pipeline{to=gpu}' | filecheck %s
def f(x: tensor[4xf32], y: tensor[4]) = exp(x) + sqrt(x) + cast(atan2(y, y), f32)
# CHECK:      "gpu.module"() <{sym_name = "f_kernels"}>
# CHECK-DAG:    llvm.func @__nv_expf(f32) -> f32
# CHECK-DAG:    llvm.func @__nv_atan2(f64, f64) -> f64
# CHECK:        llvm.func @f_kernel(
# CHECK:          llvm.call @__nv_expf(%{{.*}}) : (f32) -> f32
# CHECK:        llvm.func @f_kernel_0(
# CHECK:          llvm.call_intrinsic "llvm.sqrt.f32"
# CHECK:          llvm.call @__nv_atan2(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
# CHECK-NOT:    math.
