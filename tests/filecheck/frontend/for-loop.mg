# A `for` loop is one scf.for whose iter_args are the vars the body assigns, in the order
# they were first assigned (w, then v): the loop carries them from iteration to iteration
# and its results are their values after it. Updates in place (`w += g`, `w *= 0.5`,
# `v -= w`) write into the buffers the loop carries: at the affine stage, in both pipelines,
# the loop body allocates nothing and yields its iteration arguments as they are
# (buffer-deallocation's rule (c): the body owns its iteration arguments).
# RUN: mg-opt %s 2>/dev/null | filecheck %s --check-prefix=MG
# RUN: mgc mlir --stage affine %s 2>/dev/null | filecheck %s --check-prefix=AFFINE
# RUN: mgc mlir --stage affine --reference %s 2>/dev/null | filecheck %s --check-prefix=AFFINE
var w = zeros([3])
var v = ones([3])
let g = [1.0, 2.0, 3.0]
for i in range(5):
    w += g
    w *= 0.5
    v -= w
print v
print w

# MG-LABEL: func.func @main()
# MG:         %[[W0:[^ ]+]] = mg.full {value = 0.000000e+00 : f64} : tensor<3xf64>
# MG:         %[[V0:[^ ]+]] = mg.full {value = 1.000000e+00 : f64} : tensor<3xf64>
# MG:         %[[STOP:.*]] = arith.constant 5 : index
# MG-NEXT:    %[[START:.*]] = arith.constant 0 : index
# MG-NEXT:    %[[STEP:.*]] = arith.constant 1 : index
# MG-NEXT:    %[[RW:[^ ,]+]], %[[RV:[^ ]+]] = scf.for %{{.*}} = %[[START]] to %[[STOP]] step %[[STEP]] iter_args(%[[W:[^ ]+]] = %[[W0]], %[[V:[^ ]+]] = %[[V0]]) -> (tensor<3xf64>, tensor<3xf64>) {
# MG-NEXT:      %[[W1:.*]] = mg.add %[[W]], %{{.*}} {mg.in_place}
# MG-NEXT:      %[[W2:.*]] = mg.scalar %[[W1]] {mg.in_place, op = "mul", value = 5.000000e-01 : f64, reversed = false}
# MG-NEXT:      %[[V1:.*]] = mg.sub %[[V]], %[[W2]] {mg.in_place}
# MG-NEXT:      scf.yield %[[W2]], %[[V1]] : tensor<3xf64>, tensor<3xf64>
# MG-NEXT:    }
# MG-NEXT:    mg.print %[[RV]] : tensor<3xf64>
# MG-NEXT:    mg.print %[[RW]] : tensor<3xf64>

# AFFINE-LABEL: func.func @main()
# AFFINE:         %[[RW:[^ ,]+]], %[[RV:[^ ]+]] = scf.for %{{.*}} iter_args(%[[W:[^ ]+]] = %{{.*}}, %[[V:[^ ]+]] = %{{.*}}) -> (memref<3xf64>, memref<3xf64>) {
# AFFINE-NOT:       memref.alloc
# AFFINE-NOT:       memref.copy
# AFFINE:           affine.store %{{.*}}, %[[W]][%{{.*}}] : memref<3xf64>
# AFFINE-NOT:       memref.alloc
# AFFINE:           affine.store %{{.*}}, %[[V]][%{{.*}}] : memref<3xf64>
# AFFINE-NOT:       memref.alloc
# AFFINE-NOT:       memref.dealloc
# AFFINE:           scf.yield %[[W]], %[[V]] : memref<3xf64>, memref<3xf64>
# AFFINE-NEXT:    }
# AFFINE:         memref.dealloc %[[RV]]
# AFFINE:         memref.dealloc %[[RW]]
