// The verifiers of mg.index, mg.index_add, mg.gather and mg.scatter_add: ids (indices) of
// i32 or i64; index's result of the ids' shape then a row's, index_add's values too;
// gather's indices of x's rank and its sizes off the axis, the result of their shape;
// scatter_add's values of the indices' shape; the adds of numbers (not i1).
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%t = "test.op"() : () -> tensor<5x3xf64>
%ids = "test.op"() : () -> tensor<2xf64>
%r = mg.index %t, %ids : tensor<5x3xf64>, tensor<2xf64> -> tensor<2x3xf64>
// CHECK: mg.index: the ids must be a tensor of i32 or i64, got f64

// -----
%t = "test.op"() : () -> tensor<5x3xf64>
%ids = "test.op"() : () -> tensor<2x?xi64>
%r = mg.index %t, %ids : tensor<5x3xf64>, tensor<2x?xi64> -> tensor<2x3xf64>
// CHECK: mg.index: the result (the ids' shape, then a row's) must be 2x?x3, got 2x3

// -----
%t = "test.op"() : () -> tensor<f64>
%ids = "test.op"() : () -> tensor<2xi32>
%r = mg.index %t, %ids : tensor<f64>, tensor<2xi32> -> tensor<2xf64>
// CHECK: mg.index: a table of rows must have rank 1 or more, got a rank-0 tensor

// -----
%t = "test.op"() : () -> tensor<5x3xf64>
%ids = "test.op"() : () -> tensor<4xi32>
%v = "test.op"() : () -> tensor<4x2xf64>
%r = mg.index_add %t, %ids, %v : tensor<5x3xf64>, tensor<4xi32>, tensor<4x2xf64> -> tensor<5x3xf64>
// CHECK: mg.index_add: values (the ids' shape, then a row's) must be 4x3, got 4x2

// -----
%t = "test.op"() : () -> tensor<5x3xi1>
%ids = "test.op"() : () -> tensor<4xi32>
%v = "test.op"() : () -> tensor<4x3xi1>
%r = mg.index_add %t, %ids, %v : tensor<5x3xi1>, tensor<4xi32>, tensor<4x3xi1> -> tensor<5x3xi1>
// CHECK: mg.index_add: base and values: element type must be f32, f64, bf16, i32 or i64, got i1

// -----
%t = "test.op"() : () -> tensor<5x3xf64>
%ids = "test.op"() : () -> tensor<4xi32>
%v = "test.op"() : () -> tensor<4x3xf32>
%r = mg.index_add %t, %ids, %v : tensor<5x3xf64>, tensor<4xi32>, tensor<4x3xf32> -> tensor<5x3xf64>
// CHECK: mg.index_add: operands and result must have one element type

// -----
%x = "test.op"() : () -> tensor<2x5xf64>
%idx = "test.op"() : () -> tensor<3x4xi64>
%r = mg.gather %x, %idx {axis = 1 : i64} : tensor<2x5xf64>, tensor<3x4xi64> -> tensor<3x4xf64>
// CHECK: mg.gather: cannot gather along axis 1 of 2x5 with indices 3x4: the indices must have rank 2 and the sizes of 2x5 off the axis

// -----
%x = "test.op"() : () -> tensor<2x5xf64>
%idx = "test.op"() : () -> tensor<2x4xi64>
%r = mg.gather %x, %idx {axis = 2 : i64} : tensor<2x5xf64>, tensor<2x4xi64> -> tensor<2x4xf64>
// CHECK: mg.gather: axis must be 0 or 1, got 2

// -----
%x = "test.op"() : () -> tensor<2x5xf64>
%idx = "test.op"() : () -> tensor<?x4xi64>
%r = mg.gather %x, %idx {axis = 1 : i64} : tensor<2x5xf64>, tensor<?x4xi64> -> tensor<2x5xf64>
// CHECK: mg.gather: the result (the indices' shape) must be ?x4, got 2x5

// -----
%x = "test.op"() : () -> tensor<2x5xf64>
%idx = "test.op"() : () -> tensor<2x4xi64>
%v = "test.op"() : () -> tensor<2x3xf64>
%r = mg.scatter_add %x, %idx, %v {axis = 1 : i64} : tensor<2x5xf64>, tensor<2x4xi64>, tensor<2x3xf64> -> tensor<2x5xf64>
// CHECK: mg.scatter_add: values (the indices' shape) must be 2x4, got 2x3

// -----
%x = "test.op"() : () -> tensor<2x5xf64>
%idx = "test.op"() : () -> tensor<2x4xi1>
%v = "test.op"() : () -> tensor<2x4xf64>
%r = mg.scatter_add %x, %idx, %v {axis = 1 : i64} : tensor<2x5xf64>, tensor<2x4xi1>, tensor<2x4xf64> -> tensor<2x5xf64>
// CHECK: mg.scatter_add: the indices must be a tensor of i32 or i64, got i1
