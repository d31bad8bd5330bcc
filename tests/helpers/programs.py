"""Random Part A programs and an independent reference evaluator, for the property tests.

An expression tree is generated for a chosen result shape; it is rendered as Mountain Goat
source with only the parentheses the language's precedence needs (so the tests also check
the parser), and evaluated with NumPy. Elementwise operations are NumPy's; reductions and
matrix products are evaluated in the order the language defines (left to right along the
reduced axis, ``k`` ascending), so the compiled code must agree to the last bit and only the
6-digit printing stands between the two.
"""

from dataclasses import dataclass

import numpy as np
from hypothesis import assume, strategies as st

Shape = tuple[int, int]

# Precedence levels of the language (higher binds tighter).
PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2}


@dataclass(frozen=True)
class Node:
    kind: str  # "lit", "num", "param", "bin", "neg", "call"
    op: str = ""
    args: tuple["Node", ...] = ()
    value: object = None

    # -- source text ----------------------------------------------------------------------

    def prec(self) -> int:
        if self.kind == "bin":
            return PREC[self.op]
        if self.kind == "neg":
            return 3
        return 4

    def source(self) -> str:
        if self.kind == "param":
            return str(self.value)
        if self.kind == "lit":
            return "[" + ", ".join("[" + ", ".join(fmt(x) for x in row) + "]" for row in self.value) + "]"
        if self.kind == "num":
            return fmt(self.value)
        if self.kind == "neg":
            (a,) = self.args
            inner = a.source()
            return "-" + (f"({inner})" if a.prec() < 3 else inner)
        if self.kind == "call":
            return f"{self.op}({', '.join(a.source() for a in self.args)})"
        lhs, rhs = self.args
        ls, rs = lhs.source(), rhs.source()
        if lhs.prec() < self.prec():
            ls = f"({ls})"
        if rhs.prec() <= self.prec():  # left-associative: a - (b - c) keeps its parentheses
            rs = f"({rs})"
        return f"{ls} {self.op} {rs}"

    # -- reference semantics ----------------------------------------------------------------

    def eval(self, env: dict | None = None):
        with np.errstate(all="ignore"):
            return self._eval(env or {})

    def _eval(self, env: dict):
        if self.kind == "param":
            return env[self.value]
        if self.kind == "lit":
            return np.array(self.value, dtype=np.float64)
        if self.kind == "num":
            return np.float64(self.value)
        vals = [a._eval(env) for a in self.args]
        if self.kind == "neg":
            return -vals[0]
        if self.kind == "bin":
            a, b = vals
            if self.op == "@":
                return ordered_matmul(a, b)
            return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[self.op](a, b)
        (x,) = vals
        if self.op == "relu":
            return np.where(np.isnan(x), x, np.maximum(x, 0.0))
        if self.op == "transpose":
            return x.T.copy()
        side, kind = self.op.split("_")
        axis = 1 if side == "row" else 0
        if kind == "max":
            return ordered_reduce(x, axis, np.maximum, -np.inf)
        total = ordered_reduce(x, axis, np.add, 0.0)
        return total / np.float64(x.shape[axis]) if kind == "mean" else total


def ordered_reduce(x: np.ndarray, axis: int, combine, start: float) -> np.ndarray:
    out_shape = (x.shape[0], 1) if axis == 1 else (1, x.shape[1])
    acc = np.full(out_shape, start, dtype=np.float64)
    for k in range(x.shape[axis]):
        piece = x[:, k : k + 1] if axis == 1 else x[k : k + 1, :]
        acc = combine(acc, piece)
    return acc


def ordered_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.float64)
    for k in range(a.shape[1]):
        acc = acc + np.multiply.outer(a[:, k], b[k, :])
    return acc


def fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


# ---------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------

values = st.sampled_from([-3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 7.0])
dims = st.integers(1, 4)


@st.composite
def literal(draw, shape: Shape) -> Node:
    rows = [[draw(values) for _ in range(shape[1])] for _ in range(shape[0])]
    return Node("lit", value=rows)


@st.composite
def number(draw) -> Node:
    n = Node("num", value=draw(values.filter(lambda v: v != 0.0)))
    if draw(st.booleans()):
        return n
    op = draw(st.sampled_from("+-*"))
    return Node("bin", op, (n, Node("num", value=draw(values))))


@st.composite
def operand_shape(draw, shape: Shape) -> Shape:
    """A shape that broadcasts to ``shape``: each dimension the same or 1."""
    return tuple(d if d == 1 or draw(st.booleans()) else 1 for d in shape)  # type: ignore[return-value]


UNARY = ("neg", "relu", "transpose")


