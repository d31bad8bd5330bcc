// convert-math-to-llvm: LLVM's intrinsics (which LLVM compiles to an instruction or to the
// C library's function); rsqrt is 1 / sqrt; absi keeps the minimum (is_int_min_poison
// false).
// RUN: mg-opt %s -p convert-math-to-llvm | filecheck %s

func.func @f(%x: f64, %y: f32, %i: i32) -> (f64, f64, f32, i32) {
  %e = math.exp %x : f64
  %l = math.log %e : f64
  %t = math.tanh %l : f64
  %a = math.atan2 %t, %x : f64
  %p = math.powf %a, %x : f64
  %s = math.sin %p : f64
  %c = math.cos %s : f64
  %q = math.acos %c : f64
  %w = math.asin %q : f64
  %r = math.rsqrt %y : f32
  %b = math.absi %i : i32
  %f = math.absf %w : f64
  func.return %f, %q, %r, %b : f64, f64, f32, i32
}
// CHECK:      %e = llvm.call_intrinsic "llvm.exp.f64"(%x) : (f64) -> f64
// CHECK-NEXT: %l = llvm.call_intrinsic "llvm.log.f64"(%e) : (f64) -> f64
// CHECK-NEXT: %t = llvm.call_intrinsic "llvm.tanh.f64"(%l) : (f64) -> f64
// CHECK-NEXT: %a = llvm.call_intrinsic "llvm.atan2.f64"(%t, %x) : (f64, f64) -> f64
// CHECK-NEXT: %p = llvm.call_intrinsic "llvm.pow.f64"(%a, %x) : (f64, f64) -> f64
// CHECK-NEXT: %s = llvm.call_intrinsic "llvm.sin.f64"(%p) : (f64) -> f64
// CHECK-NEXT: %c = llvm.call_intrinsic "llvm.cos.f64"(%s) : (f64) -> f64
// CHECK-NEXT: %q = llvm.call_intrinsic "llvm.acos.f64"(%c) : (f64) -> f64
// CHECK-NEXT: %w = llvm.call_intrinsic "llvm.asin.f64"(%q) : (f64) -> f64
// CHECK-NEXT: %[[ROOT:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%y) : (f32) -> f32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT: %r = llvm.fdiv %[[ONE]], %[[ROOT]] : f32
// CHECK-NEXT: %[[NO:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT: %b = llvm.call_intrinsic "llvm.abs.i32"(%i, %[[NO]]) : (i32, i1) -> i32
// CHECK-NEXT: %f = llvm.call_intrinsic "llvm.fabs.f64"(%w) : (f64) -> f64
