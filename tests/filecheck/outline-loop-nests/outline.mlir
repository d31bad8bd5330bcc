// Each top-level loop nest of a function with at least min-loops of them moves into a
// private, noinline function of its own; constants are made again inside, other values
// are passed. A function with fewer nests is left alone.
// RUN: mg-opt %s -p outline-loop-nests{min-loops=2} | filecheck %s
// RUN: mg-opt %s -p outline-loop-nests{min-loops=2},convert-scf-to-cf,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts | filecheck %s --check-prefix=LLVM

func.func @two(%a: memref<2xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.5 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %x, %a[%i] : memref<2xf64>
  }
  scf.for %j = %c0 to %n step %c1 {
    %v = memref.load %a[%c0] : memref<2xf64>
    memref.store %v, %a[%c1] : memref<2xf64>
  }
  func.return
}
// CHECK-LABEL: func.func @two(%a: memref<2xf64>, %n: index) {
// CHECK:         func.call @two_loop_0(%a) : (memref<2xf64>) -> ()
// CHECK-NEXT:    func.call @two_loop_1(%n, %a) : (index, memref<2xf64>) -> ()
// CHECK-NEXT:    func.return
// CHECK:       func.func private @two_loop_0(%a: memref<2xf64>) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[X:.*]] = arith.constant 1.500000e+00 : f64
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[Z]] to %[[TWO]] step %[[ONE]] {
// CHECK-NEXT:      memref.store %[[X]], %a[%[[I]]] : memref<2xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK:       func.func private @two_loop_1(%n: index, %a: memref<2xf64>) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %{{.*}} = %[[C0]] to %{{.*}} step %[[C1]] {
// CHECK-NEXT:      memref.load %a[%[[C0]]]
// CHECK:         func.return

func.func @one(%a: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.5 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %x, %a[%i] : memref<2xf64>
  }
  func.return
}
// CHECK-LABEL: func.func @one(
// CHECK-NOT:     func.call
// CHECK:         scf.for

// The attribute reaches the LLVM dialect, where the translation makes it LLVM's noinline.
// LLVM: llvm.func @two_loop_0({{.*}}) attributes {passthrough = ["noinline"]
