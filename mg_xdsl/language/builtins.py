"""The builtin functions of the language, one record each. The checker and the IR generator
look a call's name up in ``BUILTINS`` and nowhere else lists the builtins.

A record says how a call is written (the keyword arguments it takes), its family, what it
computes on numbers known when compiling (``fold``) and the mg op it builds where one op
does. The family names the checker's rule that types a call (``Checker.<family>``) and the
IR generator's method that builds it (``IRGen.build_<family>``): the builtins of a family
(``exp``, ``sqrt``, ... are ``math_unary``) share both. Adding a builtin is one record
here; a builtin of a new family also needs that family's rule and builder, and one that
computes something new an mg op and its lowering (``docs/adding.md``).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.irdl import IRDLOperation

from mg_xdsl.dialects import mg


@dataclass(frozen=True)
class Builtin:
    """Everything the front end knows of one builtin function."""

    name: str
    family: str
    keywords: tuple[str, ...] = ()  # the keyword arguments it takes
    fold: Callable[..., int | float] | None = None  # its value of numbers known when compiling
    op: type[IRDLOperation] | None = None  # the mg op of a call
    # Facts of one family: the key of ``mg.scalar`` and mg's binary ops (maximum: "max") and
    # whether it takes only floats; the axis and kind of a row_/col_ reduction; the defaults
    # of a random tensor's keywords; what an indexing builtin takes, for its messages.
    combines: str = ""
    floats_only: bool = False
    axis: int = 0
    kind: str = ""
    defaults: dict[str, float] = field(default_factory=dict[str, float])
    takes: str = ""


def absolute(x: int | float) -> int | float:
    """``abs`` of a number known when compiling: an integer's stays an integer."""
    return abs(x)


def rsqrt(x: float) -> float:
    return math.copysign(math.inf, x) if x == 0 else 1 / math.sqrt(x)


def log(x: float) -> float:
    return -math.inf if x == 0 else math.log(x)


def power(a: int | float, b: int | float) -> int | float:
    """``pow`` (``**``) of numbers known when compiling: of two integers, the exponent not
    negative, the integer (``2 ** 3`` is 8, as in Python); else a float."""
    if isinstance(a, int) and isinstance(b, int) and b >= 0 and abs(a) ** b < 2**64:
        return a**b
    return math.pow(a, b)


def relu(x: int | float) -> int | float:
    """``relu`` of a number known when compiling, as ``mg.relu`` computes it
    (``arith.maximumf`` with 0): NaN stays NaN, and -0.0 gives 0.0."""
    return x if x > 0 or math.isnan(x) else 0.0


_AXES = ("axes", "keepdims")

# In the order a suggestion for a misspelt name lists them.
_RECORDS = (
    Builtin("relu", "chapter", fold=relu, op=mg.ReluOp),
    Builtin("transpose", "transpose", op=mg.TransposeOp),  # (with a permutation, a shape op)
    Builtin("cast", "cast", op=mg.ConvertOp),
    Builtin("where", "where"),
    *(
        Builtin(f"{side}_{kind}", "chapter", axis=1 if side == "row" else 0, kind=kind)
        for side in ("row", "col")
        for kind in ("sum", "max", "mean")
    ),
    Builtin("abs", "math_unary", fold=absolute, op=mg.AbsOp),
    Builtin("sqrt", "math_unary", fold=math.sqrt, op=mg.SqrtOp),
    Builtin("rsqrt", "math_unary", fold=rsqrt, op=mg.RsqrtOp),
    Builtin("exp", "math_unary", fold=math.exp, op=mg.ExpOp),
    Builtin("log", "math_unary", fold=log, op=mg.LogOp),
    Builtin("sin", "math_unary", fold=math.sin, op=mg.SinOp),
    Builtin("cos", "math_unary", fold=math.cos, op=mg.CosOp),
    Builtin("tanh", "math_unary", fold=math.tanh, op=mg.TanhOp),
    Builtin("acos", "math_unary", fold=math.acos, op=mg.AcosOp),
    Builtin("asin", "math_unary", fold=math.asin, op=mg.AsinOp),
    Builtin("maximum", "math_binary", fold=max, combines="max"),
    Builtin("minimum", "math_binary", fold=min, combines="min"),
    Builtin("pow", "math_binary", fold=power, combines="pow", floats_only=True),
    Builtin("atan2", "math_binary", fold=math.atan2, combines="atan2", floats_only=True),
    *(Builtin(kind, "reduction", _AXES, kind=kind) for kind in ("sum", "prod", "max", "min", "mean")),
    Builtin("argmax", "arg_reduction", ("axis",), kind="max", op=mg.ArgReduceOp),
    Builtin("argmin", "arg_reduction", ("axis",), kind="min", op=mg.ArgReduceOp),
    Builtin("zeros", "creation", ("dtype",), op=mg.FullOp),
    Builtin("ones", "creation", ("dtype",), op=mg.FullOp),
    Builtin("full", "creation", ("dtype",), op=mg.FullOp),
    Builtin("zeros_like", "creation", ("dtype",), op=mg.FullLikeOp),
    Builtin("ones_like", "creation", ("dtype",), op=mg.FullLikeOp),
    Builtin("iota", "creation", ("axis", "dtype"), op=mg.IotaOp),
    Builtin("normal", "random", ("std", "mean", "seed", "dtype"), defaults={"std": 1.0, "mean": 0.0, "seed": 0.0}),
    Builtin("uniform", "random", ("low", "high", "seed", "dtype"), defaults={"low": 0.0, "high": 1.0, "seed": 0.0}),
    Builtin("linear_scan", "scan", ("axis", "reverse"), op=mg.LinearScanOp),
    Builtin("cumsum", "scan", ("axis",), op=mg.LinearScanOp),
    Builtin("reshape", "shape_op"),
    Builtin("broadcast_to", "shape_op"),
    Builtin("slice", "shape_op"),
    Builtin("concat", "shape_op"),
    Builtin("index", "indexing", op=mg.IndexOp, takes="a table and ids"),
    Builtin("index_add", "indexing", op=mg.IndexAddOp, takes="a base, ids and values"),
    Builtin("gather", "indexing", ("axis",), op=mg.GatherOp, takes="a tensor and indices, then axis="),
    Builtin("scatter_add", "indexing", ("axis",), op=mg.ScatterAddOp, takes="a base, indices and values, then axis="),
    Builtin("grad", "gradient", ("wrt",)),
    Builtin("value_and_grad", "gradient", ("wrt",)),
    Builtin("arg", "argument"),
    Builtin("load", "files", op=mg.LoadOp),
    Builtin("save", "files", op=mg.SaveOp),
    Builtin("shape", "shape_query"),
    Builtin("rank", "shape_query"),
    Builtin("dim", "shape_query"),
    Builtin("numel", "shape_query"),
)
BUILTINS: dict[str, Builtin] = {b.name: b for b in _RECORDS}
