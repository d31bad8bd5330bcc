// Math functions become the math dialect's op in the loop body (abs of an integer:
// math.absi); mg.max of integers arith.maxsi; mg.reshape a copying nest that reads index 0
// in a dropped dimension; mg.full stores its value; mg.iota casts the loop's index; a
// product starts from 1 and a minimum of integers from the type's maximum.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p lower-mg-to-affine | mlir-opt-22 > /dev/null %}

func.func @f(%x: tensor<?x1xf64>, %i: tensor<4xi32>) -> (tensor<?xf64>, tensor<4xi32>, tensor<2x3xi64>, tensor<1xi32>) {
  %e = mg.exp %x : tensor<?x1xf64> -> tensor<?x1xf64>
  %r = mg.reshape %e : tensor<?x1xf64> to tensor<?xf64>
  %a = mg.abs %i : tensor<4xi32> -> tensor<4xi32>
  %m = mg.max %a, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %z = mg.full {value = 7 : i64} : tensor<2x3xi64>
  %t = mg.iota {axis = 1 : i64} : tensor<2x3xi64>
  %s = mg.add %z, %t : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi64>
  %p = mg.reduce %m {axis = 0 : i64, kind = "prod"} : tensor<4xi32> -> tensor<1xi32>
  %n = mg.reduce %p {axis = 0 : i64, kind = "min"} : tensor<1xi32> -> tensor<1xi32>
  func.return %r, %m, %s, %n : tensor<?xf64>, tensor<4xi32>, tensor<2x3xi64>, tensor<1xi32>
}
// CHECK:      %[[X:.*]] = affine.load %x
// CHECK-NEXT: math.exp %[[X]] : f64
// CHECK:      affine.for %[[K:.*]] = 0 to
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[V:.*]] = affine.load %{{.*}}[%[[K]], %[[ZERO]]] : memref<?x1xf64>
// CHECK-NEXT:   affine.store %[[V]], %{{.*}}[%[[K]]] : memref<?xf64>
// CHECK:      math.absi %{{.*}} : i32
// CHECK:      arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK:      %[[SEVEN:.*]] = arith.constant 7 : i64
// CHECK:      affine.store %[[SEVEN]], %z
// CHECK:      affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:     %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:     affine.store %[[J64]], %t
// CHECK:      arith.constant 1 : i32
// CHECK:      arith.muli
// CHECK:      arith.constant 2147483647 : i32
// CHECK:      arith.minsi
