// mg.println's verifier: one more piece of text than values, a spec per value, no spec for a
// value of rank 1 or more, and specs that format_spec prints exactly as Python does for the
// value's type.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%e = "test.op"() : () -> tensor<i64>
%l = "test.op"() : () -> tensor<f64>
mg.println ["epoch ", ": loss ", ""] ["", ".4f"] %e, %l : tensor<i64>, tensor<f64>
mg.println ["no values"] []
// CHECK: mg.println ["epoch ", ": loss ", ""] ["", ".4f"] %{{.*}}, %{{.*}} : tensor<i64>, tensor<f64>
// CHECK: mg.println ["no values"] []

// -----
%l = "test.op"() : () -> tensor<f64>
mg.println ["loss "] [""] %l : tensor<f64>
// CHECK: mg.println: 1 values need 2 pieces of text, got 1

// -----
%l = "test.op"() : () -> tensor<f64>
mg.println ["loss ", ""] [] %l : tensor<f64>
// CHECK: mg.println: 1 values need 1 format specs, got 0

// -----
%v = "test.op"() : () -> tensor<2xf64>
mg.println ["v ", ""] [".2f"] %v : tensor<2xf64>
// CHECK: mg.println: value 0 of rank 1 takes no format spec

// -----
%v = "test.op"() : () -> tensor<2x?xi1>
mg.println ["v ", ""] [""] %v : tensor<2x?xi1>
// CHECK: mg.println ["v ", ""] [""] %{{.*}} : tensor<2x?xi1>

// -----
%l = "test.op"() : () -> tensor<f64>
mg.println ["loss ", ""] [".4q"] %l : tensor<f64>
// CHECK: mg.println: value 0: format spec '.4q' is not valid for an f64 value: unknown type 'q'

// -----
%i = "test.op"() : () -> tensor<i32>
mg.println ["n ", ""] [",d"] %i : tensor<i32>
// CHECK: mg.println: value 0: format spec ',d' is not valid for an i32 value: grouping with ',' is not supported
