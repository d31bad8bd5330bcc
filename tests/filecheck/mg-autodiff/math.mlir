// mg-autodiff of the unary functions (each rule reads the input x, the result y or both),
// the ops with a number (mg.scalar) and the conversion between floats.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// exp: g * y; log: g / x.
// CHECK-LABEL: func.func @exp_log(
// CHECK:         %[[ONE:.*]] = mg.full_like %z {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[GY:.*]] = mg.div %[[ONE]], %y
// CHECK-NEXT:    %g = mg.mul %[[GY]], %y
// CHECK-NEXT:    func.return %g
func.func @exp_log(%x: tensor<f64>) -> tensor<f64> {
  %y = mg.exp %x : tensor<f64> -> tensor<f64>
  %z = mg.log %y : tensor<f64> -> tensor<f64>
  %g = mg.grad %z wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// rsqrt: g * (-0.5 * z) / y, its input y; sqrt: (0.5 * g) / y, its result.
// CHECK-LABEL: func.func @sqrt_rsqrt(
// CHECK:         %[[ONE:.*]] = mg.full_like %z {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[H:.*]] = mg.scalar %z {op = "mul", value = -5.000000e-01 : f64, reversed = false}
// CHECK-NEXT:    %[[D:.*]] = mg.div %[[H]], %y
// CHECK-NEXT:    %[[GY:.*]] = mg.mul %[[ONE]], %[[D]]
// CHECK-NEXT:    %[[HALF:.*]] = mg.scalar %[[GY]] {op = "mul", value = 5.000000e-01 : f64, reversed = false}
// CHECK-NEXT:    %g = mg.div %[[HALF]], %y
func.func @sqrt_rsqrt(%x: tensor<f64>) -> tensor<f64> {
  %y = mg.sqrt %x : tensor<f64> -> tensor<f64>
  %z = mg.rsqrt %y : tensor<f64> -> tensor<f64>
  %g = mg.grad %z wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// tanh: g * (1 - y * y).
// CHECK-LABEL: func.func @tanh(
// CHECK:         %[[ONE:.*]] = mg.full_like %y {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[SQ:.*]] = mg.mul %y, %y
// CHECK-NEXT:    %[[N:.*]] = mg.neg %[[SQ]]
// CHECK-NEXT:    %[[D:.*]] = mg.scalar %[[N]] {op = "add", value = 1.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %g = mg.mul %[[ONE]], %[[D]]
func.func @tanh(%x: tensor<f64>) -> tensor<f64> {
  %y = mg.tanh %x : tensor<f64> -> tensor<f64>
  %g = mg.grad %y wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// cos: -(g * sin(input)); sin: g * cos(input).
// CHECK-LABEL: func.func @sin_cos(
// CHECK:         %[[ONE:.*]] = mg.full_like %z {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[S:.*]] = mg.sin %y
// CHECK-NEXT:    %[[M:.*]] = mg.mul %[[ONE]], %[[S]]
// CHECK-NEXT:    %[[GY:.*]] = mg.neg %[[M]]
// CHECK-NEXT:    %[[C:.*]] = mg.cos %x
// CHECK-NEXT:    %g = mg.mul %[[GY]], %[[C]]
func.func @sin_cos(%x: tensor<f64>) -> tensor<f64> {
  %y = mg.sin %x : tensor<f64> -> tensor<f64>
  %z = mg.cos %y : tensor<f64> -> tensor<f64>
  %g = mg.grad %z wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// acos: -(g / sqrt(1 - y * y)); asin: g / sqrt(1 - x * x).
// CHECK-LABEL: func.func @asin_acos(
// CHECK:         %[[ONE:.*]] = mg.full_like %z {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[SQ:.*]] = mg.mul %y, %y
// CHECK-NEXT:    %[[N:.*]] = mg.neg %[[SQ]]
// CHECK-NEXT:    %[[D:.*]] = mg.scalar %[[N]] {op = "add", value = 1.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[R:.*]] = mg.sqrt %[[D]]
// CHECK-NEXT:    %[[Q:.*]] = mg.div %[[ONE]], %[[R]]
// CHECK-NEXT:    %[[GY:.*]] = mg.neg %[[Q]]
// CHECK-NEXT:    %[[SQ2:.*]] = mg.mul %x, %x
// CHECK-NEXT:    %[[N2:.*]] = mg.neg %[[SQ2]]
// CHECK-NEXT:    %[[D2:.*]] = mg.scalar %[[N2]] {op = "add", value = 1.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[R2:.*]] = mg.sqrt %[[D2]]
// CHECK-NEXT:    %g = mg.div %[[GY]], %[[R2]]
func.func @asin_acos(%x: tensor<f64>) -> tensor<f64> {
  %y = mg.asin %x : tensor<f64> -> tensor<f64>
  %z = mg.acos %y : tensor<f64> -> tensor<f64>
  %g = mg.grad %z wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// neg: -g; relu: g where x > 0, else 0; abs: g where x >= 0, else -g. x's two adjoints add.
// CHECK-LABEL: func.func @abs_relu_neg(
// CHECK:         %[[ONE:.*]] = mg.full_like %s {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[GZ:.*]] = mg.neg %[[ONE]]
// CHECK-NEXT:    %[[POS:.*]] = mg.scalar %x {op = "gt", value = 0.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[GZ]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[G1:.*]] = mg.select %[[POS]], %[[GZ]], %[[Z]]
// CHECK-NEXT:    %[[NN:.*]] = mg.scalar %x {op = "ge", value = 0.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[NEG:.*]] = mg.neg %[[ONE]]
// CHECK-NEXT:    %[[G2:.*]] = mg.select %[[NN]], %[[ONE]], %[[NEG]]
// CHECK-NEXT:    %g = mg.add %[[G1]], %[[G2]]
func.func @abs_relu_neg(%x: tensor<f64>) -> tensor<f64> {
  %y = mg.abs %x : tensor<f64> -> tensor<f64>
  %z = mg.relu %x : tensor<f64> -> tensor<f64>
  %n = mg.neg %z : tensor<f64> -> tensor<f64>
  %s = mg.add %y, %n : tensor<f64>, tensor<f64> -> tensor<f64>
  %g = mg.grad %s wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// x + 7: g; x / 5: g / 5; x * 3: g * 3; 1 - x: -g; 2 ** x: g * (y * ln 2); x ** 3: g * (x ** 2 * 3);
// 4 / x: -(g * y) / x.
// CHECK-LABEL: func.func @numbers(
// CHECK:         %[[ONE:.*]] = mg.full_like %h {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[GE:.*]] = mg.scalar %[[ONE]] {op = "div", value = 5.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[GD:.*]] = mg.scalar %[[GE]] {op = "mul", value = 3.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[GC:.*]] = mg.neg %[[GD]]
// CHECK-NEXT:    %[[LN:.*]] = mg.scalar %c {op = "mul", value = 0.69314718055994529 : f64, reversed = false}
// CHECK-NEXT:    %[[GB:.*]] = mg.mul %[[GC]], %[[LN]]
// CHECK-NEXT:    %[[SQ:.*]] = mg.scalar %a {op = "pow", value = 2.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[S3:.*]] = mg.scalar %[[SQ]] {op = "mul", value = 3.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[GA:.*]] = mg.mul %[[GB]], %[[S3]]
// CHECK:         %[[T:.*]] = mg.mul %[[GA]], %a
// CHECK-NEXT:    %[[Q:.*]] = mg.div %[[T]], %x
// CHECK-NEXT:    %g = mg.neg %[[Q]]
func.func @numbers(%x: tensor<f64>) -> tensor<f64> {
  %a = mg.scalar %x {op = "div", value = 4.0 : f64, reversed = true} : tensor<f64> -> tensor<f64>
  %b = mg.scalar %a {op = "pow", value = 3.0 : f64, reversed = false} : tensor<f64> -> tensor<f64>
  %c = mg.scalar %b {op = "pow", value = 2.0 : f64, reversed = true} : tensor<f64> -> tensor<f64>
  %d = mg.scalar %c {op = "sub", value = 1.0 : f64, reversed = true} : tensor<f64> -> tensor<f64>
  %e = mg.scalar %d {op = "mul", value = 3.0 : f64, reversed = false} : tensor<f64> -> tensor<f64>
  %f = mg.scalar %e {op = "div", value = 5.0 : f64, reversed = false} : tensor<f64> -> tensor<f64>
  %h = mg.scalar %f {op = "add", value = 7.0 : f64, reversed = false} : tensor<f64> -> tensor<f64>
  %g = mg.grad %h wrt %x : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %g : tensor<f64>
}

// convert between floats: the adjoint converted back.
// CHECK-LABEL: func.func @convert(
// CHECK:         %[[G:.*]] = mg.broadcast %{{.*}} like %y : tensor<1xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK-NEXT:    %g = mg.convert %[[G]] : tensor<3xf64> to tensor<3xf32>
// CHECK-NEXT:    func.return %g
func.func @convert(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = mg.convert %x : tensor<3xf32> to tensor<3xf64>
  %r = mg.reduce %y {axis = 0 : i64, kind = "sum"} : tensor<3xf64> -> tensor<1xf64>
  %l = mg.reshape %r : tensor<1xf64> to tensor<f64>
  %g = mg.grad %l wrt %x : tensor<f64>, tensor<3xf32> -> tensor<3xf32>
  func.return %g : tensor<3xf32>
}
