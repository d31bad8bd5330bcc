// RUN: mg-opt %s -p finalize-memref-to-llvm | filecheck %s

// An identity affine map is the default layout written out: lowered like no layout at all.
// CHECK-LABEL: func.func @identity_map
// CHECK:         %[[P:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK:         %[[E:.*]] = llvm.getelementptr inbounds %[[P]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %{{.*}} = llvm.load %[[E]] : !llvm.ptr -> f32
func.func @identity_map(%m: memref<32xf32, affine_map<(d0) -> (d0)>>, %i: index) -> f32 {
  %v = memref.load %m[%i] : memref<32xf32, affine_map<(d0) -> (d0)>>
  return %v : f32
}

// A subview is a new descriptor on the same buffer: what is static is folded
// (offset 2 * 8 + 2 = 18, strides 8 * 1 and 1 * 2), the sizes are the view's.
// CHECK-LABEL: func.func @static_subview
// CHECK:         %[[ALLOC:.*]] = llvm.extractvalue %[[D:.*]][0]
// CHECK-NEXT:    %[[ALIGN:.*]] = llvm.extractvalue %[[D]][1]
// CHECK-DAG:     %[[C18:.*]] = llvm.mlir.constant(18) : i64
// CHECK-DAG:     %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK-DAG:     %[[C8:.*]] = llvm.mlir.constant(8) : i64
// CHECK-DAG:     %[[C2:.*]] = llvm.mlir.constant(2) : i64
// CHECK:         llvm.insertvalue %[[ALLOC]], %{{.*}}[0]
// CHECK-NEXT:    llvm.insertvalue %[[ALIGN]], %{{.*}}[1]
// CHECK-NEXT:    llvm.insertvalue %[[C18]], %{{.*}}[2]
// CHECK-NEXT:    llvm.insertvalue %[[C4]], %{{.*}}[3, 0]
// CHECK-NEXT:    llvm.insertvalue %[[C4]], %{{.*}}[3, 1]
// CHECK-NEXT:    llvm.insertvalue %[[C8]], %{{.*}}[4, 0]
// CHECK-NEXT:    llvm.insertvalue %[[C2]], %{{.*}}[4, 1]
// CHECK-NOT:     memref.subview
func.func @static_subview(%m: memref<8x8xf32>) -> memref<4x4xf32, strided<[8, 2], offset: 18>> {
  %s = memref.subview %m[2, 2] [4, 4] [1, 2] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 2], offset: 18>>
  return %s : memref<4x4xf32, strided<[8, 2], offset: 18>>
}

// With a dynamic offset and step, the arithmetic happens at run time on the source's
// descriptor: offset' = offset + o * stride0 + 1 * stride1, stride0' = stride0 * s.
// CHECK-LABEL: func.func @dynamic_subview
// CHECK-SAME:    (%[[M:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[O:.*]]: index, %[[S:.*]]: index)
// CHECK:         %[[D:.*]] = builtin.unrealized_conversion_cast %[[M]]
// CHECK-NEXT:    %[[ST0:.*]] = llvm.extractvalue %[[D]][4, 0]
// CHECK-NEXT:    %[[ST1:.*]] = llvm.extractvalue %[[D]][4, 1]
// CHECK-NEXT:    %[[OFF:.*]] = llvm.extractvalue %[[D]][2]
// CHECK-NEXT:    %[[O64:.*]] = builtin.unrealized_conversion_cast %[[O]] : index to i64
// CHECK-NEXT:    %[[S64:.*]] = builtin.unrealized_conversion_cast %[[S]] : index to i64
// CHECK-NEXT:    %[[T0:.*]] = llvm.mul %[[O64]], %[[ST0]] : i64
// CHECK-NEXT:    %[[OFF1:.*]] = llvm.add %[[OFF]], %[[T0]] : i64
// CHECK-NEXT:    %[[OFF2:.*]] = llvm.add %[[OFF1]], %[[ST1]] : i64
// CHECK-NEXT:    %[[NST0:.*]] = llvm.mul %[[ST0]], %[[S64]] : i64
// CHECK:         llvm.insertvalue %[[OFF2]], %{{.*}}[2]
// CHECK:         llvm.insertvalue %[[NST0]], %{{.*}}[4, 0]
// CHECK-NEXT:    llvm.insertvalue %[[ST1]], %{{.*}}[4, 1]
func.func @dynamic_subview(%m: memref<?x?xf32, strided<[?, ?], offset: ?>>, %o: index, %s: index) -> memref<2x2xf32, strided<[?, ?], offset: ?>> {
  %v = memref.subview %m[%o, 1] [2, 2] [%s, 1] : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<2x2xf32, strided<[?, ?], offset: ?>>
  return %v : memref<2x2xf32, strided<[?, ?], offset: ?>>
}

