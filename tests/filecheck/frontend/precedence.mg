# Unary minus binds tightest, then @ * /, then + -; numbers fold; scalar order is kept.
# RUN: mg-opt %s | filecheck %s
print relu(-[[1, 2], [3, 4]] + 2)
# CHECK:      %[[M:.*]] = mg.constant
# CHECK-NEXT: %[[N:.*]] = mg.neg %[[M]]
# CHECK-NEXT: %[[S:.*]] = mg.scalar %[[N]] {op = "add", value = 2.000000e+00 : f64, reversed = false}
# CHECK-NEXT: mg.relu %[[S]]
let x = [[1, 2], [3, 4]]
print 2 - x * 3
# CHECK:      %[[X:.*]] = mg.constant
# CHECK-NEXT: %[[T:.*]] = mg.scalar %[[X]] {op = "mul", value = 3.000000e+00 : f64, reversed = false}
# CHECK-NEXT: mg.scalar %[[T]] {op = "sub", value = 2.000000e+00 : f64, reversed = true}
print x / (1 + 3) @ x
# CHECK:      %[[D:.*]] = mg.scalar %[[X]] {op = "div", value = 4.000000e+00 : f64, reversed = false}
# CHECK-NEXT: mg.matmul %[[D]], %[[X]]
print x - x - x
# CHECK:      %[[L:.*]] = mg.sub %[[X]], %[[X]]
# CHECK-NEXT: mg.sub %[[L]], %[[X]]
print x * (5 - 3) + (1 / 4 - 2 * 3)
# CHECK:      %[[F:.*]] = mg.scalar %[[X]] {op = "mul", value = 2.000000e+00 : f64, reversed = false}
# CHECK-NEXT: mg.scalar %[[F]] {op = "add", value = -5.750000e+00 : f64, reversed = false}
