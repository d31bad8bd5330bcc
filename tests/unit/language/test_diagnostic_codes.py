"""Compile errors below their first line: the code, the column, the caret span and the notes
of each kind of mistake; ``mgc explain`` for every code the compiler can raise; colour on a
terminal only. (The first lines, the chapter's, are test_malformed.py's.)"""

import os
import pty
import re
import subprocess
from pathlib import Path

import pytest
from conftest import mgc, tool

import mg_xdsl
from mg_xdsl.language.error_codes import CODES
from mg_xdsl.language.frontend import MgError, parse_program

SOURCE = Path(mg_xdsl.__file__).parent

# (program, code, line, column, the text the carets underline, notes); a program's last line
# is the one in error unless the line is given.
ERRORS = [
    # the text
    ("let a = [1, 2]\nprint a $ 3", "E-SYN-001", 2, 9, "$", []),
    ("print [1]\x00", "E-SYN-001", 1, 10, "\ufffd", []),  # (a control character is shown as one)
    ("print [1, 2] +", "E-SYN-002", 1, 15, "", []),  # the end of the line: one caret past it
    ("let = 3", "E-SYN-002", 1, 1, "let = 3", []),
    ("print [1] [2] )", "E-SYN-002", 1, 15, ")", []),
    ("def g(a: tensor[2x2] = a", "E-SYN-002", 1, 22, "=", []),
    ("print [1] < [2] < [3]", "E-SYN-002", 1, 17, "<", []),
    ("print sum([1], axes=[0], axes=[0])", "E-ARG-002", 1, 26, "axes", []),
    ("print [[1, 2], [3]]", "E-SYN-003", 1, 16, "[3]", []),
    ("print [[1, 2], [3, x]]", "E-SYN-003", 1, 20, "x", []),
    ("print [1, true]", "E-SYN-003", 1, 7, "[1, true]", []),
    ("print []", "E-SYN-003", 1, 7, "[]", []),
    ("def g(a: tensor[2xf16]) = a", "E-SYN-004", 1, 10, "tensor[2xf16]", []),
    ("def g(a: tensor[0x2]) = a", "E-SYN-004", 1, 10, "tensor[0x2]", []),
    ("def g(a: matrix[2]) = a", "E-SYN-004", 1, 10, "matrix", []),
    ("def f(a: tensor[2000000000000x1]) = a", "E-LIMIT-001", 1, 10, "tensor[2000000000000x1]", []),
    ("print [1e999]", "E-LIMIT-001", 1, 8, "1e999", []),
    # gradients
    ("let w = [1.0, 2.0]\nlet g = grad(w * w, wrt=[w])", "E-GRAD-001", 2, 14, "w * w", []),
    ("let n: tensor[2xi64] = [1, 2]\nlet g = grad(sum(cast(n, f64)), wrt=[n])", "E-GRAD-002", 2, 38, "n", []),
    ("let w = [1.0]\nlet g = grad(sum(w * w), wrt=[w * 2.0])", "E-GRAD-002", 2, 31, "w * 2.0", []),
    ("let w = [1.0]\nlet b = [2.0]\nlet g = grad(sum(w * w), wrt=[b])", "E-GRAD-003", 3, 31, "b", []),
    ("let w = [1.0, 2.0]\nlet g = grad(sum(w % 1.5), wrt=[w])", "E-GRAD-004", 2, 20, "% 1.5), wrt=[w])", []),
    # blocks
    ("for i in range(3):\n    print i\n  print i", "E-SYN-005", 3, 3, "print", []),
    ("for i in range(3):\n\tprint i", "E-SYN-005", 2, 1, "\ufffd", []),  # (a tab shown as one character)
    ("else:\n    print 1", "E-SYN-005", 1, 1, "else", []),
    ("for i in range(3):\n    def g(a: tensor[2]) = a", "E-SYN-005", 2, 5, "def", []),
    ("let x = [1.0, -2.0]\nif x > 0.0:\n    print x", "E-FLOW-001", 2, 4, "x > 0.0", []),
    ("for i in range(2.5):\n    print i", "E-FLOW-002", 1, 16, "2.5", []),
    ("for i in [1, 2]:\n    print i", "E-FLOW-002", 1, 10, "[", []),
    ("def f(x: tensor[3]):\n    let y = x * 2.0", "E-FLOW-003", 2, 5, "let", []),
    ("return 1", "E-FLOW-003", 1, 1, "return", []),
    ("def f(x: tensor[3]) -> (tensor[3], tensor[3]):\n    return x", "E-FLOW-003", 2, 5, "return", []),
    (
        "def f(x: tensor[3]):\n    if sum(x) > 0.0:\n        return x\n    else:\n        return sum(x)",
        "E-FLOW-003",
        5,
        9,
        "return",
        [],
    ),
    ("var n = 0.0\nfor i in range(3):\n    n += 1.0", "E-FLOW-004", 3, 5, "n", []),
    ("var w = [1.0]\nfor i in range(3):\n    w = [1.0, 2.0]", "E-FLOW-004", 3, 9, "[1.0, 2.0]", []),
    ("for i in range(3):\n    let y = i\nprint y", "E-NAME-001", 3, 7, "y", []),
    ("let y = 1.0\nfor i in range(3):\n    let y = 2.0", "E-NAME-002", 3, 9, "y", []),
    (
        "def f(x: tensor[2]) -> (tensor[2], tensor[2]):\n    return x, x * 2.0\nlet a, b, c = f([1.0, 2.0])",
        "E-ARG-005",
        3,
        15,
        "f([1.0, 2.0])",
        [],
    ),
    ('let x = [1.5]\nprintln("x = {x:.1f}")', "E-ARG-006", 2, 15, "x", []),
    ('let x = [1.5]\nprintln("x = {x[0]:.2q}")', "E-ARG-006", 2, 15, "x[0]", []),
    ('let x = load("x.npy")', "E-ARG-007", 1, 9, 'load("x.npy")', []),
    ("print " + "relu(" * 101 + "[1]" + ")" * 101, "E-LIMIT-001", 1, 7 + 5 * 100 + 4, "(", []),
    # names
    ("let total = [1, 2]\nprint totl + 1", "E-NAME-001", 2, 7, "totl", []),
    ("print frobnicate([1])", "E-NAME-001", 1, 7, "frobnicate([1])", []),
    ("let w = [1]\ndef f(a: tensor[1]) = a * w", "E-NAME-001", 2, 27, "w", []),
    ("w += [1]", "E-NAME-001", 1, 1, "w", []),
    ("def f(a: tensor[2], a: tensor[2]) = a", "E-NAME-002", 1, 21, "a", []),
    ("def f(a: tensor[2]) = a\ndef f(b: tensor[2]) = b", "E-NAME-002", 2, 5, "f", []),
    ("def relu(a: tensor[2]) = a", "E-NAME-003", 1, 5, "relu", []),
    ("def main(a: tensor[2]) = a", "E-NAME-003", 1, 5, "main", []),
    ("let sum = [1]", "E-NAME-003", 1, 5, "sum", []),
    ("def f(a: tensor[2]) = a\nprint f + 1", "E-NAME-004", 2, 7, "f", []),
    ("def f(a: tensor[2]) = f(a)", "E-NAME-004", 1, 23, "f(a)", []),
    ("let a = [1]\nprint a([2])", "E-NAME-004", 2, 7, "a([2])", []),
    # arguments
    (
        "print relu([1, 2], [3, 4])",
        "E-ARG-001",
        1,
        7,
        "relu([1, 2], [3, 4])",
        ["arguments: `[1, 2]` is tensor[2xf64], `[3, 4]` is tensor[2xf64]"],
    ),
    ("def f(a: tensor[2]) = a\nprint f()", "E-ARG-001", 2, 7, "f()", []),
    (
        "print where([true], [1])",
        "E-ARG-001",
        1,
        7,
        "where([true], [1])",
        ["arguments: `[true]` is tensor[1xi1], `[1]` is tensor[1xf64]"],
    ),
    ("print sum([1, 2], axis=[0])", "E-ARG-002", 1, 19, "axis=[0]", []),
    ("print sum([1], [0], keepdims=true, [1])", "E-ARG-002", 1, 36, "[", []),
    ("let a = [[1, 2]]\nprint sum(a, axes=a)", "E-ARG-003", 2, 19, "a", []),
    ("print sum([1], keepdims=1)", "E-ARG-003", 1, 16, "keepdims=1", []),
    ("let a = [[1, 2]]\nprint a[0, a]", "E-ARG-003", 2, 12, "a", []),
    (
        "print sum([[1, 2]], axes=[2])",
        "E-ARG-004",
        1,
        7,
        "sum([[1, 2]], axes=[2])",
        ["arguments: `[[1, 2]]` is tensor[1x2xf64]"],
    ),
    ("let a = [[1, 2]]\nprint a[0, 2]", "E-ARG-004", 2, 12, "2", []),
    (
        "print transpose([[1, 2]], [0, 0])",
        "E-ARG-004",
        1,
        7,
        "transpose([[1, 2]], [0, 0])",
        ["arguments: `[[1, 2]]` is tensor[1x2xf64], `[0, 0]` is a list of integers"],
    ),
    (
        "print normal([2], seed=-1)",
        "E-ARG-004",
        1,
        7,
        "normal([2], seed=-1)",
        ["arguments: `[2]` is a list of integers"],
    ),
    # bindings
    ("let w = [1, 2]\nw += [1, 1]", "E-BIND-001", 2, 1, "w", []),
    (
        "var w = [1, 2]\nw += [[1, 1], [2, 2]]",
        "E-BIND-002",
        2,
        1,
        "w += [[1, 1], [2, 2]]",
        ["operands: `w` is tensor[2xf64], `[[1, 1], [2, 2]]` is tensor[2x2xf64]"],
    ),
    ("let a: tensor[3] = [1, 2]", "E-BIND-003", 1, 20, "[1, 2]", []),
    ("def f(a: tensor[2]) -> tensor[2xf32] = a", "E-BIND-003", 1, 40, "a", []),
    # shapes
    (
        "def f(x: tensor[2x16], weight: tensor[32x8]) = x @ weight",
        "E-DIM-001",
        1,
        48,
        "x @ weight",
        ["operands: `x` is tensor[2x16xf64], `weight` is tensor[32x8xf64]"],
    ),
    (
        "def f(a: tensor[2x3], b: tensor[3]) = (a + 1) * b + transpose(a)",
        "E-DIM-001",
        1,
        39,
        "(a + 1) * b + transpose(a)",
        ["operands: `(a + 1) * b` is tensor[2x3xf64], `transpose(a)` is tensor[3x2xf64]"],
    ),
    (
        "def f(a: tensor[?x3]) = a\nprint f([1, 2])",
        "E-DIM-001",
        2,
        7,
        "f([1, 2])",
        ["arguments: `[1, 2]` is tensor[2xf64]"],
    ),
    (
        "def f(a: tensor[2x3], b: tensor[3]) = a < [1, 2]",
        "E-DIM-001",
        1,
        39,
        "a < [1, 2]",
        ["operands: `a` is tensor[2x3xf64], `[1, 2]` is tensor[2xf64]"],
    ),
    (
        "let a = [[1, 2]]\nlet b = [[1, 2, 3]]\nprint concat(0, [a, b])",
        "E-DIM-001",
        3,
        7,
        "concat(0, [a, b])",
        ["arguments: `0` is the number 0, `a` is tensor[1x2xf64], `b` is tensor[1x3xf64]"],
    ),
    (
        "print reshape([1, 2, 3], [2, -1])",
        "E-DIM-001",
        1,
        7,
        "reshape([1, 2, 3], [2, -1])",
        ["arguments: `[1, 2, 3]` is tensor[3xf64], `[2, -1]` is a list of integers"],
    ),
    # element types
    (
        "def f(x: tensor[3xf32], y: tensor[3]) = x + y",
        "E-DIM-002",
        1,
        41,
        "x + y",
        ["operands: `x` is tensor[3xf32], `y` is tensor[3xf64]"],
    ),
    (
        "def f(x: tensor[3xi32]) = x * 2.5",
        "E-DIM-002",
        1,
        27,
        "x * 2.5",
        ["operands: `x` is tensor[3xi32], `2.5` is the number 2.5"],
    ),
    (
        "print [true] + [false]",
        "E-DIM-002",
        1,
        7,
        "[true] + [false]",
        ["operands: `[true]` is tensor[1xi1], `[false]` is tensor[1xi1]"],
    ),
    ("def f(x: tensor[3xi32]) = exp(x)", "E-DIM-002", 1, 27, "exp(x)", ["arguments: `x` is tensor[3xi32]"]),
    ("print zeros([2], dtype=f16)", "E-DIM-002", 1, 18, "dtype=f16", []),
    ("print cast([1], f16)", "E-DIM-002", 1, 7, "cast([1], f16)", []),
    (
        "let t = [[1, 2], [3, 4]]\nprint index(t, [1, 0])",
        "E-DIM-002",
        2,
        7,
        "index(t, [1, 0])",
        ["arguments: `t` is tensor[2x2xf64], `[1, 0]` is tensor[2xf64]"],
    ),
    # a tensor expected
    (
        "print 2 @ [[1, 2]]",
        "E-DIM-003",
        1,
        7,
        "2 @ [[1, 2]]",
        ["operands: `2` is the number 2, `[[1, 2]]` is tensor[1x2xf64]"],
    ),
    ("def f(a: tensor[2]) = 3", "E-DIM-003", 1, 23, "3", []),
    ("print sum(2)", "E-DIM-003", 1, 7, "sum(2)", ["arguments: `2` is the number 2"]),
    ("print 1 < 2", "E-DIM-003", 1, 7, "1 < 2", ["operands: `1` is the number 1, `2` is the number 2"]),
]


