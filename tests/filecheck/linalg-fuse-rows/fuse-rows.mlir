// linalg-fuse-rows: a run of linalg ops that each work row by row (their first loops
// parallel and indexing every buffer a member writes at the row loops' own indices) becomes
// one loop over the rows, each op on views of its row. Hand-written linalg, as
// convert-mg-to-linalg and linalg-fuse-elementwise-ops leave a softmax.
// RUN: mg-opt %s -p linalg-fuse-rows | filecheck %s
// RUN: mg-opt %s -p linalg-fuse-rows{max-row-bytes=1024} | filecheck %s --check-prefix=SHORT
// RUN: %if mlir-opt %{ mg-opt %s -p linalg-fuse-rows | mlir-opt-22 > /dev/null %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#cell = affine_map<(d0, d1) -> (d0, 0)>

// A softmax over 4096 rows of 1024: the row maximum, exp(s - max), the row sum, the division
// in place. The allocations move before the loop; the fills go in with the ops.
func.func @softmax(%s: memref<4096x1024xf32>) -> memref<4096x1024xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<4096x1xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<4096x1xf32>)
  linalg.generic {indexing_maps = [#id, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<4096x1024xf32>) outs(%m : memref<4096x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %acc, %x : f32
    linalg.yield %r : f32
  }
  %e = memref.alloc() : memref<4096x1024xf32>
  linalg.generic {indexing_maps = [#id, #cell, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m : memref<4096x1024xf32>, memref<4096x1xf32>) outs(%e : memref<4096x1024xf32>) {
  ^bb0(%x: f32, %mx: f32, %o: f32):
    %d = arith.subf %x, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %t = memref.alloc() : memref<4096x1xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<4096x1xf32>)
  linalg.generic {indexing_maps = [#id, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<4096x1024xf32>) outs(%t : memref<4096x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #cell, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %t : memref<4096x1024xf32>, memref<4096x1xf32>) outs(%e : memref<4096x1024xf32>) {
  ^bb0(%x: f32, %sum: f32, %o: f32):
    %r = arith.divf %x, %sum : f32
    linalg.yield %r : f32
  }
  func.return %e : memref<4096x1024xf32>
}
// CHECK-LABEL: func.func @softmax(
// CHECK-NOT:     memref<4096x1xf32>
// CHECK:         %[[E:.*]] = memref.alloc() : memref<4096x1024xf32>
// 4096 ops' work (1024 elements, four ops) a row: 8 rows a block, 512 blocks.
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 4096 : index
// CHECK-NEXT:    %[[PER:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[BLOCKS:.*]] = arith.constant 512 : index
// CHECK:         "scf.parallel"(%{{.*}}, %[[BLOCKS]], %{{.*}}) <{{.*}}> ({
// CHECK-NEXT:    ^bb0(%[[BLOCK:.*]]: index):
// CHECK-NEXT:      %[[FIRST:.*]] = arith.muli %[[BLOCK]], %[[PER]] : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[FIRST]], %[[PER]] : index
// CHECK-NEXT:      %[[END:.*]] = arith.minsi %[[NEXT]], %[[ROWS]] : index
// The cells of the maximum and the sum, which nothing after the loop reads: a 1 x 1 buffer
// each, allocated for each block and used by its rows in turn.
// CHECK-NEXT:      %[[MK:.*]] = memref.alloc() : memref<1x1xf32>
// CHECK-NEXT:      %[[TK:.*]] = memref.alloc() : memref<1x1xf32>
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:      scf.for %[[K:.*]] = %[[FIRST]] to %[[END]] step %{{.*}} {
// CHECK-NEXT:        linalg.fill ins(%ninf : f32) outs(%[[MK]] : memref<1x1xf32>)
// CHECK-NEXT:        %[[SK:.*]] = memref.subview %s[%[[K]], 0] [1, 1024] [1, 1] : memref<4096x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
// CHECK-NEXT:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%[[SK]] : {{.*}}) outs(%[[MK]] : {{.*}}) {
// CHECK:               arith.maximumf
// CHECK:             %[[EK:.*]] = memref.subview %[[E]][%[[K]], 0] [1, 1024] [1, 1]
// CHECK-NEXT:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[SK]], %[[MK]] : {{.*}}) outs(%[[EK]] : {{.*}}) {
// CHECK:               math.exp
// CHECK:             linalg.fill ins(%zero : f32) outs(%[[TK]] : {{.*}})
// CHECK-NEXT:        linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EK]] : {{.*}}) outs(%[[TK]] : {{.*}}) {
// CHECK:               arith.addf
// CHECK:             linalg.generic {{.*}} ins(%[[EK]], %[[TK]] : {{.*}}) outs(%[[EK]] : {{.*}}) {
// CHECK:               arith.divf
// CHECK:           scf.reduce
// CHECK-NEXT:    }) {mg.min_chunk = 1 : index}
// CHECK-NEXT:    func.return %[[E]]

// A batch of 8 heads of 256 rows (attention's scores): 2048 rows, each row's (b, i) from the
// row number; the views drop the batch dimension (rank-reducing subviews).
func.func @heads(%s: memref<8x256x256xf32>) -> memref<8x256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<8x256x1xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<8x256x1xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : memref<8x256x256xf32>) outs(%t : memref<8x256x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<8x256x256xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %t : memref<8x256x256xf32>, memref<8x256x1xf32>) outs(%p : memref<8x256x256xf32>) {
  ^bb0(%x: f32, %sum: f32, %o: f32):
    %r = arith.divf %x, %sum : f32
    linalg.yield %r : f32
  }
  func.return %p : memref<8x256x256xf32>
}
// CHECK-LABEL: func.func @heads(
// CHECK-NOT:     memref<8x256x1xf32>
// CHECK:         %[[P:.*]] = memref.alloc() : memref<8x256x256xf32>
// CHECK:         "scf.parallel"
// CHECK:           %[[TK:.*]] = memref.alloc() : memref<1x1xf32>
// CHECK:           scf.for %[[K:.*]] = 
// CHECK-NEXT:        %[[I:.*]] = arith.remui %[[K]], %{{.*}} : index
// CHECK-NEXT:        %[[B:.*]] = arith.divui %[[K]], %{{.*}} : index
// CHECK-NEXT:        linalg.fill ins(%zero : f32) outs(%[[TK]] : {{.*}})
// CHECK-NEXT:        %[[SK:.*]] = memref.subview %s[%[[B]], %[[I]], 0] [1, 1, 256] [1, 1, 1] : memref<8x256x256xf32> to memref<1x256xf32, strided<[65536, 1], offset: ?>>
// CHECK-NEXT:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%[[SK]] : {{.*}}) outs(%[[TK]] : {{.*}})
// CHECK:             arith.addf
// CHECK:           %[[PK:.*]] = memref.subview %[[P]][%[[B]], %[[I]], 0] [1, 1, 256]
// CHECK-NEXT:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[SK]], %[[TK]] : {{.*}}) outs(%[[PK]] : {{.*}})
// CHECK:             arith.divf
// CHECK:       func.return %[[P]]

// Rows of ? length: the rows per block are computed when the program runs, from the row's
// length and the two ops that walk it (about 32768 elements' work a block).
func.func @dynamic(%s: memref<?x?xf64>) -> memref<?x1xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %s, %c0 : memref<?x?xf64>
  %t = memref.alloc(%n) : memref<?x1xf64>
  linalg.fill ins(%zero : f64) outs(%t : memref<?x1xf64>)
  linalg.generic {indexing_maps = [#id, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<?x?xf64>) outs(%t : memref<?x1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %r = arith.addf %acc, %x : f64
    linalg.yield %r : f64
  }
  %u = memref.alloc(%n) : memref<?x1xf64>
  linalg.generic {indexing_maps = [#id, #cell, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%s, %t : memref<?x?xf64>, memref<?x1xf64>) outs(%u : memref<?x1xf64>) {
  ^bb0(%x: f64, %sum: f64, %acc: f64):
    %d = arith.subf %x, %sum : f64
    %r = arith.maximumf %acc, %d : f64
    linalg.yield %r : f64
  }
  func.return %u : memref<?x1xf64>
}
// CHECK-LABEL: func.func @dynamic(
// The row sums, which only the loop reads, are a 1 x 1 buffer for each block; the rows'
// count is the size %t was allocated with.
// CHECK:         %[[ROWS:.*]] = memref.dim %s, %{{.*}} : memref<?x?xf64>
// CHECK-NEXT:    %u = memref.alloc(%[[ROWS]]) : memref<?x1xf64>
// CHECK:         %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    %[[LEN:.*]] = memref.dim %s, %{{.*}} : memref<?x?xf64>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[WORK:.*]] = arith.muli %[[LEN]], %[[TWO]] : index
// CHECK:         %[[PER:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[BLOCKS:.*]] = arith.ceildivsi %[[ROWS]], %[[PER]] : index
// CHECK:         "scf.parallel"(%{{.*}}, %[[BLOCKS]], %{{.*}})
// CHECK:           memref.alloc() : memref<1x1xf64>
// CHECK:           memref.subview %s[%{{.*}}, 0] [1, %{{.*}}] [1, 1] : memref<?x?xf64> to memref<1x?xf64, strided<[?, 1], offset: ?>>
// CHECK:       {mg.min_chunk = 1 : index}

// Not fused: the second op reads the first's result broadcast (row 0 for every row), which
// in a loop over rows it would read before all of it is written.
func.func @broadcast_of_written(%s: memref<64x1024xf32>) -> memref<64x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x1xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#id, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<64x1024xf32>) outs(%t : memref<64x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  %p = memref.alloc() : memref<64x1024xf32>
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, 0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %t : memref<64x1024xf32>, memref<64x1xf32>) outs(%p : memref<64x1024xf32>) {
  ^bb0(%x: f32, %first: f32, %o: f32):
    %r = arith.divf %x, %first : f32
    linalg.yield %r : f32
  }
  func.return %p : memref<64x1024xf32>
}
// CHECK-LABEL: func.func @broadcast_of_written(
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     scf.for
// CHECK:         func.return

