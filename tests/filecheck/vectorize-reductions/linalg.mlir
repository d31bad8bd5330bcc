// vectorize-reductions decides from the structured op alone (hand-written linalg here, no
// mg): a linalg.generic over two loops that folds each element of its input (identity map)
// into one cell per row (parallel, reduction; (d0, d1) -> (d0, 0)) or per column
// (reduction, parallel; (d0, d1) -> (0, d1)) with one combining op of mg.REDUCTIONS.
// RUN: mg-opt %s -p vectorize-reductions | filecheck %s
// RUN: %if mlir-opt %{ mlir-opt-22 %s | mg-opt -p vectorize-reductions | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0, 0)>
#cols = affine_map<(d0, d1) -> (0, d1)>

// A reduction over the last axis (a row maximum), f32, the combine's operands either way.
func.func @row_max(%a: memref<?x?xf32>, %r: memref<?x1xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf32>) outs(%r : memref<?x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  }
  return
}
// CHECK-LABEL: func.func @row_max(
// CHECK-NEXT:    %[[R:.*]] = "memref.cast"(%r) : (memref<?x1xf32>) -> memref<?x?xf32>
// CHECK-NEXT:    func.call @mg_row_max_f32(%a, %[[R]]) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT:    func.return

// A column sum.
func.func @col_sum(%a: memref<5000x100xf64>, %r: memref<1x100xf64>) {
  linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<5000x100xf64>) outs(%r : memref<1x100xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @col_sum(
// CHECK:         func.call @mg_column_sum_f64(

// Not a reduction the kernels know: a product.
func.func @row_product(%a: memref<?x?xf64>, %r: memref<?x1xf64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf64>) outs(%r : memref<?x1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.mulf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @row_product(
// CHECK-NOT:     func.call
// CHECK:         linalg.generic

// Not a reduction: the cells are per row but the row loop is declared a reduction too.
func.func @wrong_iterators(%a: memref<?x?xf64>, %r: memref<?x1xf64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<?x?xf64>) outs(%r : memref<?x1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @wrong_iterators(
// CHECK-NOT:     func.call
// CHECK:         linalg.generic

// One row inside a loop (linalg-fuse-rows' loop over rows): the row kernel's body for that
// row, in place, without a call or a parallel loop of its own.
func.func @one_row_in_a_loop(%a: memref<64x1024xf32>, %r: memref<64x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %cell = memref.subview %r[%i, 0] [1, 1] [1, 1] : memref<64x1xf32> to memref<1x1xf32, strided<[1, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%row : memref<1x1024xf32, strided<[1024, 1], offset: ?>>) outs(%cell : memref<1x1xf32, strided<[1, 1], offset: ?>>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %acc, %x : f32
      linalg.yield %s : f32
    }
  }
  return
}
// CHECK-LABEL: func.func @one_row_in_a_loop(
// CHECK-NOT:     func.call
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for %[[I:.*]] = 
// CHECK:           %[[ROW:.*]] = memref.subview %a
// CHECK:           %[[CELL:.*]] = memref.subview %r
// CHECK:           scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:             vector.load %[[ROW]][%{{.*}}, %{{.*}}] : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<16xf32>
// CHECK:           %[[START:.*]] = memref.load %[[CELL]][%{{.*}}, %{{.*}}]
// CHECK:           vector.reduction <add>, %{{.*}}, %[[START]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK:           memref.store %{{.*}}, %[[CELL]][%{{.*}}, %{{.*}}]
// CHECK-NOT:   func.func private @mg_row_sum_f32

// A row of static length, 1000: 960 in the accumulators' loop, 32 in the whole vectors'
// loop (the hint: LLVM is not to vectorize or unroll it), and the last 8 one by one, a
// loop of constant bounds that LLVM unrolls fully and is left to it (no hint).
func.func @static_row_tail(%a: memref<64x1000xf32>, %r: memref<64x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 1000] [1, 1] : memref<64x1000xf32> to memref<1x1000xf32, strided<[1000, 1], offset: ?>>
    %cell = memref.subview %r[%i, 0] [1, 1] [1, 1] : memref<64x1xf32> to memref<1x1xf32, strided<[1, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%row : memref<1x1000xf32, strided<[1000, 1], offset: ?>>) outs(%cell : memref<1x1xf32, strided<[1, 1], offset: ?>>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %acc, %x : f32
      linalg.yield %s : f32
    }
  }
  return
}
// CHECK-LABEL: func.func @static_row_tail(
// CHECK:           %[[END:.*]] = arith.constant 1000 : index
// CHECK:           %[[ACCS_END:.*]] = arith.constant 960 : index
// CHECK:           scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:           %[[LANES_END:.*]] = arith.constant 992 : index
// CHECK:           scf.for %{{.*}} = %[[ACCS_END]] to %[[LANES_END]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>) {
// CHECK:           } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK:           scf.for %{{.*}} = %[[LANES_END]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT:        memref.load %row[%{{.*}}, %{{.*}}]
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        scf.yield
// CHECK-NOT:       loop_annotation
// CHECK:           memref.store

// CHECK-LABEL: func.func private @mg_row_max_f32(
// CHECK:         vector.load %a[{{.*}}] : memref<?x?xf32>, vector<16xf32>
// CHECK-LABEL: func.func private @mg_column_sum_f64(
