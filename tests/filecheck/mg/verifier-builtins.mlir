// The verifiers of the builtins' ops (reductions over axes, math functions, creation).
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x?xf64>
%r = mg.reshape %x : tensor<2x?xf64> to tensor<?x2xf64>
// CHECK: mg.reshape: cannot reshape 2x? to ?x2: only dimensions of size 1 may be dropped or added

// -----
%r = mg.full {value = 1.0 : f64} : tensor<?x3xf64>
// CHECK: mg.full: the shape must be static

// -----
%r = mg.full {value = 1 : i32} : tensor<3xf64>
// CHECK: mg.full: the value must be of the result's element type f64, got i32

// -----
%r = mg.iota {axis = 2 : i64} : tensor<3x3xi32>
// CHECK: mg.iota: axis must be

// -----
%r = mg.iota {axis = 0 : i64} : tensor<3xf64>
// CHECK: mg.iota: element type must be i32 or i64, got f64

// -----
// exp, pow, atan2 and the other float functions take floats only.
%x = "test.op"() : () -> tensor<2xi32>
%r = mg.exp %x : tensor<2xi32> -> tensor<2xi32>
// CHECK: mg.exp: element type must be f32, f64 or bf16, got i32

// -----
%x = "test.op"() : () -> tensor<2xi64>
%r = mg.pow %x, %x : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
// CHECK: mg.pow: element type must be f32, f64 or bf16, got i64

// -----
%x = "test.op"() : () -> tensor<2xi64>
%r = mg.scalar %x {op = "atan2", value = 2 : i64, reversed = false} : tensor<2xi64> -> tensor<2xi64>
// CHECK: mg.scalar: element type must be f32, f64 or bf16, got i64

// -----
%x = "test.op"() : () -> tensor<2xf64>
%r = mg.reduce %x {axis = 0 : i64, kind = "mean"} : tensor<2xf64> -> tensor<1xf64>
// CHECK: mg.reduce: kind must be one of sum, max, prod, min, got 'mean'
