// mg.extract: the element loaded into a rank-0 buffer. A static dimension's negative index
// is counted from the end when compiling; an index into a '?' dimension is checked when the
// program runs (an unsigned compare with the size: a negative position is a huge one).
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @static(%x: tensor<2x3xi32>) -> tensor<i32> {
  %r = mg.extract %x {indices = array<i64: 1, -1>} : tensor<2x3xi32> -> tensor<i32>
  func.return %r : tensor<i32>
}
// CHECK-LABEL: func.func @static(%x: memref<2x3xi32>) -> memref<i32>
// CHECK-DAG:  %[[I:.*]] = arith.constant 1 : index
// CHECK-DAG:  %[[J:.*]] = arith.constant 2 : index
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<i32>
// CHECK-NEXT: %[[V:.*]] = memref.load %x[%[[I]], %[[J]]] : memref<2x3xi32>
// CHECK-NEXT: memref.store %[[V]], %[[OUT]][] : memref<i32>
// CHECK-NOT:  cf.assert

func.func @dynamic(%x: tensor<?x3xf64>) -> tensor<f64> {
  %r = mg.extract %x {indices = array<i64: -2, 0>} : tensor<?x3xf64> -> tensor<f64>
  func.return %r : tensor<f64>
}
// CHECK-LABEL: func.func @dynamic(
// CHECK:      %[[N:.*]] = memref.dim %x, %{{.*}} : memref<?x3xf64>
// CHECK:      %[[M2:.*]] = arith.constant -2 : index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[N]], %[[M2]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[P]], %[[N]] : index
// CHECK-NEXT: cf.assert %[[OK]], "mg.extract: index -2 is out of range for dimension 0"
// CHECK:      memref.load %x[%[[P]], %{{.*}}] : memref<?x3xf64>
