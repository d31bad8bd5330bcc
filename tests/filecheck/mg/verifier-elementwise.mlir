// Elementwise, matmul, transpose and scalar verifiers state the rule they check.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3xf64>
%y = "test.op"() : () -> tensor<3x2xf64>
%r = mg.add %x, %y : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x3xf64>
// CHECK: mg.add: operand and result shapes must agree (a '?' dimension matches any size), got 2x3, 3x2, 2x3

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.relu %x : tensor<2x3xf64> -> tensor<3x2xf64>
// CHECK: mg.relu: operand and result shapes must agree (a '?' dimension matches any size), got 2x3, 3x2

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.matmul %x, %x : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK: mg.matmul: cannot matrix-multiply shapes 2x3 and 2x3: inner dimensions 3 and 2 differ

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%y = "test.op"() : () -> tensor<3x4xf64>
%r = mg.matmul %x, %y : tensor<2x3xf64>, tensor<3x4xf64> -> tensor<2x3xf64>
// CHECK: mg.matmul: the result must be 2x4, got 2x3

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.transpose %x : tensor<2x3xf64> to tensor<2x3xf64>
// CHECK: mg.transpose: the result must be 3x2, got 2x3

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.scalar %x {op = "mod", value = 2.0 : f64, reversed = false} : tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK: mg.scalar: op must be one of add, sub, mul, div, max, min, rem, floordiv, pow, atan2, lt, le, gt, ge, eq, ne, got 'mod'

// -----
%x = "test.op"() : () -> tensor<2x3xf32>
%y = "test.op"() : () -> tensor<2x3xf64>
%r = mg.sub %x, %y : tensor<2x3xf32>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK: mg.sub: operands and result must have one element type
