# The statements and builtins of a program's input and output, and of run-time sizes and
# starts, each one mg op: println (its texts and specs as properties), load into the declared
# type and save (their paths made absolute, relative to the program's folder), arg (a rank-0
# tensor of its default's type), a slice with a run-time start (mg.dynamic_slice of the start
# as a rank-0 i64), broadcast_to(m, shape(x)) of a '?' x (mg.broadcast with x as its like
# operand), dim and numel of a '?' size (mg.size of those axes).
# RUN: mg-opt %s 2>/dev/null | filecheck %s
let x: tensor[?x2] = load("data/x.npy")
save("out.npy", x * 2.0)
let lr = arg("lr", 0.1)
let steps = arg("steps", 3)
for i in range(steps):
    print x[i * 2 : i * 2 + 2]
    println("step {i:>3}: {lr:.4f} {{literal}}")
print broadcast_to(mean(x, axes=[1], keepdims=true), shape(x))
println("{dim(x, 0)} {numel(x)} {dim(x, 1)}")

# CHECK-LABEL: func.func @main()
# CHECK:         %[[X:[^ ]+]] = mg.load {path = "{{.*}}/frontend/data/x.npy"} : tensor<?x2xf64>
# CHECK-NEXT:    %[[Y:[^ ]+]] = mg.scalar %[[X]] {op = "mul", value = 2.000000e+00 : f64, reversed = false}
# CHECK-NEXT:    mg.save %[[Y]] {path = "{{.*}}/frontend/out.npy"} : tensor<?x2xf64>
# CHECK-NEXT:    %[[LR:[^ ]+]] = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
# CHECK-NEXT:    %[[STEPS:[^ ]+]] = mg.arg {name = "steps", default = 3 : i64} : tensor<i64>
# CHECK-NEXT:    %[[COUNT:[^ ]+]] = mg.item %[[STEPS]] : tensor<i64> -> i64
# CHECK-NEXT:    %[[STOP:[^ ]+]] = arith.index_cast %[[COUNT]] : i64 to index
# CHECK:         scf.for %[[I:[^ ]+]] = %{{.*}} to %[[STOP]] step %{{.*}} {
# CHECK-NEXT:      %[[II:[^ ]+]] = arith.index_cast %[[I]] : index to i64
# CHECK-NEXT:      %[[T:[^ ]+]] = mg.from_item %[[II]] : i64 -> tensor<i64>
# CHECK-NEXT:      %[[S:[^ ]+]] = mg.scalar %[[T]] {op = "mul", value = 2 : i64, reversed = false} : tensor<i64> -> tensor<i64>
# CHECK-NEXT:      %[[B:[^ ]+]] = mg.dynamic_slice %[[X]], %[[S]] {axis = 0 : i64, size = 2 : i64} : tensor<?x2xf64>, tensor<i64> -> tensor<2x2xf64>
# CHECK-NEXT:      mg.print %[[B]] : tensor<2x2xf64>
# CHECK-NEXT:      mg.println ["step ", ": ", " {literal}"] [">3", ".4f"] %[[T]], %[[LR]] : tensor<i64>, tensor<f64>
# CHECK-NEXT:    }
# CHECK:         %[[M:[^ ]+]] = mg.scalar %{{.*}} {op = "div", value = 2.000000e+00 : f64, reversed = false} : tensor<?x1xf64> -> tensor<?x1xf64>
# CHECK-NEXT:    %[[G:[^ ]+]] = mg.broadcast %[[M]] like %[[X]] {mg.like_shape} : tensor<?x1xf64>, tensor<?x2xf64> -> tensor<?x2xf64>
# CHECK-NEXT:    mg.print %[[G]] : tensor<?x2xf64>
# CHECK-NEXT:    %[[D:[^ ]+]] = mg.size %[[X]] {axes = array<i64: 0>} : tensor<?x2xf64> -> tensor<i64>
# CHECK-NEXT:    %[[N:[^ ]+]] = mg.size %[[X]] {axes = array<i64: 0, 1>} : tensor<?x2xf64> -> tensor<i64>
# CHECK-NEXT:    %[[TWO:[^ ]+]] = mg.constant dense<2> : tensor<i64>
# CHECK-NEXT:    mg.println ["", " ", " ", ""] ["", "", ""] %[[D]], %[[N]], %[[TWO]] : tensor<i64>, tensor<i64>, tensor<i64>
