// convert-vector-to-llvm: the vector ops of the optimised pipeline in the LLVM dialect.
// RUN: mg-opt %s -p convert-vector-to-llvm | filecheck %s
// RUN: mg-opt %s -p convert-vector-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts | filecheck %s --check-prefix=LLVM

func.func @f(%m: memref<?x?xf64>, %i: index, %j: index, %x: f64) -> f64 {
  %v = vector.load %m[%i, %j] : memref<?x?xf64>, vector<8xf64>
  %s = vector.broadcast %x : f64 to vector<8xf64>
  %f = vector.fma %v, %s, %v : vector<8xf64>
  %a = arith.addf %f, %v : vector<8xf64>
  %mx = arith.maximumf %a, %f : vector<8xf64>
  vector.store %mx, %m[%i, %j] : memref<?x?xf64>, vector<8xf64>
  %r = vector.reduction <add>, %mx, %x : vector<8xf64> into f64
  %q = vector.reduction <maximumf>, %mx, %r : vector<8xf64> into f64
  %t = vector.reduction <add>, %mx, %q fastmath<reassoc> : vector<8xf64> into f64
  func.return %t : f64
}
// The element's address, as memref.load computes it: aligned pointer + i * stride + j.
// CHECK-LABEL: func.func @f(
// CHECK:       %[[P:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK:       %[[STRIDE:.*]] = llvm.extractvalue %{{.*}}[4, 0]
// CHECK-NEXT:  %[[ROW:.*]] = llvm.mul %{{.*}}, %[[STRIDE]] : i64
// CHECK-NEXT:  %[[J:.*]] = builtin.unrealized_conversion_cast %j : index to i64
// CHECK-NEXT:  %[[AT:.*]] = llvm.add %[[ROW]], %[[J]] : i64
// CHECK-NEXT:  %[[PTR:.*]] = llvm.getelementptr inbounds %[[P]][%[[AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// The alignment is the element's: a vector may start at any element.
// CHECK-NEXT:  %v = llvm.load %[[PTR]] {alignment = 8 : i64} : !llvm.ptr -> vector<8xf64>
// A broadcast is an insert into lane 0 and a shuffle that reads lane 0 everywhere.
// CHECK:       %[[U:.*]] = llvm.mlir.undef : vector<8xf64>
// CHECK-NEXT:  %[[L0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  %[[IN:.*]] = llvm.insertelement %x, %[[U]][%[[L0]] : i32] : vector<8xf64>
// CHECK-NEXT:  %s = llvm.shufflevector %[[IN]], %[[U]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<8xf64>
// CHECK-NEXT:  %f = llvm.intr.fma(%v, %s, %v) : (vector<8xf64>, vector<8xf64>, vector<8xf64>) -> vector<8xf64>
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<8xf64>, !llvm.ptr
// An ordered sum starting from the accumulator; a NaN-propagating maximum.
// CHECK:       %r = llvm.call_intrinsic "llvm.vector.reduce.fadd.v8f64"(%x, %mx) : (f64, vector<8xf64>) -> f64
// CHECK-NEXT:  %[[M:.*]] = llvm.call_intrinsic "llvm.vector.reduce.fmaximum.v8f64"(%mx) : (vector<8xf64>) -> f64
// CHECK-NEXT:  %q = llvm.call_intrinsic "llvm.maximum.f64"(%[[M]], %r) : (f64, f64) -> f64
// reassoc lets LLVM sum the lanes as a tree; the flag goes with the call.
// CHECK-NEXT:  %t = llvm.call_intrinsic "llvm.vector.reduce.fadd.v8f64"(%q, %mx) {fastmathFlags = #llvm.fastmath<reassoc>} : (f64, vector<8xf64>) -> f64

// Elementwise arith on vectors: convert-arith-to-llvm, with vector intrinsic names.
// LLVM-LABEL: llvm.func @f(
// LLVM:       llvm.fadd %{{.*}}, %{{.*}} : vector<8xf64>
// LLVM:       llvm.call_intrinsic "llvm.maximum.v8f64"(%{{.*}}, %{{.*}}) : (vector<8xf64>, vector<8xf64>) -> vector<8xf64>

// A non-temporal store keeps its flag and the alignment it states (LLVM emits a streaming
// store only where the address is aligned to the vector's size).
// CHECK-LABEL: func.func @streaming(
// CHECK:       llvm.store %v, %{{.*}} {alignment = 32 : i64, nontemporal} : vector<4xf64>, !llvm.ptr
func.func @streaming(%m: memref<?xf64>, %i: index, %v: vector<4xf64>) {
  vector.store %v, %m[%i] {alignment = 32 : i64, nontemporal = true} : memref<?xf64>, vector<4xf64>
  func.return
}

// A shuffle keeps its mask: lane i of the result is lane mask[i] of %a followed by %b (here
// the low halves of two rows interleaved, as tile-matmul's packing of A does); the result
// may be shorter than the operands.
// CHECK-LABEL: func.func @shuffle(
// CHECK:       %l = llvm.shufflevector %a, %b [0, 4, 1, 5] : vector<4xf64>
// CHECK-NEXT:  %s = llvm.shufflevector %l, %l [0, 1, 2] : vector<4xf64>
// CHECK-NEXT:  func.return %s : vector<3xf64>
func.func @shuffle(%a: vector<4xf64>, %b: vector<4xf64>) -> vector<3xf64> {
  %l = vector.shuffle %a, %b [0, 4, 1, 5] : vector<4xf64>, vector<4xf64>
  %s = vector.shuffle %l, %l [0, 1, 2] : vector<4xf64>, vector<4xf64>
  func.return %s : vector<3xf64>
}
