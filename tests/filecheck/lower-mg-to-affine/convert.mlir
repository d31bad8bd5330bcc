// mg.convert (the language's cast): each element converted to the result's element type.
// Floats widen or round (extf, truncf), integers widen or wrap (extsi, trunci), integers
// become floats (sitofp). A float becomes an integer truncated toward zero, saturating at
// the type's limits, NaN giving 0: arith.fptosi is given only values in range, and the
// limits are selected around it.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p lower-mg-to-affine | mlir-opt-22 > /dev/null %}

func.func @f(%a: tensor<3xf64>) -> tensor<3xi32> {
  %f = mg.convert %a : tensor<3xf64> to tensor<3xf32>
  %g = mg.convert %f : tensor<3xf32> to tensor<3xf64>
  %i = mg.convert %g : tensor<3xf64> to tensor<3xi64>
  %j = mg.convert %i : tensor<3xi64> to tensor<3xi32>
  %k = mg.convert %j : tensor<3xi32> to tensor<3xi64>
  %x = mg.convert %k : tensor<3xi64> to tensor<3xf64>
  %y = mg.convert %x : tensor<3xf64> to tensor<3xi32>
  func.return %y : tensor<3xi32>
}
// CHECK:      arith.truncf %{{.*}} : f64 to f32
// CHECK:      arith.extf %{{.*}} : f32 to f64
// CHECK:      %[[X:.*]] = affine.load
// CHECK-NEXT: %[[LOW:.*]] = arith.constant -9.2233720368547758e+18 : f64
// CHECK-NEXT: %[[TOO_LOW:.*]] = arith.cmpf olt, %[[X]], %[[LOW]] : f64
// CHECK-NEXT: %[[HIGH:.*]] = arith.constant 9.2233720368547758e+18 : f64
// CHECK-NEXT: %[[TOO_HIGH:.*]] = arith.cmpf oge, %[[X]], %[[HIGH]] : f64
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK-NEXT: %[[OUT1:.*]] = arith.ori %[[TOO_LOW]], %[[TOO_HIGH]] : i1
// CHECK-NEXT: %[[OUT:.*]] = arith.ori %[[OUT1]], %[[NAN]] : i1
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[OUT]], %[[ZERO]], %[[X]] : f64
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[SAFE]] : f64 to i64
// CHECK-NEXT: %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK-NEXT: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT: %[[HIGHER:.*]] = arith.select %[[TOO_HIGH]], %[[MAX]], %[[I]] : i64
// CHECK-NEXT: arith.select %[[TOO_LOW]], %[[MIN]], %[[HIGHER]] : i64
// CHECK:      arith.trunci %{{.*}} : i64 to i32
// CHECK:      arith.extsi %{{.*}} : i32 to i64
// CHECK:      arith.sitofp %{{.*}} : i64 to f64
// (-2^31 and 2^31, as xDSL prints them:)
// CHECK:      arith.constant 0xC1E0000000000000 : f64
// CHECK:      arith.constant 0x41E0000000000000 : f64
// CHECK:      arith.fptosi %{{.*}} : f64 to i32
