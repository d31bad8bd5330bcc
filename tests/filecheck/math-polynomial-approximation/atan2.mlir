// math-polynomial-approximation: atan2(y, x). q = |y| / |x| picks one of five intervals
// (breaks 7/16, 11/16, 19/16, 39/16, as fdlibm's atan): atan q = atan c + atan t,
// t = (q - c) / (1 + c q), or -|x|/|y| above 39/16; a polynomial in t^2; for f64 also the
// rounding error of q, added back to first order (scaled up where |y| < 2^-500, lest the
// exact product underflow). Then atan2(±0, ±0) = 0 and atan2(±inf, ±inf) = pi/4 before the
// quadrant: pi - a where x's sign bit is set, then y's sign.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @atan2_f64(%y: f64, %x: f64) -> f64 {
  %r = math.atan2 %y, %x : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @atan2_f64(
// CHECK-NOT:     math.atan2
// CHECK:         %[[AY:.*]] = math.absf %y : f64
// CHECK-NEXT:    %[[AX:.*]] = math.absf %x : f64
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[AY]], %[[AX]] : f64
// CHECK:         arith.constant 4.375000e-01 : f64
// CHECK:         arith.constant 6.875000e-01 : f64
// CHECK:         arith.constant 1.187500e+00 : f64
// CHECK:         %[[BREAK4:.*]] = arith.constant 2.437500e+00 : f64
// CHECK-NEXT:    %[[ABOVE4:.*]] = arith.cmpf oge, %[[Q]], %[[BREAK4]] : f64
// CHECK:         %[[MINUS_AX:.*]] = arith.negf %[[AX]] : f64
// CHECK-NEXT:    %[[QC:.*]] = arith.subf %[[Q]], %{{.*}} : f64
// CHECK-NEXT:    %[[NUMERATOR:.*]] = arith.select %[[ABOVE4]], %[[MINUS_AX]], %[[QC]] : f64
// CHECK:         %[[DENOMINATOR:.*]] = arith.select %[[ABOVE4]], %[[AY]], %{{.*}} : f64
// CHECK-NEXT:    %[[T:.*]] = arith.divf %[[NUMERATOR]], %[[DENOMINATOR]] : f64
// CHECK:         arith.constant 4.149515568880993e+180 : f64
// CHECK:         %[[INF:.*]] = arith.constant 0x7ff0000000000000 : f64
// CHECK:         %[[PI:.*]] = arith.constant 3.1415926535897931 : f64
// CHECK:         %[[X_BITS:.*]] = arith.bitcast %x : f64 to i64
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[X_NEGATIVE:.*]] = arith.cmpi slt, %[[X_BITS]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[A0:.*]] = arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[A:.*]] = arith.select %[[X_NEGATIVE]], %{{.*}}, %[[A0]] : f64
// CHECK-NEXT:    %[[A_BITS:.*]] = arith.bitcast %[[A]] : f64 to i64
// CHECK-NEXT:    %[[Y_BITS:.*]] = arith.bitcast %y : f64 to i64
// CHECK:         %[[BITS:.*]] = arith.ori %[[A_BITS]], %{{.*}} : i64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.bitcast %[[BITS]] : i64 to f64
// CHECK-NEXT:    func.return %[[RESULT]] : f64

// f32: in f64, without the correction (f64's rounding is far below an f32 ULP).
func.func @atan2_f32(%y: f32, %x: f32) -> f32 {
  %r = math.atan2 %y, %x : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @atan2_f32(
// CHECK:         %[[Y:.*]] = arith.extf %y : f32 to f64
// CHECK-NEXT:    %[[X:.*]] = arith.extf %x : f32 to f64
// CHECK-NOT:     4.149515568880993e+180
// CHECK:         %[[WIDE:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.truncf %[[WIDE]] : f64 to f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32
