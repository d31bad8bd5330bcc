"""Malformed programs: each gives one error on stderr, the line `PATH:LINE: error: MESSAGE`
and below it where (`--> PATH:LINE:COLUMN [CODE]`, the source line, carets) and notes, and
exit status 1, never a Python traceback; random bytes never crash the compiler. (The codes,
columns, carets and notes of each kind of error: test_diagnostic_codes.py.)"""

import re

import pytest
from conftest import mgc
from hypothesis import given, settings, strategies as st

from mg_xdsl.tools.mgc import main

DEF = "def f(a: tensor[2x2]) = a\n"

# (program, line of the error, a piece of the message)
BROKEN = [
    ("print\n", 1, "expected an expression, found the end of the line"),
    ("let = 3\n", 1, "expected 'let NAME = EXPR'"),
    ("let a 3\n", 1, "expected 'let NAME = EXPR'"),
    ("print [[1, 2], [3]]\n", 1, "rows of a matrix literal must have equal length: row 1 has 2 elements, row 2 has 1"),
    ("print [[]]\n", 1, "a literal's lists cannot be empty: a tensor has no dimension of size 0"),
    ("print []\n", 1, "the empty list [] is not a tensor (no dimension has size 0)"),
    ("print [[1, 2], [[3]]]\n", 1, "the lists of a literal must have equal shapes: list 1 is 2 and list 2 1x1"),
    ("print [[1,, 2]]\n", 1, "matrix literal elements must be numbers, found ','"),
    ("print [[1, 2]]]\n", 1, "unexpected ']' after the end of the expression"),
    ("print [[1]] [[2]]\n", 1, "an index or start for axis 0 is an integer (a rank-0 i64 or i32), got a tensor[1]"),
    ("let a = [[1]]\nlet b = a\nprint c\n", 3, "unknown name 'c'"),
    ("print foo([[1]])\n", 1, "unknown function 'foo'"),
    ("print relu([[1]], [[2]])\n", 1, "relu takes 1 argument, got 2"),
    ("print transpose()\n", 1, "transpose takes 1 argument, got 0"),
    ("print row_sum(2 * 3)\n", 1, "row_sum needs a matrix (rank 2), got the number 6"),
    (DEF + "print f([[1, 2, 3]])\n", 2, "argument 1 of f (a) must be 2x2, got 1x3"),
    (DEF + "print f()\n", 2, "f takes 1 argument, got 0"),
    (DEF + "print f(2)\n", 2, "argument 1 of f (a) must be a 2x2 matrix, got the number 2"),
    (DEF + "print f\n", 2, "'f' is a function: call it as f(...)"),
    (DEF + DEF, 2, "function 'f' is already defined"),
    ("print [[1, 2]] @ [[1, 2]]\n", 1, "cannot matrix-multiply shapes 1x2 and 1x2: inner dimensions 2 and 1 differ"),
    ("print [[1, 2]] @ 2\n", 1, "@ needs two matrices, got a 1x2 matrix and the number 2"),
    (
        "print [[1, 2], [3, 4]] + [[1, 2, 3]]\n",
        1,
        "cannot add shapes 2x2 and 1x3: dimensions 2 and 3 differ and neither is 1",
    ),
    ("print [[1, 2]] - [[1, 2, 3]]\n", 1, "cannot subtract shapes 1x2 and 1x3"),
    ("print [[1, 2]] * [[1], [2], [3]] * [[1, 2, 3, 4]]\n", 1, "cannot multiply shapes 3x2 and 1x4"),
    ("print [[1, 2]] / [[1, 2, 3]]\n", 1, "cannot divide shapes 1x2 and 1x3"),
    (
        "def g(a: tensor[2xf16]) = a\n",
        1,
        "unknown element type 'f16' in tensor[2xf16]: the element types are f64, f32, bf16, i32, i64, i1",
    ),
    ("def g(a: tensor[f32x2]) = a\n", 1, "a dimension is a positive integer or '?', got 'f32' in tensor[f32x2]"),
    ("def g(a: tensor[0x2]) = a\n", 1, "a dimension is a positive integer or '?', got '0' in tensor[0x2]"),
    ("def g(a: tensor[2xq]) = a\n", 1, "unknown element type 'q' in tensor[2xq]"),
    ("def g(a: tensor[qx2]) = a\n", 1, "a dimension is a positive integer or '?', got 'q'"),
    ("def g(a: matrix[2x2]) = a\n", 1, "expected a type like tensor[2x3], found 'matrix'"),
    ("def g(a: tensor[2x2], a: tensor[2x2]) = a\n", 1, "parameter 'a' appears twice"),
    ("def g(a: tensor[2x2] = a\n", 1, "expected ',' or ')' in the parameter list, found '='"),
    ("def g(a: tensor[2x2]) a\n", 1, "expected '=' and the body of g (or ':' and an indented block), found 'a'"),
    ("def relu(a: tensor[2x2]) = a\n", 1, "cannot define 'relu': it is a built-in name"),
    ("def main(a: tensor[2x2]) = a\n", 1, "cannot define 'main': the name is reserved"),
    ("def malloc(a: tensor[2x2]) = a\n", 1, "cannot define 'malloc': the name is reserved"),
    # (the kernels' and the run-time library's prefixes: a def would be taken for one of them)
    ("def mg_matmul_f64(a: tensor[2x2]) = a\n", 1, "cannot define 'mg_matmul_f64': the name is reserved"),
    ("def mgrt_parallel_for(a: tensor[2x2]) = a\n", 1, "cannot define 'mgrt_parallel_for': the name is reserved"),
    # (every printer of the run-time library is a symbol of the program: mgc build failed to link)
    ("def printMemrefI64(a: tensor[2x2]) = a\n", 1, "cannot define 'printMemrefI64': the name is reserved"),
    ("def g(a: tensor[2x2]) = 3\n", 1, "the body of g must be a tensor, got the number 3"),
    ("def g(a: tensor[?x?]) = col_mean(a)\n", 1, "col_mean needs a static size along the averaged axis, not '?'"),
    ("let relu = [[1]]\n", 1, "cannot bind 'relu': it names a function or keyword"),
    ("print (([[1]])\n", 1, "expected ')' to close '('"),
    ("print [[1]] $ 2\n", 1, "unexpected character '$'"),
    ("print [[1]]\x00\n", 1, "unexpected character '\\x00'"),
    ("print \u00e4\n", 1, "unexpected character '\u00e4'"),
    ("print [[1e999]]\n", 1, "number 1e999 is too large for f64"),
    (
        "frobnicate\n",
        1,
        "expected a statement (let, var, print, def or an assignment), found 'frobnicate'".replace(
            "print, def or an", "print, println, def, for, if, return, a call or an"
        ),
    ),
    ("\n\n  # fine so far\nprint -\n", 4, "expected an expression, found the end of the line"),
    ("print " + "(" * 3000 + "[[1]]" + ")" * 3000 + "\n", 1, "expression is nested too deeply"),
    ("print [[" + ", ".join(["1"] * 100_001) + "]]\n", 1, "matrix literal is too large (more than 100000 elements)"),
]


