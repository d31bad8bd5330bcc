// mg.index and mg.gather: a nest over the ids (indices), each loaded, cast to an index and
// checked against the size it picks from (one unsigned compare: a negative id fails too;
// the message is a format that lower-assert-to-stderr fills in), then a copy of what it
// names. mg.index_add and mg.scatter_add: a copy of base, then such a nest that adds each
// row (element) of values where its id says, in order, so repeated ids accumulate.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @rows(%t: tensor<?x3xf64>, %ids: tensor<2xi32>) -> tensor<2x3xf64> {
  %r = mg.index %t, %ids : tensor<?x3xf64>, tensor<2xi32> -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}
// CHECK-LABEL: func.func @rows(
// CHECK:       %[[N:.*]] = memref.dim %t, %{{.*}} : memref<?x3xf64>
// CHECK-NEXT:  %[[OUT:.*]] = memref.alloc() : memref<2x3xf64>
// CHECK-NEXT:  affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    %[[ID:.*]] = affine.load %ids[%[[I]]] : memref<2xi32>
// CHECK-NEXT:    %[[R:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[R]], %[[N]] : index
// CHECK-NEXT:    cf.assert %[[OK]], "mg.index: id %ld is out of range for %ld rows (0 to %ld)"
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[V:.*]] = memref.load %t[%[[R]], %[[J]]] : memref<?x3xf64>
// CHECK-NEXT:      affine.store %[[V]], %[[OUT]][%[[I]], %[[J]]] : memref<2x3xf64>

func.func @adds(%b: tensor<5x3xi32>, %ids: tensor<?xi64>, %v: tensor<?x3xi32>) -> tensor<5x3xi32> {
  %r = mg.index_add %b, %ids, %v : tensor<5x3xi32>, tensor<?xi64>, tensor<?x3xi32> -> tensor<5x3xi32>
  func.return %r : tensor<5x3xi32>
}
// CHECK-LABEL: func.func @adds(
// CHECK:       %[[K:.*]] = memref.dim %ids, %{{.*}} : memref<?xi64>
// CHECK:       %[[M:.*]] = memref.dim %v, %{{.*}} : memref<?x3xi32>
// CHECK-NEXT:  %[[SAME:.*]] = arith.cmpi eq, %[[M]], %[[K]] : index
// CHECK-NEXT:  cf.assert %[[SAME]], "mg.index_add: values differ at runtime in dimension 0 from the ids' shape then a row's"
// CHECK-NEXT:  %[[OUT:.*]] = memref.alloc() : memref<5x3xi32>
// CHECK:         affine.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : memref<5x3xi32>
// CHECK:       affine.for %[[I:.*]] = 0 to %[[K]] {
// CHECK-NEXT:    %[[ID:.*]] = affine.load %ids[%[[I]]] : memref<?xi64>
// CHECK-NEXT:    %[[R:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[R]], %[[ROWS]] : index
// CHECK-NEXT:    cf.assert %[[OK]], "mg.index_add: id %ld is out of range for %ld rows (0 to %ld)"
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[X:.*]] = affine.load %v[%[[I]], %[[J]]] : memref<?x3xi32>
// CHECK-NEXT:      %[[ACC:.*]] = memref.load %[[OUT]][%[[R]], %[[J]]] : memref<5x3xi32>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %[[ACC]], %[[X]] : i32
// CHECK-NEXT:      memref.store %[[SUM]], %[[OUT]][%[[R]], %[[J]]] : memref<5x3xi32>

func.func @take(%x: tensor<?x5xf32>, %idx: tensor<?x2xi32>) -> tensor<?x2xf32> {
  %r = mg.gather %x, %idx {axis = 1 : i64} : tensor<?x5xf32>, tensor<?x2xi32> -> tensor<?x2xf32>
  func.return %r : tensor<?x2xf32>
}
// CHECK-LABEL: func.func @take(
// CHECK:       %[[N:.*]] = memref.dim %x, %{{.*}} : memref<?x5xf32>
// CHECK:       %[[M:.*]] = memref.dim %idx, %{{.*}} : memref<?x2xi32>
// CHECK-NEXT:  %[[SAME:.*]] = arith.cmpi eq, %[[N]], %[[M]] : index
// CHECK-NEXT:  cf.assert %[[SAME]], "mg.gather: the indices' size differs at runtime in dimension 0"
// CHECK-NEXT:  %[[OUT:.*]] = memref.alloc(%[[M]]) : memref<?x2xf32>
// CHECK-NEXT:  affine.for %[[I:.*]] = 0 to %[[M]] {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[P:.*]] = affine.load %idx[%[[I]], %[[J]]] : memref<?x2xi32>
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[P]] : i32 to index
// CHECK-NEXT:      %[[SIZE:.*]] = arith.constant 5 : index
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[C]], %[[SIZE]] : index
// CHECK-NEXT:      cf.assert %[[OK]], "mg.gather: index %ld is out of range for %ld positions along axis 1 (0 to %ld)"
// CHECK-NEXT:      %[[V:.*]] = memref.load %x[%[[I]], %[[C]]] : memref<?x5xf32>
// CHECK-NEXT:      affine.store %[[V]], %[[OUT]][%[[I]], %[[J]]] : memref<?x2xf32>

func.func @scatter(%b: tensor<4x3xf64>, %idx: tensor<2x3xi64>, %v: tensor<2x3xf64>) -> tensor<4x3xf64> {
  %r = mg.scatter_add %b, %idx, %v {axis = 0 : i64} : tensor<4x3xf64>, tensor<2x3xi64>, tensor<2x3xf64> -> tensor<4x3xf64>
  func.return %r : tensor<4x3xf64>
}
// CHECK-LABEL: func.func @scatter(
// CHECK:       %[[OUT:.*]] = memref.alloc() : memref<4x3xf64>
// CHECK:       affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[P:.*]] = affine.load %idx[%[[I]], %[[J]]] : memref<2x3xi64>
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK-NEXT:      %[[SIZE:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[C]], %[[SIZE]] : index
// CHECK-NEXT:      cf.assert %[[OK]], "mg.scatter_add: index %ld is out of range for %ld positions along axis 0 (0 to %ld)"
// CHECK-NEXT:      %[[X:.*]] = affine.load %v[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK-NEXT:      %[[ACC:.*]] = memref.load %[[OUT]][%[[C]], %[[J]]] : memref<4x3xf64>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:      memref.store %[[SUM]], %[[OUT]][%[[C]], %[[J]]] : memref<4x3xf64>
