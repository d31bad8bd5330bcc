# A var owns its buffer, and `w -= EXPR` is computed into it: an mg op marked mg.in_place
# (its result is its first operand's buffer). In the optimised pipeline's linalg stage each
# update is one linalg.generic whose output is w itself, with the right-hand side fused
# into it, the body of `slope` too (called once, it is inlined): no memref.alloc for either
# update.
# RUN: mg-opt %s 2>/dev/null | filecheck %s --check-prefix=MG
# RUN: mg-opt %s -p 'mg-cpu-pipeline{to=linalg}' 2>/dev/null | filecheck %s --check-prefix=LINALG
def slope(w: tensor[4x3]) = w * 2
var w = ones([4, 3])
w -= 0.1 * slope(w)
w *= 2
print w
# MG-LABEL: func.func @main()
# MG:         %[[W:.*]] = mg.full {value = 1.000000e+00 : f64} : tensor<4x3xf64>
# MG:         %[[D:.*]] = mg.scalar %{{.*}} {op = "mul", value = 1.000000e-01 : f64, reversed = true}
# MG-NEXT:    %[[W1:.*]] = mg.sub %[[W]], %[[D]] {mg.in_place} : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
# MG-NEXT:    %[[W2:.*]] = mg.scalar %[[W1]] {mg.in_place, op = "mul", value = 2.000000e+00 : f64, reversed = false}
# MG-NEXT:    mg.print %[[W2]]

# LINALG-LABEL: func.func @main()
# LINALG:         %[[W:.*]] = memref.alloc() : memref<4x3xf64>
# LINALG-NEXT:    %{{.*}} = arith.constant 1.000000e+00 : f64
# LINALG-NEXT:    linalg.fill ins(%{{.*}} : f64) outs(%[[W]] : memref<4x3xf64>)
# LINALG-NOT:     func.call @slope
# LINALG-NEXT:    linalg.generic {{.*}} ins(%[[W]] : memref<4x3xf64>) outs(%[[W]] : memref<4x3xf64>)
# LINALG:           arith.mulf
# LINALG:           arith.mulf
# LINALG-NEXT:      arith.subf
# LINALG:         linalg.generic {{.*}} ins(%[[W]] : memref<4x3xf64>) outs(%[[W]] : memref<4x3xf64>)
# LINALG-NOT:     memref.alloc
# LINALG:         func.call @printMemrefF64
