// The innermost loop of an all-parallel op's nest is marked mg.parallel_accesses when no
// iteration of it reads or writes an element that another one writes: each output's map
// uses the loop, and each input is another buffer than the outputs' (through any views)
// or an output read where it is written. The translation to LLVM IR tells LLVM so
// (llvm.loop.parallel_accesses), and its vectoriser drops its run-time overlap checks.
// RUN: mg-opt %s -p convert-linalg-to-affine-loops | filecheck %s
// RUN: mg-opt %s -p 'convert-linalg-to-affine-loops{min-parallel-work=0}' | filecheck %s --check-prefix=PAR
// RUN: %if mlir-opt %{ mg-opt %s -p convert-linalg-to-affine-loops | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#rows = affine_map<(d0, d1) -> (d0, 0)>

// Elementwise, a broadcast input: the inner loop only.
func.func @elementwise(%a: memref<4x8xf64>, %m: memref<4x1xf64>, %r: memref<4x8xf64>) {
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %m : memref<4x8xf64>, memref<4x1xf64>) outs(%r : memref<4x8xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %s = arith.subf %x, %y : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @elementwise(
// CHECK:         affine.for
// CHECK:           affine.for
// CHECK:             affine.store
// CHECK-NEXT:      } {mg.parallel_accesses}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// With threads, the innermost loop is an affine.parallel, marked as well.
// PAR-LABEL: func.func @elementwise(
// PAR:         "affine.parallel"()
// PAR:           "affine.parallel"()
// PAR:             affine.store
// PAR-NEXT:        affine.yield
// PAR-NEXT:      }) {mg.parallel_accesses} : () -> ()
// PAR-NEXT:      affine.yield
// PAR-NEXT:    }) : () -> ()

// Written in place (w += g): the output is an input, read where it is written.
func.func @in_place(%w: memref<4x8xf64>, %g: memref<4x8xf64>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : memref<4x8xf64>, memref<4x8xf64>) outs(%w : memref<4x8xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  }
  return
}
// CHECK-LABEL: func.func @in_place(
// CHECK:           affine.store
// CHECK-NEXT:      } {mg.parallel_accesses}

// Not marked: the output read at other indices (transposed), an input that is a view of
// the output's buffer, a reduction, and an output that all iterations of the inner loop
// write (no parallel loop could have made it, but the rule says why).
func.func @transposed_in_place(%w: memref<8x8xf64>) {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<8x8xf64>) outs(%w : memref<8x8xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  }
  return
}
func.func @view_of_the_output(%w: memref<8x8xf64>) {
  %v = memref.subview %w[1, 0] [4, 8] [1, 1] : memref<8x8xf64> to memref<4x8xf64, strided<[8, 1], offset: 8>>
  %o = memref.subview %w[0, 0] [4, 8] [1, 1] : memref<8x8xf64> to memref<4x8xf64, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<4x8xf64, strided<[8, 1], offset: 8>>) outs(%o : memref<4x8xf64, strided<[8, 1]>>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  }
  return
}
func.func @row_sum(%a: memref<4x8xf64>, %r: memref<4x1xf64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x8xf64>) outs(%r : memref<4x1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}
func.func @one_cell_per_row(%a: memref<4x8xf64>, %r: memref<4x1xf64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf64>) outs(%r : memref<4x1xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  }
  return
}
// CHECK-LABEL: func.func @transposed_in_place(
// CHECK-NOT:     mg.parallel_accesses
// CHECK-LABEL: func.func @view_of_the_output(
// CHECK-NOT:     mg.parallel_accesses
// CHECK-LABEL: func.func @row_sum(
// CHECK-NOT:     mg.parallel_accesses
// CHECK-LABEL: func.func @one_cell_per_row(
// CHECK-NOT:     mg.parallel_accesses

// A fill writes a cell of its own in each iteration.
func.func @fill(%r: memref<4x8xf64>) {
  %c = arith.constant 0.0 : f64
  linalg.fill ins(%c : f64) outs(%r : memref<4x8xf64>)
  return
}
// CHECK-LABEL: func.func @fill(
// CHECK:             affine.store
// CHECK-NEXT:      } {mg.parallel_accesses}
// CHECK-LABEL: func.func @last(
func.func @last() {
  return
}
