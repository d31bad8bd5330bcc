// Comparisons: arith.cmpf with the ordered predicates on floats (false with NaN) but une
// for != (true with NaN), as NumPy; signed predicates on integers, unsigned on i1
// (false < true). mg.select is arith.select; mg.full_like stores its value.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p lower-mg-to-affine | mlir-opt-22 > /dev/null %}

func.func @f(%a: tensor<?xf64>, %b: tensor<?xf64>, %i: tensor<?xi32>) -> tensor<?xf64> {
  %lt = mg.compare %a, %b {predicate = "lt"} : tensor<?xf64>, tensor<?xf64> -> tensor<?xi1>
  %ne = mg.compare %a, %b {predicate = "ne"} : tensor<?xf64>, tensor<?xf64> -> tensor<?xi1>
  %ge = mg.scalar %i {op = "ge", value = 3 : i32, reversed = false} : tensor<?xi32> -> tensor<?xi1>
  %gt = mg.compare %ge, %lt {predicate = "gt"} : tensor<?xi1>, tensor<?xi1> -> tensor<?xi1>
  %z = mg.full_like %gt {value = 0.0 : f64} : tensor<?xi1> -> tensor<?xf64>
  %r = mg.select %ne, %a, %z : tensor<?xi1>, tensor<?xf64>, tensor<?xf64> -> tensor<?xf64>
  func.return %r : tensor<?xf64>
}
// CHECK:      arith.cmpf olt, %{{.*}}, %{{.*}} : f64
// CHECK:      arith.cmpf une, %{{.*}}, %{{.*}} : f64
// CHECK:      %[[THREE:.*]] = arith.constant 3 : i32
// CHECK:      arith.cmpi sge, %{{.*}}, %[[THREE]] : i32
// CHECK:      arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
// CHECK:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: affine.for
// CHECK-NEXT:   affine.store %[[ZERO]]
// The three operands' sizes are checked against each other, then one loop selects.
// CHECK:      cf.assert %{{.*}}, "mg.select: operand shapes differ at runtime in dimension 0"
// CHECK:      cf.assert %{{.*}}, "mg.select: operand shapes differ at runtime in dimension 0"
// CHECK:      affine.for
// CHECK:        %[[M:.*]] = affine.load %ne
// CHECK-NEXT:   %[[X:.*]] = affine.load %a
// CHECK-NEXT:   %[[Y:.*]] = affine.load %z
// CHECK-NEXT:   arith.select %[[M]], %[[X]], %[[Y]] : f64
