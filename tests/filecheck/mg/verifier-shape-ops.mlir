// The verifiers of mg.transpose (a permutation of the axes), mg.slice (0 <= start < stop
// <= size) and mg.reshape (unit dimensions only, or static shapes of one element count).
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3x4xf64>
%t = mg.transpose %x {permutation = array<i64: 0, 0, 1>} : tensor<2x3x4xf64> to tensor<2x2x3xf64>
// CHECK: mg.transpose: the permutation must order the axes 0 to 2, got [0, 0, 1]

// -----
%x = "test.op"() : () -> tensor<2x3x4xf64>
%t = mg.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf64> to tensor<2x3x4xf64>
// CHECK: mg.transpose: the result must be 2x4x3, got 2x3x4

// -----
%x = "test.op"() : () -> tensor<2x4xf64>
%s = mg.slice %x {axis = 1 : i64, start = 3 : i64, stop = 5 : i64} : tensor<2x4xf64> to tensor<2x2xf64>
// CHECK: mg.slice: a slice of axis 1 needs 0 <= start < stop <= 4, got start 3 and stop 5

// -----
%x = "test.op"() : () -> tensor<2x4xf64>
%s = mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<2x4xf64> to tensor<2x3xf64>
// CHECK: mg.slice: the result must be 2x2, got 2x3

// -----
%x = "test.op"() : () -> tensor<3x4xf64>
%r = mg.reshape %x : tensor<3x4xf64> to tensor<5x2xf64>
// CHECK: mg.reshape: cannot reshape 3x4 to 5x2: only dimensions of size 1 may be dropped or added, or the shapes must be static with one element count

// -----
%a = "test.op"() : () -> tensor<2x3xf64>
%b = "test.op"() : () -> tensor<2x4xf64>
%c = mg.concat %a, %b {axis = 0 : i64} : tensor<2x3xf64>, tensor<2x4xf64> -> tensor<4x3xf64>
// CHECK: mg.concat: the inputs and the result must have one rank and equal sizes off the axis, got 2x3, 2x4, 4x3

// -----
%a = "test.op"() : () -> tensor<2x3xf64>
%c = mg.concat %a, %a {axis = 1 : i64} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x5xf64>
// CHECK: mg.concat: the result's size along the axis must be the inputs' sum 6, got 5
