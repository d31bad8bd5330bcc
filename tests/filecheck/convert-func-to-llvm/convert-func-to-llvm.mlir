// RUN: mg-opt %s -p convert-func-to-llvm | filecheck %s

// A ranked memref argument expands into (allocated, aligned, offset, sizes..., strides...),
// repacked into the descriptor at the top of the entry block; a memref result is returned as
// the descriptor struct.
// CHECK:      llvm.func @layer(%[[AL:.*]]: !llvm.ptr, %[[AG:.*]]: !llvm.ptr, %[[OFF:.*]]: i64, %[[S0:.*]]: i64, %[[S1:.*]]: i64, %[[T0:.*]]: i64, %[[T1:.*]]: i64, %i: i64)
// CHECK-SAME:   -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)> attributes {llvm.emit_c_interface} {
// CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:   %[[D0:.*]] = llvm.insertvalue %[[AL]], %[[U]][0]
// CHECK-NEXT:   %[[D1:.*]] = llvm.insertvalue %[[AG]], %[[D0]][1]
// CHECK-NEXT:   %[[D2:.*]] = llvm.insertvalue %[[OFF]], %[[D1]][2]
// CHECK-NEXT:   %[[D3:.*]] = llvm.insertvalue %[[S0]], %[[D2]][3, 0]
// CHECK-NEXT:   %[[D4:.*]] = llvm.insertvalue %[[S1]], %[[D3]][3, 1]
// CHECK-NEXT:   %[[D5:.*]] = llvm.insertvalue %[[T0]], %[[D4]][4, 0]
// CHECK-NEXT:   %[[D:.*]] = llvm.insertvalue %[[T1]], %[[D5]][4, 1]
// The arguments are cast back for the op not converted yet.
// CHECK-NEXT:   %x = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<{{.*}}> to memref<2x3xf64>
// CHECK-NEXT:   %i_1 = builtin.unrealized_conversion_cast %i : i64 to index
// CHECK-NEXT:   %v = memref.load %x[%i_1, %i_1] : memref<2x3xf64>
// CHECK-NEXT:   llvm.return %[[D]] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT: }
// The C wrapper: the result through a first pointer, each memref as a pointer to its descriptor.
// CHECK-NEXT: llvm.func @_mlir_ciface_layer(%[[RES:.*]]: !llvm.ptr, %[[XP:.*]]: !llvm.ptr, %[[IW:.*]]: i64) attributes {llvm.emit_c_interface} {
// CHECK-NEXT:   %[[X:.*]] = llvm.load %[[XP]] : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:   %[[F0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-NEXT:   %[[F1:.*]] = llvm.extractvalue %[[X]][1]
// CHECK-NEXT:   %[[F2:.*]] = llvm.extractvalue %[[X]][2]
// CHECK-NEXT:   %[[F3:.*]] = llvm.extractvalue %[[X]][3, 0]
// CHECK-NEXT:   %[[F4:.*]] = llvm.extractvalue %[[X]][3, 1]
// CHECK-NEXT:   %[[F5:.*]] = llvm.extractvalue %[[X]][4, 0]
// CHECK-NEXT:   %[[F6:.*]] = llvm.extractvalue %[[X]][4, 1]
// CHECK-NEXT:   %[[R:.*]] = llvm.call @layer(%[[F0]], %[[F1]], %[[F2]], %[[F3]], %[[F4]], %[[F5]], %[[F6]], %[[IW]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64) -> !llvm.struct<{{.*}}>
// CHECK-NEXT:   llvm.store %[[R]], %[[RES]] : !llvm.struct<{{.*}}>, !llvm.ptr
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }
func.func @layer(%x: memref<2x3xf64>, %i: index) -> memref<2x3xf64> attributes {llvm.emit_c_interface} {
  %v = memref.load %x[%i, %i] : memref<2x3xf64>
  return %x : memref<2x3xf64>
}

// An external function takes an unranked memref as (rank, pointer).
// CHECK:      llvm.func @printMemrefF64(i64, !llvm.ptr) attributes {sym_visibility = "private"}
func.func private @printMemrefF64(memref<*xf64>)

