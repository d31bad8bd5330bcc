// RUN: mg-opt %s -p convert-func-to-llvm | filecheck %s
// (multiple-results-upstream.mlir checks the UPSTREAM lines against mlir-opt-22's output.)

// Functions of several memref results (a def that returns `a, b`), as upstream MLIR lowers
// them: the results are returned as a struct of their descriptors; the C interface
// `_mlir_ciface_NAME` takes a pointer to that struct first, then a pointer to each memref
// argument's descriptor, and stores the struct through the first pointer. The UPSTREAM lines
// check the same shape in mlir-opt-22's output (it spells struct members without `!llvm.`).

// CHECK:      llvm.func @f(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64)
// CHECK-SAME:   -> !llvm.struct<(!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>)> attributes {llvm.emit_c_interface} {
// CHECK:        %[[X:.*]] = llvm.insertvalue %{{.*}}[4, 1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK:        %[[Y:.*]] = llvm.insertvalue %{{.*}}[2] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
// CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.struct<{{.*}}>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>)>
// CHECK-NEXT:   %[[R0:.*]] = llvm.insertvalue %[[X]], %[[U]][0]
// CHECK-NEXT:   %[[R:.*]] = llvm.insertvalue %[[Y]], %[[R0]][1]
// CHECK-NEXT:   llvm.return %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @_mlir_ciface_f(%[[RES:.*]]: !llvm.ptr, %[[XP:.*]]: !llvm.ptr, %[[YP:.*]]: !llvm.ptr) attributes {llvm.emit_c_interface} {
// CHECK-NEXT:   %[[XD:.*]] = llvm.load %[[XP]] : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:   %[[YD:.*]] = llvm.load %[[YP]] : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
// CHECK-COUNT-7: llvm.extractvalue %[[XD]]
// CHECK-COUNT-3: llvm.extractvalue %[[YD]]
// CHECK-NEXT:   %[[C:.*]] = llvm.call @f({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> !llvm.struct<(!llvm.struct<{{.*}}>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>)>
// CHECK-NEXT:   llvm.store %[[C]], %[[RES]] : !llvm.struct<(!llvm.struct<{{.*}}>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>)>, !llvm.ptr
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }
// UPSTREAM:      llvm.func @f({{.*}}) -> !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, struct<(ptr, ptr, i64)>)> attributes {llvm.emit_c_interface} {
// UPSTREAM:      llvm.func @_mlir_ciface_f(%[[RES:.*]]: !llvm.ptr, %[[XP:.*]]: !llvm.ptr, %[[YP:.*]]: !llvm.ptr) attributes {llvm.emit_c_interface} {
// UPSTREAM:        llvm.load %[[XP]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// UPSTREAM:        llvm.load %[[YP]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64)>
// UPSTREAM:        %[[C:.*]] = llvm.call @f({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64) -> !llvm.struct<(struct<{{.*}}>, struct<(ptr, ptr, i64)>)>
// UPSTREAM-NEXT:   llvm.store %[[C]], %[[RES]] : !llvm.struct<(struct<{{.*}}>, struct<(ptr, ptr, i64)>)>, !llvm.ptr
// UPSTREAM-NEXT:   llvm.return
func.func @f(%x: memref<?x3xf64>, %y: memref<f64>) -> (memref<?x3xf64>, memref<f64>) attributes {llvm.emit_c_interface} {
  return %x, %y : memref<?x3xf64>, memref<f64>
}

// A call unpacks the struct of results.
// CHECK-LABEL: llvm.func @g(
// CHECK:        %[[S:.*]] = llvm.call @f({{.*}}) : ({{.*}}) -> !llvm.struct<(!llvm.struct<{{.*}}>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>)>
// CHECK-NEXT:   %{{.*}} = llvm.extractvalue %[[S]][0] : !llvm.struct<{{.*}}>
// CHECK-NEXT:   %[[B:.*]] = llvm.extractvalue %[[S]][1] : !llvm.struct<{{.*}}>
// CHECK-NEXT:   llvm.return %[[B]] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
// UPSTREAM-LABEL: llvm.func @g(
// UPSTREAM:        %[[S:.*]] = llvm.call @f({{.*}}) -> !llvm.struct<(struct<{{.*}}>, struct<(ptr, ptr, i64)>)>
// UPSTREAM-NEXT:   llvm.extractvalue %[[S]][0]
// UPSTREAM-NEXT:   %[[B:.*]] = llvm.extractvalue %[[S]][1]
// UPSTREAM-NEXT:   llvm.return %[[B]] : !llvm.struct<(ptr, ptr, i64)>
func.func @g(%x: memref<?x3xf64>, %y: memref<f64>) -> memref<f64> {
  %a:2 = func.call @f(%x, %y) : (memref<?x3xf64>, memref<f64>) -> (memref<?x3xf64>, memref<f64>)
  return %a#1 : memref<f64>
}

// An external function of several results: the thunk passes a stack slot for the struct
// first and loads the results from it.
// CHECK-LABEL: llvm.func private @e(
// CHECK:        %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(!llvm.struct<{{.*}}>, f64)> : (i64) -> !llvm.ptr
// CHECK:        llvm.call @_mlir_ciface_e(%[[SLOT]], %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:   %[[L:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.struct<(!llvm.struct<{{.*}}>, f64)>
// CHECK-NEXT:   llvm.return %[[L]]
// CHECK:      llvm.func @_mlir_ciface_e(!llvm.ptr, !llvm.ptr)
// UPSTREAM-LABEL: llvm.func private @e(
// UPSTREAM:        %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(struct<{{.*}}>, f64)> : (i64) -> !llvm.ptr
// UPSTREAM:        llvm.call @_mlir_ciface_e(%[[SLOT]], %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// UPSTREAM-NEXT:   %[[L:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.struct<(struct<{{.*}}>, f64)>
// UPSTREAM-NEXT:   llvm.return %[[L]]
// UPSTREAM:      llvm.func @_mlir_ciface_e(!llvm.ptr, !llvm.ptr)
func.func private @e(%x: memref<?x3xf64>) -> (memref<?x3xf64>, f64) attributes {llvm.emit_c_interface}
