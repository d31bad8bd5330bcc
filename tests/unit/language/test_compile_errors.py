"""Compile errors say what is wrong, feature by feature: each source below must fail to
compile with a message that contains the text beside it. Most are the checker's type rules
(shapes, ranks, element types, a builtin's arguments), a few the parser's for a feature's own
syntax. What each feature computes is tested end to end in tests/e2e/ (one module a feature)."""

import pytest
from conftest import compile_error

import mg_xdsl

# -- tensors of any rank: literals, rank-2-only builtins, shapes that do not broadcast -----

RANKS = [
    ("print [[1, 2], [[3, 4]]]", "the lists of a literal must have equal shapes: list 1 is 2 and list 2 1x2"),
    ("print [[1, 2], 3]", "expected '[' after ',' in a nested literal, found '3'"),
    ("print [[1], [2, 3]]", "rows of a matrix literal must have equal length: row 1 has 1 elements, row 2 has 2"),
    ("print row_sum([1, 2])", "row_sum needs a matrix (rank 2), got a tensor[2]"),
    ("print col_mean([[[1]]])", "col_mean needs a matrix (rank 2), got a tensor[1x1x1]"),
    ("def f(x: tensor[]) = row_max(x)", "row_max needs a matrix (rank 2), got a tensor[]"),
    ("print [1, 2] @ 3", "@ needs two matrices"),
    ("print [1, 2] @ [3, 4, 5]", "inner dimensions 2 and 3 differ"),
    ("def f(x: tensor[2x3]) = x\nprint f([1, 2, 3])", "argument 1 of f (x) must be 2x3, got 3"),
    ("print [1, 2] + [1, 2, 3]", "cannot add shapes 2 and 3: dimensions 2 and 3 differ and neither is 1"),
]


# -- element types: mixed types, numbers a type cannot hold, declared types, cast ----------

ELEMENT_TYPES = [
    (
        "let a: tensor[2xf32] = [1, 2]\nlet b = [1, 2]\nprint a + b",
        "cannot add a tensor[2xf32] and a tensor[2xf64]: their element types f32 and f64 differ (convert one with cast)",
    ),
    (
        "def f(a: tensor[2x2xi32], b: tensor[2x2xi64]) = a @ b",
        "cannot matrix-multiply a tensor[2x2xi32] and a tensor[2x2xi64]: their element types i32 and i64 differ",
    ),
    (
        "def f(a: tensor[2xi32]) = a * 2.5",
        "cannot multiply a tensor[2xi32] and the number 2.5: the number 2.5 is not an integer, and a "
        "tensor[2xi32] holds i32 integers",
    ),
    (
        "def f(a: tensor[2xi32]) = a + 3e9",
        "the number 3e+09 is out of the range of i32 (-2147483648 to 2147483647)",
    ),
    (
        "let a: tensor[2xi32] = [1, 2.5]",
        "a is declared tensor[2xi32], but in its value the number 2.5 is not an integer",
    ),
    ("let a: tensor[2xi32] = [1, 2, 3]", "a is declared tensor[2xi32], but its value is a tensor[3xf64]"),
    (
        "def f(a: tensor[2xi32]) -> tensor[2xi64] = a",
        "the result of f is declared tensor[2xi64], but its value is a tensor[2xi32]",
    ),
    (
        "def f(a: tensor[2xi32]) = a\nprint f([1, 2])",
        "argument 1 of f (a) must be a tensor[2xi32], got a tensor[2xf64] (convert it with cast)",
    ),
    # Where the element types differ, both are written, f64 (the default) too.
    (
        "def f(a: tensor[3]) -> tensor[3xf32] = a * 2",
        "error: the result of f is declared tensor[3xf32], but its value is a tensor[3xf64]\n",
    ),
    (
        "def f(a: tensor[2x2xf32]) -> tensor[2x2] = a",
        "error: the result of f is declared tensor[2x2xf64], but its value is a tensor[2x2xf32]\n",
    ),
    (
        "def f(a: tensor[2x2xf32]) = a\nprint f([[1, 2], [3, 4]])",
        "argument 1 of f (a) must be a tensor[2x2xf32], got a tensor[2x2xf64] (convert it with cast)",
    ),
    (
        "def f(a: tensor[2x2]) -> tensor[2] = a",
        "the result of f is declared tensor[2], but its value is a 2x2 matrix",
    ),
    (
        "def f(a: tensor[i32]) = a\nprint f(1.5)",
        "argument 1 of f (a) is tensor[i32], but the number 1.5 is not an integer",
    ),
    (
        "def f(a: tensor[2xf16]) = a",
        "unknown element type 'f16' in tensor[2xf16]: the element types are f64, f32, bf16, i32, i64, i1",
    ),
    ("print cast([1, 2], f8)", "the second argument of cast must be an element type: f64, f32, bf16, i32, i64, i1"),
    ("print cast([1, 2])", "cast takes 2 arguments (a tensor and an element type), got 1"),
    ("print cast(2, i32)", "cast needs a tensor, got the number 2"),
    (
        "def f(a: tensor[2x2xi32]) = row_mean(a)",
        "row_mean needs a float tensor, got a tensor[2x2xi32] (cast it to f64)",
    ),
    ("let d: tensor[1xi64] = [9223372036854775808]", "the number 9223372036854775808 is out of the range of i64"),
]


