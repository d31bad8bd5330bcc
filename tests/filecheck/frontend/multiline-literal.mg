# Inside brackets and parentheses a newline is whitespace, as in Python: a matrix literal
# may have one row per line, and a comment may follow each row.
# RUN: mg-opt %s | filecheck %s
let m = [[1, 2, 3],   # first row
         [4, 5, 6]]
# CHECK: mg.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf64>
print relu(
  m
  - 3
)
# CHECK: mg.scalar
# CHECK: mg.relu
# CHECK: mg.print
