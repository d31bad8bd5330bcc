// RUN: mg-opt %S/../../../examples/10_gpu_layer.mg -p lower-mg-to-affine,affine-parallelize,lower-affine,convert-parallel-loops-to-gpu,dce | filecheck %s
// RUN: mg-opt %S/../../../examples/09_dynamic_reductions.mg -p lower-mg-to-affine,affine-parallelize,lower-affine,convert-parallel-loops-to-gpu,dce | filecheck %s --check-prefix=DYN

// 2x3 elements: 6 threads needed, one block of 256.
// CHECK:      %[[TOTAL:[0-9]+]] = arith.constant 6 : index
// CHECK:      %[[THREADS:[0-9]+]] = arith.constant 256 : index
// CHECK:      "gpu.launch"(%[[GRID:[0-9]+]], %[[ONE:[0-9]+]], %[[ONE]], %[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK-NEXT: ^bb0(%[[BX:[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index, %[[TX:[0-9]+]]: index,
// CHECK:        %[[M:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK-NEXT:   %[[ID:.*]] = arith.addi %[[M]], %[[TX]] : index
// CHECK-NEXT:   %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[TOTAL]] : index
// CHECK-NEXT:   scf.if %[[IN]] {
// CHECK-NEXT:     %[[J:.*]] = arith.remui %[[ID]], %{{.*}} : index
// CHECK-NEXT:     %[[I:.*]] = arith.divui %[[ID]], %{{.*}} : index
// CHECK:          memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK:        "gpu.terminator"()
// The reduction's accumulation keeps its sequential loop inside the kernel.
// CHECK:      "gpu.launch"
// CHECK:      "gpu.launch"
// CHECK:      "gpu.launch"
// CHECK:      "gpu.launch"
// CHECK:        scf.if
// CHECK-NEXT:     %{{.*}} = arith.constant 0 : index
// CHECK:          scf.for

// Run-time sizes: total = rows * cols, blocks = (total + 255) / 256.
// DYN-LABEL: func.func @totals
// DYN:      arith.muli
// DYN:      %[[THREADS:[0-9]+]] = arith.constant 256 : index
// DYN-NEXT: %[[S:[0-9]+]] = arith.addi %{{[0-9]+}}, %[[THREADS]] : index
// DYN:      %[[S1:[0-9]+]] = arith.subi %[[S]], %{{[0-9]+}} : index
// DYN-NEXT: %[[G:[0-9]+]] = arith.divui %[[S1]], %[[THREADS]] : index
// DYN:      "gpu.launch"(%[[G]], %{{[0-9]+}}, %{{[0-9]+}}, %[[THREADS]],
