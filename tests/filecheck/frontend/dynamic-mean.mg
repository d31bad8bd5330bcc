# RUN: not mg-opt %s 2>&1 | filecheck %s
def f(a: tensor[?x?]) = row_mean(a)
# CHECK: dynamic-mean.mg:2: error: row_mean needs a static size along the averaged axis, not '?'
