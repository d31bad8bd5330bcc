# inline in a program: a def's one call becomes its body and the def goes; a def called
# twice keeps its calls; a def that nothing calls stays. h, called once from g, is in g's
# copy in @main.
# RUN: mg-opt %s -p inline | filecheck %s

def h(x: tensor[4]) = exp(x)
def g(x: tensor[4]) = h(x) * 2
def twice(x: tensor[4]) = x + 1
def unused(x: tensor[4]) = x - 1

let a = [1.0, 2.0, 3.0, 4.0]
print g(a)
print twice(a) + twice(a)

# CHECK-NOT:     func.func @h(
# CHECK-NOT:     func.func @g(
# CHECK-LABEL:   func.func @twice(
# CHECK:           mg.scalar %x {op = "add"
# CHECK-LABEL:   func.func @unused(
# CHECK-LABEL:   func.func @main()
# CHECK:           %[[A:.*]] = mg.constant
# CHECK-NEXT:      %[[E:.*]] = mg.exp %[[A]]
# CHECK-NEXT:      %[[G:.*]] = mg.scalar %[[E]] {op = "mul"
# CHECK-NEXT:      mg.print %[[G]]
# CHECK-NEXT:      func.call @twice(%[[A]])
# CHECK-NEXT:      func.call @twice(%[[A]])
# CHECK-NOT:       func.call
# CHECK:           func.return
