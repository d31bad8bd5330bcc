// mg.broadcast's verifier: a dimension grows only from a static 1, to a static size or to a
// '?' that a like operand gives; every other dimension (a '?' too) stays as it is.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.broadcast %x : tensor<2x3xf64> -> tensor<4x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<2x3xf64> can only stay as it is or grow from a static 1, not to tensor<4x3xf64>

// -----
%x = "test.op"() : () -> tensor<1x2xf64>
%r = mg.broadcast %x : tensor<1x2xf64> -> tensor<3x3xf64>
// CHECK: mg.broadcast: dimension 1 of tensor<1x2xf64> can only stay as it is or grow from a static 1, not to tensor<3x3xf64>

// -----
// A '?' is never broadcast: it does not become a static size here (mg.cast claims one,
// checked at run time) ...
%x = "test.op"() : () -> tensor<?x1xf64>
%r = mg.broadcast %x : tensor<?x1xf64> -> tensor<2x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<?x1xf64> can only stay as it is or grow from a static 1, not to tensor<2x3xf64>

// -----
// ... and a static 1 grows to a '?' only where a like operand gives the size (the
// chapter's rule: an operator never does it; broadcast_to(m, shape(x)) does).
%x = "test.op"() : () -> tensor<1x3xf64>
%r = mg.broadcast %x : tensor<1x3xf64> -> tensor<?x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<?x3xf64> is '?' where the input has none or a static 1: a like operand must have a '?' there to give its size

// -----
// An operand with '?' dimensions grows along its static 1s.
%x = "test.op"() : () -> tensor<?x1xf64>
%r = mg.broadcast %x : tensor<?x1xf64> -> tensor<2x?x10xf64>
"test.op"(%r) : (tensor<2x?x10xf64>) -> ()
// CHECK: %{{.*}} = mg.broadcast %{{.*}} : tensor<?x1xf64> -> tensor<2x?x10xf64>

// -----
// A dimension added in front may be a '?' (a lower rank against '?' sizes, as NumPy
// broadcasts): a like operand with a '?' there gives its size ...
%b = "test.op"() : () -> tensor<3xf64>
%x = "test.op"() : () -> tensor<?x3xf64>
%r = mg.broadcast %b like %x : tensor<3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
"test.op"(%r) : (tensor<?x3xf64>) -> ()
// CHECK: %{{.*}} = mg.broadcast %{{.*}} like %{{.*}} : tensor<3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>

// -----
// ... and without one, its size would be unknown.
%s = "test.op"() : () -> tensor<f64>
%y = "test.op"() : () -> tensor<4x?xf64>
%r = mg.broadcast %s like %y : tensor<f64>, tensor<4x?xf64> -> tensor<?x?xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<?x?xf64> is '?' where the input has none or a static 1: a like operand must have a '?' there to give its size

// -----
// A static 1 grows to a '?' that a like operand gives (broadcast_to(m, shape(x))).
%x = "test.op"() : () -> tensor<?x1xf64>
%y = "test.op"() : () -> tensor<?x?xf64>
%r = mg.broadcast %x like %y : tensor<?x1xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
// CHECK: mg.broadcast %{{.*}} like %{{.*}} : tensor<?x1xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
