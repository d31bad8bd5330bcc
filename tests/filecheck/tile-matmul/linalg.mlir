// tile-matmul decides from the structured op alone (hand-written linalg here, no mg):
// a linalg.matmul, and a linalg.generic that is a matrix product by its maps and iterator
// types (i, j parallel, k reduction; A[i, k] or A[k, i], B[k, j] or B[j, k]; a multiply and
// an add; batch loops b in front). A transposed operand is first copied into its transpose.
// Anything else stays.
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
// CHECK-COUNT-3: "memref.cast"
// CHECK-NEXT:    func.call @mg_matmul_f64(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>) -> ()
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
// CHECK:         func.call @mg_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> ()
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
// CHECK-NEXT:    %[[VA:.*]] = "memref.cast"(%[[A]])
// CHECK:         func.call @mg_matmul_f64(%[[VA]], %{{.*}}, %{{.*}})

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

// A batched product, in the loop order convert-mg-to-linalg gives it (b, i, k, j): the
// kernel is called on each matrix of the batch, a rank-reducing subview of each operand
// (its offset a run-time value: b times the matrix's size).
#bik = affine_map<(b, i, k, j) -> (b, i, k)>
#bkj = affine_map<(b, i, k, j) -> (b, k, j)>
#bij = affine_map<(b, i, k, j) -> (b, i, j)>
#bjk = affine_map<(b, i, k, j) -> (b, j, k)>
func.func @batched(%a: memref<8x64x48xf32>, %b: memref<8x48x?xf32>, %c: memref<8x64x?xf32>) {
  linalg.generic {indexing_maps = [#bik, #bkj, #bij], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x64x48xf32>, memref<8x48x?xf32>) outs(%c : memref<8x64x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @batched(
// CHECK:         %[[NB:.*]] = memref.dim %c, %{{.*}} : memref<8x64x?xf32>
// Eight products: threads take whole products (the outermost batch loop is parallel).
// CHECK:         "scf.parallel"(%{{.*}}, %[[NB]], %{{.*}})
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK:           %[[A:.*]] = memref.subview %a[%[[I]], 0, 0] [1, 64, 48] [1, 1, 1] : memref<8x64x48xf32> to memref<64x48xf32, strided<[48, 1], offset: ?>>
// CHECK:           %[[BN:.*]] = memref.dim %b, %{{.*}} : memref<8x48x?xf32>
// CHECK-NEXT:      %[[B:.*]] = memref.subview %b[%[[I]], 0, 0] [1, 48, %[[BN]]] [1, 1, 1] : memref<8x48x?xf32> to memref<48x?xf32, strided<[?, 1], offset: ?>>
// CHECK:           %[[C:.*]] = memref.subview %c[%[[I]], 0, 0]
// CHECK:           %[[VA:.*]] = "memref.cast"(%[[A]])
// CHECK-NEXT:      %[[VB:.*]] = "memref.cast"(%[[B]])
// CHECK-NEXT:      %[[VC:.*]] = "memref.cast"(%[[C]])
// CHECK-NEXT:      func.call @mg_matmul_f32(%[[VA]], %[[VB]], %[[VC]])
// CHECK:         }) {mg.min_chunk = 1 : index}
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// Two batch axes: the matrix at batch index (c, d) is each operand's [c, d, 0, 0].
#cdik = affine_map<(c, d, i, k, j) -> (c, d, i, k)>
#cdkj = affine_map<(c, d, i, k, j) -> (c, d, k, j)>
#cdij = affine_map<(c, d, i, k, j) -> (c, d, i, j)>
func.func @two_batch_axes(%a: memref<2x3x64x48xf32>, %b: memref<2x3x48x64xf32>, %c: memref<2x3x64x64xf32>) {
  linalg.generic {indexing_maps = [#cdik, #cdkj, #cdij], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<2x3x64x48xf32>, memref<2x3x48x64xf32>) outs(%c : memref<2x3x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @two_batch_axes(
// Two on the outer axis, fewer than threads could share evenly: the threads stay inside each product.
// CHECK:         scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %{{.*}} = arith.constant
// CHECK:           scf.for %[[D:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %{{.*}} = memref.subview %a[%[[C]], %[[D]], 0, 0] [1, 1, 64, 48] [1, 1, 1, 1]
// CHECK-NEXT:        %{{.*}} = memref.subview %b[%[[C]], %[[D]], 0, 0] [1, 1, 48, 64] [1, 1, 1, 1]
// CHECK-NEXT:        %{{.*}} = memref.subview %c[%[[C]], %[[D]], 0, 0] [1, 1, 64, 64] [1, 1, 1, 1]

// A batch whose B is read transposed stays as it is (its copy would be a batch too).
func.func @batched_b_transposed(%a: memref<8x64x48xf32>, %bt: memref<8x64x48xf32>, %c: memref<8x64x64xf32>) {
  linalg.generic {indexing_maps = [#bik, #bjk, #bij], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %bt : memref<8x64x48xf32>, memref<8x64x48xf32>) outs(%c : memref<8x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @batched_b_transposed(
// CHECK-NOT:     func.call
// CHECK:         linalg.generic

// C of its own filled with +0 just before: the fill goes and the kernel stores C (C = A @ B),
// an op between that does not use C (a store into another buffer) notwithstanding.
func.func @zero_filled(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %m: index, %n: index, %x: memref<?xf64>) -> memref<?x?xf64> {
  %c = memref.alloc(%m, %n) : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x?xf64>)
  memref.store %zero, %x[%m] : memref<?xf64>
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return %c : memref<?x?xf64>
}
// CHECK-LABEL: func.func @zero_filled(
// CHECK-NOT:     linalg.fill
// CHECK:         memref.store
// CHECK:         func.call @mg_matmul_set_f64(

// The fill stays, and the kernel adds to C, where C is filled with anything but +0 (-0:
// -0 + a sum of +0 is +0), where an op between reads C, and where C is not a buffer of its
// own and an op between has effects (it might write C through another view).
func.func @filled_otherwise(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>, %d: memref<?x?xf64>, %e: memref<?x?xf64>, %x: memref<?xf64>, %i: index) {
  %one = arith.constant 1.0 : f64
  linalg.fill ins(%one : f64) outs(%c : memref<?x?xf64>)
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  %minus_zero = arith.constant -0.0 : f64
  linalg.fill ins(%minus_zero : f64) outs(%d : memref<?x?xf64>)
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%d : memref<?x?xf64>)
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%e : memref<?x?xf64>)
  memref.store %zero, %x[%i] : memref<?xf64>
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%e : memref<?x?xf64>)
  return
}
// CHECK-LABEL: func.func @filled_otherwise(
// CHECK:         linalg.fill
// CHECK:         func.call @mg_matmul_f64(
// CHECK:         linalg.fill
// CHECK:         func.call @mg_matmul_f64(
// CHECK:         linalg.fill
// CHECK:         memref.store
// CHECK:         func.call @mg_matmul_f64(
// CHECK-NOT:     @mg_matmul_set_f64(

func.func @read_between(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %m: index, %n: index, %x: memref<?xf64>) -> memref<?x?xf64> {
  %c = memref.alloc(%m, %n) : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x?xf64>)
  %v = memref.load %c[%m, %n] : memref<?x?xf64>
  memref.store %v, %x[%m] : memref<?xf64>
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return %c : memref<?x?xf64>
}
// CHECK-LABEL: func.func @read_between(
// CHECK:         linalg.fill
// CHECK:         memref.load %c
// CHECK:         func.call @mg_matmul_f64(

// A view of C taken before the fill, written through between it and the product: the fill
// stays (C is not a buffer reached only through itself).
func.func @view_between(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %m: index, %n: index) -> memref<?x?xf64> {
  %c = memref.alloc(%m, %n) : memref<?x?xf64>
  %v = memref.subview %c[0, 0] [%m, %n] [1, 1] : memref<?x?xf64> to memref<?x?xf64, strided<[?, 1]>>
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x?xf64>)
  %one = arith.constant 1.0 : f64
  memref.store %one, %v[%m, %n] : memref<?x?xf64, strided<[?, 1]>>
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return %c : memref<?x?xf64>
}
// CHECK-LABEL: func.func @view_between(
// CHECK:         linalg.fill
// CHECK:         memref.store
// CHECK:         func.call @mg_matmul_f64(

// One kernel per element type and kind, at the end of the module.
// CHECK-LABEL: func.func private @mg_matmul_f64(
// CHECK-LABEL: func.func private @mg_matmul_f32(
// CHECK-LABEL: func.func private @mg_matmul_set_f64(
