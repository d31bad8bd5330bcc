// mg.extract's verifier: an index per dimension, a static dimension's index in range
// (negative ones count from the end), and a rank-0 result of the input's element type.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x?xf64>
%r = mg.extract %x {indices = array<i64: 1, -7>} : tensor<2x?xf64> -> tensor<f64>
"test.op"(%r) : (tensor<f64>) -> ()
// CHECK: %{{.*}} = mg.extract %{{.*}} {indices = array<i64: 1, -7>} : tensor<2x?xf64> -> tensor<f64>

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.extract %x {indices = array<i64: 1>} : tensor<2x3xf64> -> tensor<f64>
// CHECK: mg.extract: there must be an index per dimension of the input: 2, got 1

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.extract %x {indices = array<i64: 0, -4>} : tensor<2x3xf64> -> tensor<f64>
// CHECK: mg.extract: index -4 is out of range for dimension 1 of size 3 (-3 to 2)

// -----
%x = "test.op"() : () -> tensor<2x3xi32>
%r = mg.extract %x {indices = array<i64: 0, 0>} : tensor<2x3xi32> -> tensor<1xi32>
// CHECK: mg.extract: the result must be a rank-0 tensor (one element)
