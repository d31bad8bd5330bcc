// linalg-fuse-elementwise-ops on a producer whose buffer several generics read: computed
// once inside one generic when its readers end in one tree; recomputed in each tree when it
// is cheap (at most 4 simple ops an element, at most 4 trees, inputs the trees can read
// again for less than the buffer costs); else computed once into its buffer and read by each.
// RUN: mg-opt %s -p linalg-fuse-elementwise-ops | filecheck %s
// RUN: %if mlir-opt %{ mlir-opt-22 %s | mg-opt -p linalg-fuse-elementwise-ops | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>

// d = a - b read by d * d and by relu(d), both in the tree of their sum: one generic, one
// subtraction (`let d = a - b; return d * d + relu(d)`).
// CHECK-LABEL: func.func @one_tree(
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%a, %b : memref<4x3xf64>, memref<4x3xf64>) outs(%[[R]] : memref<4x3xf64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X]], %[[Y]] : f64
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : f64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[RELU:.*]] = arith.maximumf %[[D]], %[[Z]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[SQ]], %[[RELU]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @one_tree(%a: memref<4x3xf64>, %b: memref<4x3xf64>) -> memref<4x3xf64> {
  %d = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x3xf64>, memref<4x3xf64>) outs(%d : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.subf %x, %y : f64
    linalg.yield %0 : f64
  }
  %sq = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %d : memref<4x3xf64>, memref<4x3xf64>) outs(%sq : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.mulf %x, %y : f64
    linalg.yield %0 : f64
  }
  %relu = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<4x3xf64>) outs(%relu : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %z = arith.constant 0.0 : f64
    %0 = arith.maximumf %x, %z : f64
    linalg.yield %0 : f64
  }
  %r = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq, %relu : memref<4x3xf64>, memref<4x3xf64>) outs(%r : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.addf %x, %y : f64
    linalg.yield %0 : f64
  }
  func.return %r : memref<4x3xf64>
}

// Cheap: s - broadcast(m) (one subtraction, one input read element by element) read by two
// results, two trees: computed again in each, and its buffer goes.
// CHECK-LABEL: func.func @cheap_recomputed(
// CHECK-NEXT:    %[[P:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%s, %m : memref<4x3xf64>, memref<4x1xf64>) outs(%[[P]] : memref<4x3xf64>) {
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK:         %[[Q:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%s, %m : memref<4x3xf64>, memref<4x1xf64>) outs(%[[Q]] : memref<4x3xf64>) {
// CHECK:           arith.subf
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      arith.cmpf
// CHECK-NEXT:      arith.select
// CHECK:         }
// CHECK-NEXT:    func.return %[[P]], %[[Q]]
func.func @cheap_recomputed(%s: memref<4x3xf64>, %m: memref<4x1xf64>) -> (memref<4x3xf64>, memref<4x3xf64>) {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m : memref<4x3xf64>, memref<4x1xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.subf %x, %y : f64
    linalg.yield %0 : f64
  }
  %p = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  %q = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%q : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %z = arith.constant 0.0 : f64
    %c = arith.cmpf ogt, %x, %z : f64
    %0 = arith.select %c, %x, %z : f64
    linalg.yield %0 : f64
  }
  func.return %p, %q : memref<4x3xf64>, memref<4x3xf64>
}

// Costly: exp(s - broadcast(m)) (an exp, and the subtraction only it reads, fused into it)
// read by two trees: computed once into its buffer, which each reads.
// CHECK-LABEL: func.func @costly_kept(
// CHECK-NEXT:    %[[E:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%s, %m : memref<4x3xf64>, memref<4x1xf64>) outs(%[[E]] : memref<4x3xf64>) {
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : memref<4x3xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : memref<4x3xf64>)
// CHECK-NOT:     math.exp
// CHECK:         func.return
func.func @costly_kept(%s: memref<4x3xf64>, %m: memref<4x1xf64>) -> (memref<4x3xf64>, memref<4x3xf64>) {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m : memref<4x3xf64>, memref<4x1xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.subf %x, %y : f64
    linalg.yield %0 : f64
  }
  %e = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%e : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = math.exp %x : f64
    linalg.yield %0 : f64
  }
  %p = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : memref<4x3xf64>) outs(%p : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  %q = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : memref<4x3xf64>) outs(%q : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  func.return %p, %q : memref<4x3xf64>, memref<4x3xf64>
}