# -- comparisons, i1 tensors and where -----------------------------------------------------

COMPARISONS = [
    ("print [1, 2] < [2, 3] < [4, 5]", "comparisons do not chain"),
    ("print 1 < 2", "1 < 2 compares two numbers: write its value, true or false"),
    ("print [true, false] + [true, true]", "cannot add a tensor[2xi1]: i1 tensors (true/false) have no arithmetic"),
    ("print -[true]", "cannot negate a tensor[1xi1]"),
    ("print relu([true])", "relu of a tensor[1xi1]: i1 tensors (true/false) have no arithmetic"),
    ("print where([1, 0], 1, 2)", "the mask of where must be a tensor of i1 (a comparison), got a tensor[2]"),
    ("print where([true], 1)", "where takes 3 arguments"),
    (
        "let i: tensor[2xi32] = [1, 2]\nprint where([true, false], i, [1.5, 2])",
        "cannot select from a tensor[2xi32] and a tensor[2xf64]: their element types i32 and f64 differ",
    ),
    ("print [true, 1]", "a literal's elements are all numbers or all true/false, not both"),
    ("let true = [1]", "cannot bind 'true': it names a function or keyword"),
    (
        "let m: tensor[2xi1] = [1, 2]",
        "m is declared tensor[2xi1], but in its value the number 2 is out of the range of i1 (0 to 1)",
    ),
]


# -- builtins: reductions over axes, math functions, creation, keyword arguments -----------

