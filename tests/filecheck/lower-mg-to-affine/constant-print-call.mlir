// mg.constant becomes a private constant memref.global read by memref.get_global; mg.print a
// cast to memref<*xf64> and a call to printMemrefF64; calls and signatures switch to memrefs.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @id(%a: tensor<1x2xf64>) -> tensor<1x2xf64> {
  func.return %a : tensor<1x2xf64>
}
func.func @main() {
  %c = mg.constant dense<[[1.5, -2.0]]> : tensor<1x2xf64>
  %d = mg.constant dense<[[1.5, -2.0]]> : tensor<1x2xf64>
  %r = func.call @id(%c) : (tensor<1x2xf64>) -> tensor<1x2xf64>
  mg.print %r : tensor<1x2xf64>
  mg.print %d : tensor<1x2xf64>
  func.return
}
// CHECK:      "memref.global"() <{sym_name = "[[G:__constant_1x2xf64_0]]", type = memref<1x2xf64>, initial_value = dense<{{\[\[}}1.500000e+00, -2.000000e+00]]> : tensor<1x2xf64>, sym_visibility = "private", constant}>
// CHECK-NOT:  "memref.global"
// CHECK:      func.func private @printMemrefF64(memref<*xf64>) -> ()
// CHECK:      func.func @id(%a: memref<1x2xf64>) -> memref<1x2xf64>
// CHECK:      func.func @main()
// CHECK-NEXT:   %[[C:.*]] = memref.get_global @[[G]] : memref<1x2xf64>
// CHECK-NEXT:   %[[D:.*]] = memref.get_global @[[G]] : memref<1x2xf64>
// CHECK-NEXT:   %[[R:.*]] = func.call @id(%[[C]]) : (memref<1x2xf64>) -> memref<1x2xf64>
// CHECK-NEXT:   %[[U:.*]] = "memref.cast"(%[[R]]) : (memref<1x2xf64>) -> memref<*xf64>
// CHECK-NEXT:   func.call @printMemrefF64(%[[U]]) : (memref<*xf64>) -> ()
