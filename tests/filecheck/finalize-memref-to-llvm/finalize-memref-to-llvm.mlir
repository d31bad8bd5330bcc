// RUN: mg-opt %s -p finalize-memref-to-llvm | filecheck %s

// malloc and free are declared once, at the top of the module.
// CHECK:      llvm.func @free(!llvm.ptr)
// CHECK-NEXT: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-NOT:  llvm.func @malloc

// CHECK-LABEL: func.func @static
func.func @static(%x: memref<2x3xf64>, %i: index, %j: index) {
  // 2x3 f64: 48 bytes; allocated = aligned, offset 0, sizes [2, 3], strides [3, 1].
  // CHECK:      %[[C2:.*]] = llvm.mlir.constant(2) : i64
  // CHECK-NEXT: %[[C3:.*]] = llvm.mlir.constant(3) : i64
  // CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1) : i64
  // CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.constant(48) : i64
  // CHECK-NEXT: %[[P:.*]] = llvm.call @malloc(%[[BYTES]]) : (i64) -> !llvm.ptr
  // CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0) : i64
  // CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  // CHECK-NEXT: %[[D0:.*]] = llvm.insertvalue %[[P]], %[[U]][0]
  // CHECK-NEXT: %[[D1:.*]] = llvm.insertvalue %[[P]], %[[D0]][1]
  // CHECK-NEXT: %[[D2:.*]] = llvm.insertvalue %[[C0]], %[[D1]][2]
  // CHECK-NEXT: %[[D3:.*]] = llvm.insertvalue %[[C2]], %[[D2]][3, 0]
  // CHECK-NEXT: %[[D4:.*]] = llvm.insertvalue %[[C3]], %[[D3]][3, 1]
  // CHECK-NEXT: %[[D5:.*]] = llvm.insertvalue %[[C3]], %[[D4]][4, 0]
  // CHECK-NEXT: %a = llvm.insertvalue %[[C1]], %[[D5]][4, 1]
  %a = memref.alloc() : memref<2x3xf64>
  // x[i, j]: the aligned pointer advanced by i*3 + j.
  // CHECK:      %[[X:.*]] = builtin.unrealized_conversion_cast %x : memref<2x3xf64> to !llvm.struct<{{.*}}>
  // CHECK-NEXT: %[[XP:.*]] = llvm.extractvalue %[[X]][1]
  // CHECK-NEXT: %[[I:.*]] = builtin.unrealized_conversion_cast %i : index to i64
  // CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(3) : i64
  // CHECK-NEXT: %[[IS:.*]] = llvm.mul %[[I]], %[[S]] : i64
  // CHECK-NEXT: %[[J:.*]] = builtin.unrealized_conversion_cast %j : index to i64
  // CHECK-NEXT: %[[L:.*]] = llvm.add %[[IS]], %[[J]] : i64
  // CHECK-NEXT: %[[G:.*]] = llvm.getelementptr inbounds %[[XP]][%[[L]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %v = llvm.load %[[G]] : !llvm.ptr -> f64
  %v = memref.load %x[%i, %j] : memref<2x3xf64>
  // CHECK:      %[[AP:.*]] = llvm.extractvalue %a[1]
  // CHECK:      %[[G2:.*]] = llvm.getelementptr inbounds %[[AP]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: llvm.store %v, %[[G2]] : f64, !llvm.ptr
  memref.store %v, %a[%i, %j] : memref<2x3xf64>
  // Freeing takes the allocated pointer, field 0.
  // CHECK:      %[[AL:.*]] = llvm.extractvalue %a[0]
  // CHECK-NEXT: llvm.call @free(%[[AL]]) : (!llvm.ptr) -> ()
  memref.dealloc %a : memref<2x3xf64>
  return
}

