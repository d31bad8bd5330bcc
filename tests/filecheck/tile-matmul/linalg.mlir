// tile-matmul decides from the structured op alone (hand-written linalg here, no mg):
// a linalg.matmul, and a linalg.generic that is a matrix product by its maps and iterator
// types (i, j parallel, k reduction; A[i, k] or A[k, i], B[k, j] or B[j, k]; a multiply and
// an add). A transposed operand is first copied into its transpose. Anything else stays.
// RUN: mg-opt %s -p tile-matmul | filecheck %s
// RUN: %if mlir-opt %{ mlir-opt-22 %s | mg-opt -p tile-matmul | mlir-opt-22 > /dev/null %}

#ik = affine_map<(i, j, k) -> (i, k)>
#ki = affine_map<(i, j, k) -> (k, i)>
#kj = affine_map<(i, j, k) -> (k, j)>
#jk = affine_map<(i, j, k) -> (j, k)>
#ij = affine_map<(i, j, k) -> (i, j)>

func.func @named(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return
}
// CHECK-LABEL: func.func @named(
// CHECK-NEXT:    func.call @mg_matmul_f64(%a, %b, %c) : (memref<?x?xf64>, memref<?x?xf64>, memref<?x?xf64>) -> ()
// CHECK-NEXT:    func.return

// C += A @ B^T, B read as B[j, k]: B is first copied into its transpose, a new
// K x N buffer.
func.func @b_transposed(%a: memref<64x48xf32>, %bt: memref<?x48xf32>, %c: memref<64x?xf32>) {
  linalg.generic {indexing_maps = [#ik, #jk, #ij], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : memref<64x48xf32>, memref<?x48xf32>) outs(%c : memref<64x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @b_transposed(
// CHECK:         %[[N:.*]] = memref.dim %bt, %{{.*}} : memref<?x48xf32>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%[[N]]) : memref<48x?xf32>
// CHECK-NEXT:    linalg.transpose ins(%bt:memref<?x48xf32>) outs(%[[B]]:memref<48x?xf32>) permutation = [1, 0]
// CHECK:         func.call @mg_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// C += A^T @ B, A read as A[k, i], the add's operands the other way round.
func.func @a_transposed(%at: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.generic {indexing_maps = [#ki, #kj, #ij], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %y, %x : f64
    %s = arith.addf %p, %acc : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @a_transposed(
// CHECK:         %[[A:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK-NEXT:    linalg.transpose ins(%at:memref<?x?xf64>) outs(%[[A]]:memref<?x?xf64>) permutation = [1, 0]
// CHECK-NEXT:    func.call @mg_matmul_f64(%[[A]], %b, %c)

// Not a matrix product: the body subtracts.
func.func @not_a_product(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.generic {indexing_maps = [#ik, #kj, #ij], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.subf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @not_a_product(
// CHECK-NOT:     func.call
// CHECK:         linalg.generic

// Not a matrix product: k is declared parallel.
func.func @no_reduction(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.generic {indexing_maps = [#ik, #kj, #ij], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @no_reduction(
// CHECK-NOT:     func.call
// CHECK:         linalg.generic

// One kernel per element type, at the end of the module.
// CHECK-LABEL: func.func private @mg_matmul_f64(
// CHECK-LABEL: func.func private @mg_matmul_f32(
