// mg-autodiff builds only the adjoints a variable needs: an operand that no variable reaches
// (a constant, an input not differentiated) gets none, nor do the ops only it leads to.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @only_w(
// CHECK:         %d = mg.div %m, %y
// CHECK-NEXT:    %[[ONE:.*]] = mg.full_like %d {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[GM:.*]] = mg.div %[[ONE]], %y
// CHECK-NEXT:    %g = mg.mul %[[GM]], %x
// CHECK-NEXT:    func.return %g
func.func @only_w(%w: tensor<f64>, %x: tensor<f64>, %y: tensor<f64>) -> tensor<f64> {
  %x2 = mg.exp %x : tensor<f64> -> tensor<f64>
  %m = mg.mul %w, %x : tensor<f64>, tensor<f64> -> tensor<f64>
  %d = mg.div %m, %y : tensor<f64>, tensor<f64> -> tensor<f64>
  %g = mg.grad %d wrt %w : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// Of a sub, a select and a matmul, only the adjoints of the operands reached from w.
// CHECK-LABEL: func.func @one_side(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %p : tensor<2x1xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
// CHECK-NEXT:    %[[BT:.*]] = mg.transpose %b
// CHECK-NEXT:    %[[GS:.*]] = mg.matmul %[[G]], %[[BT]]
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[GS]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[GQ:.*]] = mg.select %c, %[[Z]], %[[GS]]
// CHECK-NEXT:    func.return %[[GQ]]
// CHECK-NOT:     mg.neg
func.func @one_side(%w: tensor<2x3xf64>, %a: tensor<2x3xf64>, %b: tensor<3x2xf64>, %c: tensor<2x3xi1>) -> tensor<2x3xf64> {
  %q = mg.sub %w, %a : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %s = mg.select %c, %a, %q : tensor<2x3xi1>, tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  %p = mg.matmul %s, %b : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
  %r = mg.reduce %p {axis = 1 : i64, kind = "sum"} : tensor<2x2xf64> -> tensor<2x1xf64>
  %u = mg.reduce %r {axis = 0 : i64, kind = "sum"} : tensor<2x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %u : tensor<1x1xf64> to tensor<f64>
  %g = mg.grad %l wrt %w : tensor<f64>, tensor<2x3xf64> -> tensor<2x3xf64>
  func.return %g : tensor<2x3xf64>
}
