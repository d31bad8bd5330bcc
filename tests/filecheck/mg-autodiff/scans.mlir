// mg-autodiff of mg.linear_scan (h[t] = a[t] * h[t-1] + b[t]): the adjoint lam of h is the
// scan the other way of g with a moved one place (lam[t] = g[t] + a[t+1] * lam[t+1]); b's
// adjoint is lam, a's is lam * h moved one place (h[t-1], 0 before the first). A static size
// moves with a slice and a concat of zeros; a '?' size with a gather at the positions one
// over (a running count of ones), masked at the edge. A cumsum's a is a full_like (a
// constant): no adjoint is built for it.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @scan(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %h : tensor<4x1xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
// CHECK-NEXT:    %[[A0:.*]] = mg.slice %a {axis = 0 : i64, start = 0 : i64, stop = 1 : i64}
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[A0]] {value = 0.000000e+00 : f64} : tensor<1x3xf64> -> tensor<1x3xf64>
// CHECK-NEXT:    %[[REST:.*]] = mg.slice %a {axis = 0 : i64, start = 1 : i64, stop = 4 : i64} : tensor<4x3xf64> to tensor<3x3xf64>
// CHECK-NEXT:    %[[NEXT:.*]] = mg.concat %[[REST]], %[[Z]] {axis = 0 : i64} : tensor<3x3xf64>, tensor<1x3xf64> -> tensor<4x3xf64>
// CHECK-NEXT:    %gb = mg.linear_scan %[[NEXT]], %[[G]] {axis = 0 : i64, reverse = true}
// CHECK-NEXT:    %[[H0:.*]] = mg.slice %h {axis = 0 : i64, start = 0 : i64, stop = 1 : i64}
// CHECK-NEXT:    %[[ZH:.*]] = mg.full_like %[[H0]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[HEAD:.*]] = mg.slice %h {axis = 0 : i64, start = 0 : i64, stop = 3 : i64} : tensor<4x3xf64> to tensor<3x3xf64>
// CHECK-NEXT:    %[[PREV:.*]] = mg.concat %[[ZH]], %[[HEAD]] {axis = 0 : i64} : tensor<1x3xf64>, tensor<3x3xf64> -> tensor<4x3xf64>
// CHECK-NEXT:    %ga = mg.mul %gb, %[[PREV]]
// CHECK-NEXT:    func.return %ga, %gb
func.func @scan(%a: tensor<4x3xf64>, %b: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>) {
  %h = mg.linear_scan %a, %b {axis = 0 : i64, reverse = false} : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
  %s = mg.reduce %h {axis = 1 : i64, kind = "sum"} : tensor<4x3xf64> -> tensor<4x1xf64>
  %u = mg.reduce %s {axis = 0 : i64, kind = "sum"} : tensor<4x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %u : tensor<1x1xf64> to tensor<f64>
  %ga, %gb = mg.grad %l wrt %a, %b : tensor<f64>, tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>, tensor<4x3xf64>
  func.return %ga, %gb : tensor<4x3xf64>, tensor<4x3xf64>
}

// From the end along a '?' axis: lam runs forward with a[t-1] (0 at the first, which has
// none); a's adjoint reads h[t+1] (0 at the last).
// CHECK-LABEL: func.func @reverse(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %h : tensor<3x1xf64>, tensor<3x?xf64> -> tensor<3x?xf64>
// CHECK-NEXT:    %[[ONES:.*]] = mg.full_like %a {value = 1 : i64} : tensor<3x?xf64> -> tensor<3x?xi64>
// CHECK-NEXT:    %[[COUNT:.*]] = mg.linear_scan %[[ONES]], %[[ONES]] {axis = 1 : i64, reverse = false}
// CHECK-NEXT:    %[[POS:.*]] = mg.scalar %[[COUNT]] {op = "sub", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %[[FIRST:.*]] = mg.scalar %[[POS]] {op = "eq", value = 0 : i64, reversed = false}
// CHECK-NEXT:    %[[BEFORE:.*]] = mg.scalar %[[POS]] {op = "add", value = -1 : i64, reversed = false}
// CHECK-NEXT:    %[[SRC:.*]] = mg.select %[[FIRST]], %[[POS]], %[[BEFORE]]
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %a {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[MOVED:.*]] = mg.gather %a, %[[SRC]] {axis = 1 : i64} : tensor<3x?xf64>, tensor<3x?xi64> -> tensor<3x?xf64>
// CHECK-NEXT:    %[[PREV_A:.*]] = mg.select %[[FIRST]], %[[Z]], %[[MOVED]]
// CHECK-NEXT:    %[[LAM:.*]] = mg.linear_scan %[[PREV_A]], %[[G]] {axis = 1 : i64, reverse = false}
// CHECK:         %[[LAST:.*]] = mg.scalar %{{.*}} {op = "eq", value = 0 : i64, reversed = false}
// CHECK-NEXT:    %[[AFTER:.*]] = mg.scalar %{{.*}} {op = "add", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %[[SRC2:.*]] = mg.select %[[LAST]], %{{.*}}, %[[AFTER]]
// CHECK-NEXT:    %[[ZH:.*]] = mg.full_like %h {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[NEXT_H:.*]] = mg.gather %h, %[[SRC2]] {axis = 1 : i64}
// CHECK-NEXT:    %[[HN:.*]] = mg.select %[[LAST]], %[[ZH]], %[[NEXT_H]]
// CHECK-NEXT:    %ga = mg.mul %[[LAM]], %[[HN]]
// CHECK-NEXT:    func.return %ga
func.func @reverse(%a: tensor<3x?xf64>, %b: tensor<3x?xf64>) -> tensor<3x?xf64> {
  %h = mg.linear_scan %a, %b {axis = 1 : i64, reverse = true} : tensor<3x?xf64>, tensor<3x?xf64> -> tensor<3x?xf64>
  %s = mg.reduce %h {axis = 1 : i64, kind = "sum"} : tensor<3x?xf64> -> tensor<3x1xf64>
  %u = mg.reduce %s {axis = 0 : i64, kind = "sum"} : tensor<3x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %u : tensor<1x1xf64> to tensor<f64>
  %ga = mg.grad %l wrt %a : tensor<f64>, tensor<3x?xf64> -> tensor<3x?xf64>
  func.return %ga : tensor<3x?xf64>
}

// CHECK-LABEL: func.func @cumsum(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %h : tensor<1xf64>, tensor<?xf64> -> tensor<?xf64>
// CHECK-NEXT:    %g = mg.linear_scan %one, %[[G]] {axis = 0 : i64, reverse = true} : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
// CHECK-NEXT:    func.return %g
func.func @cumsum(%x: tensor<?xf64>) -> tensor<?xf64> {
  %one = mg.full_like %x {value = 1.0 : f64} : tensor<?xf64> -> tensor<?xf64>
  %h = mg.linear_scan %one, %x {axis = 0 : i64, reverse = false} : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
  %u = mg.reduce %h {axis = 0 : i64, kind = "sum"} : tensor<?xf64> -> tensor<1xf64>
  %l = mg.reshape %u : tensor<1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<?xf64> -> tensor<?xf64>
  func.return %g : tensor<?xf64>
}
