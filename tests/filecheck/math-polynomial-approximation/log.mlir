// math-polynomial-approximation: log. A subnormal x is scaled by 2^25 first; x = 2^k m with
// m in [sqrt(1/2), sqrt(2)) from the bits (adding 1 - sqrt(1/2) to the bits carries into
// the exponent exactly where m would pass sqrt(2)); f = m - 1, s = f / (2 + f),
// ln(1 + f) = f - (f^2/2 - s (f^2/2 + s^2 L(s^2))); then k ln2 in two parts, and the values
// at +inf, 0, below 0 and NaN.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @log_f32(%x: f32) -> f32 {
  %y = math.log %x : f32
  func.return %y : f32
}
// CHECK-LABEL: func.func @log_f32(
// CHECK-NOT:     math.log
// CHECK:         %[[TINY:.*]] = arith.cmpf olt, %x, %{{.*}} : f32
// CHECK:         %[[SCALED:.*]] = arith.select %[[TINY]], %{{.*}}, %x : f32
// CHECK-NEXT:    %[[BITS:.*]] = arith.bitcast %[[SCALED]] : f32 to i32
// CHECK-NEXT:    %[[OFFSET:.*]] = arith.constant 4913933 : i32
// CHECK-NEXT:    %[[MOVED:.*]] = arith.addi %[[BITS]], %[[OFFSET]] : i32
// CHECK-NEXT:    %[[C23:.*]] = arith.constant 23 : i32
// CHECK-NEXT:    arith.shrsi %[[MOVED]], %[[C23]] : i32
// CHECK:         %[[FRACTION:.*]] = arith.andi %[[MOVED]], %{{.*}} : i32
// CHECK-NEXT:    %[[SQRT_HALF:.*]] = arith.constant 1060439283 : i32
// CHECK-NEXT:    %[[M_BITS:.*]] = arith.addi %[[FRACTION]], %[[SQRT_HALF]] : i32
// CHECK-NEXT:    %[[M:.*]] = arith.bitcast %[[M_BITS]] : i32 to f32
// CHECK:         %[[F:.*]] = arith.subf %[[M]], %{{.*}} : f32
// CHECK:         %[[TWO_F:.*]] = arith.addf %{{.*}}, %[[F]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.divf %[[F]], %[[TWO_F]] : f32
// CHECK:         %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    %[[IS_INF:.*]] = arith.cmpf oeq, %x, %[[INF]] : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[IS_ZERO:.*]] = arith.cmpf oeq, %x, %[[ZERO]] : f32
// CHECK-NEXT:    %[[MINUS_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    %[[R1:.*]] = arith.select %[[IS_ZERO]], %[[MINUS_INF]], %{{.*}} : f32
// CHECK-NEXT:    %[[NEGATIVE:.*]] = arith.cmpf olt, %x, %[[ZERO]] : f32
// CHECK-NEXT:    %[[NAN:.*]] = arith.constant 0x7fc00000 : f32
// CHECK-NEXT:    %[[R2:.*]] = arith.select %[[NEGATIVE]], %[[NAN]], %[[R1]] : f32
// CHECK-NEXT:    %[[IS_NAN:.*]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:    %[[RESULT:.*]] = arith.select %[[IS_NAN]], %x, %[[R2]] : f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32

func.func @log_f64(%x: f64) -> f64 {
  %y = math.log %x : f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @log_f64(
// CHECK-NOT:     math.log
// CHECK:         arith.bitcast %{{.*}} : f64 to i64
// CHECK:         arith.constant 52 : i64
// CHECK:         arith.constant 4604544271217802189 : i64
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:         arith.cmpf uno, %x, %x : f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.select %{{.*}}, %x, %{{.*}} : f64
// CHECK-NEXT:    func.return %[[RESULT]] : f64
