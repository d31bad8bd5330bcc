// mg.random's verifier: a static float shape, a known distribution, a seed that is not
// negative.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%r = mg.random {distribution = "normal", seed = 7 : i64, a = 0.0 : f64, b = 1.0 : f64} : tensor<2x3xf32>
"test.op"(%r) : (tensor<2x3xf32>) -> ()
// CHECK: %{{.*}} = mg.random {distribution = "normal", seed = 7 : i64, a = 0.000000e+00 : f64, b = 1.000000e+00 : f64} : tensor<2x3xf32>

// -----
%r = mg.random {distribution = "poisson", seed = 7 : i64, a = 0.0 : f64, b = 1.0 : f64} : tensor<2xf64>
// CHECK: mg.random: distribution must be uniform or normal, got 'poisson'

// -----
%r = mg.random {distribution = "uniform", seed = -1 : i64, a = 0.0 : f64, b = 1.0 : f64} : tensor<2xf64>
// CHECK: mg.random: the seed must not be negative, got -1

// -----
%r = mg.random {distribution = "uniform", seed = 1 : i64, a = 0.0 : f64, b = 1.0 : f64} : tensor<?xf64>
// CHECK: mg.random: the shape must be static
