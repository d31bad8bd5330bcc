# An unknown function suggests the builtins it is nearest to.
# RUN: not mg-opt %s 2>&1 | filecheck %s
let a = [[1, 2], [3, 4]]
print row(a)
# CHECK: did-you-mean.mg:4: error: unknown function 'row': did you mean row_sum, row_max or row_mean?