BIG = 2**40  # shapes.MAX_DIMENSION
TOO_LARGE = "elements of 8 bytes do not fit in 64-bit memory addresses (at most 2^63 - 1 bytes)"

# (program, line of the error, the whole message): a malformed program's one diagnostic, word for word.
BROKEN_EXACTLY = [
    # names: the nearest builtin, function or value is suggested
    ("print col([[1]])\n", 1, "unknown function 'col': did you mean col_sum, col_max or col_mean?"),
    ("print sums([[1]])\n", 1, "unknown function 'sums': did you mean sum?"),
    ("print row([[1]])\n", 1, "unknown function 'row': did you mean row_sum, row_max or row_mean?"),
    ("print rleu([[1]])\n", 1, "unknown function 'rleu': did you mean relu?"),
    ("def layer(a: tensor[1x1]) = a\nprint layr([[1]])\n", 2, "unknown function 'layr': did you mean layer?"),
    ("print frobnicate([[1]])\n", 1, "unknown function 'frobnicate'"),
    ("let weights = [[1]]\nprint relu(weight)\n", 2, "unknown name 'weight': did you mean weights?"),
    ("let a = [[1]]\nprint a([[2]])\n", 2, "'a' is a 1x1 matrix, not a function"),
    # defs: no recursion, and only their parameters are visible
    ("def f(a: tensor[2x2]) = f(a) + a\n", 1, "def f calls itself: recursion is not supported"),
    (
        "let w = [[1]]\ndef f(a: tensor[1x1]) = a @ w\n",
        2,
        "unknown name 'w': a def sees only its parameters (w is defined at the top level)",
    ),
    ("def f(a: tensor[1x1]) = a @ w\nlet w = [[1]]\n", 1, "unknown name 'w'"),
    # huge shapes: a compile error naming the shape, never a crash in a later stage
    (
        "def f(a: tensor[4000000000x4000000000]) = a + 1\n",
        1,
        f"tensor[4000000000x4000000000] is too large: 1.6e+19 {TOO_LARGE}",
    ),
    (
        "def f(a: tensor[9223372036854775807x2]) = a\n",
        1,
        "dimension 9223372036854775807 in tensor[9223372036854775807x2] is too large: "
        "a dimension is at most 2^40 = 1099511627776",
    ),
    (
        f"def f(a: tensor[{BIG + 1}x1]) = a\n",
        1,
        f"dimension {BIG + 1} in tensor[{BIG + 1}x1] is too large: a dimension is at most 2^40 = {BIG}",
    ),
    (
        "def f(a: tensor[" + "9" * 5000 + "x1]) = a\n",
        1,
        "dimension "
        + "9" * 30
        + "..."
        + "9" * 30
        + " (5000 characters) in tensor["
        + "9" * 30
        + "..."
        + "9" * 28
        + "x1 (5002 characters)] is too large: a dimension is at most 2^40 = 1099511627776",
    ),
    (f"def f(a: tensor[{BIG}x{BIG}]) = a\n", 1, f"tensor[{BIG}x{BIG}] is too large: 1.21e+24 {TOO_LARGE}"),
    (
        f"def f(a: tensor[{BIG}x1], b: tensor[1x{BIG}]) = a + b\n",
        1,
        f"cannot add shapes {BIG}x1 and 1x{BIG}: the result tensor[{BIG}x{BIG}] is too large: 1.21e+24 {TOO_LARGE}",
    ),
    (
        f"def f(a: tensor[{2**30}x1], b: tensor[1x{2**30}]) = a @ b\n",
        1,
        f"cannot matrix-multiply shapes {2**30}x1 and 1x{2**30}: "
        f"the result tensor[{2**30}x{2**30}] is too large: 1.15e+18 {TOO_LARGE}",
    ),
    # nesting: parentheses and calls count alike
    (
        "print " + "relu(" * 101 + "[[1]]" + ")" * 101 + "\n",
        1,
        "expression is nested too deeply (more than 100 levels of parentheses and calls)",
    ),
    # input forms: lines end at \n, \r\n or \r; a statement goes on inside brackets
    ("print [[1]]\rprint [[2]]\rprint q\r", 3, "unknown name 'q'"),
    ("print [[1]]\r\nprint [[2]]\r\nprint q\r\n", 3, "unknown name 'q'"),
    ("let m = [[1, 2],\n         [3, 4]]\n\nprint q\n", 4, "unknown name 'q'"),
    (
        "let m = [[1, 2],\r\n  # a comment\r\n  [3]]\n",
        3,
        "rows of a matrix literal must have equal length: row 1 has 2 elements, row 2 has 1",
    ),
    ("let m = [[1, 2],\n  [3, x]]\n", 2, "matrix literal elements must be numbers, found 'x'"),
    (
        "let m = [[1, 2],\n  [3, 4]\nprint m\n",
        2,
        "expected ',' or ']' after a row of the matrix literal, found the end of the line",
    ),
    ("print [[1, 2]\n", 1, "expected ',' or ']' after a row of the matrix literal, found the end of the line"),
    ("print [[1]] +\n  [[2]]\n", 1, "expected an expression, found the end of the line"),
    (
        "print relu(\n  [[1]] @ [[1, 2]]\n  + [[1, 2, 3]])\n",
        3,
        "cannot add shapes 1x2 and 1x3: dimensions 2 and 3 differ and neither is 1",
    ),
    ("print [[1]]\n\ufeffprint [[1]]\n", 2, "unexpected character '\\ufeff'"),
]


