// math-polynomial-approximation: asin and acos. For |x| <= 1/2, asin x = x + x^3 B(x^2);
// beyond, with s = sqrt((1 - |x|)/2), asin |x| = pi/2 - 2 asin s, acos x = 2 asin s (x > 0)
// or pi - 2 asin s, each difference with pi a two-sum (its error kept); for f64 also the
// rounding error of the square root, to first order. |x| > 1 takes the square root of a
// negative: NaN. f32 is computed in f64 and rounded once.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @asin_f64(%x: f64) -> f64 {
  %y = math.asin %x : f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @asin_f64(
// CHECK-NOT:     math.asin
// CHECK:         %[[AX:.*]] = math.absf %x : f64
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    %[[D:.*]] = arith.subf %[[ONE]], %[[AX]] : f64
// CHECK-NEXT:    %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    %[[Z:.*]] = arith.mulf %[[D]], %[[HALF]] : f64
// CHECK-NEXT:    %[[S:.*]] = math.sqrt %[[Z]] : f64
// CHECK:         %[[C:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[PIO2:.*]] = arith.constant 1.5707963267948966 : f64
// CHECK:         %[[SMALL_X:.*]] = arith.cmpf ole, %[[AX]], %[[HALF]] : f64
// CHECK:         %[[RESULT:.*]] = arith.select %[[SMALL_X]], %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    func.return %[[RESULT]] : f64

func.func @acos_f32(%x: f32) -> f32 {
  %y = math.acos %x : f32
  func.return %y : f32
}
// CHECK-LABEL: func.func @acos_f32(
// CHECK-NOT:     math.acos
// CHECK:         %[[X:.*]] = arith.extf %x : f32 to f64
// CHECK:         math.sqrt %{{.*}} : f64
// CHECK-NOT:     arith.divf
// CHECK:         arith.constant 3.1415926535897931 : f64
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[POSITIVE:.*]] = arith.cmpf ogt, %[[X]], %[[ZERO]] : f64
// CHECK-NEXT:    %[[BIG:.*]] = arith.select %[[POSITIVE]], %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[SMALL_X:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[WIDE:.*]] = arith.select %[[SMALL_X]], %{{.*}}, %[[BIG]] : f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.truncf %[[WIDE]] : f64 to f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32
