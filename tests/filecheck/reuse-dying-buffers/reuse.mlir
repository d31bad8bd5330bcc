// reuse-dying-buffers: an elementwise generic writes its result over an input of the same
// type, read through the identity map, that is a new buffer of the block with no use after
// it; the output's own allocation goes.
// RUN: mg-opt %s -p reuse-dying-buffers | filecheck %s
// RUN: %if mlir-opt %{ mlir-opt-22 %s --mlir-print-op-generic | mg-opt -p reuse-dying-buffers | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>

// relu(x @ w + b): the epilogue runs in place in the product's buffer.
// CHECK-LABEL: func.func @epilogue(
// CHECK-NEXT:    %[[P:.*]] = memref.alloc() : memref<4x5xf64>
// CHECK-NEXT:    linalg.matmul ins(%x, %w : memref<4x3xf64>, memref<3x5xf64>) outs(%[[P]] : memref<4x5xf64>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P]], %b : memref<4x5xf64>, memref<1x5xf64>) outs(%[[P]] : memref<4x5xf64>)
// CHECK-NOT:     memref.alloc
// CHECK:         func.return %[[P]]
func.func @epilogue(%x: memref<4x3xf64>, %w: memref<3x5xf64>, %b: memref<1x5xf64>) -> memref<4x5xf64> {
  %p = memref.alloc() : memref<4x5xf64>
  linalg.matmul ins(%x, %w : memref<4x3xf64>, memref<3x5xf64>) outs(%p : memref<4x5xf64>)
  %r = memref.alloc() : memref<4x5xf64>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : memref<4x5xf64>, memref<1x5xf64>) outs(%r : memref<4x5xf64>) {
  ^bb0(%y: f64, %c: f64, %o: f64):
    %s = arith.addf %y, %c : f64
    linalg.yield %s : f64
  }
  return %r : memref<4x5xf64>
}

// Kept: a parameter (not this function's buffer), a buffer used again later, and a buffer
// of another type.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-3: memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%a, %[[T:.*]], %{{.*}} : memref<2x2xf64>, memref<2x2xf64>, memref<1x2xf64>) outs(%[[R:.*]] : memref<2x2xf64>)
// CHECK:         func.return %[[R]], %[[T]]
func.func @kept(%a: memref<2x2xf64>) -> (memref<2x2xf64>, memref<2x2xf64>) {
  %t = memref.alloc() : memref<2x2xf64>
  %u = memref.alloc() : memref<1x2xf64>
  %r = memref.alloc() : memref<2x2xf64>
  linalg.generic {indexing_maps = [#id, #id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %t, %u : memref<2x2xf64>, memref<2x2xf64>, memref<1x2xf64>) outs(%r : memref<2x2xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %s = arith.addf %x, %y : f64
    %m = arith.mulf %s, %z : f64
    linalg.yield %m : f64
  }
  return %r, %t : memref<2x2xf64>, memref<2x2xf64>
}

// Kept: a buffer with a view (p + transpose(p)): the generic reads it transposed too, so
// writing over it would overwrite elements before they are read.
// CHECK-LABEL: func.func @viewed(
// CHECK:         %[[T:.*]] = memref.reinterpret_cast %[[P:[a-z0-9_]+]] to
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P]], %[[T]] : {{.*}}) outs(%[[R]] : memref<2x2xf64>)
func.func @viewed(%x: memref<2x2xf64>) -> memref<2x2xf64> {
  %p = memref.alloc() : memref<2x2xf64>
  linalg.matmul ins(%x, %x : memref<2x2xf64>, memref<2x2xf64>) outs(%p : memref<2x2xf64>)
  %t = memref.reinterpret_cast %p to offset: [0], sizes: [2, 2], strides: [1, 2] : memref<2x2xf64> to memref<2x2xf64, strided<[1, 2]>>
  %r = memref.alloc() : memref<2x2xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %t : memref<2x2xf64>, memref<2x2xf64, strided<[1, 2]>>) outs(%r : memref<2x2xf64>) {
  ^bb0(%y: f64, %z: f64, %o: f64):
    %s = arith.addf %y, %z : f64
    linalg.yield %s : f64
  }
  return %r : memref<2x2xf64>
}

// Kept: a buffer read after the generic through a cast made before it (a `?`-sized def's
// parameter, the call inlined: `let d = v - v` then `f(v)`). Writing `d` over `v` made
// `f(v)` read `d` (the campaign's seed 7057: cast(v, i1) printed 0 for 6).
// CHECK-LABEL: func.func @cast_read_after(
// CHECK:         %[[C:.*]] = "memref.cast"(%[[V:.*]]) : (memref<1xf64>) -> memref<?xf64>
// CHECK-NEXT:    %[[D:.*]] = memref.alloc() : memref<1xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[V]] : memref<1xf64>) outs(%[[D]] : memref<1xf64>)
func.func @cast_read_after(%x: memref<1xf64>) -> (memref<1xf64>, memref<?xf64>) {
  %v = memref.alloc() : memref<1xf64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<1xf64>) outs(%v : memref<1xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  %c = "memref.cast"(%v) : (memref<1xf64>) -> memref<?xf64>
  %d = memref.alloc() : memref<1xf64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%v : memref<1xf64>) outs(%d : memref<1xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = arith.subf %a, %a : f64
    linalg.yield %s : f64
  }
  %n = arith.constant 0 : index
  %size = memref.dim %c, %n : memref<?xf64>
  %e = memref.alloc(%size) : memref<?xf64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : memref<?xf64>) outs(%e : memref<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  return %d, %e : memref<1xf64>, memref<?xf64>
}
