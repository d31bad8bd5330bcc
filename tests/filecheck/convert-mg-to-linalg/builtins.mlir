// The builtins' ops in the linalg stage: math functions and mg.max are linalg.generic
// bodies like every elementwise op; mg.reshape a copying linalg.generic whose input map
// reads 0 in the dropped dimension; mg.full a linalg.fill; a product starts from 1 and a
// minimum from +inf.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p convert-mg-to-linalg | mlir-opt-22 > /dev/null %}

func.func @f(%x: tensor<?x1xf64>) -> (tensor<?xf64>, tensor<1x1xf64>, tensor<2xf32>) {
  %e = mg.tanh %x : tensor<?x1xf64> -> tensor<?x1xf64>
  %m = mg.max %e, %x : tensor<?x1xf64>, tensor<?x1xf64> -> tensor<?x1xf64>
  %r = mg.reshape %m : tensor<?x1xf64> to tensor<?xf64>
  %p = mg.reduce %x {axis = 0 : i64, kind = "prod"} : tensor<?x1xf64> -> tensor<1x1xf64>
  %n = mg.reduce %p {axis = 1 : i64, kind = "min"} : tensor<1x1xf64> -> tensor<1x1xf64>
  %z = mg.full {value = 2.5 : f32} : tensor<2xf32>
  func.return %r, %n, %z : tensor<?xf64>, tensor<1x1xf64>, tensor<2xf32>
}
// CHECK:      ^bb0(%[[A:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:   %[[T:.*]] = math.tanh %[[A]] : f64
// CHECK-NEXT:   linalg.yield %[[T]] : f64
// CHECK:        arith.maximumf
// CHECK:      linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: linalg.fill ins(%[[ONE]] : f64)
// CHECK:        arith.mulf
// CHECK:      %[[INF:.*]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT: linalg.fill ins(%[[INF]] : f64)
// CHECK:        arith.minimumf
// CHECK:      %[[V:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-NEXT: linalg.fill ins(%[[V]] : f32)
