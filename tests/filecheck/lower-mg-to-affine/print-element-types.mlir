// mg.print calls the runner library's printer of its element type (element_types.PRINTERS),
// each declared once, in both pipelines' first lowering.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s

func.func @main() {
  %a = mg.constant dense<[[1.5, -2.0]]> : tensor<1x2xf32>
  %b = mg.constant dense<[[0.25]]> : tensor<1x1xf64>
  mg.print %a : tensor<1x2xf32>
  mg.print %b : tensor<1x1xf64>
  mg.print %a : tensor<1x2xf32>
  func.return
}
// CHECK-DAG:  func.func private @printMemrefF32(memref<*xf32>) -> ()
// CHECK-DAG:  func.func private @printMemrefF64(memref<*xf64>) -> ()
// CHECK:      func.func @main()
// CHECK:        %[[U:.*]] = "memref.cast"(%{{.*}}) : (memref<1x2xf32>) -> memref<*xf32>
// CHECK-NEXT:   func.call @printMemrefF32(%[[U]]) : (memref<*xf32>) -> ()
// CHECK:        %[[V:.*]] = "memref.cast"(%{{.*}}) : (memref<1x1xf64>) -> memref<*xf64>
// CHECK-NEXT:   func.call @printMemrefF64(%[[V]]) : (memref<*xf64>) -> ()
// CHECK:        func.call @printMemrefF32(
// CHECK-NOT:  func.func private @printMemref