# The lines under an error's first one: where, the source line and its carets, notes.
WHERE_LINE = re.compile(r"^ +--> .+:\d+(:\d+)? \[E-[A-Z]+-\d{3}\]$")
DETAIL_LINE = re.compile(r"^( +\|( .*)?| *\d+ \| .*|note: .+)$")


def split_error(err: str) -> tuple[str, list[str]]:
    """An error's first line, and the others (checked to be its detail lines)."""
    first, *rest = err.splitlines()
    assert rest and WHERE_LINE.match(rest[0]), err
    assert all(DETAIL_LINE.match(line) for line in rest[1:]), err
    return first, rest


def compile_file(tmp_path, capsys, source: bytes | str, name="bad.mg"):
    path = tmp_path / name
    path.write_bytes(source if isinstance(source, bytes) else source.encode())
    status = main(["mlir", str(path)])
    out, err = capsys.readouterr()
    return status, out, err, str(path)


@pytest.mark.parametrize("source,line,message", BROKEN, ids=[f"{i:02d}" for i in range(len(BROKEN))])
def test_broken_program(tmp_path, capsys, source, line, message):
    status, out, err, path = compile_file(tmp_path, capsys, source)
    assert status == 1
    assert out == ""
    first, rest = split_error(err)
    assert first.startswith(f"{path}:{line}: error: "), first
    assert message in first
    assert rest[0].startswith(f"{' ' * len(str(line))} --> {path}:{line}"), rest[0]


