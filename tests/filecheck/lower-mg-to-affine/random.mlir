// mg.random: a nest over the result; each element's row-major position (i * 3 + j, an i64)
// is Philox 4x32-10's counter, the seed its key: ten rounds of 32x32 -> 64-bit multiplies
// by its constants, xors and key bumps; then 53 bits scaled by 2^-53 into [0, 1), and
// low + (high - low) * u.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @uniform() -> tensor<2x3xf64> {
  %r = mg.random {distribution = "uniform", seed = 5 : i64, a = -1.0 : f64, b = 3.0 : f64} : tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @uniform() -> memref<2x3xf64>
// CHECK:       %[[OUT:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT:  affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I]], %[[C3]] : index
// CHECK-NEXT:      %[[N:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:      %{{.*}} = arith.index_cast %[[N]] : index to i64
// CHECK-COUNT-20:  arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:           %[[LOW:.*]] = arith.constant -1.000000e+00 : f64
// CHECK-NEXT:      %[[HIGH:.*]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:      %[[SPREAD:.*]] = arith.subf %[[HIGH]], %[[LOW]] : f64
// CHECK:           %{{.*}} = arith.constant 1.1102230246251565e-16 : f64
// CHECK-NEXT:      %[[U:.*]] = arith.mulf
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[SPREAD]], %[[U]] : f64
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[LOW]], %[[SCALED]] : f64
// CHECK-NEXT:      affine.store %[[V]], %[[OUT]][%[[I]], %[[J]]] : memref<2x3xf64>
