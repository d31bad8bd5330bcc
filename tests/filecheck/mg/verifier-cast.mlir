// mg.cast's messages (mg.check_messages, which the front end gives a cast that claims static
// sizes): one string per dimension of the result, or none at all.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<?x3xf64>
%r = mg.cast %x {mg.check_messages = ["argument 1 of f (x) must be tensor[2x3]: its size in dimension 0 differs at runtime", ""]} : tensor<?x3xf64> to tensor<2x3xf64>
"test.op"(%r) : (tensor<2x3xf64>) -> ()
// CHECK: mg.cast %{{.*}} {mg.check_messages = ["argument 1 of f (x) must be tensor[2x3]: its size in dimension 0 differs at runtime", ""]} : tensor<?x3xf64> to tensor<2x3xf64>

// -----
%x = "test.op"() : () -> tensor<?x3xf64>
%r = mg.cast %x {mg.check_messages = ["only one"]} : tensor<?x3xf64> to tensor<2x3xf64>
// CHECK: mg.cast: mg.check_messages must be an array of one string per dimension of the result

// -----
%x = "test.op"() : () -> tensor<?x3xf64>
%r = mg.cast %x {mg.check_messages = [1, 2]} : tensor<?x3xf64> to tensor<2x3xf64>
// CHECK: mg.cast: mg.check_messages must be an array of one string per dimension of the result
