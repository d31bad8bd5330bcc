# Line numbers stay right after a statement that spans lines.
# RUN: not mg-opt %s 2>&1 | filecheck %s
let m = [[1, 2],
         [3, 4]]
print m @ [[1, 2, 3]]
# CHECK: multiline-error.mg:5: error: cannot matrix-multiply shapes 2x2 and 1x3: inner dimensions 2 and 1 differ