BUILTINS = [
    ("print sum([1, 2], axis=0)", "sum takes the keyword arguments axes, keepdims, not axis"),
    ("print relu([1], keepdims=true)", "relu takes no keyword arguments, not keepdims"),
    ("print sum([1, 2], axes=[1])", "sum: axis 1 is out of range for a tensor of rank 1 (axes are -1 to 0)"),
    ("print sum([[1, 2]], axes=[0, -2])", "sum: axis -2 is given twice"),
    ("print sum([1, 2], axes=[0.5])", "axes must be a list of integers like [0, 1]"),
    ("print sum([1, 2], keepdims=1)", "keepdims must be true or false"),
    ("print sum([1], [2])", "sum takes 1 argument (a tensor, then axes= and keepdims=), got 2"),
    (
        "let i: tensor[2xi32] = [1, 2]\nprint mean(i)",
        "mean needs a float tensor, got a tensor[2xi32] (cast it to f64)",
    ),
    (
        "let i: tensor[2xi32] = [1, 2]\nprint exp(i)",
        "exp needs a float tensor, got a tensor[2xi32] (cast it to f64)",
    ),
    ("let i: tensor[2xi32] = [1, 2]\nprint pow(i, 2)", "pow needs float tensors, got a tensor[2xi32]"),
    ("print maximum([1, 2])", "maximum takes 2 arguments (tensors or numbers), got 1"),
    ("print sum([true, false])", "sum of a tensor[2xi1]: i1 tensors (true/false) have no arithmetic"),
    ("print zeros([2, 0])", "the shape of zeros must be positive sizes, got [2, 0]"),
    ("print zeros(2, dtype=f16)", "dtype must be an element type: f64, f32, bf16, i32, i64, i1"),
    ("print iota([3], dtype=f64)", "iota makes integers: dtype must be i32 or i64, got f64"),
    ("print iota([3], axis=1)", "iota: axis 1 is out of range for a tensor of rank 1"),
    ("print full([2], 2.5, dtype=i32)", "full: the number 2.5 is not an integer"),
    ("print full([2], [1])", "the value of full must be a number, got a tensor[1]"),
    ("print zeros_like(3)", "zeros_like needs a tensor, got the number 3"),
    # A number is no matrix: the chapter's row and column reductions say what they need.
    ("print row_sum(3)", "row_sum needs a matrix (rank 2), got the number 3"),
    ("print col_max(relu(-3))", "col_max needs a matrix (rank 2), got the number 0"),
    ("def f(x: tensor[2]) = relu(-1)", "the body of f must be a tensor, got the number 0"),
    ("print sum([1], axes=[0], axes=[0])", "keyword argument axes is given twice"),
    ("print sum(axes=[0], [1])", "a positional argument cannot follow the keyword argument axes"),
]


# -- batched matrix products ---------------------------------------------------------------

BATCHED_PRODUCTS = [
    ("print [1, 2] @ [[3, 4]]", "inner dimensions 2 and 1 differ"),
    ("let a: tensor[2xi32] = [1, 2]\nprint a + [1.5, 2]", "their element types i32 and f64 differ"),
    ("print ones([2, 2, 3]) @ ones([2, 2, 3])", "inner dimensions 3 and 2 differ"),
    ("print ones([2, 2, 3]) @ ones([3, 3, 4])", "cannot matrix-multiply shapes 2 and 3: dimensions 2 and 3 differ"),
]


# -- element access a[i, j] and a tensor's shape, dim, numel and rank ----------------------

ELEMENT_ACCESS = [
    ("print [1, 2][2]", "index 2 is out of range for axis 0 of size 2 (-2 to 1)"),
    ("print [1, 2][-3]", "index -3 is out of range for axis 0 of size 2 (-2 to 1)"),
    ("print [[1, 2]][0, 0, 1]", "a 1x2 matrix has 2 axes, got 3 indices"),
    ("print [[1, 2]][0, 1:1]", "the slice 1:1 of axis 1 is empty: start must be below stop"),
    ("print [[1, 2]][0, 1:3]", "stop 3 is out of range for axis 1 of size 2 (-2 to 2)"),
    ("def f(a: tensor[?]) = a[1:]", "a slice of axis 0, a '?' dimension, needs its stop"),
    ("def f(a: tensor[?]) = a[-1:3]", "a negative start counts from the end, which a '?' dimension"),
    ("def f(a: tensor[?], i: tensor[i64]) = a[i : i + 2.5]", "LENGTH a whole number above 0, got the number 2.5"),
    ("def f(a: tensor[?], i: tensor[i64]) = a[i : 2 + i]", "is written x[s : s + LENGTH]"),
    ("def f(a: tensor[4], i: tensor[i64]) = a[i : i + 5]", "a slice of 5 is longer than axis 0 of size 4"),
    ("print [1, 2][0.5]", "the index for axis 0 must be an integer known when compiling, got the number 0.5"),
    (
        "def f(a: tensor[3], i: tensor[]) = a[i]",
        "an index or start for axis 0 is an integer (a rank-0 i64 or i32), got a tensor[]",
    ),
    ("let y = 3\nprint y[0]", "cannot index the number 3: only a tensor has elements"),
    ("print [1, 2][0", "expected ',' or ']' after an index"),
    ("def f(a: tensor[?x3]) = a * shape(a)", "shape of a ?x3 matrix is known only when the program runs"),
    ("def f(a: tensor[?x3]) = iota(shape(a))", "shape of a ?x3 matrix is known only when the program runs"),
    ("def f(a: tensor[?x3]) = a * dim(a, 0)", "their element types f64 and i64 differ"),
    (
        "def f(m: tensor[2x1], a: tensor[?x3]) = broadcast_to(m, shape(a))",
        "cannot broadcast a 2x1 matrix to the shape of a ?x3 matrix",
    ),
    ("print dim([1, 2], 1)", "dim: axis 1 is out of range for a tensor of rank 1"),
    ("print numel(3)", "numel needs a tensor, got the number 3"),
    ("print rank([1], [2])", "rank takes 1 argument (a tensor), got 2"),
]


