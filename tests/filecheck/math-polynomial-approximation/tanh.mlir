// math-polynomial-approximation: tanh. |x| + |x|^3 T(x^2) below 0.625, else
// 1 - 2 / (e^(2|x|) + 1) (the exp expanded in place: 1 once it overflows); then x's sign
// (tanh(-0) = -0).
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @tanh_f32(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  func.return %y : f32
}
// CHECK-LABEL: func.func @tanh_f32(
// CHECK-NOT:     math.tanh
// CHECK:         %[[AX:.*]] = math.absf %x : f32
// CHECK:         %[[TWO_AX:.*]] = arith.addf %[[AX]], %[[AX]] : f32
// CHECK:         arith.cmpf ogt, %[[TWO_AX]], %{{.*}} : f32
// CHECK:         arith.bitcast %{{.*}} : i32 to f32
// CHECK:         arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:    arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[EXP:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[E1:.*]] = arith.addf %[[EXP]], %{{.*}} : f32
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %{{.*}}, %[[E1]] : f32
// CHECK-NEXT:    %[[BIG:.*]] = arith.subf %{{.*}}, %[[Q]] : f32
// CHECK-NEXT:    %[[BOUND:.*]] = arith.constant 6.250000e-01 : f32
// CHECK-NEXT:    %[[SMALL_X:.*]] = arith.cmpf olt, %[[AX]], %[[BOUND]] : f32
// CHECK-NEXT:    %[[MAGNITUDE:.*]] = arith.select %[[SMALL_X]], %{{.*}}, %[[BIG]] : f32
// CHECK-NEXT:    %[[M_BITS:.*]] = arith.bitcast %[[MAGNITUDE]] : f32 to i32
// CHECK-NEXT:    %[[X_BITS:.*]] = arith.bitcast %x : f32 to i32
// CHECK-NEXT:    %[[SIGN_BIT:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    %[[SIGN:.*]] = arith.andi %[[X_BITS]], %[[SIGN_BIT]] : i32
// CHECK-NEXT:    %[[BITS:.*]] = arith.ori %[[M_BITS]], %[[SIGN]] : i32
// CHECK-NEXT:    %[[RESULT:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32

func.func @tanh_f64(%x: f64) -> f64 {
  %y = math.tanh %x : f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @tanh_f64(
// CHECK-NOT:     math.tanh
// CHECK:         arith.constant 6.250000e-01 : f64
// CHECK:         arith.constant -9223372036854775808 : i64
// CHECK:         func.return %{{.*}} : f64
