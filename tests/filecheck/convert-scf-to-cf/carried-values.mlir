// convert-scf-to-cf with carried values: a loop's iteration arguments become arguments of its
// header block (the initial values passed in, the yielded ones passed back), its results the
// header's arguments; an scf.if with results a branch each way to a block whose arguments
// are the yielded values.
// RUN: mg-opt %s -p convert-scf-to-cf | filecheck %s

func.func @f(%a0: memref<3xf64>, %n: index, %c: i1) -> memref<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0) -> (memref<3xf64>) {
    %b = scf.if %c -> (memref<3xf64>) {
      %x = memref.alloc() : memref<3xf64>
      memref.dealloc %a : memref<3xf64>
      scf.yield %x : memref<3xf64>
    } else {
      scf.yield %a : memref<3xf64>
    }
    scf.yield %b : memref<3xf64>
  }
  func.return %r : memref<3xf64>
}
// CHECK:      cf.br ^[[HEAD:.*]](%c0, %a0 : index, memref<3xf64>)
// CHECK-NEXT: ^[[HEAD]](%[[I:.*]]: index, %[[A:.*]]: memref<3xf64>):
// CHECK-NEXT:   %[[GO:.*]] = arith.cmpi slt, %[[I]], %n : index
// CHECK-NEXT:   cf.cond_br %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT:   cf.cond_br %c, ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT: ^[[THEN]]:
// CHECK-NEXT:   %[[X:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:   memref.dealloc %[[A]] : memref<3xf64>
// CHECK-NEXT:   cf.br ^[[JOIN:.*]](%[[X]] : memref<3xf64>)
// CHECK-NEXT: ^[[ELSE]]:
// CHECK-NEXT:   cf.br ^[[JOIN]](%[[A]] : memref<3xf64>)
// CHECK-NEXT: ^[[JOIN]](%[[B:.*]]: memref<3xf64>):
// CHECK-NEXT:   cf.br ^[[CONT:.*]]
// CHECK-NEXT: ^[[CONT]]:
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[I]], %c1 : index
// CHECK-NEXT:   cf.br ^[[HEAD]](%[[NEXT]], %[[B]] : index, memref<3xf64>)
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT:   func.return %[[A]] : memref<3xf64>