# -- shape operations: transpose, reshape, slice, broadcast_to, concat ---------------------

SHAPE_OPS = [
    (
        "print transpose([[1, 2]], [0])",
        "transpose needs a permutation of the axes 0 to 1 (negative ones count from the end), got [0]",
    ),
    ("print transpose([[1, 2]], [0, -2])", "transpose needs a permutation of the axes 0 to 1"),
    (
        "print reshape([1, 2, 3], [2, -1])",
        "cannot reshape tensor[3] (3 elements) to [2, -1]: 3 is not a multiple of 2",
    ),
    # Both counts, the tensor as its type, and the shape list named as a list, not a tensor.
    ("print reshape([1, 2, 3], [2, 2])", "error: cannot reshape tensor[3] (3 elements) to [2, 2] (4 elements)\n"),
    (
        "print reshape([1, 2, 3], [2, 2])",
        "note: arguments: `[1, 2, 3]` is tensor[3xf64], `[2, 2]` is a list of integers",
    ),
    (
        "def f(x: tensor[2x2xi32]) = reshape(x, [3])",
        "cannot reshape tensor[2x2xi32] (4 elements) to [3] (3 elements)",
    ),
    ("print reshape([1, 2, 3, 4], [-1, -1])", "a shape for reshape is positive sizes and at most one -1"),
    ("def f(x: tensor[?]) = reshape(x, [2])", "cannot reshape tensor[?]: its sizes must be static"),
    ("print slice([1, 2, 3], 0, 2, 2)", "a slice of axis 0 needs 0 <= start < stop <= 3, got start 2 and stop 2"),
    ("print slice([1, 2, 3], 0, 1, 4)", "a slice of axis 0 needs 0 <= start < stop <= 3, got start 1 and stop 4"),
    ("print slice([1, 2, 3], 1, 0, 1)", "slice: axis 1 is out of range for a tensor of rank 1"),
    ("print broadcast_to([1, 2], [3, 3])", "cannot broadcast shapes 2 and 3x3"),
    ("print broadcast_to([[1], [2]], [2])", "cannot broadcast a 2x1 matrix to 2"),
    ("def f(x: tensor[?]) = broadcast_to(x, [1])", "cannot broadcast a tensor[?] to 1"),
    ("print reshape(3, [1])", "reshape needs a tensor, got the number 3"),
    ("print slice([1, 2], 0, 1)", "slice takes 4 arguments (a tensor and an axis, start and stop), got 3"),
    ("let a = [1, 2]\nprint concat(0, a)", "the second argument of concat must be a list of tensors like [a, b]"),
    ("let a = [1, 2]\nprint concat(0, [a, [[1]]])", "concat joins tensors of one rank"),
    (
        "let a = [[1, 2]]\nprint concat(0, [a, [[1, 2, 3]]])",
        "concat along axis 0 needs the other sizes equal: item 1 is 1x2, item 2 1x3",
    ),
    (
        "let a = [1, 2]\nprint concat(0, [a, cast(a, f32)])",
        "cannot concatenate a tensor[2xf64] and a tensor[2xf32]",
    ),
    ("let a = [1, 2]\nprint concat(1, [a, a])", "concat: axis 1 is out of range for a tensor of rank 1"),
    (
        "let a = [1, 2]\nprint [a, a]",
        "a list of expressions is concat's (concat(axis, [a, b])); a literal holds numbers only",
    ),
]


