# mg-cse in the optimised pipeline: a value the program writes twice is computed once. The
# softmax written as users write it (exp(s - max(s)) in the quotient and again in its sum)
# has one exp, as the one that binds it with `let`; the attention that scales q @ kt four
# times has one product q @ kt, one scaling, one exp.
# RUN: mg-opt %s -p 'mg-cpu-pipeline{to=linalg}' | filecheck %s

def softmax(s: tensor[?x?xf32]) -> tensor[?x?xf32]:
    return exp(s - broadcast_to(max(s, axes=[1], keepdims=true), shape(s))) / broadcast_to(sum(exp(s - broadcast_to(max(s, axes=[1], keepdims=true), shape(s))), axes=[1], keepdims=true), shape(s))

def softmax_let(s: tensor[?x?xf32]) -> tensor[?x?xf32]:
    let e = exp(s - broadcast_to(max(s, axes=[1], keepdims=true), shape(s)))
    return e / broadcast_to(sum(e, axes=[1], keepdims=true), shape(s))

def attention(q: tensor[8x256x64xf32], kt: tensor[8x64x256xf32], v: tensor[8x256x64xf32]) = exp(q @ kt * 0.125 - max(q @ kt * 0.125, axes=[-1], keepdims=true)) / sum(exp(q @ kt * 0.125 - max(q @ kt * 0.125, axes=[-1], keepdims=true)), axes=[-1], keepdims=true) @ v

# One maximum, one exp into a buffer that the sum and the quotient read.
# CHECK-LABEL: func.func @softmax(
# CHECK:         arith.maximumf
# CHECK-NOT:     arith.maximumf
# CHECK:         %[[E:.*]] = memref.alloc
# CHECK-NEXT:    linalg.generic {{.*}} outs(%[[E]] : memref<?x?xf32>)
# CHECK:           math.exp
# CHECK-NOT:     math.exp
# CHECK:         linalg.generic {{.*}} ins(%[[E]] : memref<?x?xf32>)
# CHECK:         linalg.generic {{.*}} ins(%[[E]], %{{.*}} : memref<?x?xf32>, memref<?x1xf32>)
# CHECK-NOT:     math.exp
# CHECK:         func.return

# CHECK-LABEL: func.func @softmax_let(
# CHECK:         math.exp
# CHECK-NOT:     math.exp
# CHECK:         func.return

# CHECK-LABEL: func.func @attention(
# CHECK:         linalg.generic {{.*}} ins(%q, %kt : memref<8x256x64xf32>, memref<8x64x256xf32>)
# CHECK-NOT:     ins(%q, %kt
# CHECK:         arith.constant 1.250000e-01 : f32
# CHECK-NOT:     arith.constant 1.250000e-01 : f32
# CHECK:         math.exp
# CHECK-NOT:     math.exp
# CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %v : memref<8x256x256xf32>, memref<8x256x64xf32>)
# CHECK-NOT:     math.exp
# CHECK:         func.return