// Not fused: no reduction (linalg-fuse-elementwise-ops joins elementwise ops).
func.func @no_reduction(%s: memref<64x1024xf32>) -> memref<64x1024xf32> {
  %p = memref.alloc() : memref<64x1024xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<64x1024xf32>) outs(%p : memref<64x1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<64x1024xf32>) outs(%p : memref<64x1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  }
  func.return %p : memref<64x1024xf32>
}
// CHECK-LABEL: func.func @no_reduction(
// CHECK-NOT:     scf.for
// CHECK:         func.return

// Few rows: 16 of 512, two ops, 16384 elements' work in all, less than two threads'
// (65536): a plain loop over the rows.
func.func @little_work(%s: memref<16x512xf32>) -> memref<16x1xf32> {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<16x512xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<16x512xf32>) outs(%p : memref<16x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  }
  %t = memref.alloc() : memref<16x1xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<16x1xf32>)
  linalg.generic {indexing_maps = [#id, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%p : memref<16x512xf32>) outs(%t : memref<16x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  func.return %t : memref<16x1xf32>
}
// CHECK-LABEL: func.func @little_work(
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-COUNT-2:   memref.subview
// CHECK:         func.return

// With max-row-bytes=1024 the softmax's rows (4 KiB of s, 4 KiB of e) stay op by op; the
// 16 x 512 rows (2 KiB of s, 2 KiB of p) too.
// SHORT-LABEL: func.func @softmax(
// SHORT-NOT:     scf.parallel
// SHORT:         func.return
// SHORT-LABEL: func.func @heads(
// SHORT:         scf.parallel
// SHORT-LABEL: func.func @little_work(
// SHORT-NOT:     scf.for
// SHORT:         func.return

// A layer norm's d * d, which only the row sum of its squares reads: a row of scratch for
// each block (1 x 1024), used by the block's rows in turn, instead of a 4096 x 1024 buffer
// written out to memory. The sums, which the function returns, stay a whole buffer.
func.func @row_temporary(%x: memref<4096x1024xf64>, %m: memref<4096x1xf64>) -> memref<4096x1xf64> {
  %zero = arith.constant 0.0 : f64
  %sq = memref.alloc() : memref<4096x1024xf64>
  linalg.generic {indexing_maps = [#id, #cell, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<4096x1024xf64>, memref<4096x1xf64>) outs(%sq : memref<4096x1024xf64>) {
  ^bb0(%a: f64, %mean: f64, %o: f64):
    %d = arith.subf %a, %mean : f64
    %r = arith.mulf %d, %d : f64
    linalg.yield %r : f64
  }
  %v = memref.alloc() : memref<4096x1xf64>
  linalg.fill ins(%zero : f64) outs(%v : memref<4096x1xf64>)
  linalg.generic {indexing_maps = [#id, #cell], iterator_types = ["parallel", "reduction"]}
      ins(%sq : memref<4096x1024xf64>) outs(%v : memref<4096x1xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  }
  func.return %v : memref<4096x1xf64>
}
// CHECK-LABEL: func.func @row_temporary(
// CHECK-NOT:     memref.alloc() : memref<4096x1024xf64>
// CHECK:         %[[V:.*]] = memref.alloc() : memref<4096x1xf64>
// CHECK:         "scf.parallel"
// CHECK:           %[[SQ:.*]] = memref.alloc() : memref<1x1024xf64>
// CHECK:           scf.for
// CHECK:             linalg.generic {{.*}} outs(%[[SQ]] : memref<1x1024xf64>) {
// CHECK:               arith.mulf
// CHECK:             %[[VK:.*]] = memref.subview %[[V]]
// CHECK:             linalg.fill ins(%zero : f64) outs(%[[VK]] : {{.*}})
// CHECK-NEXT:        linalg.generic {{.*}} ins(%[[SQ]] : memref<1x1024xf64>) outs(%[[VK]] : {{.*}}) {
// CHECK:       func.return %[[V]]
