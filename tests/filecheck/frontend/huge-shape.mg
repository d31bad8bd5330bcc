# A static shape whose byte size does not fit in a signed 64-bit integer is a compile error.
# RUN: not mg-opt %s 2>&1 | filecheck %s
def f(a: tensor[4000000000x4000000000]) = a + 1
# CHECK: huge-shape.mg:3: error: tensor[4000000000x4000000000] is too large: 1.6e+19 elements of 8 bytes do not fit in 64-bit memory addresses (at most 2^63 - 1 bytes)
