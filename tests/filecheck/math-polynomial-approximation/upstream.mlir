// The expansion is plain arith and math.sqrt/absf/floor, which upstream MLIR lowers to
// LLVM: no call of the C library's exp, log, tanh, sin, cos, asin, acos, atan2 or pow is
// left (what --backend mlir receives, as math-polynomial-approximation runs before it).
// REQUIRES: mlir-opt
// RUN: mg-opt %s -p math-polynomial-approximation | mlir-opt-22 --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | filecheck %s

func.func @all(%x: f32, %y: f64) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
  %a = math.exp %x : f32
  %b = math.log %x : f32
  %c = math.tanh %x : f32
  %d = math.sin %x : f32
  %e = math.cos %x : f32
  %f = math.asin %x : f32
  %g = math.acos %x : f32
  %h = math.atan2 %x, %x : f32
  %i = math.powf %x, %x : f32
  %j = math.exp %y : f64
  %k = math.log %y : f64
  %l = math.tanh %y : f64
  %m = math.sin %y : f64
  %n = math.cos %y : f64
  %o = math.asin %y : f64
  %p = math.acos %y : f64
  %q = math.atan2 %y, %y : f64
  %r = math.powf %y, %y : f64
  func.return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l, %m, %n, %o, %p, %q, %r : f32, f32, f32, f32, f32, f32, f32, f32, f32, f64, f64, f64, f64, f64, f64, f64, f64, f64
}
// CHECK-LABEL: llvm.func @all(
// CHECK-NOT:     math.
// CHECK-NOT:     llvm.intr.{{exp|log|tanh|sin|cos|asin|acos|atan2|pow}}
// CHECK-NOT:     llvm.call
// CHECK:         llvm.intr.sqrt
// CHECK:         llvm.intr.floor
// CHECK:         llvm.return