@pytest.mark.parametrize(
    "source, message",
    [
        (
            "print []",
            "error: the empty list [] is not a tensor (no dimension has size 0); it is a list where one is "
            "expected: axes=[] (no axes), reshape(x, []) (rank 0)",
        ),
        ("print index([[1, 2]], [])", "error: the empty list [] is not a tensor"),
        ("print concat(0, [])", "error: concat needs at least one tensor to join, got the empty list []"),
        ("print [[1], []]", "error: a literal's lists cannot be empty: a tensor has no dimension of size 0"),
        ("print [[], []]", "error: a literal's lists cannot be empty"),
        ("print reshape([1, 2], [])", "error: cannot reshape tensor[2] (2 elements) to [] (1 element)"),
        ("print slice([1, 2], [], 0, 1)", "error: slice takes one integer each for its axis, start and stop"),
        ("print iota([])", "error: iota: axis 0 is out of range for a tensor of rank 0"),
    ],
)
def test_an_empty_list_where_none_can_be_says_why(source, message):
    text = compile_error(source)
    assert message in text
    assert "matrix literal" not in text


# -- variables updated in place: var, +=, -=, *=, /= ---------------------------------------

VARIABLES = [
    (
        "let w = [1, 2]\nw += 1",
        "cannot assign to w: it is bound by let, which never changes (declare it with var w = ... to update it)",
    ),
    ("w += 1", "unknown name 'w': declare it with var w = ... first"),
    ("var w = [1, 2]\nw += [[1, 2], [3, 4]]", "w += ... would change the type of w from tensor[2] to tensor[2x2]"),
    ("var w = [1, 2]\nw += cast([1, 2], f32)", "cannot add a tensor[2xf64] and a tensor[2xf32]"),
    ("var k: tensor[2xi32] = [1, 2]\nk *= 2.5", "the number 2.5 is not an integer"),
    ("var n = 3\nn += [1, 2]", "n += ... would change the type of n from a number to tensor[2]"),
    ("var w = [1, 2]\nw += ", "expected an expression, found the end of the line"),
    ("var = 3", "expected 'var NAME = EXPR' or 'var NAME: TYPE = EXPR'"),
    ("def f(x: tensor[2]) = x\nf += 1", "unknown name 'f'"),
]


# -- random numbers: normal and uniform ----------------------------------------------------

RANDOM = [
    ("print normal([2], seed=-1)", "the seed of normal must be an integer from 0 to 2^63 - 1, got -1"),
    ("print normal([2], seed=0.5)", "the seed of normal must be an integer from 0 to 2^63 - 1, got 0.5"),
    ("print normal([2], std=-1)", "the std of normal must not be negative, got -1"),
    ("print normal([2], std=-0.5, mean=3)", "error: the std of normal must not be negative, got -0.5"),
    ("print uniform([2], low=2, high=1)", "error: uniform needs low <= high, got low 2 and high 1"),
    ("print uniform([2], low=1.5)", "error: uniform needs low <= high, got low 1.5 and high 1"),  # (high=1.0)
    ("print uniform([2], high=-1)", "error: uniform needs low <= high, got low 0 and high -1"),
    ("print uniform([2], dtype=i32)", "uniform makes floats: dtype must be f64, f32 or bf16, got i32"),
    ("print uniform([2], mu=1)", "uniform takes the keyword arguments low, high, seed, dtype, not mu"),
    ("print uniform([0])", "the shape of uniform must be positive sizes, got [0]"),
    (
        "def f(x: tensor[]) = uniform([2], low=x)",
        "low of uniform must be a finite number known when compiling, got a tensor[]",
    ),
]


