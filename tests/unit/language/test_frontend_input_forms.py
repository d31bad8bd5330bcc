"""The forms a program's text may take: a UTF-8 byte-order mark, CRLF or bare CR line
endings, and statements that span lines inside brackets. Each must give the module that the
plain form gives, with every op located on the line it was written on."""

import pytest
from conftest import mask, mgc
from xdsl.dialects.builtin import FileLineColLoc

from mg_xdsl.language.frontend import parse_program

PLAIN = """\
# weights, one row per line
let w = [[1, 2], [3, 4]]
def layer(x: tensor[?x2], w: tensor[2x2]) = relu(x @ w - 5)
print layer([[1, 1], [2, 2]], w)
print -w
"""

# The same program with the literal and the call written over several lines.
SPREAD = """\
# weights, one row per line
let w = [[1, 2],
         [3, 4]]
def layer(x: tensor[?x2],
          w: tensor[2x2]) = relu(x @ w - 5)
print layer([[1, 1],   # a comment inside the brackets
             [2, 2]],
            w)
print -w
"""


def op_lines(module) -> list[tuple[str, int]]:
    """Each op's name and the source line it is located at, in order."""
    return [(op.name, op.location.line.data) for op in module.walk() if isinstance(op.location, FileLineColLoc)]


def ir(source) -> str:
    return str(parse_program(source, "prog.mg").module)


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_crlf_and_bare_cr_end_lines(ending):
    crlf = PLAIN.replace("\n", ending)
    assert ir(crlf) == ir(PLAIN)
    assert op_lines(parse_program(crlf, "prog.mg").module) == op_lines(parse_program(PLAIN, "prog.mg").module)


@pytest.mark.parametrize("source", ["\ufeff" + PLAIN, ("\ufeff" + PLAIN).encode("utf-8")], ids=["str", "bytes"])
def test_byte_order_mark_is_skipped(source):
    assert ir(source) == ir(PLAIN)


def test_a_statement_spans_lines_inside_brackets():
    assert ir(SPREAD) == ir(PLAIN)
    lines = op_lines(parse_program(SPREAD, "prog.mg").module)
    # Each op sits on the line of its own token, and the statements after a long one keep
    # their lines: the last print (a negation) is on line 9.
    assert ("mg.constant", 2) in lines and ("mg.matmul", 5) in lines
    assert ("func.call", 6) in lines and ("mg.constant", 6) in lines
    assert lines[-2:] == [("mg.neg", 9), ("mg.print", 9)]


def test_spans_in_parentheses_and_operators():
    source = "let a = ([[1, 2]]\n  + [[3, 4]])\nprint relu(\n  a\n  * 2\n)\n"
    lines = op_lines(parse_program(source, "prog.mg").module)
    assert ("mg.add", 2) in lines
    assert ("mg.scalar", 5) in lines
    assert ("mg.relu", 3) in lines


def test_a_newline_outside_brackets_still_ends_the_statement():
    lines = op_lines(parse_program("print [[1]]\nprint [[2]]\n", "prog.mg").module)
    assert [line for name, line in lines if name == "mg.print"] == [1, 2]


def test_mgc_runs_every_form_alike(tmp_path):
    outputs = []
    for i, text in enumerate(
        [PLAIN.encode(), SPREAD.replace("\n", "\r").encode(), b"\xef\xbb\xbf" + SPREAD.replace("\n", "\r\n").encode()]
    ):
        path = tmp_path / f"p{i}.mg"
        path.write_bytes(text)
        p = mgc("run", str(path))
        assert (p.returncode, p.stderr) == (0, b""), p.stderr
        outputs.append(mask(p.stdout.decode()))
    assert outputs[0].count("Unranked Memref") == 2
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
