// tile-matmul: a matrix product (linalg.matmul) becomes a call to one tiled kernel per
// module and element type: packing loops, a parallel loop over blocks of 128 rows, and an
// 8 x 16 register-blocked micro-kernel of vector FMAs: the block of AVX-512 executed in
// 256-bit halves (Zen 4), whose kernel this test reads step by step (targets.mlir has the
// other units' blocks, the default 6 x 32 among them).
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{datapath-bits=256}' | filecheck %s

func.func @mm(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = mg.matmul %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %c : tensor<?x?xf64>
}
// CHECK-LABEL: func.func @mm(
// CHECK:       %[[M:[0-9a-z_]+]] = memref.dim %a, %{{.*}}
// CHECK:       %[[K:[0-9a-z_]+]] = memref.dim %a, %{{.*}}
// CHECK:       memref.dim %b, %{{.*}}
// CHECK:       %[[N:[0-9a-z_]+]] = memref.dim %b, %{{.*}}
// The run-time check stays as convert-mg-to-linalg made it; C's zero fill goes: the kernel
// called is the one that stores C (C = A @ B) instead of adding to it.
// CHECK:       cf.assert
// CHECK:       %[[C:[0-9a-z_]+]] = memref.alloc(%[[M]], %[[N]]) : memref<?x?xf64>
// CHECK-NOT:   linalg.fill
// The kernel takes views (rows any distance apart, from any offset): each operand is cast.
// CHECK:       %[[VA:[0-9a-z_]+]] = "memref.cast"(%a) : (memref<?x?xf64>) -> memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-NEXT:  %[[VB:[0-9a-z_]+]] = "memref.cast"(%b) : (memref<?x?xf64>) -> memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-NEXT:  %[[VC:[0-9a-z_]+]] = "memref.cast"(%[[C]]) : (memref<?x?xf64>) -> memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-NEXT:  func.call @mg_matmul_set_f64(%[[VA]], %[[VB]], %[[VC]]) : (memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>, memref<?x?xf64, strided<[?, 1], offset: ?>>) -> ()
// CHECK-NOT:   linalg.matmul
// CHECK:       func.return %[[C]]

// Products of static sizes call the same kernel, their operands cast.
func.func @static(%a: tensor<64x32xf64>, %b: tensor<32x64xf64>) -> tensor<64x64xf64> {
  %c = mg.matmul %a, %b : tensor<64x32xf64>, tensor<32x64xf64> -> tensor<64x64xf64>
  func.return %c : tensor<64x64xf64>
}
// CHECK-LABEL: func.func @static(
// CHECK:       %[[SA:[0-9a-z_]+]] = "memref.cast"(%a) : (memref<64x32xf64>) -> memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-NEXT:  %[[SB:[0-9a-z_]+]] = "memref.cast"(%b) : (memref<32x64xf64>) -> memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-NEXT:  %[[SC:[0-9a-z_]+]] = "memref.cast"(%{{.*}}) : (memref<64x64xf64>) -> memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK-NEXT:  func.call @mg_matmul_set_f64(%[[SA]], %[[SB]], %[[SC]])

// A small product with static sizes stays a linalg.matmul (loops, once lowered).
func.func @small(%a: tensor<4x3xf64>, %b: tensor<3x5xf64>) -> tensor<4x5xf64> {
  %c = mg.matmul %a, %b : tensor<4x3xf64>, tensor<3x5xf64> -> tensor<4x5xf64>
  func.return %c : tensor<4x5xf64>
}
// CHECK-LABEL: func.func @small(
// CHECK:       linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : memref<4x5xf64>)
// CHECK-NEXT:  linalg.matmul ins(%a, %b : memref<4x3xf64>, memref<3x5xf64>) outs(%{{.*}} : memref<4x5xf64>)
// CHECK-NOT:   vector.fma