// Constant indices: their terms are summed here into one constant, with the static offset.
// CHECK-LABEL: func.func @constant_indices
func.func @constant_indices(%x: memref<2x3xf64, strided<[3, 1], offset: 5>>, %j: index) -> (f64, f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // x[0, j]: 5 + j (no product of 0 and 3).
  // CHECK:      %[[XP:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK-NEXT: %[[J:.*]] = builtin.unrealized_conversion_cast %j : index to i64
  // CHECK-NEXT: %[[K5:.*]] = llvm.mlir.constant(5) : i64
  // CHECK-NEXT: %[[L:.*]] = llvm.add %[[J]], %[[K5]] : i64
  // CHECK-NEXT: %[[G:.*]] = llvm.getelementptr inbounds %[[XP]][%[[L]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %a = llvm.load %[[G]] : !llvm.ptr -> f64
  %a = memref.load %x[%c0, %j] : memref<2x3xf64, strided<[3, 1], offset: 5>>
  // x[1, 1]: one constant, 5 + 3 + 1.
  // CHECK:      %[[XP2:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK-NEXT: %[[K9:.*]] = llvm.mlir.constant(9) : i64
  // CHECK-NEXT: %[[G2:.*]] = llvm.getelementptr inbounds %[[XP2]][%[[K9]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK-NEXT: %b = llvm.load %[[G2]] : !llvm.ptr -> f64
  %b = memref.load %x[%c1, %c1] : memref<2x3xf64, strided<[3, 1], offset: 5>>
  // x[1, 1] of an identity layout at offset 0: 3 + 1; x[0, 0] is the aligned pointer itself.
  // CHECK:      %[[K4:.*]] = llvm.mlir.constant(4) : i64
  // CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[%[[K4]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
  // CHECK:      %[[YP:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK-NEXT: %c = llvm.load %[[YP]] : !llvm.ptr -> f64
  %y = memref.alloc() : memref<2x3xf64>
  memref.store %b, %y[%c1, %c1] : memref<2x3xf64>
  %c = memref.load %y[%c0, %c0] : memref<2x3xf64>
  memref.dealloc %y : memref<2x3xf64>
  return %a, %b, %c : f64, f64, f64
}

// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%m: index, %n: index, %i: index, %j: index) -> (index, index, index) {
  // Sizes [m, n], strides [n, 1], m*n*8 bytes.
  // CHECK:      %[[M:.*]] = builtin.unrealized_conversion_cast %m : index to i64
  // CHECK-NEXT: %[[N:.*]] = builtin.unrealized_conversion_cast %n : index to i64
  // CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1) : i64
  // CHECK-NEXT: %[[COUNT:.*]] = llvm.mul %[[N]], %[[M]] : i64
  // CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8) : i64
  // CHECK-NEXT: %[[BYTES:.*]] = llvm.mul %[[COUNT]], %[[EIGHT]] : i64
  // CHECK-NEXT: %[[P:.*]] = llvm.call @malloc(%[[BYTES]]) : (i64) -> !llvm.ptr
  // CHECK:      llvm.insertvalue %[[M]], %{{.*}}[3, 0]
  // CHECK-NEXT: llvm.insertvalue %[[N]], %{{.*}}[3, 1]
  // CHECK-NEXT: llvm.insertvalue %[[N]], %{{.*}}[4, 0]
  // CHECK-NEXT: %d = llvm.insertvalue %[[ONE]], %{{.*}}[4, 1]
  %d = memref.alloc(%m, %n) : memref<?x?xf64>
  // A dynamic stride is read from the descriptor.
  // CHECK:      %[[ST:.*]] = llvm.extractvalue %d[4, 0]
  // CHECK-NEXT: %[[IS:.*]] = llvm.mul %{{.*}}, %[[ST]] : i64
  // CHECK-NEXT: %[[J:.*]] = builtin.unrealized_conversion_cast %j : index to i64
  // CHECK-NEXT: %[[L:.*]] = llvm.add %[[IS]], %[[J]] : i64
  // CHECK-NEXT: llvm.getelementptr inbounds %{{.*}}[%[[L]]]
  %v = memref.load %d[%i, %j] : memref<?x?xf64>
  // dim with a constant index: the size field; with a static size: a constant.
  // CHECK:      %k = llvm.extractvalue %d[3, 1]
  %c1 = arith.constant 1 : index
  %k = memref.dim %d, %c1 : memref<?x?xf64>
  // dim with an index known only at run time: the sizes array spilled and indexed.
  // CHECK:      %[[SZ:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
  // CHECK-NEXT: %[[ARR:.*]] = llvm.extractvalue %d[3]
  // CHECK-NEXT: llvm.store %[[ARR]], %[[SZ]] : !llvm.array<2 x i64>, !llvm.ptr
  // CHECK:      %[[GP:.*]] = llvm.getelementptr %[[SZ]][0, %{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<2 x i64>
  // CHECK-NEXT: %l = llvm.load %[[GP]] : !llvm.ptr -> i64
  %l = memref.dim %d, %i : memref<?x?xf64>
  %s = memref.alloc(%m) : memref<4x?xf64>
  // CHECK:      %o = llvm.mlir.constant(4) : i64
  %c0 = arith.constant 0 : index
  %o = memref.dim %s, %c0 : memref<4x?xf64>
  return %k, %l, %o : index, index, index
}

