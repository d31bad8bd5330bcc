# A static matrix passed to a '?' parameter is cast (forgetting its sizes); the call's result
# has the def's '?' shape; a '?' never broadcasts, so ?x3 + 1x3 is 1x3 (checked at run time).
# RUN: mg-opt %s | filecheck %s
def plus_bias(a: tensor[?x3]) = a + [[1, 2, 3]]
# CHECK:      func.func @plus_bias(%a: tensor<?x3xf64>) -> tensor<1x3xf64>
# CHECK:        mg.add %a, %{{.*}} : tensor<?x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
def totals(a: tensor[?x?]) = row_sum(a)
# CHECK:      func.func @totals(%a: tensor<?x?xf64>) -> tensor<?x1xf64>
print totals([[1, 2, 3], [4, 5, 6]])
# CHECK:      %[[M:.*]] = mg.constant {{.*}} : tensor<2x3xf64>
# CHECK-NEXT: %[[D:.*]] = mg.cast %[[M]] : tensor<2x3xf64> to tensor<?x?xf64>
# CHECK-NEXT: %[[T:.*]] = func.call @totals(%[[D]]) : (tensor<?x?xf64>) -> tensor<?x1xf64>
# CHECK-NEXT: mg.print %[[T]] : tensor<?x1xf64>
print plus_bias(transpose(totals([[1], [2], [3]])))
# CHECK:      %[[T2:.*]] = mg.transpose %{{.*}} : tensor<?x1xf64> to tensor<1x?xf64>
# The claimed size is checked when the program runs, with a message that names the call's
# argument (the program wrote no mg.cast); a forgotten size needs no message.
# CHECK-NEXT: mg.cast %[[T2]] {mg.check_messages = ["", "argument 1 of plus_bias (a) must be tensor[?x3]: its size in dimension 1 differs at runtime"]} : tensor<1x?xf64> to tensor<?x3xf64>