// The kernel, once, at the end of the module.
// CHECK-LABEL: func.func private @mg_matmul_set_f64(%a: memref<?x?xf64, strided<[?, 1], offset: ?>>, %b: memref<?x?xf64, strided<[?, 1], offset: ?>>, %c: memref<?x?xf64, strided<[?, 1], offset: ?>>) {
// CHECK:       %[[M:[0-9a-z_]+]] = memref.dim %a, %{{.*}}
// CHECK-NEXT:  %[[K:[0-9a-z_]+]] = memref.dim %a, %{{.*}}
// CHECK-NEXT:  %[[N:[0-9a-z_]+]] = memref.dim %b, %{{.*}}
// Bp: panels of 16 columns of a slice of B of 256 rows, or of K where K is less (the
// panels then lie next to one another), on a cache line.
// CHECK:       %[[DEPTH:[0-9a-z_]+]] = arith.minsi %{{.*}}, %[[K]] : index
// CHECK:       %[[BP:[0-9a-z_]+]] = memref.alloc(%{{.*}}, %[[DEPTH]]) {alignment = 64 : i64} : memref<?x?x16xf64>
// CHECK:       scf.for %[[JC:[0-9a-z_]+]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK:         scf.for %[[PC:[0-9a-z_]+]] = %{{.*}} to %[[K]] step %{{.*}} {
// CHECK:           %{{.*}} = arith.subi %[[K]], %[[PC]] : index
// CHECK-NEXT:      %[[KC:[0-9a-z_]+]] = arith.minsi %{{.*}}, %{{.*}} : index
// The first block of K products stores C, the later ones add to it.
// CHECK:           %[[FIRST:[0-9a-z_]+]] = arith.cmpi eq, %[[PC]], %{{.*}} : index
// Packing B, its panels shared out among the threads (at least 4 each): whole panels two
// vectors a row, edge panels element by element, zero-padded.
// CHECK:           %[[PANELS:[0-9a-z_]+]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK:           "scf.parallel"(%{{.*}}, %[[PANELS]], %{{.*}})
// CHECK:           scf.if
// CHECK:             %[[ROW:[0-9a-z_]+]] = vector.load %b[%{{.*}}, %{{.*}}] : memref<?x?xf64, strided<[?, 1], offset: ?>>, vector<8xf64>
// CHECK-NEXT:        %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:        vector.store %[[ROW]], %[[BP]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x16xf64>, vector<8xf64>
// CHECK:           } else {
// CHECK:             memref.store %{{.*}}, %[[BP]]
// CHECK:           }) {mg.min_chunk = 4 : index}
// CHECK:           %[[BLOCKS:[0-9a-z_]+]] = arith.ceildivsi %[[M]], %{{.*}} : index
// CHECK:           "scf.parallel"(%{{.*}}, %[[BLOCKS]], %{{.*}})
// Each row block packs A into a buffer of its own (8-row panels, k-major, as deep as the
// block of K products).
// CHECK:             %[[AP:[0-9a-z_]+]] = memref.alloc(%[[KC]]) {alignment = 64 : i64} : memref<16x?x8xf64>
// CHECK:             %[[TILE:[0-9a-z_]+]] = memref.alloc() {alignment = 64 : i64} : memref<8x16xf64>
// CHECK:             memref.load %a[
// CHECK:             memref.store %{{.*}}, %[[AP]]
// The micro-kernel: 16 vector sums carried through the k loop; per k two vector loads of
// Bp, and for each of 8 rows a scalar of Ap broadcast and two FMAs.
// CHECK:                 %[[ZERO:[0-9a-z_]+]] = vector.broadcast %{{.*}} : f64 to vector<8xf64>
// CHECK:                 scf.for %[[KK:[0-9a-z_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S0:[0-9a-z_]+]] = %[[ZERO]], {{.*}}) -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>) {
// CHECK:                   %[[B0:[0-9a-z_]+]] = vector.load %[[BP]][%[[JP:[0-9a-z_]+]], %[[KK]], %{{.*}}] : memref<?x?x16xf64>, vector<8xf64>
// CHECK:                   %[[B1:[0-9a-z_]+]] = vector.load %[[BP]][%[[JP]], %[[KK]], %{{.*}}] : memref<?x?x16xf64>, vector<8xf64>
// CHECK:                   %[[A0:[0-9a-z_]+]] = memref.load %[[AP]][%{{[0-9a-z_]+}}, %[[KK]], %{{.*}}] : memref<16x?x8xf64>
// CHECK-NEXT:              %[[A0S:[0-9a-z_]+]] = vector.broadcast %[[A0]] : f64 to vector<8xf64>
// CHECK-NEXT:              %{{.*}} = vector.fma %[[A0S]], %[[B0]], %[[S0]] : vector<8xf64>
// CHECK-NEXT:              %{{.*}} = vector.fma %[[A0S]], %[[B1]], %{{.*}} : vector<8xf64>
// CHECK-COUNT-14:          vector.fma
// CHECK:                   scf.yield
// A whole block goes into C a vector at a time: stored as it is in the first block of K
// products (C's old values not read), added to C in the later ones; an edge block goes
// through the tile, and C is read there only after the first block.
// CHECK:                 scf.if
// CHECK-NEXT:              scf.if %[[FIRST]] {
// CHECK-NOT:                 vector.load
// CHECK-COUNT-16:            vector.store %{{.*}}, %c[
// CHECK-NEXT:              } else {
// CHECK-COUNT-16:            vector.load %c
// CHECK:                 } else {
// CHECK-COUNT-16:          vector.store %{{.*}}, %[[TILE]]
// CHECK:                   %[[T:[0-9a-z_]+]] = memref.load %[[TILE]]
// CHECK-NEXT:              %[[NEW:[0-9a-z_]+]] = scf.if %[[FIRST]] -> (f64) {
// CHECK-NEXT:                scf.yield %[[T]] : f64
// CHECK-NEXT:              } else {
// CHECK-NEXT:                memref.load %c
// CHECK-NEXT:                arith.addf
// CHECK:                   memref.store %[[NEW]], %c
// CHECK:             memref.dealloc %[[AP]]
// CHECK-NEXT:        memref.dealloc %[[TILE]]
// CHECK:             scf.reduce
// CHECK:           }) {mg.min_chunk = 1 : index}
// CHECK:       memref.dealloc %[[BP]]
// With K = 0 there is no block of products to store C: it is set to zeros.
// CHECK:       %[[NO_K:[0-9a-z_]+]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-NEXT:  scf.if %[[NO_K]] {
// CHECK:           memref.store %{{.*}}, %c[
// CHECK:       func.return
// CHECK-NOT:   func.func private @mg_matmul
