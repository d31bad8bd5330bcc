// mg.broadcast's verifier: a dimension grows only from 1, and only between static shapes.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.broadcast %x : tensor<2x3xf64> -> tensor<4x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<2x3xf64> can only grow from size 1, not to tensor<4x3xf64>

// -----
%x = "test.op"() : () -> tensor<1x2xf64>
%r = mg.broadcast %x : tensor<1x2xf64> -> tensor<3x3xf64>
// CHECK: mg.broadcast: dimension 1 of tensor<1x2xf64> can only grow from size 1, not to tensor<3x3xf64>

// -----
%x = "test.op"() : () -> tensor<?x1xf64>
%r = mg.broadcast %x : tensor<?x1xf64> -> tensor<2x3xf64>
// CHECK: mg.broadcast needs static shapes (dynamic broadcasting is not supported)
