// convert-scf-to-cf (xDSL's pass, used as is): a loop becomes a header block testing the
// induction variable, a body block and an exit block.
// RUN: mg-opt %s -p convert-scf-to-cf | filecheck %s

func.func @f(%m: memref<4xf64>, %x: f64) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %ub step %st {
    memref.store %x, %m[%i] : memref<4xf64>
  }
  func.return
}
// CHECK:      cf.br ^[[HEAD:.*]](%lb : index)
// CHECK-NEXT: ^[[HEAD]](%[[I:.*]]: index):
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[I]], %ub : index
// CHECK-NEXT:   cf.cond_br %[[C]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT:   memref.store %x, %m[%[[I]]] : memref<4xf64>
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[I]], %st : index
// CHECK-NEXT:   cf.br ^[[HEAD]](%[[NEXT]] : index)
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT:   func.return
