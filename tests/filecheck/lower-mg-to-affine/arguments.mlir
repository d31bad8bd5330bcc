// mg.arg becomes a call of the run-time library's lookup
// (mgrt_arg_f64 or mgrt_arg_i64: the name as memref<*xi8> of a constant global, the default),
// its value stored into a new rank-0 buffer. The module gets the table of every argument of
// every function (name, type, default, each NUL-terminated, in order of first use, each name
// once; an empty name last: "scale\0f64\02.5\0lr\0f64\00.1\0steps\0i64\0100\0\0"), and @main
// first checks the given arguments against it (mgrt_arg_check); a module without @main (a
// library) has neither. One global per name, one declaration per function.
// RUN: mg-opt %s --split-input-file -p lower-mg-to-affine | filecheck %s

func.func @scaled(%x: tensor<f64>) -> tensor<f64> {
  %s = mg.arg {name = "scale", default = 2.500000e+00 : f64} : tensor<f64>
  %y = mg.mul %x, %s : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %y : tensor<f64>
}
func.func @main() {
  %lr = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  %n = mg.arg {name = "steps", default = 100 : i64} : tensor<i64>
  %again = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  mg.print %n : tensor<i64>
  mg.print %again : tensor<f64>
  %y = func.call @scaled(%lr) : (tensor<f64>) -> tensor<f64>
  mg.print %y : tensor<f64>
  func.return
}
// CHECK:      "memref.global"() <{sym_name = "__mg_arg_table", type = memref<40xi8>, initial_value = dense<[115, 99, 97, 108, 101, 0, 102, 54, 52, 0, 50, 46, 53, 0, 108, 114, 0, 102, 54, 52, 0, 48, 46, 49, 0, 115, 116, 101, 112, 115, 0, 105, 54, 52, 0, 49, 48, 48, 0, 0]> : tensor<40xi8>, sym_visibility = "private", constant}>
// CHECK-NEXT: func.func private @mgrt_arg_check(memref<*xi8>) -> ()
// CHECK-NEXT: func.func private @mgrt_arg_f64(memref<*xi8>, f64) -> f64
// CHECK-NEXT: "memref.global"() <{sym_name = "__mg_arg_name_0", type = memref<6xi8>, initial_value = dense<[115, 99, 97, 108, 101, 0]> : tensor<6xi8>, sym_visibility = "private", constant}>
// CHECK-NEXT: "memref.global"() <{sym_name = "__mg_arg_name_1", type = memref<3xi8>, initial_value = dense<[108, 114, 0]> : tensor<3xi8>, sym_visibility = "private", constant}>
// CHECK-NEXT: func.func private @mgrt_arg_i64(memref<*xi8>, i64) -> i64
// CHECK-NEXT: "memref.global"() <{sym_name = "__mg_arg_name_2", type = memref<6xi8>, initial_value = dense<[115, 116, 101, 112, 115, 0]> : tensor<6xi8>, sym_visibility = "private", constant}>
// CHECK-NOT:  "memref.global"
// CHECK-NOT:  func.func private @mgrt

// The def reads its argument; it checks nothing (main does).
// CHECK:      func.func @scaled(%x: memref<f64>) -> memref<f64> {
// CHECK-NEXT: %s = arith.constant 2.500000e+00 : f64
// CHECK-NEXT: %s_1 = memref.get_global @__mg_arg_name_0 : memref<6xi8>
// CHECK-NEXT: %s_2 = "memref.cast"(%s_1) : (memref<6xi8>) -> memref<*xi8>
// CHECK-NEXT: %s_3 = func.call @mgrt_arg_f64(%s_2, %s) : (memref<*xi8>, f64) -> f64
// CHECK-NEXT: %s_4 = memref.alloc() : memref<f64>
// CHECK-NEXT: memref.store %s_3, %s_4[] : memref<f64>
// CHECK-NEXT: %y = memref.alloc() : memref<f64>
// CHECK-NEXT: %y_1 = affine.load %x[] : memref<f64>
// CHECK-NEXT: %y_2 = affine.load %s_4[] : memref<f64>

// CHECK:      func.func @main() {
// CHECK-NEXT: %0 = memref.get_global @__mg_arg_table : memref<40xi8>
// CHECK-NEXT: %1 = "memref.cast"(%0) : (memref<40xi8>) -> memref<*xi8>
// CHECK-NEXT: func.call @mgrt_arg_check(%1) : (memref<*xi8>) -> ()
// CHECK-NEXT: %lr = arith.constant 1.000000e-01 : f64
// CHECK-NEXT: %lr_1 = memref.get_global @__mg_arg_name_1 : memref<3xi8>
// CHECK-NEXT: %lr_2 = "memref.cast"(%lr_1) : (memref<3xi8>) -> memref<*xi8>
// CHECK-NEXT: %lr_3 = func.call @mgrt_arg_f64(%lr_2, %lr) : (memref<*xi8>, f64) -> f64
// CHECK-NEXT: %lr_4 = memref.alloc() : memref<f64>
// CHECK-NEXT: memref.store %lr_3, %lr_4[] : memref<f64>
// CHECK-NEXT: %n = arith.constant 100 : i64
// CHECK-NEXT: %n_1 = memref.get_global @__mg_arg_name_2 : memref<6xi8>
// CHECK-NEXT: %n_2 = "memref.cast"(%n_1) : (memref<6xi8>) -> memref<*xi8>
// CHECK-NEXT: %n_3 = func.call @mgrt_arg_i64(%n_2, %n) : (memref<*xi8>, i64) -> i64
// CHECK-NEXT: %n_4 = memref.alloc() : memref<i64>
// CHECK-NEXT: memref.store %n_3, %n_4[] : memref<i64>
// A second read of a name: the same global, another call.
// CHECK-NEXT: %again = arith.constant 1.000000e-01 : f64
// CHECK-NEXT: %again_1 = memref.get_global @__mg_arg_name_1 : memref<3xi8>
// CHECK-NOT:  mgrt_arg_check
// CHECK:      func.return

// -----
func.func @scaled(%x: tensor<f64>) -> tensor<f64> {
  %s = mg.arg {name = "scale", default = 2.500000e+00 : f64} : tensor<f64>
  func.return %s : tensor<f64>
}
// CHECK:      builtin.module {
// CHECK-NOT:  __mg_arg_table
// CHECK-NOT:  mgrt_arg_check
// CHECK:      func.call @mgrt_arg_f64
// CHECK-NOT:  mgrt_arg_check