@pytest.mark.parametrize("source,line,message", BROKEN_EXACTLY, ids=[f"{i:02d}" for i in range(len(BROKEN_EXACTLY))])
def test_broken_program_exact_message(tmp_path, capsys, source, line, message):
    status, out, err, path = compile_file(tmp_path, capsys, source)
    assert (status, out, split_error(err)[0]) == (1, "", f"{path}:{line}: error: {message}")


def test_not_utf8(tmp_path, capsys):
    status, out, err, path = compile_file(tmp_path, capsys, b"print [[1]]\n\xff\xfe garbage\n")
    assert status == 1
    # (no column and no source line: the line is not text)
    assert err == f"{path}:2: error: the file is not UTF-8 text (byte 0xff)\n  --> {path}:2 [E-SYN-001]\n"


def test_not_utf8_after_cr_lines(tmp_path, capsys):
    status, out, err, path = compile_file(tmp_path, capsys, b"print [[1]]\rprint [[2]]\r\n\xff\n")
    assert status == 1
    assert split_error(err)[0] == f"{path}:3: error: the file is not UTF-8 text (byte 0xff)"


@pytest.mark.parametrize("source", ["", "\n\n", "# only a comment\n   # another\n", "\t\r\n"])
def test_empty_programs_print_nothing(tmp_path, source):
    path = tmp_path / "empty.mg"
    path.write_text(source)
    p = mgc("run", str(path))
    assert (p.returncode, p.stdout, p.stderr) == (0, b"", b"")


def test_chapter_message_through_mgc_run(tmp_path):
    (tmp_path / "errors").mkdir()
    (tmp_path / "errors" / "x.mg").write_text("# c\nprint [[1, 2, 3], [4, 5, 6]] + [[1, 2], [3, 4], [5, 6]]\n")
    p = mgc("run", "errors/x.mg", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout == b""
    assert (
        p.stderr.decode()
        == (
            "errors/x.mg:2: error: cannot add shapes 2x3 and 3x2: dimensions 2 and 3 differ and neither is 1\n"
            "  --> errors/x.mg:2:7 [E-DIM-001]\n"
            "   |\n"
            " 2 | print [[1, 2, 3], [4, 5, 6]] + [[1, 2], [3, 4], [5, 6]]\n"
            "   |       " + "^" * 49 + "\n"  # under the whole sum: 22 + 3 + 24 characters
            "note: operands: `[[1, 2, 3], [4, 5, 6]]` is tensor[2x3xf64], `[[1, 2], [3, 4], [5, 6]]` is "
            "tensor[3x2xf64]\n"
        )
    )


def test_missing_file():
    p = mgc("run", "no/such/file.mg")
    assert p.returncode == 1
    assert p.stderr.decode().startswith("mgc: error: cannot read no/such/file.mg")
    assert b"Traceback" not in p.stderr


ERROR_LINE = re.compile(r"^.+:\d+: error: .+$")
WARNING_LINE = re.compile(r"^.+:\d+: warning: .+$")
program_bytes = st.one_of(
    st.binary(max_size=200),
    st.text(alphabet="let print def tensor[]?x()@*/+-=,:#0123456789.e\n\r\ufeff abrc_", max_size=120).map(str.encode),
)


@settings(max_examples=300, deadline=None)
@given(program_bytes)
def test_random_input_never_crashes(tmp_path_factory, source):
    """Whatever the bytes, the compiler either accepts them or reports one clear error."""
    import contextlib
    import io

    path = tmp_path_factory.mktemp("rnd") / "r.mg"
    path.write_bytes(source)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["mlir", str(path)])
    text = err.getvalue()
    assert "Traceback" not in text and "internal compiler error" not in text, (source, text)
    # Warnings may come first (a '?' meeting a static 1); then at most one error.
    lines = [line for line in text.splitlines() if not WARNING_LINE.match(line)]
    if status == 0:
        assert lines == []
    else:
        assert status == 1
        first, _ = split_error("\n".join(lines))
        assert ERROR_LINE.match(first), text
