// RUN: mg-opt %s -p convert-arith-to-llvm | filecheck %s

// CHECK-LABEL: func.func @floats
func.func @floats(%a: f64, %b: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
  // CHECK:      %zero = llvm.mlir.constant(0.000000e+00 : f64) : f64
  // CHECK-NEXT: %s = llvm.fadd %a, %b : f64
  // CHECK-NEXT: %d = llvm.fsub %a, %b : f64
  // CHECK-NEXT: %p = llvm.fmul %a, %b {fastmathFlags = #llvm.fastmath<fast>} : f64
  // CHECK-NEXT: %q = llvm.fdiv %a, %b : f64
  // CHECK-NEXT: %n = llvm.fneg %a : f64
  // CHECK-NEXT: %r = llvm.call_intrinsic "llvm.maximum.f64"(%s, %zero) : (f64, f64) -> f64
  // CHECK-NEXT: %m = llvm.call_intrinsic "llvm.minimum.f64"(%s, %zero) : (f64, f64) -> f64
  // CHECK-NEXT: %x = llvm.call_intrinsic "llvm.maxnum.f64"(%a, %b) : (f64, f64) -> f64
  // Fast-math flags carry over to the intrinsic call (vectorize-reductions' nsz maxima).
  // CHECK-NEXT: %z = llvm.call_intrinsic "llvm.maximum.f64"(%a, %b) {fastmathFlags = #llvm.fastmath<nsz>} : (f64, f64) -> f64
  // CHECK-NEXT: %lt = llvm.fcmp "olt" %a, %b : f64
  // CHECK-NEXT: %sel = llvm.select %lt, %a, %b : i1, f64
  %zero = arith.constant 0.0 : f64
  %s = arith.addf %a, %b : f64
  %d = arith.subf %a, %b : f64
  %p = arith.mulf %a, %b fastmath<fast> : f64
  %q = arith.divf %a, %b : f64
  %n = arith.negf %a : f64
  %r = arith.maximumf %s, %zero : f64
  %m = arith.minimumf %s, %zero : f64
  %x = arith.maxnumf %a, %b : f64
  %z = arith.maximumf %a, %b fastmath<nsz> : f64
  %lt = arith.cmpf olt, %a, %b : f64
  %sel = arith.select %lt, %a, %b : f64
  // CHECK-NOT: arith.
  // CHECK: func.return
  return %d, %p, %q, %n, %r, %m, %x, %sel, %zero, %z : f64, f64, f64, f64, f64, f64, f64, f64, f64, f64
}

// `index` becomes i64; the results are cast back for func.return, not converted yet.
// CHECK-LABEL: func.func @indices
func.func @indices(%i: index, %j: index) -> (index, index, index, i1) {
  // CHECK:      %c3 = llvm.mlir.constant(3) : i64
  // CHECK-NEXT: %i_1 = builtin.unrealized_conversion_cast %i : index to i64
  // CHECK-NEXT: %x = llvm.mul %i_1, %c3 : i64
  // CHECK-NEXT: %j_1 = builtin.unrealized_conversion_cast %j : index to i64
  // CHECK-NEXT: %y = llvm.add %x, %j_1 : i64
  // CHECK-NEXT: %y_1 = builtin.unrealized_conversion_cast %y : i64 to index
  // CHECK-NEXT: %r = llvm.srem %y, %c3 : i64
  %c3 = arith.constant 3 : index
  %x = arith.muli %i, %c3 : index
  %y = arith.addi %x, %j : index
  %r = arith.remsi %y, %c3 : index
  // floordiv: sdiv, minus one where inexact and the signs differ
  // CHECK:      %[[Q:.*]] = llvm.sdiv %y, %c3 : i64
  // CHECK-NEXT: %[[R:.*]] = llvm.srem %y, %c3 : i64
  // CHECK:      %[[INEXACT:.*]] = llvm.icmp "ne" %[[R]], %{{.*}} : i64
  // CHECK:      %[[DIFFER:.*]] = llvm.icmp "ne" %{{.*}}, %{{.*}} : i1
  // CHECK-NEXT: %[[FIX:.*]] = llvm.and %[[INEXACT]], %[[DIFFER]] : i1
  // CHECK-NEXT: %[[LOWER:.*]] = llvm.sub %[[Q]], %{{.*}} : i64
  // CHECK-NEXT: %f = llvm.select %[[FIX]], %[[LOWER]], %[[Q]] : i1, i64
  %f = arith.floordivsi %y, %c3 : index
  // CHECK-NEXT: %f_1 = builtin.unrealized_conversion_cast %f : i64 to index
  // CHECK-NEXT: %lt = llvm.icmp "slt" %f, %r : i64
  %lt = arith.cmpi slt, %f, %r : index
  // CHECK-NEXT: func.return %y_1, %r_1, %f_1, %lt : index, index, index, i1
  return %y, %r, %f, %lt : index, index, index, i1
}

// CHECK-LABEL: func.func @casts
func.func @casts(%i: index, %k: i32, %x: f64) -> (i32, index, f64, f64, i64, f32, i1) {
  // CHECK:      %a = llvm.trunc %{{.*}} : i64 to i32
  // CHECK:      %b = llvm.sext %k : i32 to i64
  // CHECK-NEXT: %b_1 = builtin.unrealized_conversion_cast %b : i64 to index
  // CHECK-NEXT: %c = llvm.sitofp %k : i32 to f64
  // uitofp: zero-extended one bit wider, the value is a non-negative signed one
  // CHECK-NEXT: %[[W:.*]] = llvm.zext %k : i32 to i33
  // CHECK-NEXT: %d = llvm.sitofp %[[W]] : i33 to f64
  // CHECK-NEXT: %e = llvm.call_intrinsic "llvm.fptosi.sat.i64.f64"(%x) : (f64) -> i64
  // CHECK-NEXT: %f = llvm.fptrunc %x : f64 to f32
  // CHECK-NEXT: %t = llvm.mlir.constant(true) : i1
  %a = arith.index_cast %i : index to i32
  %b = arith.index_cast %k : i32 to index
  %c = arith.sitofp %k : i32 to f64
  %d = arith.uitofp %k : i32 to f64
  %e = arith.fptosi %x : f64 to i64
  %f = arith.truncf %x : f64 to f32
  %t = arith.constant true
  return %a, %b, %c, %d, %e, %f, %t : i32, index, f64, f64, i64, f32, i1
}

// Integer ops on 1-D vectors (stream-large-results' loops of i32 and i64): add/sub/mul as
// for scalars, the maxima and minima as LLVM's vector intrinsics.
// CHECK-LABEL: func.func @integer_vectors
func.func @integer_vectors(%a: vector<8xi32>, %b: vector<8xi32>) -> (vector<8xi32>, vector<8xi32>, vector<8xi32>) {
  // CHECK-NEXT: %s = llvm.add %a, %b : vector<8xi32>
  // CHECK-NEXT: %m = llvm.mul %s, %b : vector<8xi32>
  // CHECK-NEXT: %x = llvm.call_intrinsic "llvm.smax.v8i32"(%m, %a) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>
  // CHECK-NEXT: %y = llvm.call_intrinsic "llvm.umin.v8i32"(%x, %a) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>
  %s = arith.addi %a, %b : vector<8xi32>
  %m = arith.muli %s, %b : vector<8xi32>
  %x = arith.maxsi %m, %a : vector<8xi32>
  %y = arith.minui %x, %a : vector<8xi32>
  func.return %s, %x, %y : vector<8xi32>, vector<8xi32>, vector<8xi32>
}