// An external C function: the thunk stores the descriptor on the stack and calls the C symbol.
// CHECK:      llvm.func private @ext(%[[P0:.*]]: !llvm.ptr, %[[P1:.*]]: !llvm.ptr, %[[P2:.*]]: i64, %[[P3:.*]]: i64, %[[P4:.*]]: i64, %[[N:.*]]: i64) -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// CHECK:        %[[RESP:.*]] = llvm.alloca %{{.*}} x !llvm.struct<{{.*}}> : (i64) -> !llvm.ptr
// CHECK:        %[[ARGP:.*]] = llvm.alloca %{{.*}} x !llvm.struct<{{.*}}> : (i64) -> !llvm.ptr
// CHECK-NEXT:   llvm.store %{{.*}}, %[[ARGP]]
// CHECK-NEXT:   llvm.call @_mlir_ciface_ext(%[[RESP]], %[[ARGP]], %[[N]]) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-NEXT:   %[[OUT:.*]] = llvm.load %[[RESP]]
// CHECK-NEXT:   llvm.return %[[OUT]]
// CHECK:      llvm.func @_mlir_ciface_ext(!llvm.ptr, !llvm.ptr, i64)
func.func private @ext(memref<?xf64>, index) -> memref<?xf64> attributes {llvm.emit_c_interface}

// Several results are returned as a struct of them; a scalar result of the C wrapper stays
// a return value.
// CHECK:      llvm.func @pair(%a: i64, %b: f64) -> !llvm.struct<(i64, f64)> {
// CHECK-NEXT:   %[[U2:.*]] = llvm.mlir.undef : !llvm.struct<(i64, f64)>
// CHECK-NEXT:   %[[P:.*]] = llvm.insertvalue %a, %[[U2]][0] : !llvm.struct<(i64, f64)>
// CHECK-NEXT:   %[[Q:.*]] = llvm.insertvalue %b, %[[P]][1] : !llvm.struct<(i64, f64)>
// CHECK-NEXT:   llvm.return %[[Q]] : !llvm.struct<(i64, f64)>
func.func @pair(%a: index, %b: f64) -> (index, f64) {
  return %a, %b : index, f64
}
// CHECK:      llvm.func @scalar(%{{.*}}: f64) -> f64 attributes {llvm.emit_c_interface}
// CHECK:      llvm.func @_mlir_ciface_scalar(%[[S:.*]]: f64) -> f64 attributes {llvm.emit_c_interface} {
// CHECK-NEXT:   %[[SR:.*]] = llvm.call @scalar(%[[S]]) : (f64) -> f64
// CHECK-NEXT:   llvm.return %[[SR]] : f64
func.func @scalar(%a: f64) -> f64 attributes {llvm.emit_c_interface} {
  return %a : f64
}

// Calls expand memref operands the same way and unpack a struct of results.
// CHECK-LABEL: llvm.func @main
// CHECK:        %[[UD:.*]] = llvm.insertvalue %{{.*}}[1] : !llvm.struct<(i64, !llvm.ptr)>
// CHECK:        %[[RK:.*]] = llvm.extractvalue %[[UD]][0] : !llvm.struct<(i64, !llvm.ptr)>
// CHECK-NEXT:   %[[PT:.*]] = llvm.extractvalue %[[UD]][1] : !llvm.struct<(i64, !llvm.ptr)>
// CHECK-NEXT:   llvm.call @printMemrefF64(%[[RK]], %[[PT]]) : (i64, !llvm.ptr) -> ()
// CHECK:        %[[PR:.*]] = llvm.call @pair(%{{.*}}, %{{.*}}) : (i64, f64) -> !llvm.struct<(i64, f64)>
// CHECK-NEXT:   %m = llvm.extractvalue %[[PR]][0] : !llvm.struct<(i64, f64)>
// CHECK-NEXT:   %m_1 = llvm.extractvalue %[[PR]][1] : !llvm.struct<(i64, f64)>
// CHECK:        llvm.return
func.func @main(%u: memref<*xf64>, %c: index, %f: f64) {
  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  %m:2 = func.call @pair(%c, %f) : (index, f64) -> (index, f64)
  return
}
// CHECK-NOT: func.

// An argument nobody uses keeps no cast back.
// CHECK-LABEL: llvm.func @unused_argument(%{{.*}}: i64) {
// CHECK-NEXT:    llvm.return
func.func @unused_argument(%n: index) {
  return
}
