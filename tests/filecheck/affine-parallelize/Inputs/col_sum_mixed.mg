def sums(a: tensor[?x3]) = col_sum(a)
