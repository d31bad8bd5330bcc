// mg.scalar: the number is an arith.constant; reversed = true puts it on the left.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s

func.func @f(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %a = mg.scalar %x {op = "div", value = 3.0 : f64, reversed = false} : tensor<2x2xf64> -> tensor<2x2xf64>
  %b = mg.scalar %a {op = "sub", value = 2.0 : f64, reversed = true} : tensor<2x2xf64> -> tensor<2x2xf64>
  func.return %b : tensor<2x2xf64>
}
// CHECK:      %[[THREE:.*]] = arith.constant 3.000000e+00 : f64
// CHECK:        %[[X:.*]] = affine.load %x
// CHECK-NEXT:   %{{.*}} = arith.divf %[[X]], %[[THREE]] : f64
// CHECK:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK:        %[[Y:.*]] = affine.load
// CHECK-NEXT:   %{{.*}} = arith.subf %[[TWO]], %[[Y]] : f64
