# Functions for the C++ interoperability test (tests/e2e/test_cpp.py): dynamic and static shapes.
def relu_m(a: tensor[?x?]) = relu(a)
def row_sums(a: tensor[?x?]) = row_sum(a)
def col_maxes(a: tensor[?x?]) = col_max(a)
def scaled_diff(a: tensor[?x?], b: tensor[?x?]) = 2 * a - b / 4
def product(a: tensor[?x?], b: tensor[?x?]) = a @ b
def layer(x: tensor[16x24], w: tensor[24x12], bias: tensor[1x12]) = relu(x @ w + bias)
def center(a: tensor[20x8]) = a - col_mean(a)
def normalize(a: tensor[9x6]) = a / row_sum(a)