def unary(draw, kind: str, shape, sub) -> Node:
    """``-x``, ``relu(x)`` or ``transpose(x)`` with a result of ``shape``; ``sub(s)`` draws
    the operand of shape ``s``."""
    if kind == "transpose":
        return Node("call", "transpose", (draw(sub((shape[1], shape[0]))),))
    operand = draw(sub(shape))
    return Node("neg", args=(operand,)) if kind == "neg" else Node("call", "relu", (operand,))


@st.composite
def expr(draw, shape: Shape, depth: int) -> Node:
    if depth == 0:
        return draw(literal(shape))
    choices = ["lit", "bin", "bin", "scalar", "neg", "relu", "transpose", "matmul"]
    if shape[1] == 1:
        choices += ["row"]
    if shape[0] == 1:
        choices += ["col"]
    kind = draw(st.sampled_from(choices))
    sub = lambda s: expr(s, depth - 1)  # noqa: E731
    if kind == "lit":
        return draw(literal(shape))
    if kind == "bin":
        op = draw(st.sampled_from("+-*/"))
        ls = draw(operand_shape(shape))
        rs = shape if ls != shape and draw(st.booleans()) else draw(operand_shape(shape))
        if ls != shape and rs != shape:
            rs = tuple(s if left != s else r for left, r, s in zip(ls, rs, shape))  # type: ignore[assignment]
            if tuple(max(a, b) for a, b in zip(ls, rs)) != shape:
                rs = shape
        return Node("bin", op, (draw(sub(ls)), draw(sub(rs))))
    if kind == "scalar":
        op = draw(st.sampled_from("+-*/"))
        m, n = draw(sub(shape)), draw(number())
        return Node("bin", op, (m, n) if draw(st.booleans()) else (n, m))
    if kind in UNARY:
        return unary(draw, kind, shape, sub)
    if kind == "matmul":
        k = draw(dims)
        return Node("bin", "@", (draw(sub((shape[0], k))), draw(sub((k, shape[1])))))
    reduction = draw(st.sampled_from(["sum", "max", "mean"]))
    k = draw(dims)
    inner = (shape[0], k) if kind == "row" else (k, shape[1])
    return Node("call", f"{kind}_{reduction}", (draw(sub(inner)),))


@st.composite
def program(draw) -> tuple[str, np.ndarray]:
    """Source of a program printing one random expression, and the expected matrix.

    Sometimes the expression is the body of a ``def`` whose parameters are the expression's
    first literals, called with those literals: the same values through a function call.
    """
    shape = (draw(dims), draw(dims))
    tree = draw(expr(shape, draw(st.integers(1, 4))))
    want = tree.eval()
    if not draw(st.booleans()):
        return f"print {tree.source()}\n", want
    params: list[Node] = []

    def lift(n: Node) -> Node:
        if n.kind == "lit" and len(params) < 3:
            params.append(n)
            return Node("param", value=f"p{len(params) - 1}")
        return Node(n.kind, n.op, tuple(lift(a) for a in n.args), n.value)

    body = lift(tree)
    if not params:
        return f"print {tree.source()}\n", want
    sig = ", ".join(f"p{i}: tensor[{len(p.value)}x{len(p.value[0])}]" for i, p in enumerate(params))
    src = f"def f({sig}) = {body.source()}\n"
    src += f"let first = {params[0].source()}\n"
    args = ["first"] + [p.source() for p in params[1:]]
    src += f"print f({', '.join(args)})\n"
    return src, want


def parse_printed(text: str) -> list[np.ndarray]:
    """The matrices in ``printMemrefF64`` output, as arrays (shape from the header)."""
    import re

    out = []
    blocks = text.split("Unranked Memref")[1:]
    for b in blocks:
        header, data = b.split("data = \n", 1)
        sizes = [int(s) for s in re.search(r"sizes = \[([^\]]*)\]", header).group(1).split(",")]
        nums = re.findall(r"-?nan|-?inf|-?[0-9.]+(?:e[+-]?[0-9]+)?", data)
        out.append(np.array([float(x) for x in nums], dtype=np.float64).reshape(sizes))
    return out


# ---------------------------------------------------------------------------------------
# Programs over `?` shapes: one def, called at many sizes
# ---------------------------------------------------------------------------------------
# Symbolic shapes: "M" and "N" are the run-time sizes of the parameters (both tensor[?x?]).
# Only operations that never broadcast a `?` are generated, so one compiled function must
# serve every (M, N).

SYMBOLIC = [("M", "N"), ("N", "M"), ("M", "M"), ("M", 1), (1, "N")]


