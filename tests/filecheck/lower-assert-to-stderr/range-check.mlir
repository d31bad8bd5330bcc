// lower-assert-to-stderr: a range check (arith.cmpi ult of a position and a size, both
// index values) whose message is a printf format calls mgrt_range_check_failed with the
// position and the size, which fills the format in with them and the last position.
// RUN: mg-opt %s -p lower-assert-to-stderr | filecheck %s

func.func @f(%id: index, %n: index) {
  %ok = arith.cmpi ult, %id, %n : index
  cf.assert %ok, "mg.index: id %ld is out of range for %ld rows (0 to %ld)" loc("prog.mg":2:7)
  func.return
}
// CHECK:      llvm.mlir.global private constant @[[MSG:mgrt_message_0]]("mg.index: id %ld is out of range for %ld rows (0 to %ld)\00")
// CHECK:      func.func @f(%id: index, %n: index) {
// CHECK-NEXT:   %ok = arith.cmpi ult, %id, %n : index
// CHECK-NEXT:   cf.cond_br %ok, ^[[CONT:.*]], ^[[FAIL:.*]]
// CHECK-NEXT: ^[[FAIL]]:
// CHECK-NEXT:   %[[M:.*]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT:   %[[P:.*]] = llvm.mlir.addressof @{{.*}} : !llvm.ptr
// CHECK-NEXT:   %[[L:.*]] = arith.constant 2 : i64
// CHECK-NEXT:   %[[ID:.*]] = arith.index_cast %id : index to i64
// CHECK-NEXT:   %[[N:.*]] = arith.index_cast %n : index to i64
// CHECK-NEXT:   func.call @mgrt_range_check_failed(%[[M]], %[[P]], %[[L]], %[[ID]], %[[N]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK-NEXT:   llvm.unreachable
// CHECK:      func.func private @mgrt_range_check_failed(!llvm.ptr, !llvm.ptr, i64, i64, i64)
// CHECK-NOT:  @mgrt_check_failed
