// A check inside a loop's body (an integer division's, when the affine-level IR goes to
// upstream's passes for mgc --backend mlir): the body keeps one block, so the report is an
// scf.if whose else branch calls mgrt_check_failed, which never returns.
// RUN: mg-opt %s -p lower-assert-to-stderr | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p lower-assert-to-stderr | mlir-opt-22 --convert-scf-to-cf --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts > /dev/null %}

func.func @f(%b: memref<4xi32>) {
  %zero = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xi32>
    %ok = arith.cmpi ne, %x, %zero : i32
    cf.assert %ok, "mg.div: integer division by zero" loc("prog.mg":2:9)
  }
  func.return
}
// CHECK:      scf.for
// CHECK:        %[[OK:.*]] = arith.cmpi ne
// CHECK-NEXT:   scf.if %[[OK]] {
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[MSG:.*]] = llvm.mlir.addressof @mgrt_message_0 : !llvm.ptr
// CHECK-NEXT:     %[[PATH:.*]] = llvm.mlir.addressof @mgrt_path_0 : !llvm.ptr
// CHECK-NEXT:     %[[LINE:.*]] = arith.constant 2 : i64
// CHECK-NEXT:     %[[NONE:.*]] = arith.constant -1 : i64
// CHECK-NEXT:     func.call @mgrt_check_failed(%[[MSG]], %[[PATH]], %[[LINE]], %[[NONE]], %[[NONE]])
// CHECK-NEXT:   }
// CHECK-NEXT: }
