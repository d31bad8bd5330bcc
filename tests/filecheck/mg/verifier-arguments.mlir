// mg.arg: its syntax, and its verifier: a name that is an identifier, a default of f64 or
// i64, a rank-0 result of the default's type.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%lr = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
%n = mg.arg {name = "_steps2", default = -100 : i64} : tensor<i64>
// CHECK:      %lr = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
// CHECK-NEXT: %n = mg.arg {name = "_steps2", default = -100 : i64} : tensor<i64>

// -----
%x = mg.arg {name = "2lr", default = 1.0 : f64} : tensor<f64>
// CHECK: mg.arg: the name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got '2lr'

// -----
%x = mg.arg {name = "l=r", default = 1.0 : f64} : tensor<f64>
// CHECK: mg.arg: the name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got 'l=r'

// -----
%x = mg.arg {name = "", default = 1.0 : f64} : tensor<f64>
// CHECK: mg.arg: the name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got ''

// -----
%x = mg.arg {name = "lr", default = 1.0 : f32} : tensor<f32>
// CHECK: mg.arg: the default must be f64 or i64, got f32

// -----
%x = mg.arg {name = "n", default = 1 : i32} : tensor<i32>
// CHECK: mg.arg: the default must be f64 or i64, got i32

// -----
%x = mg.arg {name = "lr", default = 1.0 : f64} : tensor<i64>
// CHECK: mg.arg: the result must be tensor<f64>, of the default's type, got tensor<i64>

// -----
%x = mg.arg {name = "n", default = 3 : i64} : tensor<1xi64>
// CHECK: mg.arg: the result must be tensor<i64>, of the default's type, got tensor<1xi64>
