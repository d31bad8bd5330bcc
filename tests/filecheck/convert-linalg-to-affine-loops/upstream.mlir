// convert-linalg-to-affine-loops against upstream MLIR's pass of the same name: after
// canonicalize and cse in mlir-opt-22 both give the same IR, op for op (but this pass's
// mg.parallel_accesses marks, which upstream's does not make: parallel-accesses.mlir).
// REQUIRES: mlir-opt
// RUN: mg-opt %s -p convert-linalg-to-affine-loops | mlir-opt-22 --canonicalize --cse | sed -e 's/ {mg.parallel_accesses}$//' > %t.ours
// RUN: mlir-opt-22 %s --convert-linalg-to-affine-loops --canonicalize --cse > %t.upstream
// RUN: diff %t.ours %t.upstream
// (Not linalg.matmul: xDSL builds its body as mul + acc, upstream as acc + mul. And where
// a loop's extent is a ? in one operand and static in another, upstream reads the first
// operand's size, this pass the static one.)

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0, 0)>
#cols = affine_map<(d0, d1) -> (0, d1)>
#ik = affine_map<(i, j, k) -> (i, k)>
#jk = affine_map<(i, j, k) -> (j, k)>
#ij = affine_map<(i, j, k) -> (i, j)>

func.func @row_sum(%a: memref<?x?xf64>, %r: memref<?x1xf64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf64>) outs(%r : memref<?x1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}

func.func @col_max(%a: memref<300x40xf32>, %r: memref<1x40xf32>) {
  linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<300x40xf32>) outs(%r : memref<1x40xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %acc, %x : f32
    linalg.yield %m : f32
  }
  return
}

func.func @product_b_transposed(%a: memref<?x?xf64>, %bt: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.generic {indexing_maps = [#ik, #jk, #ij], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}

func.func @fill_transpose(%c: memref<?x5xf64>, %t: memref<5x?xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x5xf64>)
  linalg.transpose ins(%c : memref<?x5xf64>) outs(%t : memref<5x?xf64>) permutation = [1, 0]
  return
}

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
