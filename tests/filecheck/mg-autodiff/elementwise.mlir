// mg-autodiff of the elementwise ops: each rule's adjoints, built after the forward ops and
// before the mg.grad they replace (whose uses use them). The seed is the value's adjoint, 1.
// RUN: mg-opt %s -p mg-autodiff | filecheck %s

// add: g to both operands; sub: g and -g.
// CHECK-LABEL: func.func @add_sub(
// CHECK:         %s = mg.sub %a, %b
// CHECK-NEXT:    %t = mg.add %s, %a
// CHECK-NEXT:    %[[ONE:.*]] = mg.full_like %t {value = 1.000000e+00 : f64} : tensor<f64> -> tensor<f64>
// CHECK-NEXT:    %gb = mg.neg %[[ONE]] : tensor<f64> -> tensor<f64>
// CHECK-NEXT:    %ga = mg.add %[[ONE]], %[[ONE]] : tensor<f64>, tensor<f64> -> tensor<f64>
// CHECK-NEXT:    func.return %ga, %gb
func.func @add_sub(%a: tensor<f64>, %b: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %s = mg.sub %a, %b : tensor<f64>, tensor<f64> -> tensor<f64>
  %t = mg.add %s, %a : tensor<f64>, tensor<f64> -> tensor<f64>
  %ga, %gb = mg.grad %t wrt %a, %b : tensor<f64>, tensor<f64>, tensor<f64> -> tensor<f64>, tensor<f64>
  func.return %ga, %gb : tensor<f64>, tensor<f64>
}

// mul: g * b and g * a; div: g / b and -(g * (a / b)) / b.
// CHECK-LABEL: func.func @mul_div(
// CHECK:         %m = mg.mul %a, %b
// CHECK-NEXT:    %q = mg.div %m, %b
// CHECK-NEXT:    %[[ONE:.*]] = mg.full_like %q {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[GM:.*]] = mg.div %[[ONE]], %b
// CHECK-NEXT:    %[[T:.*]] = mg.mul %[[ONE]], %q
// CHECK-NEXT:    %[[T2:.*]] = mg.div %[[T]], %b
// CHECK-NEXT:    %[[GB2:.*]] = mg.neg %[[T2]]
// CHECK-NEXT:    %ga = mg.mul %[[GM]], %b
// CHECK-NEXT:    %[[GB1:.*]] = mg.mul %[[GM]], %a
// CHECK-NEXT:    %gb = mg.add %[[GB2]], %[[GB1]]
// CHECK-NEXT:    func.return %ga, %gb
func.func @mul_div(%a: tensor<f64>, %b: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %m = mg.mul %a, %b : tensor<f64>, tensor<f64> -> tensor<f64>
  %q = mg.div %m, %b : tensor<f64>, tensor<f64> -> tensor<f64>
  %ga, %gb = mg.grad %q wrt %a, %b : tensor<f64>, tensor<f64>, tensor<f64> -> tensor<f64>, tensor<f64>
  func.return %ga, %gb : tensor<f64>, tensor<f64>
}

// maximum: g where the operand is the result, halved where the other one is too (a tie).
// CHECK-LABEL: func.func @maximum(
// CHECK:         %m = mg.max %a, %b
// CHECK-NEXT:    %[[ONE:.*]] = mg.full_like %m {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[TIE:.*]] = mg.compare %b, %m {predicate = "eq"}
// CHECK-NEXT:    %[[HALF:.*]] = mg.full_like %[[ONE]] {value = 5.000000e-01 : f64}
// CHECK-NEXT:    %[[WHOLE:.*]] = mg.full_like %[[ONE]] {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[SHARE:.*]] = mg.select %[[TIE]], %[[HALF]], %[[WHOLE]]
// CHECK-NEXT:    %[[CHOSEN:.*]] = mg.compare %a, %m {predicate = "eq"}
// CHECK-NEXT:    %[[MINE:.*]] = mg.mul %[[ONE]], %[[SHARE]]
// CHECK-NEXT:    %[[ZERO:.*]] = mg.full_like %[[MINE]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %ga = mg.select %[[CHOSEN]], %[[MINE]], %[[ZERO]]
// CHECK-NEXT:    func.return %ga
func.func @maximum(%a: tensor<f64>, %b: tensor<f64>) -> tensor<f64> {
  %m = mg.max %a, %b : tensor<f64>, tensor<f64> -> tensor<f64>
  %ga = mg.grad %m wrt %a : tensor<f64>, tensor<f64> -> tensor<f64>
  func.return %ga : tensor<f64>
}

// pow(a, b): g * b * a^(b-1) (0 where b is 0) for a, g * log(a) * a^b (a = 0 read as 1) for b.
// CHECK-LABEL: func.func @pow(
// CHECK:         %p = mg.pow %a, %b
// CHECK-NEXT:    %[[ONE:.*]] = mg.full_like %p {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[BM1:.*]] = mg.scalar %b {op = "add", value = -1.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[POW:.*]] = mg.pow %a, %[[BM1]]
// CHECK-NEXT:    %[[SLOPE:.*]] = mg.mul %b, %[[POW]]
// CHECK-NEXT:    %[[B0:.*]] = mg.scalar %b {op = "eq", value = 0.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %b {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %[[S:.*]] = mg.select %[[B0]], %[[Z]], %[[SLOPE]]
// CHECK-NEXT:    %ga = mg.mul %[[ONE]], %[[S]]
// CHECK-NEXT:    %[[A0:.*]] = mg.scalar %a {op = "eq", value = 0.000000e+00 : f64, reversed = false}
// CHECK-NEXT:    %[[O:.*]] = mg.full_like %a {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %[[A1:.*]] = mg.select %[[A0]], %[[O]], %a
// CHECK-NEXT:    %[[LOG:.*]] = mg.log %[[A1]]
// CHECK-NEXT:    %[[LP:.*]] = mg.mul %[[LOG]], %p
// CHECK-NEXT:    %gb = mg.mul %[[ONE]], %[[LP]]
func.func @pow(%a: tensor<f64>, %b: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %p = mg.pow %a, %b : tensor<f64>, tensor<f64> -> tensor<f64>
  %ga, %gb = mg.grad %p wrt %a, %b : tensor<f64>, tensor<f64>, tensor<f64> -> tensor<f64>, tensor<f64>
  func.return %ga, %gb : tensor<f64>, tensor<f64>
}

// select: g where the mask is true to the first operand, where false to the second; the mask
// (an i1, a constant) gets none. (The element's adjoint: tests/filecheck/mg-autodiff/indexing.mlir.)
// CHECK-LABEL: func.func @select(
// CHECK:         %e = mg.extract %s
// CHECK:         %[[G:.*]] = mg.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2xi1>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
// CHECK-NEXT:    %[[Z:.*]] = mg.full_like %[[G]] {value = 0.000000e+00 : f64}
// CHECK-NEXT:    %ga = mg.select %c, %[[G]], %[[Z]]
// CHECK-NEXT:    %gb = mg.select %c, %[[Z]], %[[G]]
func.func @select(%c: tensor<2xi1>, %a: tensor<2xf64>, %b: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %s = mg.select %c, %a, %b : tensor<2xi1>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
  %e = mg.extract %s {indices = array<i64: 0>} : tensor<2xf64> -> tensor<f64>
  %ga, %gb = mg.grad %e wrt %a, %b : tensor<f64>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<2xf64>
  func.return %ga, %gb : tensor<2xf64>, tensor<2xf64>
}