// A rank-reducing subview (one matrix of a batch): the dropped unit dimension's size and
// stride are left out; the offset is b * 12 at run time.
// CHECK-LABEL: func.func @batch_matrix
// CHECK:         %[[B:.*]] = builtin.unrealized_conversion_cast %{{.*}} : index to i64
// CHECK:         %[[OFF:.*]] = llvm.mul %[[B]], %[[C12:.*]] : i64
// CHECK:         llvm.insertvalue %[[OFF]], %{{.*}}[2]
// CHECK-NEXT:    llvm.insertvalue %[[C3:.*]], %{{.*}}[3, 0]
// CHECK-NEXT:    llvm.insertvalue %[[C4:.*]], %{{.*}}[3, 1]
// CHECK-NEXT:    llvm.insertvalue %[[C4]], %{{.*}}[4, 0]
// CHECK-NEXT:    llvm.insertvalue %[[C1:.*]], %{{.*}}[4, 1]
// CHECK-NOT:     llvm.insertvalue
// CHECK:         return
func.func @batch_matrix(%m: memref<5x3x4xf32>, %b: index) -> memref<3x4xf32, strided<[4, 1], offset: ?>> {
  %v = memref.subview %m[%b, 0, 0] [1, 3, 4] [1, 1, 1] : memref<5x3x4xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
  return %v : memref<3x4xf32, strided<[4, 1], offset: ?>>
}

// Element sizes are LLVM's: an i24 takes 4 bytes, a vector<3xf32> 16.
// CHECK-LABEL: func.func @element_sizes
// CHECK:         %[[B1:.*]] = llvm.mlir.constant(40) : i64
// CHECK-NEXT:    llvm.call @malloc(%[[B1]])
// CHECK:         %[[B2:.*]] = llvm.mlir.constant(160) : i64
// CHECK-NEXT:    llvm.call @malloc(%[[B2]])
func.func @element_sizes() {
  %a = memref.alloc() : memref<10xi24>
  %b = memref.alloc() : memref<10xvector<3xf32>>
  return
}

// A contiguous memref collapsed into one dimension: the same pointers and offset, its size
// the product of the sizes (static ones folded), stride 1.
// CHECK-LABEL: func.func @collapse(
// CHECK:         %[[D:.*]] = builtin.unrealized_conversion_cast %m : memref<?x3x4xf64> to !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<3 x i64>, !llvm.array<3 x i64>)>
// CHECK-NEXT:    %[[ROWS:.*]] = llvm.extractvalue %[[D]][3, 0]
// CHECK-NEXT:    %[[TWELVE:.*]] = llvm.mlir.constant(12) : i64
// CHECK-NEXT:    %[[N:.*]] = llvm.mul %[[ROWS]], %[[TWELVE]] : i64
// CHECK-NEXT:    %[[ALLOCATED:.*]] = llvm.extractvalue %[[D]][0]
// CHECK-NEXT:    %[[ALIGNED:.*]] = llvm.extractvalue %[[D]][1]
// CHECK-NEXT:    %[[OFFSET:.*]] = llvm.extractvalue %[[D]][2]
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK:         llvm.insertvalue %[[ALLOCATED]], %{{.*}}[0]
// CHECK-NEXT:    llvm.insertvalue %[[ALIGNED]], %{{.*}}[1]
// CHECK-NEXT:    llvm.insertvalue %[[OFFSET]], %{{.*}}[2]
// CHECK-NEXT:    llvm.insertvalue %[[N]], %{{.*}}[3, 0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// CHECK-NEXT:    llvm.insertvalue %[[ONE]], %{{.*}}[4, 0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
func.func @collapse(%m: memref<?x3x4xf64>, %i: index) -> f64 {
  %f = memref.collapse_shape %m [[0, 1, 2]] : memref<?x3x4xf64> into memref<?xf64>
  %v = memref.load %f[%i] : memref<?xf64>
  return %v : f64
}

// A reinterpret_cast (a transposed view) is a new descriptor on the same buffer with the
// op's offset, sizes and strides, whatever the source's offset was (as upstream).
// CHECK-LABEL: func.func @transposed
// CHECK:         %[[ALLOC:.*]] = llvm.extractvalue %[[D:.*]][0]
// CHECK-NEXT:    %[[ALIGN:.*]] = llvm.extractvalue %[[D]][1]
// CHECK-DAG:     %[[C5:.*]] = llvm.mlir.constant(5) : i64
// CHECK-DAG:     %[[C3:.*]] = llvm.mlir.constant(3) : i64
// CHECK-DAG:     %[[C2:.*]] = llvm.mlir.constant(2) : i64
// CHECK-DAG:     %[[C1:.*]] = llvm.mlir.constant(1) : i64
// CHECK:         llvm.insertvalue %[[ALLOC]], %{{.*}}[0]
// CHECK-NEXT:    llvm.insertvalue %[[ALIGN]], %{{.*}}[1]
// CHECK-NEXT:    llvm.insertvalue %[[C5]], %{{.*}}[2]
// CHECK-NEXT:    llvm.insertvalue %[[C3]], %{{.*}}[3, 0]
// CHECK-NEXT:    llvm.insertvalue %[[C2]], %{{.*}}[3, 1]
// CHECK-NEXT:    llvm.insertvalue %[[C1]], %{{.*}}[4, 0]
// CHECK-NEXT:    llvm.insertvalue %[[C3]], %{{.*}}[4, 1]
// CHECK-NOT:     memref.reinterpret_cast
func.func @transposed(%m: memref<2x3xf32, strided<[3, 1], offset: 5>>) -> memref<3x2xf32, strided<[1, 3], offset: 5>> {
  %t = memref.reinterpret_cast %m to offset: [5], sizes: [3, 2], strides: [1, 3] : memref<2x3xf32, strided<[3, 1], offset: 5>> to memref<3x2xf32, strided<[1, 3], offset: 5>>
  return %t : memref<3x2xf32, strided<[1, 3], offset: 5>>
}
