# `if`/`elif`/`else` on a run-time value: the condition, a rank-0 i1 tensor, becomes an i1
# by mg.item and chooses an scf.if; `elif` is an scf.if in the else region of the one
# before. Each scf.if yields the vars any branch assigns (best, then k: the order of their
# first assignment), a branch that leaves one alone yielding its value from before.
# RUN: mg-opt %s 2>/dev/null | filecheck %s --check-prefix=MG
# RUN: mgc run --no-cache %s | filecheck %s --check-prefix=OUT
# RUN: mgc run --no-cache --reference %s | filecheck %s --check-prefix=OUT
var best: tensor[] = 100.0
var k = [0.0, 1.0]
let loss = sum(k) - 5.0
if loss < best:
    best = loss
elif loss > 10.0 and not (loss > 20.0):
    k += 1.0
else:
    k = k * 2.0
println("best {best:.3f} k {k[1]}")

# MG-LABEL: func.func @main()
# MG:         %[[BEST:[^ ]+]] = mg.convert %{{.*}} : tensor<f64> to tensor<f64>
# MG:         %[[K:[^ ]+]] = mg.convert %{{.*}} : tensor<2xf64> to tensor<2xf64>
# MG:         %[[LOSS:[^ ]+]] = mg.scalar %{{.*}} {op = "sub", value = 5.000000e+00 : f64, reversed = false}
# MG-NEXT:    %[[C:[^ ]+]] = mg.compare %[[LOSS]], %[[BEST]] {predicate = "lt"} : tensor<f64>, tensor<f64> -> tensor<i1>
# MG-NEXT:    %[[I:[^ ]+]] = mg.item %[[C]] : tensor<i1> -> i1
# MG-NEXT:    %[[B:[^ ,]+]], %[[KK:[^ ]+]] = scf.if %[[I]] -> (tensor<f64>, tensor<2xf64>) {
# MG-NEXT:      %[[L:[^ ]+]] = mg.convert %[[LOSS]]
# MG-NEXT:      scf.yield %[[L]], %[[K]] : tensor<f64>, tensor<2xf64>
# MG-NEXT:    } else {
# MG:           %[[I2:[^ ]+]] = mg.item %{{.*}} : tensor<i1> -> i1
# MG-NEXT:      %[[B2:[^ ,]+]], %[[K2:[^ ]+]] = scf.if %[[I2]] -> (tensor<f64>, tensor<2xf64>) {
# MG-NEXT:        %[[K3:[^ ]+]] = mg.scalar %[[K]] {mg.in_place, op = "add", value = 1.000000e+00 : f64, reversed = false}
# MG-NEXT:        scf.yield %[[BEST]], %[[K3]] : tensor<f64>, tensor<2xf64>
# MG-NEXT:      } else {
# MG-NEXT:        %[[K4:[^ ]+]] = mg.scalar %[[K]] {op = "mul", value = 2.000000e+00 : f64, reversed = false}
# MG-NEXT:        scf.yield %[[BEST]], %[[K4]] : tensor<f64>, tensor<2xf64>
# MG-NEXT:      }
# MG-NEXT:      scf.yield %[[B2]], %[[K2]] : tensor<f64>, tensor<2xf64>
# MG-NEXT:    }
# MG:         mg.println ["best ", " k ", ""] [".3f", ""] %[[B]], %{{.*}} : tensor<f64>, tensor<f64>

# OUT: best -4.000 k 1.0
