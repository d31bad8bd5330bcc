# Element types: written last in a tensor type; a literal takes a declared type; a number
# takes the type of the tensor it combines with; cast is mg.convert.
# RUN: mg-opt %s | filecheck %s
let a: tensor[2x2xi32] = [[1, 2], [3, 4]]
print a * 2 - a / 3
def f(x: tensor[?x2xf32]) -> tensor[?x2xf32] = x * 0.5
print f(cast(a, f32))
let n: tensor[i64] = -3
print n
# CHECK:      func.func @f(%x: tensor<?x2xf32>) -> tensor<?x2xf32>
# CHECK-NEXT:   mg.scalar %x {op = "mul", value = 5.000000e-01 : f32, reversed = false} : tensor<?x2xf32> -> tensor<?x2xf32>
# CHECK:      func.func @main()
# CHECK-NEXT:   %[[A:.*]] = mg.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
# CHECK-NEXT:   %[[M:.*]] = mg.scalar %[[A]] {op = "mul", value = 2 : i32, reversed = false} : tensor<2x2xi32> -> tensor<2x2xi32>
# CHECK-NEXT:   %[[D:.*]] = mg.scalar %[[A]] {op = "div", value = 3 : i32, reversed = false} : tensor<2x2xi32> -> tensor<2x2xi32>
# CHECK-NEXT:   mg.sub %[[M]], %[[D]] : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
# CHECK:        %[[C:.*]] = mg.convert %[[A]] : tensor<2x2xi32> to tensor<2x2xf32>
# CHECK-NEXT:   mg.cast %[[C]] : tensor<2x2xf32> to tensor<?x2xf32>
# CHECK:        %[[N:.*]] = mg.constant dense<-3> : tensor<i64>
# CHECK-NEXT:   mg.print %[[N]] : tensor<i64>
