// The optimisations' tunables are pass options (their defaults are what the pipeline uses).
// RUN: mg-opt %s -p convert-mg-to-linalg,tile-matmul | filecheck %s --check-prefix=SMALL
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{min-work=1}' | filecheck %s --check-prefix=TILED
// RUN: mg-opt %s -p 'convert-mg-to-linalg,vectorize-reductions{row-block=100 rows-at-once=2}' | filecheck %s --check-prefix=COLS

// 8 x 8 x 8 = 512 products: below tile-matmul's min-work (32768) the product stays; with
// min-work=1 it calls the kernel.
func.func @mm(%a: tensor<8x8xf64>, %b: tensor<8x8xf64>) -> tensor<8x8xf64> {
  %c = mg.matmul %a, %b : tensor<8x8xf64>, tensor<8x8xf64> -> tensor<8x8xf64>
  func.return %c : tensor<8x8xf64>
}
// SMALL-LABEL: func.func @mm(
// SMALL-NOT:     func.call @mg_matmul
// SMALL:         linalg.matmul
// TILED-LABEL: func.func @mm(
// TILED:         func.call @mg_matmul_set_f64

// Rows in blocks of 100 (a partial row each: ten for 1000 rows), folded two rows at a time.
func.func @cols(%a: tensor<1000x12xf64>) -> tensor<1x12xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "sum"} : tensor<1000x12xf64> -> tensor<1x12xf64>
  func.return %r : tensor<1x12xf64>
}
// COLS-LABEL: func.func @cols(
// COLS:         func.call @mg_column_sum_f64
// COLS-LABEL: func.func private @mg_column_sum_f64(
// COLS:         %[[ROWS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// COLS:         %[[BLOCK:.*]] = arith.constant 100 : index
// COLS-NEXT:    %[[BLOCKS:.*]] = arith.ceildivsi %[[ROWS]], %[[BLOCK]] : index
// COLS-NEXT:    %[[PART:.*]] = memref.alloc(%[[BLOCKS]], %{{.*}}) : memref<?x?xf64>
// COLS:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// COLS:           %[[P:.*]] = vector.load %[[PART]][%{{.*}}, %[[J:.*]]] : memref<?x?xf64>, vector<8xf64>
// COLS-NEXT:      %[[X0:.*]] = vector.load %a[%{{.*}}, %[[J]]] : memref<?x?xf64>, vector<8xf64>
// COLS-NEXT:      %[[S0:.*]] = arith.addf %[[P]], %[[X0]] : vector<8xf64>
// COLS-NEXT:      %[[X1:.*]] = vector.load %a[%{{.*}}, %[[J]]] : memref<?x?xf64>, vector<8xf64>
// COLS-NEXT:      %[[S1:.*]] = arith.addf %[[S0]], %[[X1]] : vector<8xf64>
// COLS-NEXT:      vector.store %[[S1]], %[[PART]][%{{.*}}, %[[J]]] : memref<?x?xf64>, vector<8xf64>
