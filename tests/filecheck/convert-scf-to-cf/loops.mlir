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

// A loop's hints to LLVM go on the branch back to its header, where LLVM reads them (as
// upstream's lowering puts them); its other attributes stay behind.
func.func @hinted(%m: memref<?xf64>, %x: f64, %n: index) {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %n step %st {
    memref.store %x, %m[%i] : memref<?xf64>
  } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>, other = 1 : i64}
  func.return
}
// CHECK-LABEL: func.func @hinted
// CHECK:      cf.br ^[[HEAD:.*]](%lb : index)
// CHECK-NEXT: ^[[HEAD]](%[[I:.*]]: index):
// CHECK-NOT:    loop_annotation
// CHECK:        %[[NEXT:.*]] = arith.addi %[[I]], %st : index
// CHECK-NEXT:   cf.br ^[[HEAD]](%[[NEXT]] : index) {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK-NOT:  other

// So does convert-linalg-to-affine-loops' mark of a loop whose iterations are independent.
func.func @parallel_accesses(%m: memref<?xf64>, %x: f64, %n: index) {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %n step %st {
    memref.store %x, %m[%i] : memref<?xf64>
  } {mg.parallel_accesses, other = 1 : i64}
  func.return
}
// CHECK-LABEL: func.func @parallel_accesses
// CHECK:      cf.br ^[[HEAD:.*]](%lb : index)
// CHECK-NEXT: ^[[HEAD]](%[[I:.*]]: index):
// CHECK-NOT:    mg.parallel_accesses
// CHECK:        %[[NEXT:.*]] = arith.addi %[[I]], %st : index
// CHECK-NEXT:   cf.br ^[[HEAD]](%[[NEXT]] : index) {mg.parallel_accesses}
// CHECK-NOT:  other
