// mg.index, mg.index_add, mg.gather and mg.scatter_add parse and print back in their
// textual form, and a second round trip is stable.
// RUN: mg-opt %s | filecheck %s
// RUN: mg-opt %s | mg-opt | filecheck %s
// RUN: mg-opt %s --print-op-generic | mg-opt | filecheck %s

func.func @ops(%t: tensor<5x3xbf16>, %ids: tensor<2x4xi64>, %v: tensor<2x4x3xbf16>, %x: tensor<?x5xi1>,
               %idx: tensor<?x2xi32>) -> tensor<?x2xi1> {
  %r = mg.index %t, %ids : tensor<5x3xbf16>, tensor<2x4xi64> -> tensor<2x4x3xbf16>
  %a = mg.index_add %t, %ids, %v : tensor<5x3xbf16>, tensor<2x4xi64>, tensor<2x4x3xbf16> -> tensor<5x3xbf16>
  %g = mg.gather %x, %idx {axis = 1 : i64} : tensor<?x5xi1>, tensor<?x2xi32> -> tensor<?x2xi1>
  %y = "test.op"() : () -> tensor<?x5xi64>
  %w = "test.op"() : () -> tensor<?x2xi64>
  %s = mg.scatter_add %y, %idx, %w {axis = 1 : i64} : tensor<?x5xi64>, tensor<?x2xi32>, tensor<?x2xi64> -> tensor<?x5xi64>
  func.return %g : tensor<?x2xi1>
}
// CHECK:      %r = mg.index %t, %ids : tensor<5x3xbf16>, tensor<2x4xi64> -> tensor<2x4x3xbf16>
// CHECK-NEXT: %a = mg.index_add %t, %ids, %v : tensor<5x3xbf16>, tensor<2x4xi64>, tensor<2x4x3xbf16> -> tensor<5x3xbf16>
// CHECK-NEXT: %g = mg.gather %x, %idx {axis = 1 : i64} : tensor<?x5xi1>, tensor<?x2xi32> -> tensor<?x2xi1>
// CHECK:      %s = mg.scatter_add %y, %idx, %w {axis = 1 : i64} : tensor<?x5xi64>, tensor<?x2xi32>, tensor<?x2xi64> -> tensor<?x5xi64>
