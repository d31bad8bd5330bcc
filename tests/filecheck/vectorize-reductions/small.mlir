// vectorize-reductions leaves small reductions as they are (loops, once lowered): a nest of static sizes
// with fewer than min-elements elements (default 4096), and a row reduction whose rows are
// statically shorter than one vector step (4 accumulators of 8 lanes), whatever its rows.
// RUN: mg-opt %s -p convert-mg-to-linalg,vectorize-reductions | filecheck %s
// RUN: mg-opt %s -p 'convert-mg-to-linalg,vectorize-reductions{min-elements=0}' | filecheck %s --check-prefix=ALL

// CHECK-LABEL: func.func @tiny(
// CHECK-NOT:     func.call
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK-LABEL: func.func @short_rows(
// CHECK-NOT:     func.call
// CHECK:         arith.addf
// CHECK-LABEL: func.func @short_dynamic_rows(
// CHECK-NOT:     func.call
// CHECK:         arith.addf
// CHECK-LABEL: func.func @small_columns(
// CHECK-NOT:     func.call
// CHECK:         arith.maximumf
// CHECK-LABEL: func.func @large_columns(
// CHECK:         func.call @mg_column_max_f64
// The one kernel is the module's only vector code.
// CHECK-NOT:   func.func @
// CHECK-LABEL: func.func private @mg_column_max_f64(
// CHECK:         vector.load

// With min-elements=0 only the short rows stay scalar.
// ALL-LABEL: func.func @tiny(
// ALL-NOT:     func.call
// ALL-LABEL: func.func @short_rows(
// ALL-NOT:     func.call
// ALL-LABEL: func.func @short_dynamic_rows(
// ALL-NOT:     func.call
// ALL-LABEL: func.func @small_columns(
// ALL:         func.call @mg_column_max_f64
// ALL-LABEL: func.func @large_columns(
// ALL:         func.call @mg_column_max_f64

func.func @tiny(%a: tensor<2x3xf64>) -> tensor<2x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
  func.return %r : tensor<2x1xf64>
}
func.func @short_rows(%a: tensor<100000x12xf64>) -> tensor<100000x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<100000x12xf64> -> tensor<100000x1xf64>
  func.return %r : tensor<100000x1xf64>
}
func.func @short_dynamic_rows(%a: tensor<?x3xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x3xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
func.func @small_columns(%a: tensor<40x40xf64>) -> tensor<1x40xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "max"} : tensor<40x40xf64> -> tensor<1x40xf64>
  func.return %r : tensor<1x40xf64>
}
func.func @large_columns(%a: tensor<100x100xf64>) -> tensor<1x100xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "max"} : tensor<100x100xf64> -> tensor<1x100xf64>
  func.return %r : tensor<1x100xf64>
}