@pytest.mark.parametrize(
    "source,code,line,column,underlined,notes", ERRORS, ids=[f"{i:02d}-{e[1]}" for i, e in enumerate(ERRORS)]
)
def test_each_error_has_its_code_place_and_notes(source, code, line, column, underlined, notes):
    with pytest.raises(MgError) as info:
        parse_program(source + "\n", "bad.mg")
    e = info.value
    assert (e.code, e.line, e.column) == (code, line, column), e.render()
    text = e.source_line
    assert text == (source + "\n").split("\n")[line - 1]
    rendered = e.render().split("\n")
    assert rendered[1] == f"{' ' * (len(str(line)) + 1)}--> bad.mg:{line}:{column} [{code}]"
    carets = rendered[4].split("| ", 1)[1]
    assert carets.strip(" ") == "^" * max(len(underlined), 1), e.render()
    start = len(carets) - len(carets.lstrip(" "))
    assert start == column - 1
    shown = "".join(c if c.isprintable() else "\ufffd" for c in text)
    assert shown[start : start + len(underlined)] == underlined, e.render()
    assert list(e.notes) == notes
    assert rendered[5:] == [f"note: {note}" for note in notes]


def test_the_issue_example_exactly(tmp_path):
    (tmp_path / "bad.mg").write_text("# a layer\n\n\n\n\n\ndef f(x: tensor[2x16], weight: tensor[32x8]) = x @ weight\n")
    p = mgc("run", "bad.mg", cwd=tmp_path, env={**os.environ, "NO_COLOR": ""})
    assert p.returncode == 1
    assert p.stderr.decode() == (
        "bad.mg:7: error: cannot matrix-multiply shapes 2x16 and 32x8: inner dimensions 16 and 32 differ\n"
        "  --> bad.mg:7:48 [E-DIM-001]\n"
        "   |\n"
        " 7 | def f(x: tensor[2x16], weight: tensor[32x8]) = x @ weight\n"
        "   |                                                ^^^^^^^^^^\n"
        "note: operands: `x` is tensor[2x16xf64], `weight` is tensor[32x8xf64]\n"
    )


