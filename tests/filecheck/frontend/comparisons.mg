# Comparisons bind more loosely than + and -, give i1 tensors (mg.compare, or mg.scalar with
# a number); where is mg.select, a number in it an mg.full_like of the mask; an i1 tensor
# is printed extended to i32.
# RUN: mg-opt %s | filecheck %s
def f(x: tensor[2x3], y: tensor[3]) = where(x + 1 < y, x, 0)
# CHECK:      %[[S:.*]] = mg.scalar %x {op = "add", value = 1.000000e+00 : f64, reversed = false} : tensor<2x3xf64> -> tensor<2x3xf64>
# CHECK-NEXT: %[[Y:.*]] = mg.broadcast %y : tensor<3xf64> -> tensor<2x3xf64>
# CHECK-NEXT: %[[M:.*]] = mg.compare %[[S]], %[[Y]] {predicate = "lt"} : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xi1>
# CHECK-NEXT: %[[Z:.*]] = mg.full_like %[[M]] {value = 0.000000e+00 : f64} : tensor<2x3xi1> -> tensor<2x3xf64>
# CHECK-NEXT: mg.select %[[M]], %x, %[[Z]] : tensor<2x3xi1>, tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
print 2 >= [1, 2, 3]
# CHECK:      %[[C:.*]] = mg.scalar %{{.*}} {op = "ge", value = 2.000000e+00 : f64, reversed = true} : tensor<3xf64> -> tensor<3xi1>
# CHECK-NEXT: %[[P:.*]] = mg.convert %[[C]] : tensor<3xi1> to tensor<3xi32>
# CHECK-NEXT: mg.print %[[P]] : tensor<3xi32>
print [true, false]
# CHECK:      mg.constant dense<[true, false]> : tensor<2xi1>
