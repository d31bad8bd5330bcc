// vectorize-reductions takes the vector width from its options (mg_xdsl.core.target) for the
// kernels it adds: a row reduction steps 256 bytes at a time in as many accumulators as
// that takes, at most half the registers (shared among the four rows it walks side by
// side); column reductions fold rows one register wide.
// A unit whose datapath is narrower than its registers (Zen 4: AVX-512 run as two 256-bit
// halves) streams vectors of the datapath's width: the AVX2 kernels.
// RUN: mg-opt %s -p 'convert-mg-to-linalg,vectorize-reductions' | filecheck %s --check-prefix=AVX512
// RUN: mg-opt %s -p 'convert-mg-to-linalg,vectorize-reductions{vector-bits=256 vector-registers=16}' | filecheck %s --check-prefix=AVX2
// RUN: mg-opt %s -p 'convert-mg-to-linalg,vectorize-reductions{vector-bits=512 vector-registers=32 datapath-bits=256}' | filecheck %s --check-prefix=AVX2
// RUN: mg-opt %s -p 'convert-mg-to-linalg,vectorize-reductions{vector-bits=128 vector-registers=16}' | filecheck %s --check-prefix=SSE2

func.func @rows(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
// AVX512-LABEL: func.func private @mg_row_sum_f64(
// AVX512:       scf.for {{.*}} -> ({{(vector<8xf64>, ){3}vector<8xf64>}}) {
// AVX512-COUNT-4: vector.load %a[%{{.*}}, %{{.*}}] : memref<?x?xf64>, vector<8xf64>
// AVX512:         scf.yield
// AVX2-LABEL:   func.func private @mg_row_sum_f64(
// AVX2:         scf.for {{.*}} -> ({{(vector<4xf64>, ){7}vector<4xf64>}}) {
// AVX2-COUNT-8:   vector.load %a[%{{.*}}, %{{.*}}] : memref<?x?xf64>, vector<4xf64>
// AVX2:           scf.yield
// SSE2-LABEL:   func.func private @mg_row_sum_f64(
// SSE2:         scf.for {{.*}} -> ({{(vector<2xf64>, ){7}vector<2xf64>}}) {
// SSE2-COUNT-8:   vector.load %a[%{{.*}}, %{{.*}}] : memref<?x?xf64>, vector<2xf64>
// SSE2:           scf.yield

func.func @columns(%a: tensor<?x?xf64>) -> tensor<1x?xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "max"} : tensor<?x?xf64> -> tensor<1x?xf64>
  func.return %r : tensor<1x?xf64>
}
// AVX512-LABEL: func.func private @mg_column_max_f64(
// AVX512:         arith.maximumf %{{.*}}, %{{.*}} : vector<8xf64>
// AVX2-LABEL:   func.func private @mg_column_max_f64(
// AVX2:           arith.maximumf %{{.*}}, %{{.*}} : vector<4xf64>
// SSE2-LABEL:   func.func private @mg_column_max_f64(
// SSE2:           arith.maximumf %{{.*}}, %{{.*}} : vector<2xf64>

// A row maximum ignores the sign of zeros in its vectors (nsz: no blends on AVX2); a zero
// result is recomputed exactly, element by element from the cell's start value.
func.func @row_max(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "max"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
// AVX2-LABEL:   func.func private @mg_row_max_f64(
// AVX2:           scf.for {{.*}} -> ({{(vector<4xf64>, ){7}vector<4xf64>}}) {
// AVX2:             arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : vector<4xf64>
// AVX2:           %[[START:.*]] = memref.load %{{.*}}[%[[I:.*]], %[[C0:.*]]] : memref<?x?xf64>
// AVX2:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// AVX2-NEXT:      %[[Z:.*]] = arith.cmpf oeq, %[[TOTAL:.*]], %[[ZERO]] : f64
// AVX2-NEXT:      %[[M:.*]] = scf.if %[[Z]] -> (f64) {
// AVX2:             %[[EXACT:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[START]]) -> (f64) {
// AVX2:               arith.maximumf %[[ACC]], %{{.*}} : f64
// AVX2:             scf.yield %[[EXACT]] : f64
// AVX2-NEXT:      } else {
// AVX2-NEXT:        scf.yield %[[TOTAL]] : f64
// AVX2-NEXT:      }
// AVX2-NEXT:      memref.store %[[M]], %{{.*}}[%[[I]], %[[C0]]] : memref<?x?xf64>
