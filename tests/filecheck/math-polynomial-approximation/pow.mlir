// math-polynomial-approximation: powf(x, y) = e^(y ln|x|), then C's rules: the sign of a
// negative x to an odd integer power (y and y/2 against their floors), NaN for a finite
// negative x to a non-integer power, 1 for (±1)^±inf, 1^y and x^0. f64's logarithm is a
// double-double (Dekker's exact products: the low bits cleared with a mask), and y ln|x|
// a double-double product whose low part the exp adds to its reduced argument; f32 is
// computed in f64 (plain doubles are precise enough) and rounded once.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @pow_f64(%x: f64, %y: f64) -> f64 {
  %r = math.powf %x, %y : f64
  func.return %r : f64
}
// CHECK-LABEL: func.func @pow_f64(
// CHECK-NOT:     math.powf
// CHECK:         %[[AX:.*]] = math.absf %x : f64
// CHECK:         %[[MASK:.*]] = arith.constant -134217728 : i64
// CHECK:         arith.andi %{{.*}}, %[[MASK]] : i64
// CHECK:         %[[FLOOR_Y:.*]] = math.floor %y : f64
// CHECK-NEXT:    %[[INTEGER:.*]] = arith.cmpf oeq, %[[FLOOR_Y]], %y : f64
// CHECK-NEXT:    %[[HALF_Y:.*]] = arith.mulf %y, %{{.*}} : f64
// CHECK-NEXT:    %[[FLOOR_HALF:.*]] = math.floor %[[HALF_Y]] : f64
// CHECK-NEXT:    %[[HALF_NOT_INTEGER:.*]] = arith.cmpf one, %[[FLOOR_HALF]], %[[HALF_Y]] : f64
// CHECK-NEXT:    %[[ODD:.*]] = arith.andi %[[INTEGER]], %[[HALF_NOT_INTEGER]] : i1
// CHECK:         %[[NEGATE:.*]] = arith.andi %{{.*}}, %[[ODD]] : i1
// CHECK-NEXT:    %[[MINUS:.*]] = arith.negf %[[MAGNITUDE:.*]] : f64
// CHECK-NEXT:    %[[SIGNED:.*]] = arith.select %[[NEGATE]], %[[MINUS]], %[[MAGNITUDE]] : f64
// CHECK:         %[[NOT_INTEGER:.*]] = arith.cmpf une, %[[FLOOR_Y]], %y : f64
// CHECK:         %[[R1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[SIGNED]] : f64
// CHECK:         %[[IS_ONE:.*]] = arith.cmpf oeq, %x, %{{.*}} : f64
// CHECK-NEXT:    %[[R2:.*]] = arith.select %[[IS_ONE]], %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[Y_ZERO:.*]] = arith.cmpf oeq, %y, %{{.*}} : f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.select %[[Y_ZERO]], %{{.*}}, %[[R2]] : f64
// CHECK-NEXT:    func.return %[[RESULT]] : f64

func.func @pow_f32(%x: f32, %y: f32) -> f32 {
  %r = math.powf %x, %y : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @pow_f32(
// CHECK-NOT:     math.powf
// CHECK:         %[[X:.*]] = arith.extf %x : f32 to f64
// CHECK-NEXT:    %[[Y:.*]] = arith.extf %y : f32 to f64
// CHECK-NOT:     -134217728
// CHECK:         math.floor %[[Y]] : f64
// CHECK:         %[[Y_ZERO:.*]] = arith.cmpf oeq, %[[Y]], %{{.*}} : f64
// CHECK-NEXT:    %[[WIDE:.*]] = arith.select %[[Y_ZERO]], %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.truncf %[[WIDE]] : f64 to f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32
