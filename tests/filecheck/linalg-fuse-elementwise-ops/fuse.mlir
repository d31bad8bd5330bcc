// linalg-fuse-elementwise-ops merges trees of elementwise linalg.generics on memrefs into
// one generic, deciding from maps and iterator types alone (hand-written linalg here, no mg).
// RUN: mg-opt %s -p linalg-fuse-elementwise-ops | filecheck %s
// RUN: %if mlir-opt %{ mlir-opt-22 %s | mg-opt -p linalg-fuse-elementwise-ops | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>

// relu(a + broadcast(v)) - a: a chain of three generics, the broadcast one read in place.
// The intermediate buffers go; the size a memref.dim read from one now comes from its
// allocation's operand.
func.func @chain(%a: memref<?x3xf64>, %v: memref<1x3xf64>) -> (memref<?x3xf64>, index) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x3xf64>
  %b = memref.alloc(%n) : memref<?x3xf64>
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<1x3xf64>) outs(%b : memref<?x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  }
  %s = memref.alloc(%n) : memref<?x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<?x3xf64>, memref<?x3xf64>) outs(%s : memref<?x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.addf %x, %y : f64
    linalg.yield %0 : f64
  }
  %rows = memref.dim %s, %c0 : memref<?x3xf64>
  %r = memref.alloc(%n) : memref<?x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<?x3xf64>) outs(%r : memref<?x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %zero = arith.constant 0.0 : f64
    %0 = arith.maximumf %x, %zero : f64
    linalg.yield %0 : f64
  }
  %d = memref.alloc(%n) : memref<?x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %a : memref<?x3xf64>, memref<?x3xf64>) outs(%d : memref<?x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.subf %x, %y : f64
    linalg.yield %0 : f64
  }
  return %d, %rows : memref<?x3xf64>, index
}
// CHECK-LABEL: func.func @chain(
// CHECK:         %[[N:.*]] = memref.dim %a, %c0
// CHECK-NEXT:    %[[D:.*]] = memref.alloc(%[[N]]) : memref<?x3xf64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %v : memref<?x3xf64>, memref<1x3xf64>) outs(%[[D]] : memref<?x3xf64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : f64
// CHECK-NEXT:      %[[T:.*]] = arith.subf %[[R]], %[[X]] : f64
// CHECK-NEXT:      linalg.yield %[[T]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[D]], %[[N]]

// A ? x ? buffer fused away: the size of each of its dimensions is the one it was
// allocated with.
func.func @sizes(%a: memref<?x?xf64>) -> (memref<?x?xf64>, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf64>
  %n = memref.dim %a, %c1 : memref<?x?xf64>
  %t = memref.alloc(%m, %n) : memref<?x?xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x?xf64>) outs(%t : memref<?x?xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  %cols = memref.dim %t, %c1 : memref<?x?xf64>
  %rows = memref.dim %t, %c0 : memref<?x?xf64>
  %r = memref.alloc(%m, %n) : memref<?x?xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<?x?xf64>) outs(%r : memref<?x?xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  return %r, %cols, %rows : memref<?x?xf64>, index, index
}
// CHECK-LABEL: func.func @sizes(
// CHECK:         %[[M:.*]] = memref.dim %a, %c0
// CHECK-NEXT:    %[[N:.*]] = memref.dim %a, %c1
// CHECK-NEXT:    %[[R:.*]] = memref.alloc(%[[M]], %[[N]])
// CHECK-NEXT:    linalg.generic {{.*}} ins(%a : memref<?x?xf64>) outs(%[[R]] : memref<?x?xf64>)
// CHECK:         func.return %[[R]], %[[N]], %[[M]]

// A buffer its consumer reads twice is computed once inside it (the two reads are one value);
// a buffer the consumer reads broadcast (a 1x3 row used by every row) is kept: fusing would
// compute each element once per row. (used-twice.mlir: buffers several generics read.)
func.func @kept(%a: memref<4x3xf64>, %v: memref<1x3xf64>) -> memref<4x3xf64> {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  %w = memref.alloc() : memref<1x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<1x3xf64>) outs(%w : memref<1x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  %r = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %t, %w : memref<4x3xf64>, memref<4x3xf64>, memref<1x3xf64>) outs(%r : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
    %0 = arith.mulf %x, %y : f64
    %1 = arith.addf %0, %z : f64
    linalg.yield %1 : f64
  }
  return %r : memref<4x3xf64>
}
// CHECK-LABEL: func.func @kept(
// CHECK-NEXT:    %[[W:.*]] = memref.alloc() : memref<1x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%v : memref<1x3xf64>) outs(%[[W]] : memref<1x3xf64>)
// CHECK:         linalg.generic {{.*}} ins(%a, %[[W]] : memref<4x3xf64>, memref<1x3xf64>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[X]] : f64
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[N]], %[[N]] : f64
// CHECK-NEXT:      arith.addf %[[SQ]], %[[Y]] : f64
// CHECK-NOT:     linalg.generic

// A producer whose input is updated in place before the root of its tree stays where it
// is: the fused generic goes where the root is, and there the producer would read the new
// values (`let t = -x; let u = t * t; x -= x; print u + u`). Its consumers still fuse.
func.func @updated_before_the_root(%x: memref<4x3xf64>) -> memref<4x3xf64> {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = arith.negf %a : f64
    linalg.yield %0 : f64
  }
  %u = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%u : memref<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = arith.mulf %a, %a : f64
    linalg.yield %0 : f64
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : memref<4x3xf64>, memref<4x3xf64>) outs(%x : memref<4x3xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %0 = arith.subf %a, %b : f64
    linalg.yield %0 : f64
  }
  %r = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<4x3xf64>) outs(%r : memref<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = arith.addf %a, %a : f64
    linalg.yield %0 : f64
  }
  return %r : memref<4x3xf64>
}
// CHECK-LABEL: func.func @updated_before_the_root(
// CHECK:         %[[T:.*]] = memref.alloc()
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4x3xf64>) outs(%[[T]] : memref<4x3xf64>)
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}} ins(%x, %x : memref<4x3xf64>, memref<4x3xf64>) outs(%x : memref<4x3xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<4x3xf64>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
