// mg-autodiff of the indexing ops: index (g's rows added into zeros at the ids: index_add),
// gather (scatter_add into zeros), index_add and scatter_add (g for the base; for the values,
// g read where they were added: index, gather), extract (g at the element's place in zeros:
// a mask per axis, of the positions along it). Ids and indices get no adjoint.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @index(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %r : tensor<2x1xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %t {value = 0.000000e+00 : f64} : tensor<5x3xf64> -> tensor<5x3xf64>
// CHECK-NEXT:    %g = mg.index_add %[[Z]], %ids, %[[G]] : tensor<5x3xf64>, tensor<2xi64>, tensor<2x3xf64> -> tensor<5x3xf64>
// CHECK-NEXT:    func.return %g
func.func @index(%t: tensor<5x3xf64>, %ids: tensor<2xi64>) -> tensor<5x3xf64> {
  %r = mg.index %t, %ids : tensor<5x3xf64>, tensor<2xi64> -> tensor<2x3xf64>
  %s = mg.reduce %r {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
  %u = mg.reduce %s {axis = 0 : i64, kind = "sum"} : tensor<2x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %u : tensor<1x1xf64> to tensor<f64>
  %g = mg.grad %l wrt %t : tensor<f64>, tensor<5x3xf64> -> tensor<5x3xf64>
  func.return %g : tensor<5x3xf64>
}

// CHECK-LABEL: func.func @gather(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %r : tensor<2x1xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %x {value = 0.000000e+00 : f64} : tensor<2x5xf64> -> tensor<2x5xf64>
// CHECK-NEXT:    %g = mg.scatter_add %[[Z]], %idx, %[[G]] {axis = 1 : i64} : tensor<2x5xf64>, tensor<2x3xi64>, tensor<2x3xf64> -> tensor<2x5xf64>
// CHECK-NEXT:    func.return %g
func.func @gather(%x: tensor<2x5xf64>, %idx: tensor<2x3xi64>) -> tensor<2x5xf64> {
  %r = mg.gather %x, %idx {axis = 1 : i64} : tensor<2x5xf64>, tensor<2x3xi64> -> tensor<2x3xf64>
  %s = mg.reduce %r {axis = 1 : i64, kind = "sum"} : tensor<2x3xf64> -> tensor<2x1xf64>
  %u = mg.reduce %s {axis = 0 : i64, kind = "sum"} : tensor<2x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %u : tensor<1x1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<2x5xf64> -> tensor<2x5xf64>
  func.return %g : tensor<2x5xf64>
}

// The base's adjoint is g itself, through both adds.
// CHECK-LABEL: func.func @adds(
// CHECK:         %gb = mg.broadcast %{{.*}} like %c : tensor<5x1xf64>, tensor<5x3xf64> -> tensor<5x3xf64>
// CHECK-NEXT:    %gw = mg.gather %gb, %idx {axis = 1 : i64} : tensor<5x3xf64>, tensor<5x2xi64> -> tensor<5x2xf64>
// CHECK-NEXT:    %gv = mg.index %gb, %ids : tensor<5x3xf64>, tensor<2xi64> -> tensor<2x3xf64>
// CHECK-NEXT:    func.return %gb, %gv, %gw
func.func @adds(%b: tensor<5x3xf64>, %ids: tensor<2xi64>, %v: tensor<2x3xf64>, %idx: tensor<5x2xi64>, %w: tensor<5x2xf64>) -> (tensor<5x3xf64>, tensor<2x3xf64>, tensor<5x2xf64>) {
  %a = mg.index_add %b, %ids, %v : tensor<5x3xf64>, tensor<2xi64>, tensor<2x3xf64> -> tensor<5x3xf64>
  %c = mg.scatter_add %a, %idx, %w {axis = 1 : i64} : tensor<5x3xf64>, tensor<5x2xi64>, tensor<5x2xf64> -> tensor<5x3xf64>
  %s = mg.reduce %c {axis = 1 : i64, kind = "sum"} : tensor<5x3xf64> -> tensor<5x1xf64>
  %u = mg.reduce %s {axis = 0 : i64, kind = "sum"} : tensor<5x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %u : tensor<1x1xf64> to tensor<f64>
  %gb, %gv, %gw = mg.grad %l wrt %b, %v, %w : tensor<f64>, tensor<5x3xf64>, tensor<2x3xf64>, tensor<5x2xf64> -> tensor<5x3xf64>, tensor<2x3xf64>, tensor<5x2xf64>
  func.return %gb, %gv, %gw : tensor<5x3xf64>, tensor<2x3xf64>, tensor<5x2xf64>
}

// x[-1, 0, -2]: the static axis 0 at 3 (its positions a running count, the shape having a
// '?'), no mask for the axis of size 1, and the '?' axis 2 at 1 from the end.
// CHECK-LABEL: func.func @extract(
// CHECK:         %[[ONE:.*]] = mg.full_like %e {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[G:.*]] = mg.broadcast %[[ONE]] like %x : tensor<f64>, tensor<4x1x?xf64> -> tensor<4x1x?xf64>
// CHECK-NEXT:    %[[ONES:.*]] = mg.full_like %x {value = 1 : i64} : tensor<4x1x?xf64> -> tensor<4x1x?xi64>
// CHECK-NEXT:    %[[COUNT:.*]] = mg.linear_scan %[[ONES]], %[[ONES]] {axis = 0 : i64, reverse = false}
// CHECK-NEXT:    %[[POS:.*]] = mg.scalar %[[COUNT]] {op = "sub", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %[[AT0:.*]] = mg.scalar %[[POS]] {op = "eq", value = 3 : i64, reversed = false}
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[G]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[G0:.*]] = mg.select %[[AT0]], %[[G]], %[[Z]]
// CHECK-NEXT:    %[[ONES2:.*]] = mg.full_like %x {value = 1 : i64} : tensor<4x1x?xf64> -> tensor<4x1x?xi64>
// CHECK-NEXT:    %[[COUNT2:.*]] = mg.linear_scan %[[ONES2]], %[[ONES2]] {axis = 2 : i64, reverse = true}
// CHECK-NEXT:    %[[POS2:.*]] = mg.scalar %[[COUNT2]] {op = "sub", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %[[AT2:.*]] = mg.scalar %[[POS2]] {op = "eq", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %[[Z2:.*]] = mg.full_like %[[G0]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %g = mg.select %[[AT2]], %[[G0]], %[[Z2]]
// CHECK-NEXT:    func.return %g
func.func @extract(%x: tensor<4x1x?xf64>) -> tensor<4x1x?xf64> {
  %e = mg.extract %x {indices = array<i64: -1, 0, -2>} : tensor<4x1x?xf64> -> tensor<f64>
  %g = mg.grad %e wrt %x : tensor<f64>, tensor<4x1x?xf64> -> tensor<4x1x?xf64>
  func.return %g : tensor<4x1x?xf64>
}
