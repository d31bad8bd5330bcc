// buffer-deallocation in loops and conditionals: each block (a function's, a loop body's, a
// branch's) frees what it owns after its last use there; a loop takes its initial buffer if
// that dies at the loop, else a copy; a body hands on what it yields (its iteration argument
// updated in place, or a new buffer) and frees what it does not; a branch copies a yielded
// value from outside it.
// RUN: mg-opt %s -p lower-mg-to-affine,buffer-deallocation | filecheck %s

// A var updated in place in the loop: the body allocates nothing and frees nothing; the
// initial buffer dies at the loop (the loop takes it); the result is freed after its print.
func.func @in_place(%g: tensor<3xf64>) {
  %w0 = mg.full {value = 0.0 : f64} : tensor<3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r = scf.for %i = %c0 to %c9 step %c1 iter_args(%w = %w0) -> (tensor<3xf64>) {
    %w1 = mg.add %w, %g {mg.in_place} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    scf.yield %w1 : tensor<3xf64>
  }
  mg.print %r : tensor<3xf64>
  func.return
}
// CHECK-LABEL: func.func @in_place(
// CHECK:       %[[W0:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NOT:   memref.dealloc %[[W0]]
// CHECK:       %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[W:.*]] = %[[W0]]) -> (memref<3xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK-NOT:     memref.copy
// CHECK:         scf.yield %[[W]] : memref<3xf64>
// CHECK-NEXT:  }
// CHECK:       func.call @printMemrefF64
// CHECK-NEXT:  memref.dealloc %[[R]] : memref<3xf64>
// CHECK-NEXT:  func.return

// A body that yields a new buffer frees its iteration argument after its last use; the
// initial value is read after the loop, so the loop starts from a copy of it; a temporary
// of the body is freed in the body.
func.func @fresh(%x: tensor<3xf64>) -> tensor<3xf64> {
  %a0 = mg.neg %x : tensor<3xf64> -> tensor<3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r = scf.for %i = %c0 to %c9 step %c1 iter_args(%a = %a0) -> (tensor<3xf64>) {
    %t = mg.relu %a : tensor<3xf64> -> tensor<3xf64>
    %a1 = mg.add %t, %a : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    scf.yield %a1 : tensor<3xf64>
  }
  %s = mg.add %r, %a0 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}
// CHECK-LABEL: func.func @fresh(
// CHECK:       %[[A0:.*]] = memref.alloc() : memref<3xf64>
// CHECK:       %[[COPY:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:  "memref.copy"(%[[A0]], %[[COPY]])
// CHECK-NEXT:  %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[COPY]]) -> (memref<3xf64>) {
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<3xf64>
// CHECK:         %[[A1:.*]] = memref.alloc() : memref<3xf64>
// CHECK:         affine.for
// CHECK:         }
// CHECK-DAG:     memref.dealloc %[[T]] : memref<3xf64>
// CHECK-DAG:     memref.dealloc %[[A]] : memref<3xf64>
// CHECK-NEXT:    scf.yield %[[A1]] : memref<3xf64>
// CHECK-NEXT:  }
// CHECK:       %[[S:.*]] = memref.alloc() : memref<3xf64>
// CHECK:       affine.for
// CHECK:       }
// CHECK-DAG:   memref.dealloc %[[R]] : memref<3xf64>
// CHECK-DAG:   memref.dealloc %[[A0]] : memref<3xf64>
// CHECK-NEXT:  func.return %[[S]] : memref<3xf64>

// A loop that starts from a parameter (not the function's to give away) starts from a copy;
// a body that yields a value from outside it (the parameter), or one buffer twice, yields
// copies; a loop's result returned is handed on to the caller.
func.func @outside(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r:2 = scf.for %i = %c0 to %c9 step %c1 iter_args(%a = %x, %b = %x) -> (tensor<3xf64>, tensor<3xf64>) {
    %n = mg.neg %b : tensor<3xf64> -> tensor<3xf64>
    scf.yield %x, %n : tensor<3xf64>, tensor<3xf64>
  }
  %d:2 = scf.for %i = %c0 to %c9 step %c1 iter_args(%a = %r#0, %b = %r#1) -> (tensor<3xf64>, tensor<3xf64>) {
    scf.yield %b, %b : tensor<3xf64>, tensor<3xf64>
  }
  func.return %d#0 : tensor<3xf64>
}
// CHECK-LABEL: func.func @outside(
// CHECK:       %[[X1:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:  "memref.copy"(%x, %[[X1]])
// CHECK-NEXT:  %[[X2:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:  "memref.copy"(%x, %[[X2]])
// CHECK-NEXT:  %[[R:.*]], %[[R1:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[X1]], %[[B:.*]] = %[[X2]])
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<3xf64>
// CHECK-NEXT:    %[[N:.*]] = memref.alloc() : memref<3xf64>
// CHECK:         memref.dealloc %[[B]] : memref<3xf64>
// CHECK-NEXT:    %[[XC:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    "memref.copy"(%x, %[[XC]])
// CHECK-NEXT:    scf.yield %[[XC]], %[[N]] : memref<3xf64>, memref<3xf64>
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[D:.*]], %[[D1:.*]] = scf.for %{{.*}} iter_args(%[[A2:.*]] = %[[R]], %[[B2:.*]] = %[[R1]])
// CHECK-NEXT:    memref.dealloc %[[A2]] : memref<3xf64>
// CHECK-NEXT:    %[[BC:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    "memref.copy"(%[[B2]], %[[BC]])
// CHECK-NEXT:    scf.yield %[[B2]], %[[BC]] : memref<3xf64>, memref<3xf64>
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[D1]] : memref<3xf64>
// CHECK-NEXT:  func.return %[[D]] : memref<3xf64>

// A branch hands on a buffer it allocates and copies one from outside; the condition's
// buffer and the input, used by the conditional, are freed after it; its result after its
// last use.
func.func @branch(%c: tensor<i1>, %x: tensor<3xf64>) {
  %y = mg.neg %x : tensor<3xf64> -> tensor<3xf64>
  %b = mg.item %c : tensor<i1> -> i1
  %r = scf.if %b -> (tensor<3xf64>) {
    %n = mg.relu %y : tensor<3xf64> -> tensor<3xf64>
    %m = mg.neg %n : tensor<3xf64> -> tensor<3xf64>
    scf.yield %m : tensor<3xf64>
  } else {
    scf.yield %y : tensor<3xf64>
  }
  mg.print %r : tensor<3xf64>
  func.return
}
// CHECK-LABEL: func.func @branch(
// CHECK:       %[[Y:.*]] = memref.alloc() : memref<3xf64>
// CHECK:       %[[B:.*]] = memref.load %c[] : memref<i1>
// CHECK-NEXT:  %[[R:.*]] = scf.if %[[B]] -> (memref<3xf64>) {
// CHECK-NEXT:    %[[N:.*]] = memref.alloc() : memref<3xf64>
// CHECK:         %[[M:.*]] = memref.alloc() : memref<3xf64>
// CHECK:         memref.dealloc %[[N]] : memref<3xf64>
// CHECK-NEXT:    scf.yield %[[M]] : memref<3xf64>
// CHECK-NEXT:  } else {
// CHECK-NEXT:    %[[YC:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    "memref.copy"(%[[Y]], %[[YC]])
// CHECK-NEXT:    scf.yield %[[YC]] : memref<3xf64>
// CHECK-NEXT:  }
// CHECK-NEXT:  memref.dealloc %[[Y]] : memref<3xf64>
// CHECK:       func.call @printMemrefF64
// CHECK-NEXT:  memref.dealloc %[[R]] : memref<3xf64>
