// mg.println becomes calls into the run-time library's println section: each piece of text
// (a private constant string) through mgrt_println_text, each value loaded from its rank-0
// buffer and widened (i32 to i64, f32 to f64, i1 to i32) into the call its spec asks for
// (printf formats through mgrt_println_long/_double, no type through mgrt_println_python;
// a width between mgrt_println_mark and mgrt_println_field), then mgrt_println_end.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s

func.func @main() {
  %e = mg.constant dense<3> : tensor<i32>
  %l = mg.constant dense<0.5> : tensor<f32>
  %b = mg.constant dense<true> : tensor<i1>
  mg.println ["epoch ", ": loss ", " [", "] ", ""] ["", ".4f", "*^10", ""] %e, %l, %l, %b : tensor<i32>, tensor<f32>, tensor<f32>, tensor<i1>
  func.return
}

// CHECK-DAG: llvm.mlir.global private constant @mgrt_println_text_0("epoch \00")
// CHECK-DAG: llvm.mlir.global private constant @mgrt_println_format_0("%ld\00")
// CHECK-DAG: llvm.mlir.global private constant @mgrt_println_format_1("%.4f\00")
// CHECK-DAG: func.func private @mgrt_println_text(!llvm.ptr) -> ()
// CHECK-DAG: func.func private @mgrt_println_end() -> ()
// CHECK-LABEL: func.func @main()
// CHECK:      %[[T0:.*]] = llvm.mlir.addressof @mgrt_println_text_0 : !llvm.ptr
// CHECK-NEXT: func.call @mgrt_println_text(%[[T0]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: %[[E:.*]] = affine.load %e[] : memref<i32>
// CHECK-NEXT: %[[F0:.*]] = llvm.mlir.addressof @mgrt_println_format_0 : !llvm.ptr
// CHECK-NEXT: %[[E64:.*]] = arith.extsi %[[E]] : i32 to i64
// CHECK-NEXT: func.call @mgrt_println_long(%[[F0]], %[[E64]]) : (!llvm.ptr, i64) -> ()
// CHECK:      %[[L:.*]] = affine.load %l[] : memref<f32>
// CHECK-NEXT: %[[L64:.*]] = arith.extf %[[L]] : f32 to f64
// CHECK-NEXT: %[[F1:.*]] = llvm.mlir.addressof @mgrt_println_format_1 : !llvm.ptr
// CHECK-NEXT: %[[NO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: func.call @mgrt_println_double(%[[F1]], %[[L64]], %[[NO]]) : (!llvm.ptr, f64, i32) -> ()
// CHECK:      %[[START:.*]] = func.call @mgrt_println_mark() : () -> i64
// CHECK:      func.call @mgrt_println_python(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (f64, i32, i32, i32) -> ()
// CHECK:      func.call @mgrt_println_field(%[[START]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i64, i32, i32) -> ()
// CHECK:      %[[B:.*]] = affine.load %b[] : memref<i1>
// CHECK-NEXT: %[[B32:.*]] = arith.extui %[[B]] : i1 to i32
// CHECK-NEXT: func.call @mgrt_println_bool(%[[B32]]) : (i32) -> ()
// CHECK-NEXT: func.call @mgrt_println_end() : () -> ()
// CHECK-NOT:  mg.println
