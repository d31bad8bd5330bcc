// math-polynomial-approximation: exp as arithmetic. x is clamped to where the result is 0 or
// infinity already; n = round(x / ln2) by adding 1.5 * 2^23 (the integer is then in the
// low bits: no conversion, and shifting those bits left by 23 leaves n << 23 alone);
// r = x - n ln2, ln2 in two parts; e^r = 1 + r + r^2 P(r); then times 2^n as two
// factors made in the exponent bits, so a subnormal result rounds once: the first,
// 2^(n >> 1), taken as (r + r^2 P(r)) * s1 + s1, the second a product.
// RUN: mg-opt %s -p math-polynomial-approximation | filecheck %s
// RUN: mg-opt %s -p 'math-polynomial-approximation{fma=true}' | filecheck %s --check-prefix=FMA

func.func @exp_f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  func.return %y : f32
}
// CHECK-LABEL: func.func @exp_f32(
// CHECK-NOT:     math.exp
// CHECK:         %[[HI:.*]] = arith.constant 8.880000e+01 : f32
// CHECK-NEXT:    %[[OVER:.*]] = arith.cmpf ogt, %x, %[[HI]] : f32
// CHECK-NEXT:    %[[X1:.*]] = arith.select %[[OVER]], %[[HI]], %x : f32
// CHECK:         %[[LO:.*]] = arith.constant -1.040000e+02 : f32
// CHECK:         %[[X:.*]] = arith.select %{{.*}}, %[[LO]], %[[X1]] : f32
// CHECK:         %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT:    %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT:    %[[T:.*]] = arith.mulf %[[X]], %[[LOG2E]] : f32
// CHECK-NEXT:    %[[SHIFTED:.*]] = arith.addf %[[MAGIC]], %[[T]] : f32
// CHECK-NEXT:    %[[N:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]] : f32
// CHECK-NEXT:    %[[BITS:.*]] = arith.bitcast %[[SHIFTED]] : f32 to i32
// CHECK-NEXT:    %[[C23:.*]] = arith.constant 23 : i32
// CHECK-NEXT:    %[[NS:.*]] = arith.shli %[[BITS]], %[[C23]] : i32
// CHECK-NEXT:    %[[MINUS_LN2_HI:.*]] = arith.constant -0.693115234 : f32
// CHECK-NEXT:    %[[NL:.*]] = arith.mulf %[[N]], %[[MINUS_LN2_HI]] : f32
// CHECK-NEXT:    %[[R1:.*]] = arith.addf %[[X]], %[[NL]] : f32
// CHECK:         %[[R:.*]] = arith.addf %[[R1]], %{{.*}} : f32
// CHECK:         %[[R2:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK-NEXT:    %[[R2P:.*]] = arith.mulf %[[R2]], %{{.*}} : f32
// CHECK-NEXT:    %[[Q:.*]] = arith.addf %[[R]], %[[R2P]] : f32
// CHECK-NEXT:    %[[C24:.*]] = arith.constant 24 : i32
// CHECK-NEXT:    %[[HALF_N:.*]] = arith.shrsi %[[NS]], %[[C24]] : i32
// CHECK-NEXT:    %[[HALF:.*]] = arith.shli %[[HALF_N]], %[[C23]] : i32
// CHECK-NEXT:    %[[BIAS:.*]] = arith.constant 1065353216 : i32
// CHECK-NEXT:    %[[S1_BITS:.*]] = arith.addi %[[HALF]], %[[BIAS]] : i32
// CHECK-NEXT:    %[[S1:.*]] = arith.bitcast %[[S1_BITS]] : i32 to f32
// CHECK-NEXT:    %[[REST:.*]] = arith.subi %[[NS]], %[[HALF]] : i32
// CHECK-NEXT:    %[[S2_BITS:.*]] = arith.addi %[[REST]], %[[BIAS]] : i32
// CHECK-NEXT:    %[[S2:.*]] = arith.bitcast %[[S2_BITS]] : i32 to f32
// CHECK-NEXT:    %[[QS:.*]] = arith.mulf %[[Q]], %[[S1]] : f32
// CHECK-NEXT:    %[[Y1:.*]] = arith.addf %[[S1]], %[[QS]] : f32
// CHECK-NEXT:    %[[RESULT:.*]] = arith.mulf %[[Y1]], %[[S2]] : f32
// CHECK-NEXT:    func.return %[[RESULT]] : f32

// f64: the same with f64's constants (and a longer polynomial).
func.func @exp_f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @exp_f64(
// CHECK-NOT:     math.exp
// CHECK:         arith.constant 7.099000e+02 : f64
// CHECK:         arith.constant -7.452000e+02 : f64
// CHECK:         arith.constant 0x4338000000000000 : f64
// CHECK:         arith.bitcast %{{.*}} : f64 to i64
// CHECK-NEXT:    arith.constant 52 : i64
// CHECK-COUNT-10: arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:         arith.constant 53 : i64
// CHECK:         arith.constant 4607182418800017408 : i64
// CHECK:         arith.bitcast %{{.*}} : i64 to f64
// CHECK:         arith.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[RESULT:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    func.return %[[RESULT]] : f64

// With fma=true (a CPU with fused multiply-adds): x log2(e) + 1.5 * 2^23, the two steps of
// r, the polynomial's Horner steps, r + r^2 P(r) and the first factor's step are math.fma,
// one rounding each (n * ln2_hi is exact either way); the rest is as above.
// FMA-LABEL: func.func @exp_f32(
// FMA:         %[[SHIFTED:.*]] = math.fma %[[X:.*]], %{{.*}}, %[[MAGIC:.*]] : f32
// FMA-NEXT:    %[[N:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]] : f32
// FMA:         %[[R1:.*]] = math.fma %[[N]], %{{.*}}, %[[X]] : f32
// FMA:         %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R1]] : f32
// FMA-COUNT-4: math.fma %{{.*}}, %[[R]], %{{.*}} : f32
// FMA:         %[[R2:.*]] = arith.mulf %[[R]], %[[R]] : f32
// FMA-NEXT:    %[[Q:.*]] = math.fma %[[R2]], %{{.*}}, %[[R]] : f32
// FMA:         %[[S1:.*]] = arith.bitcast %{{.*}} : i32 to f32
// FMA:         %[[S2:.*]] = arith.bitcast %{{.*}} : i32 to f32
// FMA-NEXT:    %[[Y1:.*]] = math.fma %[[Q]], %[[S1]], %[[S1]] : f32
// FMA-NEXT:    %{{.*}} = arith.mulf %[[Y1]], %[[S2]] : f32
// FMA-LABEL: func.func @exp_f64(
// FMA-COUNT-15: math.fma
// FMA-NOT:     math.fma
// FMA:         func.return