// CHECK-LABEL: func.func @aligned
func.func @aligned() -> memref<4xf32> {
  // 16 bytes plus the alignment; the pointer is rounded up for the aligned field.
  // CHECK:      %[[B:.*]] = llvm.mlir.constant(16) : i64
  // CHECK-NEXT: %[[A64:.*]] = llvm.mlir.constant(64) : i64
  // CHECK-NEXT: %[[TOTAL:.*]] = llvm.add %[[B]], %[[A64]] : i64
  // CHECK-NEXT: %[[P:.*]] = llvm.call @malloc(%[[TOTAL]])
  // CHECK-NEXT: %[[INT:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
  // CHECK:      %[[UP:.*]] = llvm.and %{{.*}}, %{{.*}} : i64
  // CHECK-NEXT: %[[AL:.*]] = llvm.inttoptr %[[UP]] : i64 to !llvm.ptr
  // CHECK:      llvm.insertvalue %[[P]], %{{.*}}[0]
  // CHECK-NEXT: llvm.insertvalue %[[AL]], %{{.*}}[1]
  %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  return %a : memref<4xf32>
}

// CHECK-LABEL: func.func @stack_and_casts
func.func @stack_and_casts() -> f64 {
  // CHECK:      %[[N:.*]] = llvm.mlir.constant(3) : i64
  // CHECK:      %[[P:.*]] = llvm.alloca %[[N]] x f64 : (i64) -> !llvm.ptr
  // CHECK:      llvm.insertvalue %[[P]], %{{.*}}[0]
  // CHECK-NEXT: llvm.insertvalue %[[P]], %{{.*}}[1]
  %a = memref.alloca() : memref<3xf64>
  // To unranked: the descriptor goes on the stack, {rank, ptr} points at it.
  // CHECK:      %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)> : (i64) -> !llvm.ptr
  // CHECK-NEXT: llvm.store %a, %[[SLOT]]
  // CHECK-NEXT: %[[RANK:.*]] = llvm.mlir.constant(1) : i64
  // CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i64, !llvm.ptr)>
  // CHECK-NEXT: %[[U0:.*]] = llvm.insertvalue %[[RANK]], %[[U]][0] : !llvm.struct<(i64, !llvm.ptr)>
  // CHECK-NEXT: %u = llvm.insertvalue %[[SLOT]], %[[U0]][1] : !llvm.struct<(i64, !llvm.ptr)>
  %u = "memref.cast"(%a) : (memref<3xf64>) -> memref<*xf64>
  // Back to ranked: load the descriptor it points at.
  // CHECK-NEXT: %[[BP:.*]] = llvm.extractvalue %u[1] : !llvm.struct<(i64, !llvm.ptr)>
  // CHECK-NEXT: %r = llvm.load %[[BP]] : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
  %r = "memref.cast"(%u) : (memref<*xf64>) -> memref<3xf64>
  // Rank 0: no index arithmetic, the aligned pointer itself.
  // CHECK:      %[[ZP:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
  // CHECK-NEXT: %z = llvm.load %[[ZP]] : !llvm.ptr -> f64
  %s = memref.alloca() : memref<f64>
  %z = memref.load %s[] : memref<f64>
  return %z : f64
}

// A global: a flat array with a flat initializer; its descriptor has the 0xdeadbeef sentinel
// as allocated pointer and the global's address as aligned pointer.
// CHECK-LABEL: func.func @global
func.func @global() -> memref<2x3xf64> {
  // CHECK:      %[[ADDR:.*]] = llvm.mlir.addressof @cst : !llvm.ptr
  // CHECK-NEXT: %[[BEEF:.*]] = llvm.mlir.constant(3735928559) : i64
  // CHECK-NEXT: %[[SENT:.*]] = llvm.inttoptr %[[BEEF]] : i64 to !llvm.ptr
  // CHECK:      llvm.insertvalue %[[SENT]], %{{.*}}[0]
  // CHECK-NEXT: llvm.insertvalue %[[ADDR]], %{{.*}}[1]
  %g = memref.get_global @cst : memref<2x3xf64>
  return %g : memref<2x3xf64>
}
// CHECK:      llvm.mlir.global private constant @cst(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf64>) {addr_space = 0 : i32} : !llvm.array<6 x f64>
"memref.global"() <{sym_name = "cst", sym_visibility = "private", type = memref<2x3xf64>, initial_value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>, constant}> : () -> ()
// A public, uninitialized global is zero-filled.
// CHECK:      llvm.mlir.global external @buf(dense<0.000000e+00> : tensor<4xf64>) {addr_space = 0 : i32} : !llvm.array<4 x f64>
"memref.global"() <{sym_name = "buf", sym_visibility = "public", type = memref<4xf64>, initial_value}> : () -> ()

// memref.copy: one memcpy of the element count times the element size.
// CHECK-LABEL: func.func @copy
// CHECK:       llvm.call_intrinsic "llvm.memcpy.p0.p0.i64"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i1) -> ()
func.func @copy(%a: memref<?xf64>, %b: memref<?xf64>) {
  "memref.copy"(%a, %b) : (memref<?xf64>, memref<?xf64>) -> ()
  return
}