@pytest.mark.parametrize("source", ["print normal([2], std=-1)", "print uniform([2], low=2, high=1)"])
def test_a_negative_spread_is_an_argument_out_of_its_range(source):
    with pytest.raises(mg_xdsl.MgError) as info:
        mg_xdsl.compile(source + "\n")
    assert (info.value.code, info.value.column) == ("E-ARG-004", 7)


# -- scans: linear_scan and cumsum ---------------------------------------------------------

SCANS = [
    ("print linear_scan(1, 2)", "linear_scan needs a tensor: of two numbers it has no axis"),
    ("print linear_scan(cast([1], i32), [1])", "linear_scan needs float tensors, got a tensor[1xi32]"),
    ("print cumsum([1, 2], axis=1)", "cumsum: axis 1 is out of range for a tensor of rank 1"),
    ("print cumsum([true])", "cumsum of a tensor[1xi1]: i1 tensors (true/false) have no arithmetic"),
    ("print cumsum(3)", "cumsum needs a tensor, got the number 3"),
    ("print cumsum([1, 2], reverse=true)", "cumsum takes the keyword arguments axis, not reverse"),
    ("print linear_scan([1, 2], [1, 2, 3])", "cannot scan shapes 2 and 3"),
]


# -- indexing: index, index_add, gather, scatter_add ---------------------------------------

INDEXING = [
    ("print index([[1, 2]])", "index takes 2 arguments (a table and ids), got 1"),
    ("print index_add([1, 2], cast([0], i32))", "index_add takes 3 arguments (a base, ids and values), got 2"),
    (
        "print gather([1, 2], cast([0], i32), [1])",
        "gather takes 2 arguments (a tensor and indices, then axis=), got 3",
    ),
    (
        "print scatter_add([1, 2], cast([0], i32))",
        "scatter_add takes 3 arguments (a base, indices and values, then axis=), got 2",
    ),
    (
        "print index([[1, 2]], [0])",
        "the ids of index must be a tensor of i32 or i64, got a tensor[1] (cast it to i64)",
    ),
    ("print gather([[1, 2]], [[0]])", "the indices of gather must be a tensor of i32 or i64, got a 1x1 matrix"),
    ("print index([[1, 2]], 0)", "the ids of index must be a tensor of i32 or i64, got the number 0"),
    ("print index(3, cast([0], i64))", "index needs a tensor to read, got the number 3"),
    (
        "def f(t: tensor[f64], i: tensor[i64]) = index(t, i)",
        "a table of rows must have rank 1 or more, got a rank-0 tensor",
    ),
    (
        "print index_add([[1, 2]], cast([0, 0], i64), [[1, 2]])",
        "the values of index_add must be a tensor[2x2] (the ids' shape, then a row's), got a 1x2 matrix",
    ),
    (
        "print index_add([[1, 2]], cast([0], i64), cast([[1, 2]], f32))",
        "cannot add a tensor[1x2xf64] and a tensor[1x2xf32]: their element types f64 and f32 differ",
    ),
    (
        "print index_add([true], cast([0], i64), [true])",
        "index_add of a tensor[1xi1]: i1 tensors (true/false) have no arithmetic",
    ),
    (
        "print gather([[1, 2]], cast([0], i64))",
        "cannot gather along axis 1 of 1x2 with indices 1: the indices must "
        "have rank 2 and the sizes of 1x2 off the axis",
    ),
    (
        "print gather([[1, 2], [3, 4]], cast([[0]], i64), axis=0)",
        "cannot gather along axis 0 of 2x2 with indices 1x1",
    ),
    (
        "print gather([[1, 2]], cast([[0]], i64), axis=2)",
        "gather: axis 2 is out of range for a tensor of rank 2 (axes are -2 to 1)",
    ),
    ("print gather([[1, 2]], cast([[0]], i64), axis=[0, 1])", "axis of gather must be one integer"),
    (
        "print scatter_add([[1, 2]], cast([[0]], i64), [[1, 2]])",
        "the values of scatter_add must be a tensor[1x1] (the indices' shape), got a 1x2 matrix",
    ),
    (
        "print scatter_add([[1, 2]], cast([[0]], i64), 1)",
        "the values of scatter_add must be a tensor, got the number 1",
    ),
    ("print index([[1, 2]], cast([0], i64), axis=0)", "index takes no keyword arguments, not axis"),
    (
        "print gather([[1, 2]], cast([[0]], i64), reverse=true)",
        "gather takes the keyword arguments axis, not reverse",
    ),
]