@st.composite
def dynamic_expr(draw, shape, depth: int, param: str) -> Node:
    """An expression of symbolic ``shape`` whose leaves are the parameter ``param``."""
    options = []
    if shape == ("M", "N"):
        options += ["p"]
    if shape == ("N", "M"):
        options += ["tp"]
    if depth > 0:
        options += ["bin", "scalar", "neg", "relu", "transpose", "matmul"]
        if shape[1] == 1 and shape[0] in ("M", "N"):
            options += ["row"]
        if shape[0] == 1 and shape[1] in ("M", "N"):
            options += ["col"]
    kind = draw(st.sampled_from(options or ["scalar_leaf"]))
    sub = lambda s: dynamic_expr(s, depth - 1, param)  # noqa: E731
    if kind == "p":
        return Node("param", value=param)
    if kind == "tp":
        return Node("call", "transpose", (Node("param", value=param),))
    if kind == "scalar_leaf":  # shapes with no parameter leaf at depth 0: build one
        return draw(dynamic_expr(shape, 1, param))
    if kind == "bin":
        return Node("bin", draw(st.sampled_from("+-*/")), (draw(sub(shape)), draw(sub(shape))))
    if kind == "scalar":
        m, n = draw(sub(shape)), draw(number())
        return Node("bin", draw(st.sampled_from("+-*/")), (m, n) if draw(st.booleans()) else (n, m))
    if kind in UNARY:
        return unary(draw, kind, shape, sub)
    if kind == "matmul":
        if 1 in shape:
            return draw(sub(shape)) if depth > 1 else draw(dynamic_expr(shape, 1, param))
        k = draw(st.sampled_from(["M", "N"]))
        return Node("bin", "@", (draw(sub((shape[0], k))), draw(sub((k, shape[1])))))
    reduction = draw(st.sampled_from(["sum", "max"]))  # a mean over `?` is a compile error
    inner = (
        (shape[0], "N" if shape[0] == "M" else "M") if kind == "row" else ("N" if shape[1] == "M" else "M", shape[1])
    )
    return Node("call", f"{kind}_{reduction}", (draw(sub(inner)),))


@st.composite
def dynamic_program(draw) -> tuple[str, Node]:
    """``def f(a: tensor[?x?], b: tensor[?x?])`` whose body combines an expression of ``a``
    with one of ``b`` elementwise, so every call checks that their sizes agree."""
    shape = draw(st.sampled_from(SYMBOLIC))
    left = draw(dynamic_expr(shape, draw(st.integers(0, 2)), "a"))
    right = draw(dynamic_expr(shape, draw(st.integers(0, 2)), "b"))
    body = Node("bin", draw(st.sampled_from("+-*")), (left, right))
    return f"def f(a: tensor[?x?], b: tensor[?x?]) = {body.source()}\n", body


# ---------------------------------------------------------------------------------------
# Elementwise trees mixing `?`-shaped call results, broadcast leaves and numbers
# ---------------------------------------------------------------------------------------
# A leaf of kind "dyn" is a literal passed through an identity def whose parameter has `?`
# where ``value`` (a tuple of bools, one per dimension) says so: the value is the literal,
# its type has `?` dimensions. Such trees are what the fusion pass fuses with run-time shape
# checks; some of them must abort, because a `?` is never broadcast.

BINARY_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


class RuntimeAbort(Exception):
    """The reference's verdict that the compiled program must stop with this message."""


class NeedsDynamicBroadcast(Exception):
    """An operand with a `?` dimension would have to grow along a static 1: Part A's front
    end rejects that (``mg.broadcast`` needs static shapes)."""


def dyn_name(pattern: tuple[bool, ...], shape: Shape) -> str:
    return "id_" + "x".join("q" if q else str(s) for q, s in zip(pattern, shape))


def dyn_type(pattern: tuple[bool, ...], shape: Shape) -> str:
    return "x".join("?" if q else str(s) for q, s in zip(pattern, shape))


def dyn_source(n: Node) -> str:
    (lit,) = n.args
    shape = (len(lit.value), len(lit.value[0]))
    return f"{dyn_name(n.value, shape)}({lit.source()})"


def static_type(n: Node):
    """The type of a mixed tree as the front end infers it: a tuple of sizes with ``None``
    for `?` (None for a number). Raises ``NeedsDynamicBroadcast`` where the front end
    rejects the program."""
    if n.kind == "lit":
        return (len(n.value), len(n.value[0]))
    if n.kind == "num":
        return None
    if n.kind == "dyn":
        lit = n.args[0].value
        return tuple(None if q else s for q, s in zip(n.value, (len(lit), len(lit[0]))))
    if n.kind in ("neg", "call"):
        return static_type(n.args[0])
    ta, tb = static_type(n.args[0]), static_type(n.args[1])
    if ta is None or tb is None:
        return ta if tb is None else tb
    for x, y in zip(ta, tb):
        if x is not None and y is not None and x != y and None in (ta if x == 1 else tb):
            raise NeedsDynamicBroadcast
    # A `?` against a static size takes that size (checked at run time); a static 1 grows.
    return tuple(y if x is None else x if y is None else max(x, y) for x, y in zip(ta, tb))


