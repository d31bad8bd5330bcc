# The attention as users write it, softmax a def of its own: in the optimised pipeline @f
# holds the softmax's body in place of the call, after the scaling, so that the passes that
# follow see both (linalg-fuse-rows then takes the scaling into the softmax's row passes).
# mg-opt reads a .mg file as a program, whose @softmax, called once, goes (a library keeps
# it: library.mlir).
# RUN: mg-opt %s -p 'mg-cpu-pipeline{to=linalg}' | filecheck %s

def softmax(s: tensor[8x256x256xf32]) -> tensor[8x256x256xf32]:
    let e = exp(s - max(s, axes=[-1], keepdims=true))
    return e / sum(e, axes=[-1], keepdims=true)

def f(q: tensor[8x256x64xf32], kt: tensor[8x64x256xf32], v: tensor[8x256x64xf32]) -> tensor[8x256x64xf32]:
    return softmax(q @ kt * 0.125) @ v

# CHECK-NOT:   func.func @softmax(
# CHECK-LABEL: func.func @f(
# CHECK-NOT:     func.call @softmax
# CHECK:         linalg.generic {{.*}} ins(%q, %kt : memref<8x256x64xf32>, memref<8x64x256xf32>) outs(%[[S:.*]] : memref<8x256x256xf32>)
# CHECK:         linalg.generic {{.*}} ins(%[[S]] : memref<8x256x256xf32>) outs(%[[S]] : memref<8x256x256xf32>)
# CHECK-NEXT:    ^{{.*}}
# CHECK-NEXT:      arith.constant 1.250000e-01 : f32
# CHECK:         arith.maximumf
# CHECK:         math.exp
# CHECK-NOT:     func.call @softmax
# CHECK:         linalg.generic {{.*}} ins(%[[S]], %v : memref<8x256x256xf32>, memref<8x256x64xf32>)
# CHECK:         func.return
