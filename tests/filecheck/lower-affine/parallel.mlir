// RUN: mg-opt %S/../../../examples/10_gpu_layer.mg -p lower-mg-to-affine,affine-parallelize,lower-affine | filecheck %s

// CHECK:      "scf.parallel"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK:        memref.store
// CHECK-NEXT:   scf.reduce
// CHECK-NOT:  affine.