def typed_eval(n: Node):
    """The value of a mixed tree under the language's rules (the tree must type-check: see
    ``static_type``). Raises ``RuntimeAbort`` with the message of the first run-time check
    that fails, in evaluation order (left operand, right operand, then the operator;
    dimension 0 before 1)."""
    with np.errstate(all="ignore"):
        return _typed_eval(n)


def _typed_eval(n: Node):
    if n.kind in ("lit", "dyn"):
        return np.array((n.args[0] if n.kind == "dyn" else n).value, dtype=np.float64)
    if n.kind == "num":
        return np.float64(n.value)
    if n.kind == "neg":
        return -_typed_eval(n.args[0])
    if n.kind == "call" and n.op == "relu":
        v = _typed_eval(n.args[0])
        return np.where(np.isnan(v), v, np.maximum(v, 0.0))
    a, b = _typed_eval(n.args[0]), _typed_eval(n.args[1])
    ta, tb = static_type(n.args[0]), static_type(n.args[1])
    if ta is not None and tb is not None:
        for d, (x, y) in enumerate(zip(ta, tb)):
            if (x is None or y is None) and a.shape[d] != b.shape[d]:
                raise RuntimeAbort(f"mg.{BINARY_NAMES[n.op]}: operand shapes differ at runtime in dimension {d}")
    return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[n.op](a, b)


def mixed_source(n: Node) -> str:
    """Source text of a mixed tree (``dyn`` leaves as calls), parenthesised as the
    language's precedence needs."""
    if n.kind == "dyn":
        return dyn_source(n)
    if n.kind in ("lit", "num", "param"):
        return n.source()
    args = [mixed_source(a) for a in n.args]
    if n.kind == "neg":
        return "-" + (f"({args[0]})" if n.args[0].prec() < 3 else args[0])
    if n.kind == "call":
        return f"{n.op}({args[0]})"
    ls, rs = args
    if n.args[0].prec() < n.prec():
        ls = f"({ls})"
    if n.args[1].prec() <= n.prec():
        rs = f"({rs})"
    return f"{ls} {n.op} {rs}"


def defs_of(n: Node, into: dict[str, str]) -> dict[str, str]:
    """The identity defs a mixed tree calls, by name."""
    if n.kind == "dyn":
        lit = n.args[0]
        shape = (len(lit.value), len(lit.value[0]))
        name = dyn_name(n.value, shape)
        into[name] = f"def {name}(x: tensor[{dyn_type(n.value, shape)}]) = x"
    for a in n.args:
        defs_of(a, into)
    return into


@st.composite
def mixed_leaf(draw, shape: Shape) -> Node:
    lit = draw(literal(shape))
    if draw(st.booleans()):
        return lit
    return Node("dyn", args=(lit,), value=tuple(draw(st.booleans()) for _ in shape))


@st.composite
def mixed_expr(draw, shape: Shape, depth: int) -> Node:
    """An elementwise tree whose result has (at most) ``shape``: leaves are literals and
    ``dyn`` leaves whose dimensions are each the target's or 1, combined by ``+ - * /``,
    numbers, ``-`` and ``relu``."""
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return draw(mixed_leaf(draw(operand_shape(shape))))
    kind = draw(st.sampled_from(["bin", "bin", "bin", "scalar", "neg", "relu"]))
    sub = lambda s: mixed_expr(s, depth - 1)  # noqa: E731
    if kind == "bin":
        return Node("bin", draw(st.sampled_from("+-*/")), (draw(sub(shape)), draw(sub(shape))))
    if kind == "scalar":
        m, n = draw(sub(shape)), draw(number())
        return Node("bin", draw(st.sampled_from("+-*/")), (m, n) if draw(st.booleans()) else (n, m))
    operand = draw(sub(shape))
    return Node("neg", args=(operand,)) if kind == "neg" else Node("call", "relu", (operand,))


@st.composite
def mixed_program(draw) -> tuple[str, list[np.ndarray], str | None]:
    """A program of one to three ``print``s of mixed trees: its source, the matrices it must
    print, and the message it must then stop with (None if it runs to the end)."""
    trees = []
    for _ in range(draw(st.integers(1, 3))):
        shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        trees.append(draw(mixed_expr(shape, draw(st.integers(1, 3)))))
    defs: dict[str, str] = {}
    for t in trees:
        defs_of(t, defs)
    source = "".join(d + "\n" for d in sorted(defs.values()))
    source += "".join(f"print {mixed_source(t)}\n" for t in trees)
    try:
        for t in trees:
            static_type(t)
    except NeedsDynamicBroadcast:
        assume(False)
    printed: list[np.ndarray] = []
    for t in trees:
        try:
            value = typed_eval(t)
        except RuntimeAbort as e:
            return source, printed, str(e)
        printed.append(value)
    return source, printed, None
