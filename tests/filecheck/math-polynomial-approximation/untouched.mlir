// What math-polynomial-approximation leaves as it is: sqrt (an instruction, exact), rsqrt
// (1 / sqrt), absf and floor (instructions), ops on vectors and on other float types.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s

func.func @kept(%x: f32, %d: f64, %v: vector<4xf32>, %h: f16) -> (f32, f32, f64, f64, vector<4xf32>, f16) {
  %a = math.sqrt %x : f32
  %b = math.rsqrt %x : f32
  %c = math.absf %d : f64
  %e = math.floor %d : f64
  %f = math.exp %v : vector<4xf32>
  %g = math.tanh %h : f16
  func.return %a, %b, %c, %e, %f, %g : f32, f32, f64, f64, vector<4xf32>, f16
}
// CHECK-LABEL: func.func @kept(
// CHECK-NEXT:    %a = math.sqrt %x : f32
// CHECK-NEXT:    %b = math.rsqrt %x : f32
// CHECK-NEXT:    %c = math.absf %d : f64
// CHECK-NEXT:    %e = math.floor %d : f64
// CHECK-NEXT:    %f = math.exp %v : vector<4xf32>
// CHECK-NEXT:    %g = math.tanh %h : f16
// CHECK-NEXT:    func.return
