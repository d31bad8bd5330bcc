// mg.linear_scan's verifier: a, b and the result of one shape and element type, an axis in
// range.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%a = "test.op"() : () -> tensor<4xf64>
%b = "test.op"() : () -> tensor<3xf64>
%h = mg.linear_scan %a, %b {axis = 0 : i64, reverse = false} : tensor<4xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK: mg.linear_scan: operand and result shapes must agree (a '?' dimension matches any size), got 4, 3, 3

// -----
%a = "test.op"() : () -> tensor<3xf64>
%h = mg.linear_scan %a, %a {axis = 1 : i64, reverse = false} : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK: mg.linear_scan: axis must be 0, got 1

// -----
%a = "test.op"() : () -> tensor<3xi1>
%h = mg.linear_scan %a, %a {axis = 0 : i64, reverse = false} : tensor<3xi1>, tensor<3xi1> -> tensor<3xi1>
// CHECK: mg.linear_scan: element type must be f32, f64, bf16, i32 or i64, got i1