def test_a_wide_line_number_widens_the_gutter():
    with pytest.raises(MgError) as info:
        parse_program("\n" * 99 + "print q\n", "p.mg")
    assert str(info.value).split("\n")[1:] == [
        "    --> p.mg:100:7 [E-NAME-001]",
        "     |",
        " 100 | print q",
        "     |       ^",
    ]


def test_tabs_in_the_line_keep_the_carets_under_it():
    with pytest.raises(MgError) as info:
        parse_program("print\t[1] +\tq\n")
    assert str(info.value).split("\n")[3:5] == [" 1 | print\t[1] +\tq", "   |      \t     \t^"]


def test_the_python_api_raises_the_same_text():
    with pytest.raises(mg_xdsl.MgError) as info:
        mg_xdsl.compile("let a = [[1, 2]]\nprint a @ a\n")
    e = info.value
    assert (e.code, e.line, e.column) == ("E-DIM-001", 2, 7)
    p = mgc("mlir", "-", input=b"let a = [[1, 2]]\nprint a @ a\n")
    assert p.stderr.decode().replace("<stdin>", "<string>") == str(e) + "\n"


# -- the codes and mgc explain ------------------------------------------------------------


def codes_in_the_compiler() -> set[str]:
    found = set()
    for path in SOURCE.rglob("*.py"):
        if path.name != "error_codes.py":
            found |= set(re.findall(r"\bE-[A-Z]+-\d{3}\b", path.read_text()))
    return found


