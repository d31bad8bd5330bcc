// lower-assert-to-stderr: cf.assert becomes a branch to a block that calls mgrt_check_failed
// (which never returns) with the message, the source file and line of the assert, and the
// two sizes when the condition is `arith.cmpi eq` of two index values; one string constant
// per distinct message and per distinct file.
// RUN: mg-opt %s -p lower-assert-to-stderr | filecheck %s
// Upstream accepts the result and lowers it to the LLVM dialect:
// RUN: %if mlir-opt %{ mg-opt %s -p lower-assert-to-stderr | mlir-opt-22 --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts | filecheck %s --check-prefix=UPSTREAM %}
// UPSTREAM: llvm.call @mgrt_check_failed({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// UPSTREAM: llvm.func @mgrt_check_failed(!llvm.ptr, !llvm.ptr, i64, i64, i64)

func.func @f(%a: index, %b: index, %status: i32) {
  %ok = arith.cmpi eq, %a, %b : index
  cf.assert %ok, "mg.add: operand shapes differ at runtime in dimension 0" loc("prog.mg":3:35)
  cf.assert %ok, "mg.add: operand shapes differ at runtime in dimension 0" loc("prog.mg":7:2)
  %zero = arith.constant 0 : i32
  %launched = arith.cmpi eq, %status, %zero : i32
  cf.assert %launched, "gpu: launching kernel k failed"
  %small = arith.cmpi sle, %a, %b : index
  cf.assert %small, "too large" loc("other.mg":1:1)
  func.return
}
// The globals come first, each inserted at the top of the module as it is first needed.
// CHECK:      llvm.mlir.global private constant @[[PATH2:mgrt_path_1]]("other.mg\00")
// CHECK-NEXT: llvm.mlir.global private constant @[[MSG3:mgrt_message_2]]("too large\00")
// CHECK-NEXT: llvm.mlir.global private constant @[[MSG2:mgrt_message_1]]("gpu: launching kernel k failed\00")
// CHECK-NEXT: llvm.mlir.global private constant @[[PATH:mgrt_path_0]]("prog.mg\00")
// CHECK-NEXT: llvm.mlir.global private constant @[[MSG:mgrt_message_0]]("mg.add: operand shapes differ at runtime in dimension 0\00")
// CHECK-NOT:  llvm.mlir.global

// A size check with a location: the message, the file, the line and both sizes.
// CHECK:      func.func @f(%a: index, %b: index, %status: i32) {
// CHECK-NEXT:   %ok = arith.cmpi eq, %a, %b : index
// CHECK-NEXT:   cf.cond_br %ok, ^[[CONT:.*]], ^[[FAIL:.*]]
// CHECK-NEXT: ^[[FAIL]]:
// CHECK-NEXT:   %[[M:.*]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT:   %[[P:.*]] = llvm.mlir.addressof @[[PATH]] : !llvm.ptr
// CHECK-NEXT:   %[[L:.*]] = arith.constant 3 : i64
// CHECK-NEXT:   %[[A:.*]] = arith.index_cast %a : index to i64
// CHECK-NEXT:   %[[B:.*]] = arith.index_cast %b : index to i64
// CHECK-NEXT:   func.call @mgrt_check_failed(%[[M]], %[[P]], %[[L]], %[[A]], %[[B]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK-NEXT:   llvm.unreachable

// The same message and file again: the same constants, another line.
// CHECK-NEXT: ^[[CONT]]:
// CHECK-NEXT:   cf.cond_br %ok, ^[[CONT2:.*]], ^[[FAIL2:.*]]
// CHECK-NEXT: ^[[FAIL2]]:
// CHECK-NEXT:   %{{.*}} = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT:   %{{.*}} = llvm.mlir.addressof @[[PATH]] : !llvm.ptr
// CHECK-NEXT:   %{{.*}} = arith.constant 7 : i64

// No location and no index sizes: a null path, line 0, sizes -1 and -1.
// CHECK:      ^[[CONT2]]:
// CHECK:        cf.cond_br %launched, ^[[CONT3:.*]], ^[[FAIL3:.*]]
// CHECK-NEXT: ^[[FAIL3]]:
// CHECK-NEXT:   %[[M3:.*]] = llvm.mlir.addressof @[[MSG2]] : !llvm.ptr
// CHECK-NEXT:   %[[P3:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:   %[[L3:.*]] = arith.constant 0 : i64
// CHECK-NEXT:   %[[N3:.*]] = arith.constant -1 : i64
// CHECK-NEXT:   func.call @mgrt_check_failed(%[[M3]], %[[P3]], %[[L3]], %[[N3]], %[[N3]])

// A comparison other than `eq` passes no sizes, but keeps its location.
// CHECK:        cf.cond_br %small, ^{{.*}}, ^[[FAIL4:.*]]
// CHECK-NEXT: ^[[FAIL4]]:
// CHECK-NEXT:   %[[M4:.*]] = llvm.mlir.addressof @[[MSG3]] : !llvm.ptr
// CHECK-NEXT:   %[[P4:.*]] = llvm.mlir.addressof @[[PATH2]] : !llvm.ptr
// CHECK-NEXT:   %[[L4:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   %[[N4:.*]] = arith.constant -1 : i64
// CHECK-NEXT:   func.call @mgrt_check_failed(%[[M4]], %[[P4]], %[[L4]], %[[N4]], %[[N4]])

// CHECK:      func.func private @mgrt_check_failed(!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK-NOT:  cf.assert
