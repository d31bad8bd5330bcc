# The chapter's compile errors, exactly, as PATH:LINE: error: MESSAGE.
# RUN: not mg-opt %s 2>&1 | filecheck %s
print [[1, 2, 3], [4, 5, 6]] + [[1, 2], [3, 4], [5, 6]]
# CHECK: errors.mg:3: error: cannot add shapes 2x3 and 3x2: dimensions 2 and 3 differ and neither is 1
