// mg.elementwise's verifier states its rules.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3xf64>
%y = "test.op"() : () -> tensor<3x3xf64>
%r = mg.elementwise %x, %y : tensor<2x3xf64>, tensor<3x3xf64> -> tensor<2x3xf64> {
^bb0(%a: f64, %b: f64):
  mg.yield %a : f64
}
// CHECK: mg.elementwise: input 1 (tensor<3x3xf64>) neither matches nor broadcasts to tensor<2x3xf64> in dimension 0

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.elementwise %x : tensor<2x3xf64> -> tensor<2x3xf64> {
^bb0(%a: f64, %b: f64):
  mg.yield %a : f64
}
// CHECK: mg.elementwise: the body takes one element of each input, of its element type

// -----
%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.elementwise %x : tensor<2x3xf64> -> tensor<2x3xf64> {
^bb0(%a: f64):
  %c = arith.constant 1 : i64
  mg.yield %c : i64
}
// CHECK: mg.elementwise: the body must end with mg.yield of one f64

// -----
%x = "test.op"() : () -> tensor<?x3xf64>
%y = "test.op"() : () -> tensor<1x3xf64>
%r = mg.elementwise %x, %y : tensor<?x3xf64>, tensor<1x3xf64> -> tensor<?x3xf64> {
^bb0(%a: f64, %b: f64):
  %s = arith.addf %a, %b : f64
  mg.yield %s : f64
}
// CHECK-NOT: error
