// mg-autodiff of the ops that move elements: transpose (the inverse permutation), reshape
// and cast (back to the input's type), slice (g between zeros: a concat of static sizes, an
// index_add or scatter_add into zeros along a '?' size), concat (each input's part of g: a
// slice, a dynamic_slice after a '?' size, a gather for a '?' size of its own) and
// dynamic_slice (an index_add of g into zeros at the start; the start gets none).
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// CHECK-LABEL: func.func @transpose_reshape_cast(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %c : tensor<1xf64>, tensor<?xf64> -> tensor<?xf64>
// CHECK-NEXT:    %[[GR:.*]] = mg.cast %[[G]] : tensor<?xf64> to tensor<24xf64>
// CHECK-NEXT:    %[[GT:.*]] = mg.reshape %[[GR]] : tensor<24xf64> to tensor<3x4x2xf64>
// CHECK-NEXT:    %g = mg.transpose %[[GT]] {permutation = array<i64: 2, 0, 1>} : tensor<3x4x2xf64> to tensor<2x3x4xf64>
// CHECK-NEXT:    func.return %g
func.func @transpose_reshape_cast(%x: tensor<2x3x4xf64>) -> tensor<2x3x4xf64> {
  %t = mg.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf64> to tensor<3x4x2xf64>
  %r = mg.reshape %t : tensor<3x4x2xf64> to tensor<24xf64>
  %c = mg.cast %r : tensor<24xf64> to tensor<?xf64>
  %s = mg.reduce %c {axis = 0 : i64, kind = "sum"} : tensor<?xf64> -> tensor<1xf64>
  %l = mg.reshape %s : tensor<1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<2x3x4xf64> -> tensor<2x3x4xf64>
  func.return %g : tensor<2x3x4xf64>
}

// CHECK-LABEL: func.func @slice(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %s : tensor<3x1xf64>, tensor<3x2xf64> -> tensor<3x2xf64>
// CHECK-NEXT:    %[[BEFORE:.*]] = mg.slice %x {axis = 1 : i64, start = 0 : i64, stop = 1 : i64} : tensor<3x5xf64> to tensor<3x1xf64>
// CHECK-NEXT:    %[[Z1:.*]] = mg.full_like %[[BEFORE]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[AFTER:.*]] = mg.slice %x {axis = 1 : i64, start = 3 : i64, stop = 5 : i64} : tensor<3x5xf64> to tensor<3x2xf64>
// CHECK-NEXT:    %[[Z2:.*]] = mg.full_like %[[AFTER]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %g = mg.concat %[[Z1]], %[[G]], %[[Z2]] {axis = 1 : i64} : tensor<3x1xf64>, tensor<3x2xf64>, tensor<3x2xf64> -> tensor<3x5xf64>
func.func @slice(%x: tensor<3x5xf64>) -> tensor<3x5xf64> {
  %s = mg.slice %x {axis = 1 : i64, start = 1 : i64, stop = 3 : i64} : tensor<3x5xf64> to tensor<3x2xf64>
  %e = mg.reduce %s {axis = 1 : i64, kind = "sum"} : tensor<3x2xf64> -> tensor<3x1xf64>
  %f = mg.reduce %e {axis = 0 : i64, kind = "sum"} : tensor<3x1xf64> -> tensor<1x1xf64>
  %l = mg.reshape %f : tensor<1x1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<3x5xf64> -> tensor<3x5xf64>
  func.return %g : tensor<3x5xf64>
}

// Rows 1 and 2 of a '?' number: g's rows added at ids 1 + iota.
// CHECK-LABEL: func.func @slice_of_unknown_size(
// CHECK:         %[[Z:.*]] = mg.full_like %x {value = 0.000000e+00 : f64} : tensor<?x3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    %[[IOTA:.*]] = mg.iota {axis = 0 : i64} : tensor<2xi64>
// CHECK-NEXT:    %[[IDS:.*]] = mg.scalar %[[IOTA]] {op = "add", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %g = mg.index_add %[[Z]], %[[IDS]], %{{.*}} : tensor<?x3xf64>, tensor<2xi64>, tensor<2x3xf64> -> tensor<?x3xf64>
func.func @slice_of_unknown_size(%x: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %s = mg.slice %x {axis = 0 : i64, start = 1 : i64, stop = 3 : i64} : tensor<?x3xf64> to tensor<2x3xf64>
  %e = mg.extract %s {indices = array<i64: 1, 1>} : tensor<2x3xf64> -> tensor<f64>
  %g = mg.grad %e wrt %x : tensor<f64>, tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %g : tensor<?x3xf64>
}

