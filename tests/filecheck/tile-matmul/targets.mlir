// tile-matmul shapes its micro-kernel for the vector unit that its options describe
// (mg_xdsl.core.target): AVX-512 (the default) 6 rows x 32 columns of f64 in 24 vector<8xf64>
// sums; AVX-512 executed in 256-bit halves (Zen 4: datapath-bits=256) 8 x 16 in 16; AVX2
// 6 x 8 in 12 vector<4xf64>; SSE2 without FMA 4 x 4 in 8 vector<2xf64>, each a multiply and
// an add (llvm.fma would be a call to the C library there).
// RUN: mg-opt %s -p convert-mg-to-linalg,tile-matmul | filecheck %s --check-prefix=AVX512
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{datapath-bits=256}' | filecheck %s --check-prefix=ZEN4
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{vector-bits=256 vector-registers=16}' | filecheck %s --check-prefix=AVX2
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{vector-bits=128 vector-registers=16 fma=false}' | filecheck %s --check-prefix=SSE2
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{vector-bits=256 vector-registers=16}' | filecheck %s --check-prefix=AVX2F32
// RUN: mg-opt %s -p 'convert-mg-to-linalg,tile-matmul{vector-bits=256 vector-registers=9}' | filecheck %s --check-prefix=ODD

func.func @mm(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = mg.matmul %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  func.return %c : tensor<?x?xf64>
}

// The micro-kernel's loop carries one vector per row and register of the block: MR * NR / L
// sums, as many multiply-adds a step, after NR / L loads of packed B.
// Before each micro-kernel of 128 products or more, the two ends of each row of its block
// of C are prefetched (a shorter one is over about when the lines arrive).
// (B's panels are 128 rows deep here, or K where K is less: a 128 x 32 panel of f64 fills
// the 32 KiB of L1 that the options' default caches have.)
// AVX512-LABEL: func.func private @mg_matmul_set_f64(
// AVX512:       %[[KC:.*]] = arith.constant 128 : index
// AVX512-NEXT:  %{{.*}} = arith.minsi %[[KC]], %{{.*}} : index
// AVX512-COUNT-12: memref.prefetch %c[%{{.*}}, %{{.*}}], write, locality<3>, data : memref<?x?xf64, strided<[?, 1], offset: ?>>
// AVX512:       scf.for {{.*}} -> ({{(vector<8xf64>, ){23}vector<8xf64>}}) {
// AVX512-COUNT-4:  vector.load %{{.*}} : memref<?x?x32xf64>, vector<8xf64>
// AVX512-COUNT-24: vector.fma %{{.*}} : vector<8xf64>
// AVX512-NEXT:     scf.yield

// ZEN4-LABEL:   func.func private @mg_matmul_set_f64(
// ZEN4:         %[[KC:.*]] = arith.constant 256 : index
// ZEN4-NEXT:    %{{.*}} = arith.minsi %[[KC]], %{{.*}} : index
// ZEN4-COUNT-16: memref.prefetch %c[%{{.*}}, %{{.*}}], write, locality<3>, data : memref<?x?xf64, strided<[?, 1], offset: ?>>
// ZEN4:         scf.for {{.*}} -> ({{(vector<8xf64>, ){15}vector<8xf64>}}) {
// ZEN4-COUNT-2:    vector.load %{{.*}} : memref<?x?x16xf64>, vector<8xf64>
// ZEN4-COUNT-16:   vector.fma %{{.*}} : vector<8xf64>
// ZEN4-NEXT:       scf.yield

