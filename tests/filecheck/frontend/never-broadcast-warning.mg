# A '?' dimension meeting a static 1 in an elementwise operator compiles (the sizes are
# checked at run time), with a warning on stderr naming the operator's line; the line stays
# right after a literal that spans lines.
# RUN: mg-opt %s 2>&1 | filecheck %s
# RUN: mg-opt -w %s 2>&1 | filecheck %s --check-prefix=QUIET
let w = [[1, 2],
         [3, 4]]
def bias(x: tensor[?x2],
         b: tensor[1x2]) = (x
                            + b)
# CHECK: never-broadcast-warning.mg:10: warning: a '?' dimension is never broadcast: this aborts at run time unless the sizes are equal; give the dimension a static size
# CHECK-NOT: warning
# CHECK: func.func @bias
# CHECK: mg.add %{{.*}}, %{{.*}} : tensor<?x2xf64>, tensor<1x2xf64> -> tensor<1x2xf64>
# QUIET-NOT: warning
# QUIET: mg.add
print bias(w, [[1, 1]])