def test_every_code_the_compiler_raises_is_explained_and_every_explained_code_is_raised():
    raised = codes_in_the_compiler()
    assert len(raised) >= 19
    assert raised == set(CODES)
    assert {
        "E-DIM-001",
        "E-DIM-002",
        "E-DIM-003",
    } <= raised  # (shapes that do not fit, element types, a tensor expected)


@pytest.mark.parametrize("code", sorted(CODES))
def test_each_explained_example_raises_its_code(code):
    with pytest.raises(MgError) as info:
        parse_program(CODES[code].example, "example.mg")
    assert info.value.code == code


def test_the_error_table_covers_every_code():
    assert {e[1] for e in ERRORS} == set(CODES)


def test_mgc_explain_lists_and_explains():
    listing = mgc("explain")
    assert listing.returncode == 0
    lines = listing.stdout.decode().splitlines()
    assert [line.split()[0] for line in lines] == list(CODES)
    assert lines[list(CODES).index("E-DIM-001")].split(None, 1)[1] == "shapes do not fit"
    one = mgc("explain", "e-dim-001")  # (any case)
    text = one.stdout.decode()
    assert one.returncode == 0 and text.startswith("E-DIM-001: shapes do not fit\n\n")
    assert "    def f(x: tensor[2x16], weight: tensor[32x8]) = x @ weight\n" in text
    assert "      --> example.mg:1:48 [E-DIM-001]\n" in text
    bad = mgc("explain", "E-NOPE-001")
    assert bad.returncode == 2 and "unknown error code 'E-NOPE-001'" in bad.stderr.decode()


# -- colour ---------------------------------------------------------------------------------


def on_a_terminal(env: dict) -> str:
    """What mgc writes to stderr when stderr is a terminal (a pseudo-terminal here)."""
    leader, follower = pty.openpty()
    p = subprocess.run(
        [tool("mgc"), "mlir", "-"], input=b"print [1] @ [1, 2]\n", stderr=follower, stdout=subprocess.DEVNULL, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert p.returncode == 1
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_only_and_never_with_no_color():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = on_a_terminal(env)
    assert "\033[1;31merror:" in coloured and "\033[1;31m^^^^^^^^^" in coloured
    plain = on_a_terminal({**env, "NO_COLOR": "1"})
    assert "\033[" not in plain and "<stdin>:1: error: cannot matrix-multiply" in plain
    piped = mgc("mlir", "-", input=b"print [1] @ [1, 2]\n", env=env)
    assert b"\033[" not in piped.stderr