// AVX2-LABEL:   func.func private @mg_matmul_set_f64(
// Panels of A are 6 rows (11 of them in a block of 66 rows: 66 x 512 f64 is half the
// default L2), a vector of 6 per k; B's panels 512 rows deep (512 x 8 f64 fills L1).
// AVX2:         %[[KC:.*]] = arith.constant 512 : index
// AVX2-NEXT:    %{{.*}} = arith.minsi %[[KC]], %{{.*}} : index
// A whole panel 8 k at a time: a vector of 8 from each of its 6 rows, each pair of rows
// interleaved (low and high halves), then for each k the three pairs' two values gathered
// into one vector of 6, stored; the last k mod 8 one k at a time, 6 loads into a vector.
// AVX2:         %[[R0:.*]] = vector.load %a[%{{.*}}, %[[C:.*]]] : memref<?x?xf64, strided<[?, 1], offset: ?>>, vector<8xf64>
// AVX2-NEXT:    %[[R1:.*]] = vector.load %a[%{{.*}}, %[[C]]] : memref<?x?xf64, strided<[?, 1], offset: ?>>, vector<8xf64>
// AVX2-COUNT-4: vector.load %a[%{{.*}}, %[[C]]]
// AVX2-NEXT:    %[[LO:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 8, 1, 9, 2, 10, 3, 11] : vector<8xf64>, vector<8xf64>
// AVX2-NEXT:    %[[HI:.*]] = vector.shuffle %[[R0]], %[[R1]] [4, 12, 5, 13, 6, 14, 7, 15] : vector<8xf64>, vector<8xf64>
// AVX2-NEXT:    %[[LO23:.*]] = vector.shuffle
// AVX2-NEXT:    vector.shuffle
// AVX2-NEXT:    %[[LO45:.*]] = vector.shuffle
// AVX2-NEXT:    vector.shuffle
// The first k: lanes 0-1 of the first pair's low half, lanes 0-1 of the second's, then of the third's.
// AVX2-NEXT:    %[[K01:.*]] = vector.shuffle %[[LO]], %[[LO23]] [0, 1, 8, 9, 0, 0, 0, 0] : vector<8xf64>, vector<8xf64>
// AVX2-NEXT:    %[[K0:.*]] = vector.shuffle %[[K01]], %[[LO45]] [0, 1, 2, 3, 8, 9] : vector<8xf64>, vector<8xf64>
// AVX2-COUNT-14: vector.shuffle
// AVX2:         vector.store %[[K0]], %{{.*}} : memref<11x?x6xf64>, vector<6xf64>
// AVX2-COUNT-7: vector.store %{{.*}} : memref<11x?x6xf64>, vector<6xf64>
// AVX2:         scf.for
// AVX2-COUNT-6:   memref.load %a[
// AVX2:           vector.store %{{.*}} : memref<11x?x6xf64>, vector<6xf64>
// AVX2:         %[[DEPTH:.*]] = arith.constant 128 : index
// AVX2-NEXT:    %[[DEEP:.*]] = arith.cmpi sge, %{{.*}}, %[[DEPTH]] : index
// AVX2:         scf.if %[[DEEP]] {
// AVX2-COUNT-12: memref.prefetch %c[%{{.*}}, %{{.*}}], write, locality<3>, data : memref<?x?xf64, strided<[?, 1], offset: ?>>
// AVX2:         scf.for {{.*}} -> ({{(vector<4xf64>, ){11}vector<4xf64>}}) {
// AVX2-COUNT-2:    vector.load %{{.*}} : memref<?x?x8xf64>, vector<4xf64>
// AVX2-COUNT-12:   vector.fma %{{.*}} : vector<4xf64>
// AVX2-NEXT:       scf.yield

// SSE2-LABEL:   func.func private @mg_matmul_set_f64(
// SSE2:         %[[KC:.*]] = arith.constant 512 : index
// SSE2-NEXT:    %{{.*}} = arith.minsi %[[KC]], %{{.*}} : index
// SSE2-NOT:     vector.fma
// SSE2:         scf.for {{.*}} -> ({{(vector<2xf64>, ){7}vector<2xf64>}}) {
// SSE2-COUNT-2:    vector.load %{{.*}} : memref<?x?x4xf64>, vector<2xf64>
// SSE2-COUNT-8:    arith.addf %{{.*}}, %{{.*}} : vector<2xf64>
// SSE2-NEXT:       scf.yield
// SSE2-NOT:     vector.fma

// f32 has twice the lanes: the same 6-row block is 6 x 16.
func.func @mm32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = mg.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  func.return %c : tensor<?x?xf32>
}
// AVX2F32-LABEL: func.func private @mg_matmul_set_f32(
// AVX2F32:       %[[KC:.*]] = arith.constant 512 : index
// AVX2F32-NEXT:  %{{.*}} = arith.minsi %[[KC]], %{{.*}} : index
// AVX2F32:       scf.for {{.*}} -> ({{(vector<8xf32>, ){11}vector<8xf32>}}) {
// AVX2F32-COUNT-2:  vector.load %{{.*}} : memref<?x?x16xf32>, vector<8xf32>
// AVX2F32-COUNT-12: vector.fma %{{.*}} : vector<8xf32>

// A unit not in the table gets as many rows as fit beside two registers a row: 3 of 9
// registers. Rows cannot be interleaved in pairs, so each k of a panel is gathered alone.
// ODD-LABEL:    func.func private @mg_matmul_set_f64(
// ODD-NOT:      vector.shuffle
// ODD:          vector.store %{{.*}} : memref<{{[0-9]+}}x?x3xf64>, vector<3xf64>
// ODD-NOT:      vector.shuffle
