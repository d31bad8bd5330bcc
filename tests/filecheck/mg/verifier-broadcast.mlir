// mg.broadcast's verifier: a dimension grows only from a static 1, and only to a static
// size; every other dimension (a '?' too) stays as it is.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x3xf64>
%r = mg.broadcast %x : tensor<2x3xf64> -> tensor<4x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<2x3xf64> can only stay as it is or grow from a static 1 to a static size, not to tensor<4x3xf64>

// -----
%x = "test.op"() : () -> tensor<1x2xf64>
%r = mg.broadcast %x : tensor<1x2xf64> -> tensor<3x3xf64>
// CHECK: mg.broadcast: dimension 1 of tensor<1x2xf64> can only stay as it is or grow from a static 1 to a static size, not to tensor<3x3xf64>

// -----
// A '?' is never broadcast: it does not become a static size here (mg.cast claims one,
// checked at run time) ...
%x = "test.op"() : () -> tensor<?x1xf64>
%r = mg.broadcast %x : tensor<?x1xf64> -> tensor<2x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<?x1xf64> can only stay as it is or grow from a static 1 to a static size, not to tensor<2x3xf64>

// -----
// ... and a static 1 does not grow to a '?' (the chapter's rule: its size would be unknown).
%x = "test.op"() : () -> tensor<1x3xf64>
%r = mg.broadcast %x : tensor<1x3xf64> -> tensor<?x3xf64>
// CHECK: mg.broadcast: dimension 0 of tensor<1x3xf64> can only stay as it is or grow from a static 1 to a static size, not to tensor<?x3xf64>

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
// CHECK: mg.broadcast: the added dimension 0 of tensor<?x?xf64> is '?': a like operand must have a '?' there to give its size