# -- every feature's cases, one test --------------------------------------------------------

# -- programs: blocks, output, data and arguments, the operators they brought -------------

PROGRAMS = [
    ('let lr = arg("lr", [0.1])', "the default of arg is a number (0.1, or 100 for an integer), got a tensor[1]"),
    ("let lr = arg(lr, 0.1)", 'the first argument of arg is its name in quotes, like "lr"'),
    ('let lr = arg("learning rate", 0.1)', 'the first argument of arg is its name in quotes, like "lr"'),
    ('let lr = arg("lr")', "arg takes 2 arguments"),
    ('let x = load("x.npy")', "load reads a file into the type the program declares"),
    ('let x: tensor[2xbf16] = load("x.npy")', "NumPy's .npy files have no bf16"),
    ("let x: tensor[2] = load(3)", "the first argument of load is a path in quotes"),
    ('save("w.npy", 3)', "save writes a tensor, got the number 3"),
    ('let s = save("w.npy", [1.0])', "save writes a file and has no value"),
    ("sum([1.0])", "the value of sum(...) would be lost"),
    ('print "text"', "a string is no value"),
    ('println("{1.5:q}")', "format spec"),
    ('println("{x}")', "unknown name 'x'"),
    ('println("{")', "'{' without its '}' in the string"),
    ('println("a } b")', "a '}' in a string is written '}}'"),
    ('println("{}")', "an empty {} in a string"),
    ("println(1.5)", "println takes one string"),
    ("print [1.0, 2.0] and [true, false]", "and takes true/false values (i1, such as a comparison), got a tensor[2]"),
    ("print not 1.0", "not takes true/false values"),
    ("print argmax([[1.0, 2.0]])", "argmax of a 1x2 matrix needs axis="),
    ("print argmax(2.0)", "argmax needs a tensor of rank 1 or more"),
    ("for i in range(1, 2, 0):\n    print i", "range's step is a positive integer known when compiling"),
    ("for i in range(1, 2, 3, 4):\n    print i", "a loop counts with range(STOP)"),
    ("for i in range([1, 2]):\n    print i", "a loop counts with integers"),
    ("for in range(3):\n    print 1", "expected a name after 'for'"),
    ("if true\n    print 1", "expected ':' at the end of the if line"),
    ("for i in range(3):\n    print i\nelse:\n    print 2", "else without an if before it"),
]


ERRORS = {
    "programs": PROGRAMS,
    "ranks": RANKS,
    "element_types": ELEMENT_TYPES,
    "comparisons": COMPARISONS,
    "builtins": BUILTINS,
    "batched_products": BATCHED_PRODUCTS,
    "element_access": ELEMENT_ACCESS,
    "shape_ops": SHAPE_OPS,
    "variables": VARIABLES,
    "random": RANDOM,
    "scans": SCANS,
    "indexing": INDEXING,
}


@pytest.mark.parametrize(
    "feature, source, message", [(feature, *case) for feature, cases in ERRORS.items() for case in cases]
)
def test_errors_say_what_is_wrong(feature, source, message):
    assert message in compile_error(source)
