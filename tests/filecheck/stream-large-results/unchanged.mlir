// stream-large-results leaves alone what it cannot or should not stream: results that
// are small, or so large that they are fresh pages; sizes known only at run time; a
// broadcast input (no flat index); a result the function does not return (a later loop
// reads it back from the cache); anything but an elementwise generic.
// RUN: mg-opt %s -p 'convert-mg-to-linalg,linalg-fuse-elementwise-ops,stream-large-results' | filecheck %s
// Lower limits move the decision:
// RUN: mg-opt %s -p 'convert-mg-to-linalg,linalg-fuse-elementwise-ops,stream-large-results{min-bytes=300}' | filecheck %s --check-prefix=LOW

// CHECK-NOT: nontemporal
// CHECK-NOT: collapse_shape
// CHECK-NOT: alignment

// 10 x 10: 2400 bytes streamed.
// LOW-LABEL: func.func @small(
// LOW:         vector.store {{.*}}nontemporal = true
func.func @small(%a: tensor<10x10xf64>, %b: tensor<10x10xf64>) -> tensor<10x10xf64> {
  %r = mg.add %a, %b : tensor<10x10xf64>, tensor<10x10xf64> -> tensor<10x10xf64>
  func.return %r : tensor<10x10xf64>
}
// 5000 x 1000: 40 MB of result, 32 MiB or more.
// LOW-LABEL: func.func @fresh_pages(
// LOW-NOT:     nontemporal
func.func @fresh_pages(%a: tensor<5000x1000xf64>) -> tensor<5000x1000xf64> {
  %r = mg.neg %a : tensor<5000x1000xf64> -> tensor<5000x1000xf64>
  func.return %r : tensor<5000x1000xf64>
}
// Just under the limits: 16777200 bytes streamed; a result of exactly 32 MiB.
// LOW-LABEL: func.func @not_quite_enough(
// LOW:         nontemporal
// LOW-LABEL: func.func @just_too_large(
// LOW-NOT:     nontemporal
func.func @not_quite_enough(%a: tensor<1x699050xf64>, %b: tensor<1x699050xf64>) -> tensor<1x699050xf64> {
  %r = mg.sub %a, %b : tensor<1x699050xf64>, tensor<1x699050xf64> -> tensor<1x699050xf64>
  func.return %r : tensor<1x699050xf64>
}
func.func @just_too_large(%a: tensor<1x4194304xf64>) -> tensor<1x4194304xf64> {
  %r = mg.neg %a : tensor<1x4194304xf64> -> tensor<1x4194304xf64>
  func.return %r : tensor<1x4194304xf64>
}
// LOW-LABEL: func.func @sizes_at_run_time(
// LOW-NOT:     nontemporal
func.func @sizes_at_run_time(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = mg.sub %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}
// LOW-LABEL: func.func @broadcast_input(
// LOW-NOT:     nontemporal
func.func @broadcast_input(%a: tensor<1000x1000xf64>, %v: tensor<1x1000xf64>) -> tensor<1000x1000xf64> {
  %w = mg.broadcast %v : tensor<1x1000xf64> -> tensor<1000x1000xf64>
  %r = mg.add %a, %w : tensor<1000x1000xf64>, tensor<1000x1000xf64> -> tensor<1000x1000xf64>
  func.return %r : tensor<1000x1000xf64>
}
// The sum is read back by the row sum, which is what is returned.
// LOW-LABEL: func.func @not_returned(
// LOW-NOT:     nontemporal
// LOW-LABEL: func.func @matmul(
func.func @not_returned(%a: tensor<1000x1000xf64>, %b: tensor<1000x1000xf64>) -> tensor<1000x1xf64> {
  %s = mg.add %a, %b : tensor<1000x1000xf64>, tensor<1000x1000xf64> -> tensor<1000x1000xf64>
  %r = mg.reduce %s {axis = 1 : i64, kind = "sum"} : tensor<1000x1000xf64> -> tensor<1000x1xf64>
  func.return %r : tensor<1000x1xf64>
}
// LOW-NOT:     nontemporal
func.func @matmul(%a: tensor<1000x1000xf64>, %b: tensor<1000x1000xf64>) -> tensor<1000x1000xf64> {
  %r = mg.matmul %a, %b : tensor<1000x1000xf64>, tensor<1000x1000xf64> -> tensor<1000x1000xf64>
  func.return %r : tensor<1000x1000xf64>
}
