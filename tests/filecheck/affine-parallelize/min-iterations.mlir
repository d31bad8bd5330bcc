// affine-parallelize{min-iterations=N}: a nest of static sizes that does fewer than N
// iterations in all stays sequential; a larger one, or one with a `?` size, becomes parallel.
// RUN: mg-opt %s -p 'lower-mg-to-affine,affine-parallelize{min-iterations=1000}' | filecheck %s
// RUN: mg-opt %s -p lower-mg-to-affine,affine-parallelize | filecheck %s --check-prefix=ALL

func.func @small(%a: tensor<20x30xf64>) -> tensor<20x30xf64> {
  %r = mg.relu %a : tensor<20x30xf64> -> tensor<20x30xf64>
  func.return %r : tensor<20x30xf64>
}
// 600 iterations: sequential.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     affine.parallel
// CHECK:         affine.for %{{.*}} = 0 to 20 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 30 {
// ALL-LABEL:   func.func @small(
// ALL:           "affine.parallel"

func.func @large(%a: tensor<40x30xf64>) -> tensor<40x30xf64> {
  %r = mg.relu %a : tensor<40x30xf64> -> tensor<40x30xf64>
  func.return %r : tensor<40x30xf64>
}
// 1200 iterations: parallel.
// CHECK-LABEL: func.func @large(
// CHECK:         "affine.parallel"

func.func @dynamic(%a: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %r = mg.relu %a : tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %r : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @dynamic(
// CHECK:         "affine.parallel"
