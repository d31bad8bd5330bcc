// mg.reduce's verifier: the axis, the kind, and the collapsed result shape, with exact messages.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.reduce %x {axis = 2 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
// CHECK: mg.reduce: axis must be 0 or 1, got 2

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.reduce %x {axis = 1 : i64, kind = "median"} : tensor<2x3xf64> -> tensor<2x1xf64>
// CHECK: mg.reduce: kind must be one of sum, max, prod, min, got 'median'

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<1x3xf64>
// CHECK: mg.reduce: reducing axis 1 of tensor<2x3xf64> must give a result with that axis of size 1, got tensor<1x3xf64>

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.reduce %x {axis = 0 : i64, kind = "max"} : tensor<2x3xf64> -> tensor<1x2xf64>
// CHECK: mg.reduce: reducing axis 0 of tensor<2x3xf64> must give a result with that axis of size 1, got tensor<1x2xf64>

// -----
%x = "test.op"() : () -> tensor<?x?xf64>
%r = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
// CHECK-NOT: error
// CHECK: mg.reduce %{{.*}} {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
