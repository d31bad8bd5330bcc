// The verifiers of mg.compare, mg.select, mg.full_like and mg.scalar's comparisons.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2xf64>
%r = mg.compare %x, %x {predicate = "lt"} : tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
// CHECK: mg.compare: the result must be a tensor of i1, got tensor<2xf64>

// -----
%x = "test.op"() : () -> tensor<2xf64>
%r = mg.compare %x, %x {predicate = "less"} : tensor<2xf64>, tensor<2xf64> -> tensor<2xi1>
// CHECK: mg.compare: predicate must be one of lt, le, gt, ge, eq, ne, got 'less'

// -----
%x = "test.op"() : () -> tensor<2xf64>
%y = "test.op"() : () -> tensor<2xi32>
%r = mg.compare %x, %y {predicate = "lt"} : tensor<2xf64>, tensor<2xi32> -> tensor<2xi1>
// CHECK: mg.compare: operands and result must have one element type, got

// -----
%x = "test.op"() : () -> tensor<2xf64>
%r = mg.select %x, %x, %x : tensor<2xf64>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
// CHECK: mg.select: the mask must be a tensor of i1, got tensor<2xf64>

// -----
%m = "test.op"() : () -> tensor<3xi1>
%x = "test.op"() : () -> tensor<2xf64>
%r = mg.select %m, %x, %x : tensor<3xi1>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
// CHECK: mg.select: operand and result shapes must agree (a '?' dimension matches any size), got 3, 2, 2, 2

// -----
%x = "test.op"() : () -> tensor<2xf64>
%r = mg.full_like %x {value = 1 : i32} : tensor<2xf64> -> tensor<2xf64>
// CHECK: mg.full_like: the value must be of the result's element type f64, got i32

// -----
%x = "test.op"() : () -> tensor<2xf64>
%r = mg.scalar %x {op = "lt", value = 1.0 : f64, reversed = false} : tensor<2xf64> -> tensor<2xf64>
// CHECK: mg.scalar: a comparison's result must be a tensor of i1, got tensor<2xf64>

// -----
// i1 has no arithmetic.
%x = "test.op"() : () -> tensor<2xi1>
%r = mg.scalar %x {op = "add", value = 1 : i1, reversed = false} : tensor<2xi1> -> tensor<2xi1>
// CHECK: mg.scalar: element type must be f32, f64, bf16, i32 or i64, got i1

// -----
%x = "test.op"() : () -> tensor<2xi1>
%r = mg.add %x, %x : tensor<2xi1>, tensor<2xi1> -> tensor<2xi1>
// CHECK: mg.add: element type must be f32, f64, bf16, i32 or i64, got i1