// a: rows 0 to 2 of g; b ('?' rows): gathered at its positions plus 2; c (4 rows): from 2 plus b's size.
// CHECK-LABEL: func.func @concat(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %j : tensor<1x3xf64>, tensor<?x3xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    %ga = mg.slice %[[G]] {axis = 0 : i64, start = 0 : i64, stop = 2 : i64} : tensor<?x3xf64> to tensor<2x3xf64>
// CHECK-NEXT:    %[[ONES:.*]] = mg.full_like %b {value = 1 : i64} : tensor<?x3xf64> -> tensor<?x3xi64>
// CHECK-NEXT:    %[[COUNT:.*]] = mg.linear_scan %[[ONES]], %[[ONES]] {axis = 0 : i64, reverse = false}
// CHECK-NEXT:    %[[POS:.*]] = mg.scalar %[[COUNT]] {op = "sub", value = 1 : i64, reversed = false}
// CHECK-NEXT:    %[[IDX:.*]] = mg.scalar %[[POS]] {op = "add", value = 2 : i64, reversed = false}
// CHECK-NEXT:    %gb = mg.gather %[[G]], %[[IDX]] {axis = 0 : i64} : tensor<?x3xf64>, tensor<?x3xi64> -> tensor<?x3xf64>
// CHECK-NEXT:    %[[N:.*]] = mg.size %b {axes = array<i64: 0>} : tensor<?x3xf64> -> tensor<i64>
// CHECK-NEXT:    %[[START:.*]] = mg.scalar %[[N]] {op = "add", value = 2 : i64, reversed = false} : tensor<i64> -> tensor<i64>
// CHECK-NEXT:    %gc = mg.dynamic_slice %[[G]], %[[START]] {axis = 0 : i64, size = 4 : i64} : tensor<?x3xf64>, tensor<i64> -> tensor<4x3xf64>
// CHECK-NEXT:    func.return %ga, %gb, %gc
func.func @concat(%a: tensor<2x3xf64>, %b: tensor<?x3xf64>, %c: tensor<4x3xf64>) -> (tensor<2x3xf64>, tensor<?x3xf64>, tensor<4x3xf64>) {
  %j = mg.concat %a, %b, %c {axis = 0 : i64} : tensor<2x3xf64>, tensor<?x3xf64>, tensor<4x3xf64> -> tensor<?x3xf64>
  %s = mg.reduce %j {axis = 0 : i64, kind = "sum"} : tensor<?x3xf64> -> tensor<1x3xf64>
  %e = mg.extract %s {indices = array<i64: 0, 1>} : tensor<1x3xf64> -> tensor<f64>
  %ga, %gb, %gc = mg.grad %e wrt %a, %b, %c : tensor<f64>, tensor<2x3xf64>, tensor<?x3xf64>, tensor<4x3xf64> -> tensor<2x3xf64>, tensor<?x3xf64>, tensor<4x3xf64>
  func.return %ga, %gb, %gc : tensor<2x3xf64>, tensor<?x3xf64>, tensor<4x3xf64>
}

// CHECK-LABEL: func.func @dynamic_slice(
// CHECK:         %[[Z:.*]] = mg.full_like %x {value = 0.000000e+00 : f64} : tensor<?x4xf64> -> tensor<?x4xf64>
// CHECK-NEXT:    %[[IOTA:.*]] = mg.iota {axis = 0 : i64} : tensor<2xi64>
// CHECK-NEXT:    %[[I:.*]] = mg.broadcast %i like %[[IOTA]] : tensor<i64>, tensor<2xi64> -> tensor<2xi64>
// CHECK-NEXT:    %[[IDS:.*]] = mg.add %[[IOTA]], %[[I]]
// CHECK-NEXT:    %g = mg.index_add %[[Z]], %[[IDS]], %{{.*}} : tensor<?x4xf64>, tensor<2xi64>, tensor<2x4xf64> -> tensor<?x4xf64>
// CHECK-NEXT:    func.return %g
func.func @dynamic_slice(%x: tensor<?x4xf64>, %i: tensor<i64>) -> tensor<?x4xf64> {
  %s = mg.dynamic_slice %x, %i {axis = 0 : i64, size = 2 : i64} : tensor<?x4xf64>, tensor<i64> -> tensor<2x4xf64>
  %e = mg.extract %s {indices = array<i64: 1, 3>} : tensor<2x4xf64> -> tensor<f64>
  %g = mg.grad %e wrt %x : tensor<f64>, tensor<?x4xf64> -> tensor<?x4xf64>
  func.return %g : tensor<?x4xf64>
}

// Along axis 1, an i32 start: a scatter_add at g's positions plus the start.
// CHECK-LABEL: func.func @dynamic_slice_axis_1(
// CHECK:         %[[Z:.*]] = mg.full_like %x {value = 0.000000e+00 : f64} : tensor<3x?xf64> -> tensor<3x?xf64>
// CHECK-NEXT:    %[[IOTA:.*]] = mg.iota {axis = 1 : i64} : tensor<3x2xi64>
// CHECK-NEXT:    %[[I64:.*]] = mg.convert %i : tensor<i32> to tensor<i64>
// CHECK-NEXT:    %[[I:.*]] = mg.broadcast %[[I64]] like %[[IOTA]] : tensor<i64>, tensor<3x2xi64> -> tensor<3x2xi64>
// CHECK-NEXT:    %[[IDX:.*]] = mg.add %[[IOTA]], %[[I]]
// CHECK-NEXT:    %g = mg.scatter_add %[[Z]], %[[IDX]], %{{.*}} {axis = 1 : i64} : tensor<3x?xf64>, tensor<3x2xi64>, tensor<3x2xf64> -> tensor<3x?xf64>
// CHECK-NEXT:    func.return %g
func.func @dynamic_slice_axis_1(%x: tensor<3x?xf64>, %i: tensor<i32>) -> tensor<3x?xf64> {
  %s = mg.dynamic_slice %x, %i {axis = 1 : i64, size = 2 : i64} : tensor<3x?xf64>, tensor<i32> -> tensor<3x2xf64>
  %e = mg.extract %s {indices = array<i64: 2, 0>} : tensor<3x2xf64> -> tensor<f64>
  %g = mg.grad %e wrt %x : tensor<f64>, tensor<3x?xf64> -> tensor<3x?xf64>
  func.return %g : tensor<3x?xf64>
}
