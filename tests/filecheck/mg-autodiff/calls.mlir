// mg-autodiff inlines the calls the value is computed from that read a variable (their
// bodies cloned in place of the call), so the sweep sees every op; a call of constants only
// stays a call, and the callee stays for its other uses.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

func.func @loss(%w: tensor<3xf64>, %x: tensor<3xf64>) -> tensor<f64> {
  %m = mg.mul %w, %x : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  %t = func.call @twice(%m) : (tensor<3xf64>) -> tensor<3xf64>
  %r = mg.reduce %t {axis = 0 : i64, kind = "sum"} : tensor<3xf64> -> tensor<1xf64>
  %l = mg.reshape %r : tensor<1xf64> to tensor<f64>
  func.return %l : tensor<f64>
}

func.func @twice(%v: tensor<3xf64>) -> tensor<3xf64> {
  %d = mg.scalar %v {op = "mul", value = 2.0 : f64, reversed = false} : tensor<3xf64> -> tensor<3xf64>
  func.return %d : tensor<3xf64>
}

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %c = func.call @twice(%x) : (tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    %m = mg.mul %w, %c : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK-NEXT:    %d = mg.scalar %m {op = "mul", value = 2.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %r = mg.reduce %d {axis = 0 : i64, kind = "sum"}
// CHECK-NEXT:    %l = mg.reshape %r : tensor<1xf64> to tensor<f64>
// CHECK-NEXT:    %[[ONE:.*]] = mg.full_like %l {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[G1:.*]] = mg.reshape %[[ONE]] : tensor<f64> to tensor<1xf64>
// CHECK-NEXT:    %[[GD:.*]] = mg.broadcast %[[G1]] like %d
// CHECK-NEXT:    %[[GM:.*]] = mg.scalar %[[GD]] {op = "mul", value = 2.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %g = mg.mul %[[GM]], %c
// CHECK-NEXT:    func.return %g
// CHECK-LABEL: func.func @other(
// CHECK-NEXT:    %l = func.call @loss(%w, %w)
func.func @main(%w: tensor<3xf64>, %x: tensor<3xf64>) -> tensor<3xf64> {
  %c = func.call @twice(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %l = func.call @loss(%w, %c) : (tensor<3xf64>, tensor<3xf64>) -> tensor<f64>
  %g = mg.grad %l wrt %w : tensor<f64>, tensor<3xf64> -> tensor<3xf64>
  func.return %g : tensor<3xf64>
}

func.func @other(%w: tensor<3xf64>) -> tensor<f64> {
  %l = func.call @loss(%w, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<f64>
  func.return %l : tensor<f64>
}
