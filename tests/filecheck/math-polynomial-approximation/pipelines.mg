# math-polynomial-approximation runs last in the affine stage of both CPU pipelines (no math
# function is left for the later stages, nor for mlir-opt with --backend mlir); the GPU
# path does not run it: its kernels call libdevice's functions.
# RUN: mg-opt %s -p 'mg-reference-pipeline{to=affine}' | filecheck %s
# RUN: mg-opt %s -p 'mg-cpu-pipeline{to=affine}' | filecheck %s
# RUN: mg-opt %s -p mg-gpu-pipeline | filecheck %s --check-prefix=GPU

def f(x: tensor[?]) = exp(x) + sin(x) * pow(x, 3)

# CHECK-LABEL: func.func @f(
# CHECK-NOT:     math.exp
# CHECK-NOT:     math.sin
# CHECK-NOT:     math.powf
# CHECK:         arith.constant 0x4338000000000000 : f64
# CHECK:         func.return

# GPU-DAG:      llvm.func @__nv_exp(f64) -> f64
# GPU-DAG:      llvm.func @__nv_sin(f64) -> f64
# GPU-DAG:      llvm.func @__nv_pow(f64, f64) -> f64
# GPU:          llvm.call @__nv_exp(