// A chain of cheap ops is costly once long enough: ((a - b) * c + d) - e, max'ed with 0, is
// five simple ops an element: computed once.
// CHECK-LABEL: func.func @long_chain_kept(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @long_chain_kept(%a: memref<4x3xf64>, %b: memref<4x3xf64>) -> (memref<4x3xf64>, memref<4x3xf64>) {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x3xf64>, memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %0 = arith.subf %x, %y : f64
    %1 = arith.mulf %0, %x : f64
    %2 = arith.addf %1, %y : f64
    linalg.yield %2 : f64
  }
  %u = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %a : memref<4x3xf64>, memref<4x3xf64>) outs(%u : memref<4x3xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %z = arith.constant 0.0 : f64
    %0 = arith.subf %x, %y : f64
    %1 = arith.maximumf %0, %z : f64
    linalg.yield %1 : f64
  }
  %p = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<4x3xf64>) outs(%p : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  %q = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<4x3xf64>) outs(%q : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  func.return %p, %q : memref<4x3xf64>, memref<4x3xf64>
}

// Cheap, but of four inputs: two trees reading all four again would read more than the
// buffer's write and two reads: kept.
// CHECK-LABEL: func.func @many_inputs_kept(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @many_inputs_kept(%a: memref<4x3xf64>, %b: memref<4x3xf64>, %c: memref<4x3xf64>, %d: memref<4x3xf64>) -> (memref<4x3xf64>, memref<4x3xf64>) {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c, %d : memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%w: f64, %x: f64, %y: f64, %z: f64, %o: f64):
    %0 = arith.addf %w, %x : f64
    %1 = arith.addf %0, %y : f64
    %2 = arith.addf %1, %z : f64
    linalg.yield %2 : f64
  }
  %p = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  %q = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%q : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  func.return %p, %q : memref<4x3xf64>, memref<4x3xf64>
}

// Cheap, but a reduction reads it too (the sum of a softmax's exp, the maximum of a scaled
// product): the buffer is written anyway, so the elementwise reader reads it as well.
// CHECK-LABEL: func.func @reduced_kept(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @reduced_kept(%a: memref<4x3xf64>, %sum: memref<4x1xf64>) -> memref<4x3xf64> {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %k = arith.constant 0.125 : f64
    %0 = arith.mulf %x, %k : f64
    linalg.yield %0 : f64
  }
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<4x3xf64>) outs(%sum : memref<4x1xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.addf %o, %x : f64
    linalg.yield %0 : f64
  }
  %p = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  func.return %p : memref<4x3xf64>
}

// Cheap, but five trees read it: computed once (at most four copies).
// CHECK-LABEL: func.func @five_trees_kept(
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @five_trees_kept(%a: memref<4x3xf64>) -> (memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>) {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.negf %x : f64
    linalg.yield %0 : f64
  }
  %p1 = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p1 : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.mulf %x, %x : f64
    linalg.yield %0 : f64
  }
  %p2 = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p2 : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.addf %x, %x : f64
    linalg.yield %0 : f64
  }
  %p3 = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p3 : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.subf %x, %x : f64
    linalg.yield %0 : f64
  }
  %p4 = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p4 : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.divf %x, %x : f64
    linalg.yield %0 : f64
  }
  %p5 = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p5 : memref<4x3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %0 = arith.maximumf %x, %x : f64
    linalg.yield %0 : f64
  }
  func.return %p1, %p2, %p3, %p4, %p5 : memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>, memref<4x3xf64>
}

// Cheap, but its input is updated in place between it and its second reader
// (`let t = -x; let p = t * t; x -= x; let q = t + t`): recomputed there it would read the
// new values, so it is computed once, before the update.
// CHECK-LABEL: func.func @updated_between_readers(
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4x3xf64>) outs(%[[T]] : memref<4x3xf64>) {
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<4x3xf64>)
// CHECK:         linalg.generic {{.*}} ins(%x, %x : memref<4x3xf64>, memref<4x3xf64>) outs(%x : memref<4x3xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<4x3xf64>)
func.func @updated_between_readers(%x: memref<4x3xf64>) -> (memref<4x3xf64>, memref<4x3xf64>) {
  %t = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x3xf64>) outs(%t : memref<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = arith.negf %a : f64
    linalg.yield %0 : f64
  }
  %p = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%p : memref<4x3xf64>) {
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
  %q = memref.alloc() : memref<4x3xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x3xf64>) outs(%q : memref<4x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = arith.addf %a, %a : f64
    linalg.yield %0 : f64
  }
  func.return %p, %q : memref<4x3xf64>, memref<4x3xf64>
}
