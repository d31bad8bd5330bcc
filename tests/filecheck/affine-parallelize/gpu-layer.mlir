// RUN: mg-opt %S/../../../examples/10_gpu_layer.mg -p lower-mg-to-affine,affine-parallelize | filecheck %s
// RUN: mg-opt %S/../../../examples/09_dynamic_reductions.mg -p lower-mg-to-affine,affine-parallelize | filecheck %s --check-prefix=COL
// RUN: mg-opt %S/Inputs/col_sum_mixed.mg -p lower-mg-to-affine,affine-parallelize --print-op-generic | filecheck %s --check-prefix=MIXED

// Elementwise nests: both loops parallel.
// CHECK:      "affine.parallel"() <{{.*}}upperBoundsMap = affine_map<() -> (2)>
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:   "affine.parallel"() <{{.*}}upperBoundsMap = affine_map<() -> (3)>
// CHECK:          affine.store {{.*}}[%[[I]], {{.*}}] : memref<2x3xf64>
// The row reduction: the row loop parallel, the accumulation loop sequential.
// CHECK:      affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x1xf64>
// CHECK:      "affine.parallel"() <{{.*}}upperBoundsMap = affine_map<() -> (2)>
// CHECK-NEXT: ^bb0(%[[R:.*]]: index):
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK:          affine.store %{{.*}}, %{{.*}}[%[[R]], %{{.*}}] : memref<2x1xf64>
// CHECK-NOT:  affine.for

// A column reduction: the loops are interchanged, the parallel column loop outermost.
// COL-LABEL: func.func @peaks
// COL:      affine.store {{.*}} : memref<1x?xf64>
// COL:      "affine.parallel"(%[[N:.*]]) <{{.*}}upperBoundsMap = affine_map<()[s0] -> (s0)>
// COL-NEXT: ^bb0(%[[C:.*]]: index):
// COL-NEXT:   affine.for %[[I:.*]] = 0 to %{{.*}} {
// COL:          affine.load %a[%[[I]], %[[C]]]
// COL:          affine.store %{{.*}}, %{{.*}}[%{{.*}}, %[[C]]] : memref<1x?xf64>

// Interchanging a loop with a static bound (3 columns) and one with a run-time bound (the
// rows): the bound operand moves to the inner loop, and so does its operand group size.
// The first nest with three columns sets the start values; the second one accumulates.
// MIXED:      "affine.parallel"() <{{.*}}upperBoundsMap = affine_map<() -> (3)>
// MIXED:      "affine.parallel"() <{{.*}}upperBoundsMap = affine_map<() -> (3)>
// MIXED-NEXT: ^bb0(%{{.*}}: index):
// MIXED-NEXT:   "affine.for"(%{{.*}}) <{lowerBoundMap = affine_map<() -> (0)>, upperBoundMap = affine_map<()[s0] -> (s0)>, step = 1 : index, operandSegmentSizes = array<i32: 0, 1, 0>}>
