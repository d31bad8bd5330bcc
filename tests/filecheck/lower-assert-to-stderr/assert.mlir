// lower-assert-to-stderr: cf.assert becomes a branch to a block that passes the message to
// mgrt_check_failed and never returns; one string constant per distinct message.
// RUN: mg-opt %s -p lower-assert-to-stderr | filecheck %s

func.func @f(%a: index, %b: index) {
  %ok = arith.cmpi eq, %a, %b : index
  cf.assert %ok, "mg.add: operand shapes differ at runtime in dimension 0"
  cf.assert %ok, "mg.add: operand shapes differ at runtime in dimension 0"
  func.return
}
// CHECK:      llvm.mlir.global private constant @[[MSG:mgrt_message_0]]("mg.add: operand shapes differ at runtime in dimension 0\00")
// CHECK-NOT:  llvm.mlir.global
// CHECK:      func.func @f(%a: index, %b: index) {
// CHECK-NEXT:   %ok = arith.cmpi eq, %a, %b : index
// CHECK-NEXT:   cf.cond_br %ok, ^[[CONT:.*]], ^[[FAIL:.*]]
// CHECK-NEXT: ^[[FAIL]]:
// CHECK-NEXT:   %[[P:.*]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT:   func.call @mgrt_check_failed(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:   llvm.unreachable
// CHECK-NEXT: ^[[CONT]]:
// CHECK-NEXT:   cf.cond_br %ok
// CHECK:      func.func private @mgrt_check_failed(!llvm.ptr) -> ()
// CHECK-NOT:  cf.assert
