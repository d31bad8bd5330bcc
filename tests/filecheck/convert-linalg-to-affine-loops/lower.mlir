// convert-linalg-to-affine-loops: one lowering for every structured op, from its maps and
// iterator types: a loop per iterator (its extent an operand dimension the maps reach
// directly, static where one is), loads at the input maps, the body, stores at the output
// map. (upstream.mlir compares it with upstream MLIR's pass of the same name.)
// RUN: mg-opt %s -p convert-linalg-to-affine-loops | filecheck %s
// RUN: mg-opt %s -p 'convert-linalg-to-affine-loops{min-parallel-work=1000}' | filecheck %s --check-prefix=PAR

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0, 0)>
#cols = affine_map<(d0, d1) -> (0, d1)>

// A row sum over a ? x ? input: the loops' extents come from the input.
// CHECK-LABEL: func.func @row_sum(
// CHECK:         %[[M:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[N:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to %[[M]] {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to %[[N]] {
// CHECK-NEXT:        %[[X:.*]] = affine.load %a[%[[I]], %[[J]]] : memref<?x?xf64>
// CHECK-NEXT:        %[[ACC:.*]] = affine.load %r[%[[I]], %[[C0]]] : memref<?x1xf64>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:        affine.store %[[S]], %r[%[[I]], %[[C0]]] : memref<?x1xf64>
// With min-parallel-work, the row loop (parallel) is an affine.parallel; the reduction
// loop stays an affine.for inside it.
// PAR-LABEL:   func.func @row_sum(
// PAR:           "affine.parallel"(
// PAR:             affine.for
// PAR-NOT:         affine.parallel
// PAR:             arith.addf
func.func @row_sum(%a: memref<?x?xf64>, %r: memref<?x1xf64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf64>) outs(%r : memref<?x1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}

// A column maximum: parallelised, the parallel column loop goes outside the reduction
// loop (each cell still folds its rows in order).
// CHECK-LABEL: func.func @col_max(
// CHECK:         affine.for %[[I:.*]] = 0 to 300 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 40 {
// PAR-LABEL:   func.func @col_max(
// PAR:           "affine.parallel"() <{{.*}}upperBoundsMap = affine_map<() -> (40)>
// PAR:             affine.for %{{.*}} = 0 to 300 {
func.func @col_max(%a: memref<300x40xf64>, %r: memref<1x40xf64>) {
  linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<300x40xf64>) outs(%r : memref<1x40xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %m = arith.maximumf %acc, %x : f64
    linalg.yield %m : f64
  }
  return
}

// Named ops through the same lowering: fill (a scalar input), matmul (i, j, k; the extent
// of k from A's static columns), transpose. Small static nests stay sequential even with
// min-parallel-work.
// CHECK-LABEL: func.func @named(
// CHECK:         affine.for %{{.*}} = 0 to 4 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 5 {
// CHECK-NEXT:        affine.store %zero, %c[
// CHECK:         affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 5 {
// CHECK-NEXT:        affine.for %[[K:.*]] = 0 to 3 {
// CHECK-NEXT:          affine.load %a[%[[I]], %[[K]]]
// CHECK-NEXT:          affine.load %b[%[[K]], %[[J]]]
// CHECK-NEXT:          affine.load %c[%[[I]], %[[J]]]
// CHECK-NEXT:          arith.mulf
// CHECK-NEXT:          arith.addf
// CHECK-NEXT:          affine.store %{{.*}}, %c[%[[I]], %[[J]]]
// CHECK:         affine.for %[[I:.*]] = 0 to 5 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[V:.*]] = affine.load %c[%[[J]], %[[I]]] : memref<4x5xf64>
// CHECK-NEXT:        affine.store %[[V]], %t[%[[I]], %[[J]]] : memref<5x4xf64>
// PAR-LABEL:   func.func @named(
// PAR-NOT:       affine.parallel
// PAR:           func.return
func.func @named(%a: memref<4x?xf64>, %b: memref<3x5xf64>, %c: memref<4x5xf64>, %t: memref<5x4xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<4x5xf64>)
  linalg.matmul ins(%a, %b : memref<4x?xf64>, memref<3x5xf64>) outs(%c : memref<4x5xf64>)
  linalg.transpose ins(%c : memref<4x5xf64>) outs(%t : memref<5x4xf64>) permutation = [1, 0]
  return
}

// A broadcast add: the row is read at index 0 in the repeated dimension; the body's
// constant is made once, before the loops.
// CHECK-LABEL: func.func @broadcast_relu(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.load %a[%[[I]], %[[J]]]
// CHECK-NEXT:        affine.load %v[%{{.*}}, %[[J]]] : memref<1x3xf64>
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        arith.maximumf %{{.*}}, %[[ZERO]] : f64
func.func @broadcast_relu(%a: memref<8x3xf64>, %v: memref<1x3xf64>, %r: memref<8x3xf64>) {
  linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %v : memref<8x3xf64>, memref<1x3xf64>) outs(%r : memref<8x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %s = arith.addf %x, %y : f64
    %zero = arith.constant 0.0 : f64
    %m = arith.maximumf %s, %zero : f64
    linalg.yield %m : f64
  }
  return
}

// An op inside a parallel loop (linalg-fuse-rows' loop over rows, each op on a row's
// view) gets no parallel loop of its own, whatever its sizes: the rows are shared already.
func.func @in_a_parallel_loop(%a: memref<64x?xf64>, %r: memref<64x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %a, %c1 : memref<64x?xf64>
  "scf.parallel"(%c0, %c64, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %row = memref.subview %a[%i, 0] [1, %n] [1, 1] : memref<64x?xf64> to memref<1x?xf64, strided<[?, 1], offset: ?>>
    %out = memref.subview %r[%i, 0] [1, %n] [1, 1] : memref<64x?xf64> to memref<1x?xf64, strided<[?, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%row : memref<1x?xf64, strided<[?, 1], offset: ?>>) outs(%out : memref<1x?xf64, strided<[?, 1], offset: ?>>) {
    ^bb0(%x: f64, %o: f64):
      %y = arith.mulf %x, %x : f64
      linalg.yield %y : f64
    }
    scf.reduce
  }) : (index, index, index) -> ()
  return
}
// PAR-LABEL:   func.func @in_a_parallel_loop(
// (The loops are scf.for: the row's ? length, read inside the loop, is no affine symbol.)
// PAR:           "scf.parallel"
// PAR-NOT:         parallel
// PAR:             scf.for
// PAR-NOT:         parallel
// PAR:               scf.for
// PAR-NOT:         parallel
// PAR:                 arith.mulf
