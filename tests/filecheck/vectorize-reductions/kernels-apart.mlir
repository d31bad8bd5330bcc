// In a module whose kernels are compiled apart (mg.kernels_apart: the Python API's), a
// reduction calls a kernel that the module only declares, named after what its code
// depends on (@<kernel>_<digest>); kernel_library compiles it once per process. A row
// inside a loop (linalg-fuse-rows' loop over rows) calls the one-row kernel,
// @mg_one_row_<kind>_<element>, with the row and its cell cast to any strided matrix,
// instead of the row kernel's body written in place (compare linalg.mlir's
// @one_row_in_a_loop): that body was most of the LLVM time of a softmax's program.
// RUN: mg-opt %s -p 'vectorize-reductions{vector-bits=256 vector-registers=16}' | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p 'vectorize-reductions{vector-bits=256 vector-registers=16}' | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0, 0)>

builtin.module attributes {mg.kernels_apart = ""} {
  func.func @rows_in_a_loop(%a: memref<64x1024xf32>, %m: memref<1x1xf32>, %r: memref<64x1xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {
      %row = memref.subview %a[%i, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
      %cell = memref.subview %r[%i, 0] [1, 1] [1, 1] : memref<64x1xf32> to memref<1x1xf32, strided<[1, 1], offset: ?>>
      linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
          ins(%row : memref<1x1024xf32, strided<[1024, 1], offset: ?>>) outs(%m : memref<1x1xf32>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.maximumf %acc, %x : f32
        linalg.yield %s : f32
      }
      linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
          ins(%row : memref<1x1024xf32, strided<[1024, 1], offset: ?>>) outs(%cell : memref<1x1xf32, strided<[1, 1], offset: ?>>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.addf %acc, %x : f32
        linalg.yield %s : f32
      }
    }
    func.return
  }

  // A whole matrix's rows: the row kernel, declared too.
  func.func @row_sums(%a: memref<?x?xf64>, %r: memref<?x1xf64>) {
    linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<?x?xf64>) outs(%r : memref<?x1xf64>) {
    ^bb0(%x: f64, %acc: f64):
      %s = arith.addf %acc, %x : f64
      linalg.yield %s : f64
    }
    func.return
  }
}
// CHECK-LABEL: func.func @rows_in_a_loop(
// CHECK-NOT:     vector.load
// CHECK:         scf.for
// CHECK:           %[[ROW:.*]] = memref.subview %a
// CHECK:           %[[CELL:.*]] = memref.subview %r
// CHECK-NEXT:      %[[ROW1:.*]] = "memref.cast"(%[[ROW]]) : (memref<1x1024xf32, strided<[1024, 1], offset: ?>>) -> memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:      %[[M:.*]] = "memref.cast"(%m) : (memref<1x1xf32>) -> memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:      func.call @[[MAX:mg_one_row_max_f32_[0-9a-f]{16}]](%[[ROW1]], %[[M]])
// CHECK-NEXT:      %[[ROW2:.*]] = "memref.cast"(%[[ROW]])
// CHECK-NEXT:      %[[CELL2:.*]] = "memref.cast"(%[[CELL]]) : (memref<1x1xf32, strided<[1, 1], offset: ?>>) -> memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:      func.call @[[SUM:mg_one_row_sum_f32_[0-9a-f]{16}]](%[[ROW2]], %[[CELL2]])
// CHECK-NOT:       linalg.generic
// CHECK-LABEL: func.func @row_sums(
// CHECK:         func.call @[[ROWS:mg_row_sum_f64_[0-9a-f]{16}]](%a,
// CHECK-DAG:   func.func private @[[MAX]](memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> (){{$}}
// CHECK-DAG:   func.func private @[[SUM]](memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> (){{$}}
// CHECK-DAG:   func.func private @[[ROWS]](memref<?x?xf64>, memref<?x?xf64>) -> (){{$}}
