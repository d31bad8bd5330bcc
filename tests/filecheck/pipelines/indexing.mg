# The optimised pipeline keeps index_add's loops sequential (repeated ids add into one row,
# so its iterations are not independent) while the elementwise op after it, large enough
# for threads, is split across them; the copy of base and the loop over the ids stay in f.
# RUN: mg-opt %s -p 'mg-cpu-pipeline{to=scf}' | filecheck %s

def f(b: tensor[100000x64], i: tensor[?xi64], v: tensor[?x64]) = index_add(b, i, v) * 2.0

# CHECK-LABEL: func.func @f(
# CHECK:         %[[N:.*]] = memref.dim %i, %{{.*}} : memref<?xi64>
# CHECK-NOT:     mgrt_parallel_for
# CHECK:         scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
# CHECK-NEXT:      %[[ID:.*]] = memref.load %i[%[[K]]] : memref<?xi64>
# CHECK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
# CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
# CHECK-NEXT:      cf.assert %[[OK]], "mg.index_add: id %ld is out of range for %ld rows (0 to %ld)"
# CHECK:           scf.for
# CHECK:             arith.addf
# CHECK:         func.call @mgrt_parallel_for(
# CHECK:       llvm.func internal @f_parallel_0(
# CHECK-NOT:     arith.addf
# CHECK:         arith.mulf
