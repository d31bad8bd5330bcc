// math-polynomial-approximation: sin and cos. |x| = n pi/2 + r: n = round(|x| 2/pi) by
// adding 1.5 * 2^52, r = |x| - n pi/2 with pi/2 in four parts (n * each of the first three
// exact for |x| < 2^24 pi/2, the errors of the subtractions kept by two-sums); r clamped to
// [-0.7854, 0.7854] (only beyond that bound can it leave it); r + r^3 S(r^2) or
// 1 - r^2/2 + r^4 C(r^2) chosen by bit 0 of the quadrant (n + 1 for cos), its sign flipped
// by bit 1 (and by x's sign, for sin). f32 is computed in f64 and rounded once.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @sin_f32(%x: f32) -> f32 {
  %y = math.sin %x : f32
  func.return %y : f32
}
// CHECK-LABEL: func.func @sin_f32(
// CHECK-NOT:     math.sin
// CHECK:         %[[X:.*]] = arith.extf %x : f32 to f64
// CHECK-NEXT:    %[[AX:.*]] = math.absf %[[X]] : f64
// CHECK-NEXT:    %[[TWO_OVER_PI:.*]] = arith.constant 0.63661977236758138 : f64
// CHECK-NEXT:    %[[T:.*]] = arith.mulf %[[AX]], %[[TWO_OVER_PI]] : f64
// CHECK-NEXT:    %[[MAGIC:.*]] = arith.constant 0x4338000000000000 : f64
// CHECK-NEXT:    %[[SHIFTED:.*]] = arith.addf %[[T]], %[[MAGIC]] : f64
// CHECK-NEXT:    %[[N:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]] : f64
// CHECK-NEXT:    %[[N_BITS:.*]] = arith.bitcast %[[SHIFTED]] : f64 to i64
// CHECK-NEXT:    %[[MAGIC_BITS:.*]] = arith.constant 4843621399236968448 : i64
// CHECK-NEXT:    %[[QUADRANT:.*]] = arith.subi %[[N_BITS]], %[[MAGIC_BITS]] : i64
// CHECK-NEXT:    %[[P1:.*]] = arith.constant 1.570796325802803 : f64
// CHECK-NEXT:    %[[NP1:.*]] = arith.mulf %[[N]], %[[P1]] : f64
// CHECK-NEXT:    %[[R1:.*]] = arith.subf %[[AX]], %[[NP1]] : f64
// CHECK:         arith.constant 9.9209358089824562e-10 : f64
// CHECK:         arith.constant -1.2177051780877821e-18 : f64
// CHECK:         arith.constant 2.9038559739793605e-28 : f64
// CHECK:         %[[LIMIT:.*]] = arith.constant 7.854000e-01 : f64
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[BIT0:.*]] = arith.andi %[[QUADRANT]], %[[ONE]] : i64
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[ODD:.*]] = arith.cmpi ne, %[[BIT0]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[VALUE:.*]] = arith.select %[[ODD]], %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[BIT1:.*]] = arith.andi %[[QUADRANT]], %[[TWO]] : i64
// CHECK-NEXT:    %[[C62:.*]] = arith.constant 62 : i64
// CHECK-NEXT:    %[[FLIP:.*]] = arith.shli %[[BIT1]], %[[C62]] : i64
// CHECK-NEXT:    %[[X_BITS:.*]] = arith.bitcast %[[X]] : f64 to i64
// CHECK-NEXT:    %[[X_SIGN:.*]] = arith.andi %[[X_BITS]], %{{.*}} : i64
// CHECK-NEXT:    %[[SIGN:.*]] = arith.xori %[[FLIP]], %[[X_SIGN]] : i64
// CHECK-NEXT:    %[[V_BITS:.*]] = arith.bitcast %[[VALUE]] : f64 to i64
// CHECK-NEXT:    %[[BITS:.*]] = arith.xori %[[V_BITS]], %[[SIGN]] : i64
// CHECK-NEXT:    %[[WIDE:.*]] = arith.bitcast %[[BITS]] : i64 to f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.truncf %[[WIDE]] : f64 to f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32

// cos: the quadrant plus one, and no sign of x (cos is even).
func.func @cos_f64(%x: f64) -> f64 {
  %y = math.cos %x : f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @cos_f64(
// CHECK-NOT:     math.cos
// CHECK-NOT:     arith.extf
// CHECK:         %[[AX:.*]] = math.absf %x : f64
// CHECK:         %[[QUADRANT:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[QUADRANT]], %[[ONE]] : i64
// CHECK-NEXT:    arith.andi %[[NEXT]], %[[ONE]] : i64
// CHECK:         %[[BIT1:.*]] = arith.andi %[[NEXT]], %{{.*}} : i64
// CHECK-NEXT:    %[[C62:.*]] = arith.constant 62 : i64
// CHECK-NEXT:    %[[FLIP:.*]] = arith.shli %[[BIT1]], %[[C62]] : i64
// CHECK-NEXT:    %[[V_BITS:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK-NEXT:    %[[BITS:.*]] = arith.xori %[[V_BITS]], %[[FLIP]] : i64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.bitcast %[[BITS]] : i64 to f64
// CHECK-NEXT:    func.return %[[RESULT]] : f64
