// A function with at least min-loops top-level loop nests is cut after every
// loops-per-function-th nest, and each run of ops with a nest in it moves into a private,
// noinline function of its own: constants are made again inside, other values used from
// before the run are passed, values used after it are returned. Ops after the last nest
// stay. A function with fewer nests is left alone.
// RUN: mg-opt %s -p 'outline-loop-nests{min-loops=2 loops-per-function=1}' | filecheck %s
// RUN: mg-opt %s -p 'outline-loop-nests{min-loops=2 loops-per-function=2}' | filecheck %s --check-prefix=TWO
// RUN: mg-opt %s -p 'outline-loop-nests{min-loops=2 loops-per-function=1},convert-scf-to-cf,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts' | filecheck %s --check-prefix=LLVM

func.func @two(%a: memref<2xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.5 : f64
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %x, %a[%i] : memref<2xf64>
  }
  %b = memref.alloc() : memref<2xf64>
  scf.for %j = %c0 to %n step %c1 {
    %v = memref.load %a[%c0] : memref<2xf64>
    memref.store %v, %b[%c1] : memref<2xf64>
  }
  %r = memref.load %b[%c1] : memref<2xf64>
  memref.dealloc %b : memref<2xf64>
  func.return %r : f64
}
// A constant used after a run is made again before its call, not returned.
// CHECK-LABEL: func.func @two(%a: memref<2xf64>, %n: index) -> f64 {
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    func.call @two_loops_0(%a) : (memref<2xf64>) -> ()
// CHECK-NEXT:    %b = func.call @two_loops_1(%n, %a) : (index, memref<2xf64>) -> memref<2xf64>
// CHECK-NEXT:    %r = memref.load %b[%[[C1]]] : memref<2xf64>
// CHECK-NEXT:    memref.dealloc %b : memref<2xf64>
// CHECK-NEXT:    func.return %r : f64
// CHECK:       func.func private @two_loops_0(%a: memref<2xf64>) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[X:.*]] = arith.constant 1.500000e+00 : f64
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[Z]] to %[[C2]] step %[[ONE]] {
// CHECK-NEXT:      memref.store %[[X]], %a[%[[I]]] : memref<2xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK:       func.func private @two_loops_1(%n: index, %a: memref<2xf64>) -> memref<2xf64> attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %b = memref.alloc() : memref<2xf64>
// CHECK-NEXT:    scf.for %{{.*}} = %[[C0]] to %n step %[[C1]] {
// CHECK-NEXT:      %v = memref.load %a[%[[C0]]]
// CHECK-NEXT:      memref.store %v, %b[%[[C1]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %b : memref<2xf64>

// Both nests in one function: nothing crosses but %a, %n and the result %b.
// TWO-LABEL: func.func @two(
// TWO-NEXT:    %{{.*}} = arith.constant 1 : index
// TWO-NEXT:    %b = func.call @two_loops_0(%a, %n) : (memref<2xf64>, index) -> memref<2xf64>
// TWO-NOT:     func.call
// TWO:         func.func private @two_loops_0(%a: memref<2xf64>, %n: index) -> memref<2xf64>
// TWO-COUNT-2: scf.for
// TWO:         func.return %b : memref<2xf64>

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
// LLVM: llvm.func @two_loops_0({{.*}}) attributes {passthrough = ["noinline"]

// An unranked memref (a print's operand) points to a descriptor on the stack of the function
// that cast it, so a cast used after its run is not returned: its ranked source is, and the
// cast is made again after the call (a print after 32 nests once printed a freed frame).
func.func @printed(%a: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.5 : f64
  %b = memref.alloc() : memref<2xf64>
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %x, %b[%i] : memref<2xf64>
  }
  %u = "memref.cast"(%b) : (memref<2xf64>) -> memref<*xf64>
  %w = "memref.cast"(%a) : (memref<2xf64>) -> memref<*xf64>
  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %x, %a[%i] : memref<2xf64>
  }
  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  func.call @printMemrefF64(%w) : (memref<*xf64>) -> ()
  func.return
}
func.func private @printMemrefF64(memref<*xf64>)
// CHECK-LABEL: func.func @printed(%a: memref<2xf64>) {
// CHECK-NEXT:    %[[B:.*]] = func.call @printed_loops_0() : () -> memref<2xf64>
// CHECK-NEXT:    func.call @printed_loops_1(%[[B]], %a) : (memref<2xf64>, memref<2xf64>) -> ()
// CHECK-NEXT:    %[[W:.*]] = "memref.cast"(%a) : (memref<2xf64>) -> memref<*xf64>
// CHECK-NEXT:    %[[U:.*]] = "memref.cast"(%[[B]]) : (memref<2xf64>) -> memref<*xf64>
// CHECK-NEXT:    func.call @printMemrefF64(%[[U]])
// CHECK-NEXT:    func.call @printMemrefF64(%[[W]])
// CHECK:       func.func private @printed_loops_1(%{{.*}}: memref<2xf64>, %a: memref<2xf64>) attributes
// CHECK:         func.call @printMemrefF64(%{{.*}}) : (memref<*xf64>) -> ()
// CHECK:         scf.for
// CHECK:         func.return{{$}}
