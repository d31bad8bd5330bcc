// buffer-deallocation frees each buffer after its last top-level use (uses inside a loop
// nest count as uses by the nest; a memref.cast is a view, not a copy), never frees what a
// function returns, and copies a returned value the function does not own.
// RUN: mg-opt %s -p lower-mg-to-affine,buffer-deallocation | filecheck %s

func.func @chain(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %a = mg.neg %x : tensor<2x2xf64> -> tensor<2x2xf64>
  %b = mg.relu %a : tensor<2x2xf64> -> tensor<2x2xf64>
  %c = mg.add %b, %a : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  func.return %c : tensor<2x2xf64>
}
// CHECK-LABEL: func.func @chain(
// CHECK:      %[[A:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK:      %[[B:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK:      %[[C:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK:      affine.for
// CHECK:        affine.load %[[B]]
// CHECK:        affine.load %[[A]]
// CHECK:      }
// CHECK-DAG:  memref.dealloc %[[A]] : memref<2x2xf64>
// CHECK-DAG:  memref.dealloc %[[B]] : memref<2x2xf64>
// CHECK:      func.return %[[C]] : memref<2x2xf64>
// CHECK-NOT:  memref.dealloc %[[C]]

func.func @main() {
  %k = mg.constant dense<[[1.0, -2.0], [3.0, -4.0]]> : tensor<2x2xf64>
  %r = func.call @chain(%k) : (tensor<2x2xf64>) -> tensor<2x2xf64>
  mg.print %r : tensor<2x2xf64>
  func.return
}
// The caller owns what a call returns: freed after the print (through the cast it uses);
// the constant global is never freed.
// CHECK-LABEL: func.func @main()
// CHECK:      %[[K:.*]] = memref.get_global
// CHECK-NEXT: %[[R:.*]] = func.call @chain(%[[K]])
// CHECK-NEXT: %[[U:.*]] = "memref.cast"(%[[R]])
// CHECK-NEXT: func.call @printMemrefF64(%[[U]])
// CHECK-NEXT: memref.dealloc %[[R]] : memref<2x2xf64>
// CHECK-NOT:  memref.dealloc %[[K]]

func.func @pass_through(%x: tensor<?x2xf64>) -> tensor<?x2xf64> {
  func.return %x : tensor<?x2xf64>
}
// CHECK-LABEL: func.func @pass_through(
// CHECK:      %[[N:.*]] = memref.dim %x, %{{.*}} : memref<?x2xf64>
// CHECK-NEXT: %[[COPY:.*]] = memref.alloc(%[[N]]) : memref<?x2xf64>
// CHECK-NEXT: "memref.copy"(%x, %[[COPY]]) : (memref<?x2xf64>, memref<?x2xf64>) -> ()
// CHECK-NEXT: func.return %[[COPY]] : memref<?x2xf64>

// A view owns nothing: its base is freed after the last read through it (a view of a view
// too), and the view itself is never freed.
func.func @viewed(%x: memref<2x4xf64>) -> memref<2x2xf64> {
  %a = memref.alloc() : memref<2x4xf64>
  "memref.copy"(%x, %a) : (memref<2x4xf64>, memref<2x4xf64>) -> ()
  %t = memref.reinterpret_cast %a to offset: [0], sizes: [4, 2], strides: [1, 4] : memref<2x4xf64> to memref<4x2xf64, strided<[1, 4]>>
  %s = memref.subview %t[1, 0] [2, 2] [1, 1] : memref<4x2xf64, strided<[1, 4]>> to memref<2x2xf64, strided<[1, 4], offset: 1>>
  %r = memref.alloc() : memref<2x2xf64>
  "memref.copy"(%s, %r) : (memref<2x2xf64, strided<[1, 4], offset: 1>>, memref<2x2xf64>) -> ()
  func.return %r : memref<2x2xf64>
}
// CHECK-LABEL: func.func @viewed(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<2x4xf64>
// CHECK:         %[[T:.*]] = memref.reinterpret_cast %[[A]]
// CHECK-NEXT:    %[[S:.*]] = memref.subview %[[T]]
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK-NEXT:    "memref.copy"(%[[S]], %[[R]])
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<2x4xf64>
// CHECK-NEXT:    func.return %[[R]] : memref<2x2xf64>
