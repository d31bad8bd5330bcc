// Every mg op parses and prints back in its textual form, and a second round trip is stable.
// RUN: mg-opt %s | filecheck %s
// RUN: mg-opt %s | mg-opt | filecheck %s
// RUN: mg-opt %s --print-op-generic | mg-opt | filecheck %s

func.func @all(%x: tensor<2x3xf64>, %w: tensor<3x2xf64>, %b: tensor<1x2xf64>, %d: tensor<?x3xf64>) -> tensor<2x2xf64> {
  %c = mg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
  %a = mg.add %x, %c : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %s = mg.sub %a, %x : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %m = mg.mul %s, %x : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %q = mg.div %m, %x : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %dd = mg.add %d, %x : tensor<?x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %sc = mg.scalar %q {op = "sub", value = 2.0 : f64, reversed = true} : tensor<2x3xf64> -> tensor<2x3xf64>
  %n = mg.neg %sc : tensor<2x3xf64> -> tensor<2x3xf64>
  %r = mg.relu %n : tensor<2x3xf64> -> tensor<2x3xf64>
  %t = mg.transpose %r : tensor<2x3xf64> to tensor<3x2xf64>
  %mm = mg.matmul %x, %t : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
  %red = mg.reduce %mm {axis = 1 : i64, kind = "max"} : tensor<2x2xf64> -> tensor<2x1xf64>
  %bb = mg.broadcast %red : tensor<2x1xf64> -> tensor<2x2xf64>
  mg.print %bb : tensor<2x2xf64>
  func.return %bb : tensor<2x2xf64>
}

// CHECK-LABEL: func.func @all(
// CHECK:      %{{.*}} = mg.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf64>
// CHECK-NEXT: %{{.*}} = mg.add %x, %{{.*}} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT: mg.sub
// CHECK-NEXT: mg.mul
// CHECK-NEXT: mg.div
// CHECK-NEXT: mg.add %d, %x : tensor<?x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT: mg.scalar %{{.*}} {op = "sub", value = 2.000000e+00 : f64, reversed = true} : tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT: mg.neg %{{.*}} : tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT: mg.relu %{{.*}} : tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT: mg.transpose %{{.*}} : tensor<2x3xf64> to tensor<3x2xf64>
// CHECK-NEXT: mg.matmul %x, %{{.*}} : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
// CHECK-NEXT: mg.reduce %{{.*}} {axis = 1 : i64, kind = "max"} : tensor<2x2xf64> -> tensor<2x1xf64>
// CHECK-NEXT: mg.broadcast %{{.*}} : tensor<2x1xf64> -> tensor<2x2xf64>
// CHECK-NEXT: mg.print %{{.*}} : tensor<2x2xf64>
