# An operand with '?' dimensions grows along its static 1s: mg.broadcast keeps the '?'.
# A '?' is never broadcast: against a static size, mg.cast claims that size first (checked
# at run time), and only static 1s grow.
# RUN: mg-opt %s 2>/dev/null | filecheck %s
def f(x: tensor[?x4]) = x / row_sum(x)
# CHECK:      %[[S:.*]] = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<?x4xf64> -> tensor<?x1xf64>
# CHECK-NEXT: %[[B:.*]] = mg.broadcast %[[S]] : tensor<?x1xf64> -> tensor<?x4xf64>
# CHECK-NEXT: mg.div %x, %[[B]] : tensor<?x4xf64>, tensor<?x4xf64> -> tensor<?x4xf64>
def g(a: tensor[?x1]) = a + [[1, 2, 3]]
# CHECK:      %[[C:.*]] = mg.cast %a {mg.check_messages = ["mg.add: operand shapes differ at runtime in dimension 0", ""]} : tensor<?x1xf64> to tensor<1x1xf64>
# CHECK-NEXT: %[[G:.*]] = mg.broadcast %[[C]] : tensor<1x1xf64> -> tensor<1x3xf64>
# CHECK-NEXT: mg.add %[[G]], %{{.*}} : tensor<1x3xf64>, tensor<1x3xf64> -> tensor<1x3xf64>
