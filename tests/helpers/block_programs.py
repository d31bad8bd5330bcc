"""Random programs with blocks, and a Python/NumPy interpreter of the same program, for the
property tests (``properties/test_blocks_random.py``) and the fuzz campaign's ``blocks`` kind.

A program is a small tree of statements (``Let``, ``Var``, ``Update``, ``Print``, ``Println``,
``For``, ``If``, ``LetMany``, ``Return``, ``DefBlock``) over expressions (``Name``, ``Num``,
``Lit``, ``Bin``, ``Cmp``, ``Call``...). Each node renders itself as Mountain Goat text
(``mg``) and runs itself on NumPy arrays (``run``/``ev``): the interpreter is the tree, so the
two can never describe different programs. What the program prints is a list of ``Out``
records (a printed tensor, or a ``println`` line with the numbers in it).

What the generator covers, and why (the positions where block lowering goes wrong: values
carried out of ``scf.for``/``scf.if``, buffers updated in place inside a loop, run-time counts):

- a loop's result (the carried ``var``) unused, printed, returned from a def, passed to a call,
  reduced, and updated in place after the loop and used twice (``print w * w``);
- loop counts known when compiling (``range(3)``, ``range(1, 5, 2)``) and at run time
  (``dim(x, 0)`` of a ``?`` parameter, a parameter ``n: tensor[i64]``, ``range(1, dim(x, 1))``);
- nested loops (the inner one reading both indices), ``if``/``elif``/``else`` inside loops on
  run-time values (comparisons of loop indices and of reductions of carried vars);
- defs with block bodies and several results (``let a, b = h(w)``) called inside loops, and
  defs with loops called at the sizes they came from and at other sizes;
- vars of every element type the generators use for arithmetic here (``f64 f32 i32 i64``)
  updated in place (``+= -= *= /=``) and rebound in loops; rank-0 vars (``var t: tensor[f32] = 0``);
- ``?`` parameters: ``zeros``/``ones``/``full`` of ``shape(x)``, ``broadcast_to(m, shape(x))``
  of a reduction kept as 1, ``mean`` and ``sum`` over ``?`` axes, ``dim``/``numel`` as values;
- ``println`` with and without format specs, inside and after loops.

Float values are halves and small integers, combined with ``+ - *``, division by powers of
two, ``mean`` and ``abs``: mostly exact, so summing in another order changes nothing or
little. The interpreter rejects a program (``Reject``; the generator draws again) whose
values grow past ``LIMIT`` or whose branch depends on a float comparison closer than the
rounding could move it, so each accepted program has one right output.
"""

import random
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

NP = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64}
FLOATS = ("f64", "f32")
DTYPES = ("f64", "f32", "i32", "i64")
LIMIT = {"f64": 1e4, "f32": 1e4, "i32": 2**20, "i64": 2**20}
EPS = {"f64": 2.0**-52, "f32": 2.0**-23, "i32": 0.0, "i64": 0.0}


class Reject(Exception):
    """A program the interpreter cannot vouch for: a value too large, or a comparison of
    floats too close to call."""


@dataclass
class Out:
    """One thing the program prints: a tensor (``array``), or a ``println`` line (``text``,
    the numbers in it as ``numbers`` with the decimals each was printed with)."""

    dtype: str
    array: np.ndarray | None = None
    text: str | None = None


@dataclass
class Machine:
    """The interpreter's state: what was printed, and the largest magnitude met (the scale
    of the rounding the comparisons must allow)."""

    out: list[Out] = field(default_factory=list)
    scale: float = 1.0

    def check(self, v: np.ndarray, dtype: str) -> np.ndarray:
        if dtype in FLOATS and not np.isfinite(v).all():
            raise Reject("not finite")
        big = float(np.abs(v.astype(np.float64)).max()) if v.size else 0.0
        if big > LIMIT[dtype]:
            raise Reject("too large")
        self.scale = max(self.scale, big)
        return v


# -- expressions ----------------------------------------------------------------------------


class Expr:
    dtype: str
    rank0: bool  # a rank-0 tensor (or a number) rather than the program's full shape
    atom = True  # needs no parentheses as an operand

    def mg(self) -> str:
        raise NotImplementedError

    def ev(self, env: dict, m: Machine) -> np.ndarray:
        raise NotImplementedError


def wrap(e: Expr) -> str:
    return e.mg() if e.atom else f"({e.mg()})"


def number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@dataclass
class Name(Expr):
    name: str
    dtype: str
    rank0: bool = False

    def mg(self) -> str:
        return self.name

    def ev(self, env, m):
        return env[self.name]


@dataclass
class Num(Expr):
    """A number known when compiling: it takes the element type of the tensor it meets."""

    value: float
    dtype: str
    rank0: bool = True

    def mg(self) -> str:
        return number_text(self.value)

    @property
    def atom(self) -> bool:  # type: ignore[override]
        return self.value >= 0

    def ev(self, env, m):
        return np.array(self.value, NP[self.dtype])


@dataclass
class Lit(Expr):
    """A literal (``cast([..], T)`` for element types other than f64)."""

    values: np.ndarray
    dtype: str
    rank0: bool = False

    def bare(self) -> str:
        def text(a):
            return number_text(a.item()) if a.ndim == 0 else "[" + ", ".join(text(r) for r in a) + "]"

        return text(self.values)

    def mg(self) -> str:
        return self.bare() if self.dtype == "f64" else f"cast({self.bare()}, {self.dtype})"

    def ev(self, env, m):
        return self.values.astype(NP[self.dtype])


def truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division as C does it (toward zero); the generator divides by positive numbers."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)


@dataclass
class Bin(Expr):
    op: str
    a: Expr
    b: Expr
    atom = False

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.a.dtype

    @property
    def rank0(self) -> bool:  # type: ignore[override]
        return self.a.rank0 and self.b.rank0

    def mg(self) -> str:
        return f"{wrap(self.a)} {self.op} {wrap(self.b)}"

    def ev(self, env, m):
        a, b = self.a.ev(env, m), self.b.ev(env, m)
        if self.op == "/":
            v = a / b if self.dtype in FLOATS else truncating_divide(a, b)
        else:
            v = {"+": np.add, "-": np.subtract, "*": np.multiply}[self.op](a, b)
        return m.check(np.asarray(v, NP[self.dtype]), self.dtype)


@dataclass
class Fn(Expr):
    """``abs(x)``, ``relu(x)``, ``maximum(x, y)``, ``minimum(x, y)``, ``cast(x, T)``."""

    fn: str
    args: tuple
    dtype: str

    @property
    def rank0(self) -> bool:  # type: ignore[override]
        return all(a.rank0 for a in self.args)

    def mg(self) -> str:
        if self.fn == "cast":
            return f"cast({self.args[0].mg()}, {self.dtype})"
        return f"{self.fn}({', '.join(a.mg() for a in self.args)})"

    def ev(self, env, m):
        vs = [a.ev(env, m) for a in self.args]
        if self.fn == "cast":
            return m.check(np.asarray(vs[0]).astype(NP[self.dtype]), self.dtype)
        f = {"abs": np.abs, "relu": lambda x: np.maximum(x, 0), "maximum": np.maximum, "minimum": np.minimum}
        return np.asarray(f[self.fn](*vs), NP[self.dtype])


@dataclass
class Reduce(Expr):
    """``sum``/``mean``/``max``/``min`` of every element (rank 0), or over ``axes`` kept as 1s."""

    fn: str
    x: Expr
    axes: tuple = ()
    keepdims: bool = False

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.x.dtype

    @property
    def rank0(self) -> bool:  # type: ignore[override]
        return not self.axes

    def mg(self) -> str:
        extra = f", axes={list(self.axes)}" if self.axes else ""
        extra += ", keepdims=true" if self.keepdims else ""
        return f"{self.fn}({self.x.mg()}{extra})"

    def ev(self, env, m):
        x = self.x.ev(env, m)
        axis = self.axes or None
        v = getattr(np, self.fn)(x, axis=axis, keepdims=self.keepdims)
        return m.check(np.asarray(v, NP[self.dtype]), self.dtype)


@dataclass
class BroadcastTo(Expr):
    """``broadcast_to(m, shape(x))``: ``m`` (a reduction kept as 1s) grown to ``x``'s run-time shape."""

    x: Expr
    of: Name
    rank0: bool = False

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.x.dtype

    def mg(self) -> str:
        return f"broadcast_to({self.x.mg()}, shape({self.of.name}))"

    def ev(self, env, m):
        return np.broadcast_to(self.x.ev(env, m), env[self.of.name].shape).copy()


@dataclass
class Filled(Expr):
    """``zeros(shape(x))``, ``ones(shape(x))``, ``full(shape(x), v)``, ``zeros_like(x)``."""

    fn: str
    of: Name
    dtype: str
    value: float = 0.0
    rank0: bool = False

    def mg(self) -> str:
        d = "" if self.dtype == "f64" else f", dtype={self.dtype}"
        if self.fn == "zeros_like":
            return f"zeros_like({self.of.name})"
        if self.fn == "full":
            return f"full(shape({self.of.name}), {number_text(self.value)}{d})"
        return f"{self.fn}(shape({self.of.name}){d})"

    def ev(self, env, m):
        value = {"zeros": 0, "zeros_like": 0, "ones": 1, "full": self.value}[self.fn]
        return np.full(env[self.of.name].shape, value, NP[self.dtype])


@dataclass
class Size(Expr):
    """``dim(x, a)`` or ``numel(x)`` of a ``?`` size: a rank-0 i64 tensor known at run time."""

    of: Name
    axis: int | None
    dtype: str = "i64"
    rank0: bool = True

    def mg(self) -> str:
        return f"numel({self.of.name})" if self.axis is None else f"dim({self.of.name}, {self.axis})"

    def ev(self, env, m):
        x = env[self.of.name]
        return np.array(x.size if self.axis is None else x.shape[self.axis], np.int64)


@dataclass
class Cmp(Expr):
    """A comparison of rank-0 values (an ``i1``); of floats, rejected when the two sides are
    closer than the rounding of a different summation order could move them."""

    op: str
    a: Expr
    b: Expr
    dtype: str = "i1"
    rank0: bool = True
    atom = False

    def mg(self) -> str:
        return f"{wrap(self.a)} {self.op} {wrap(self.b)}"

    def ev(self, env, m):
        a, b = self.a.ev(env, m), self.b.ev(env, m)
        if self.a.dtype in FLOATS:
            gap = abs(float(a) - float(b))
            if gap <= 1024 * EPS[self.a.dtype] * m.scale:
                raise Reject("a close comparison")
        f = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
        f |= {"==": np.equal, "!=": np.not_equal}
        return np.asarray(f[self.op](a, b))


@dataclass
class Call(Expr):
    """A call of a def with one result."""

    d: "DefBlock"
    args: tuple

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.d.results[0][1]

    @property
    def rank0(self) -> bool:  # type: ignore[override]
        return self.d.results[0][0] == ()

    def mg(self) -> str:
        return f"{self.d.name}({', '.join(a.mg() for a in self.args)})"

    def ev(self, env, m):
        return self.d.call([a.ev(env, m) for a in self.args], m)[0]


# -- statements -----------------------------------------------------------------------------

INDENT = "    "


class Stmt:
    def lines(self) -> list[str]:
        raise NotImplementedError

    def run(self, env: dict, m: Machine) -> None:
        raise NotImplementedError


def type_text(shape: tuple, dtype: str) -> str:
    """``tensor[2x?xf32]``, ``tensor[]``, ``tensor[i64]`` (``None`` for a ``?``)."""
    dims = ["?" if d is None else str(d) for d in shape]
    parts = dims + ([] if dtype == "f64" else [dtype])
    return f"tensor[{'x'.join(parts)}]"


@dataclass
class Let(Stmt):
    """``let NAME = EXPR`` (``var``; ``: TYPE`` when ``declared``, for literals and numbers)."""

    name: str
    value: Expr
    mutable: bool = False
    declared: tuple | None = None  # the shape of the declared type

    def lines(self):
        kw = "var" if self.mutable else "let"
        if self.declared is None:
            return [f"{kw} {self.name} = {self.value.mg()}"]
        text = self.value.bare() if isinstance(self.value, Lit) else self.value.mg()
        return [f"{kw} {self.name}: {type_text(self.declared, self.value.dtype)} = {text}"]

    def run(self, env, m):
        env[self.name] = np.array(self.value.ev(env, m), NP[self.value.dtype])


@dataclass
class Update(Stmt):
    """``NAME op= EXPR`` (in place), or ``NAME = EXPR`` (``op`` empty: rebinding)."""

    name: str
    op: str
    value: Expr
    dtype: str

    def lines(self):
        return [f"{self.name} {self.op}= {self.value.mg()}"]

    def run(self, env, m):
        v = self.value.ev(env, m)
        if self.op:
            v = Bin(self.op, _Const(env[self.name], self.dtype), _Const(v, self.dtype)).ev(env, m)
        env[self.name] = np.array(np.broadcast_to(v, env[self.name].shape), NP[self.dtype])


@dataclass
class _Const(Expr):
    """A value already computed (for the interpreter's own use)."""

    v: np.ndarray
    dtype: str
    rank0: bool = False

    def ev(self, env, m):
        return self.v


@dataclass
class Print(Stmt):
    value: Expr

    def lines(self):
        return [f"print {self.value.mg()}"]

    def run(self, env, m):
        m.out.append(Out(self.value.dtype, array=np.array(self.value.ev(env, m), NP[self.value.dtype])))


@dataclass
class Println(Stmt):
    """``println("text {EXPR} {EXPR:SPEC}")``: what Python's ``format`` makes of each value
    (an f32 as ``np.float32``, an integer as ``int``)."""

    parts: list  # strings, and (Expr, spec) pairs

    def lines(self):
        text = "".join(
            p if isinstance(p, str) else "{" + p[0].mg() + (":" + p[1] if p[1] else "") + "}" for p in self.parts
        )
        return [f'println("{text}")']

    def run(self, env, m):
        text = []
        for p in self.parts:
            if isinstance(p, str):
                text.append(p)
                continue
            e, spec = p
            v = e.ev(env, m)
            value = {"f64": float, "f32": np.float32, "i32": int, "i64": int}[e.dtype](v)
            text.append(format(value, spec) if spec else str(value))
        m.out.append(Out("text", text="".join(text)))


@dataclass
class For(Stmt):
    """``for I in range(START, STOP, STEP):`` where STOP is a whole number or a rank-0 i64
    value known at run time (``dim(x, 0)``, a parameter)."""

    index: str
    start: int
    stop: Expr | int
    step: int
    body: list

    def lines(self):
        stop = self.stop if isinstance(self.stop, int) else self.stop.mg()
        if self.step != 1:
            head = f"range({self.start}, {stop}, {self.step})"
        elif self.start:
            head = f"range({self.start}, {stop})"
        else:
            head = f"range({stop})"
        return [f"for {self.index} in {head}:"] + [INDENT + line for s in self.body for line in s.lines()]

    def run(self, env, m):
        stop = self.stop if isinstance(self.stop, int) else int(self.stop.ev(env, m))
        for i in range(self.start, stop, self.step):
            env[self.index] = np.array(i, np.int64)
            for s in self.body:
                s.run(env, m)


@dataclass
class If(Stmt):
    branches: list  # (condition, body) pairs: if, then elifs
    otherwise: list | None = None

    def lines(self):
        out = []
        for k, (cond, body) in enumerate(self.branches):
            out.append(f"{'if' if k == 0 else 'elif'} {cond.mg()}:")
            out += [INDENT + line for s in body for line in s.lines()]
        if self.otherwise is not None:
            out.append("else:")
            out += [INDENT + line for s in self.otherwise for line in s.lines()]
        return out

    def run(self, env, m):
        for cond, body in self.branches:
            if bool(cond.ev(env, m)):
                break
        else:
            body = self.otherwise or []
        for s in body:
            s.run(env, m)


@dataclass
class LetMany(Stmt):
    """``let a, b = f(...)`` (``var a, b = ...``)."""

    names: list
    call: Call
    mutable: bool = False

    def lines(self):
        return [f"{'var' if self.mutable else 'let'} {', '.join(self.names)} = {self.call.mg()}"]

    def run(self, env, m):
        values = self.call.d.call([a.ev(env, m) for a in self.call.args], m)
        env.update(zip(self.names, values))


@dataclass
class Return(Stmt):
    values: list

    def lines(self):
        return [f"return {', '.join(v.mg() for v in self.values)}"]

    def run(self, env, m):
        raise AssertionError("a return is run by its def")


@dataclass
class DefBlock(Stmt):
    """``def NAME(P: TYPE, ...) -> RESULTS:`` and a block ending in ``return``; each
    parameter's shape has ``None`` for a ``?``."""

    name: str
    params: list  # (name, shape, dtype)
    results: list  # (shape, dtype)
    body: list
    declared: bool = True

    def lines(self):
        params = ", ".join(f"{p}: {type_text(s, d)}" for p, s, d in self.params)
        types = [type_text(s, d) for s, d in self.results]
        result = ""
        if self.declared:
            result = " -> " + (types[0] if len(types) == 1 else f"({', '.join(types)})")
        return [f"def {self.name}({params}){result}:"] + [INDENT + line for s in self.body for line in s.lines()]

    def run(self, env, m):
        pass

    def call(self, args: list, m: Machine) -> list:
        env = {}
        for (p, shape, dtype), a in zip(self.params, args):
            a = np.asarray(a, NP[dtype])
            assert len(a.shape) == len(shape) and all(s is None or s == n for s, n in zip(shape, a.shape)), (p, a.shape)
            env[p] = a
        for s in self.body[:-1]:
            s.run(env, m)
        ret = self.body[-1]
        assert isinstance(ret, Return)
        return [np.array(v.ev(env, m), NP[d]) for v, (_, d) in zip(ret.values, self.results)]


@dataclass
class BlockProgram:
    statements: list
    coverage: Counter

    @property
    def source(self) -> str:
        return "".join(line + "\n" for s in self.statements for line in s.lines())

    def run(self) -> Machine:
        """The interpreter: run every statement; what it printed (``Reject`` if it cannot vouch)."""
        env: dict = {}
        m = Machine()
        with np.errstate(all="ignore"):
            for s in self.statements:
                s.run(env, m)
        return m


# -- the generator --------------------------------------------------------------------------

FLOAT_VALUES = [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
INT_VALUES = [-3, -2, -1, 0, 1, 2, 3, 4, 5]


@dataclass
class Scope:
    """What a block may use: names of the full shape and rank-0 names (``name -> mutable``),
    loop indices, the name whose ``shape(...)`` gives the full shape, the full shape itself
    (``None`` for a ``?``), and the defs it may call."""

    dtype: str
    shape: tuple
    subject: str
    full: dict = field(default_factory=dict)
    scalar: dict = field(default_factory=dict)
    indices: list = field(default_factory=list)
    helpers: list = field(default_factory=list)
    count_param: str | None = None  # a def's parameter ``n: tensor[i64]``

    def inner(self) -> "Scope":
        return Scope(
            self.dtype,
            self.shape,
            self.subject,
            dict(self.full),
            dict(self.scalar),
            list(self.indices),
            self.helpers,
            self.count_param,
        )


class Generator:
    def __init__(self, rng: random.Random, dtypes=DTYPES):
        self.rng = rng
        self.dtypes = dtypes
        self.count = 0
        self.coverage: Counter = Counter()
        self.defs: list[DefBlock] = []

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def choice(self, items):
        return self.rng.choice(list(items))

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def note(self, *feature) -> None:
        self.coverage[feature] += 1

    # -- expressions ----------------------------------------------------------------------

    def number(self, dtype: str, small: bool = False) -> Num:
        if dtype in FLOATS:
            return Num(self.choice([0.5, 1.5, 2.0, -1.0] if small else [0.5, 1.0, 1.5, 2.0, -0.5, -1.0, 3.0]), dtype)
        return Num(self.choice([1, 2, -1] if small else [1, 2, 3, -1, -2]), dtype)

    def literal(self, shape: tuple, dtype: str) -> Lit:
        pool = FLOAT_VALUES if dtype in FLOATS else INT_VALUES
        values = np.array([self.choice(pool) for _ in range(int(np.prod(shape, dtype=int)))]).reshape(shape)
        return Lit(values, dtype)

    def index_value(self, sc: Scope) -> Expr:
        i = Name(self.choice(sc.indices), "i64", True)
        return i if sc.dtype == "i64" else Fn("cast", (i,), sc.dtype)

    def full_expr(self, sc: Scope, depth: int = 0) -> Expr:
        """A value of the scope's full shape and element type."""
        d = sc.dtype
        options = ["name"] * 3 + (["bin", "bin", "fn"] if depth < 2 else [])
        if sc.indices and depth < 2:
            options.append("index")
        if depth < 2:
            options.append("broadcast")
        if sc.helpers and depth < 1:
            options.append("call")
        trailing = [n for n in sc.shape[1:] if n is not None] if all(n is not None for n in sc.shape[1:]) else []
        if depth < 2 and sc.shape and trailing == list(sc.shape[1:]) and sc.shape[1:]:
            options.append("literal")
        kind = self.choice(options)
        if kind == "bin":
            other = self.choice(["full", "scalar", "number", "number"])
            b = {"full": lambda: self.full_expr(sc, depth + 1), "scalar": lambda: self.scalar_expr(sc, depth + 1)}
            rhs = b[other]() if other in b else self.number(d)
            op = self.choice(["+", "-", "*"])
            if op == "*" and other != "number":
                rhs = Fn("minimum", (rhs, Num(2, d)), d) if self.chance(0.5) else rhs
            return Bin(op, self.full_expr(sc, depth + 1), rhs)
        if kind == "fn":
            fn = self.choice(["abs", "relu", "maximum", "minimum"])
            x = self.full_expr(sc, depth + 1)
            return Fn(fn, (x, self.number(d)) if fn in ("maximum", "minimum") else (x,), d)
        if kind == "index":
            self.note("loop index in an expression")
            return Bin(self.choice(["*", "+", "-"]), self.full_expr(sc, depth + 1), self.index_value(sc))
        if kind == "broadcast":
            return self.broadcast(sc, depth)
        if kind == "call":
            return self.call_one(sc, depth)
        if kind == "literal":
            self.note("literal beside a value")
            return Bin(self.choice(["+", "-", "*"]), self.full_expr(sc, depth + 1), self.literal(sc.shape[1:], d))
        return Name(self.choice(sc.full), d)

    def broadcast(self, sc: Scope, depth: int) -> Expr:
        """A reduction over one axis kept as 1, grown back: ``broadcast_to(m, shape(x))``."""
        if not sc.shape:
            return Name(self.choice(sc.full), sc.dtype)
        axis = self.rng.randrange(len(sc.shape))
        fn = self.choice(["mean", "sum", "max"] if sc.dtype in FLOATS else ["sum", "max", "min"])
        x = Reduce(fn, self.full_expr(sc, depth + 1), (axis,), True)
        dynamic = sc.shape[axis] is None
        self.note("broadcast_to(m, shape(x))", "?" if dynamic else "static")
        if dynamic:
            self.note(f"{fn} over a ? axis")
        if dynamic or self.chance(0.5) or sc.subject not in sc.full:
            return BroadcastTo(x, Name(sc.subject, sc.dtype))
        # (a static 1 beside the full value, grown by the operator; a '?' is never broadcast)
        return Bin(self.choice(["+", "-"]), Name(sc.subject, sc.dtype), x)

    def scalar_expr(self, sc: Scope, depth: int = 0) -> Expr:
        """A rank-0 value of the scope's element type."""
        d = sc.dtype
        options = ["reduce", "reduce"]
        if sc.scalar:
            options += ["name", "name"]
        if sc.indices:
            options.append("index")
        if depth < 2:
            options.append("bin")
        dynamic = [a for a, n in enumerate(sc.shape) if n is None]
        if dynamic:
            options.append("size")
        kind = self.choice(options)
        if kind == "name":
            return Name(self.choice(sc.scalar), d, True)
        if kind == "index":
            return self.index_value(sc)
        if kind == "bin":
            return Bin(self.choice(["+", "-", "*"]), self.scalar_expr(sc, depth + 1), self.number(d, small=True))
        if kind == "size":
            axis = self.choice(dynamic + [None])
            self.note("dim or numel as a value")
            size = Size(Name(sc.subject, d), axis)
            return size if d == "i64" else Fn("cast", (size,), d)
        fns = ["sum", "max", "min"] + (["mean", "mean"] if d in FLOATS else [])
        fn = self.choice(fns)
        if fn == "mean" and any(n is None for n in sc.shape):
            self.note("mean over ? axes")
        return Reduce(fn, self.full_expr(sc, depth + 1))

    def condition(self, sc: Scope) -> Expr:
        """A rank-0 i1 known at run time: a loop index against a number, or a reduction of a
        value against a threshold no exact value can equal (``k + 0.3``)."""
        if sc.indices and self.chance(0.5):
            i = Name(self.choice(sc.indices), "i64", True)
            if len(sc.indices) > 1 and self.chance(0.4):
                i = Bin("+", i, Name(self.choice(sc.indices), "i64", True))
            self.note("condition on a loop index")
            return Cmp(self.choice(["==", "!=", "<", ">=", ">"]), i, Num(self.rng.randint(0, 3), "i64"))
        self.note("condition on a run-time value")
        x = self.scalar_expr(sc, 1)
        if sc.dtype in FLOATS:
            return Cmp(self.choice(["<", ">", "<=", ">="]), x, Num(self.rng.randint(-3, 6) + 0.3, sc.dtype))
        return Cmp(self.choice(["<", ">", "==", "!="]), x, Num(self.rng.randint(-3, 6), sc.dtype))

    def call_one(self, sc: Scope, depth: int) -> Expr:
        d = self.choice(sc.helpers)
        self.note("call in an expression", "in a loop" if sc.indices else "outside loops")
        return Call(d, self.arguments(d, sc, self.full_expr(sc, depth + 1)))

    # -- statements in blocks -------------------------------------------------------------

    def update(self, sc: Scope, name: str, rank0: bool) -> Stmt:
        """An update of a carried var, keeping its type: in place (``+= -= *= /=``) or a rebinding."""
        d = sc.dtype
        kind = self.choice(["+", "-", "+", "-", "*", "/", "rebind"])
        self.note("update", d, kind)
        value = self.scalar_expr(sc, 1) if rank0 or self.chance(0.3) else self.full_expr(sc, 1)
        if kind == "rebind":
            # (the var's own name in the value keeps its type: a def's result may have more '?')
            base = Name(name, d, rank0)
            op = self.choice(["+", "-", "*"] if self.chance(0.3) and not rank0 else ["+", "-"])
            if op == "*":
                value = Fn("minimum", (Fn("maximum", (value, Num(-2, d)), d), Num(2, d)), d)
            return Update(name, "", Bin(op, value, base) if self.chance(0.5) else Bin(op, base, value), d)
        if kind == "*":
            value = Num(self.choice([0.5, -1.0, 1.5, 2.0] if d in FLOATS else [-1, 2, 1]), d)
        if kind == "/":
            value = Num(self.choice([2.0, 4.0, 0.5] if d in FLOATS else [2, 3]), d)
        return Update(name, kind, value, d)

    def block(self, sc: Scope, depth: int, carried: list, size: int | None = None) -> list:
        """A loop's or a branch's statements: updates of the carried vars (``(name, rank0)``),
        locals, ifs, inner loops, calls of defs with several results, println."""
        out: list = []
        for _ in range(size or self.rng.randint(1, 3)):
            options = ["update"] * 4 + ["let"]
            if depth < 3:
                options += ["if", "if"]
            if depth < 2 and len(sc.indices) < 2:
                options.append("for")
            if any(len(h.results) > 1 for h in self.defs if h in sc.helpers):
                options.append("many")
            if sc.indices:
                options.append("println")
            kind = self.choice(options)
            if kind == "update":
                name, rank0 = self.choice(carried)
                out.append(self.update(sc, name, rank0))
            elif kind == "let":
                name = self.fresh("l")
                out.append(Let(name, self.full_expr(sc, 1)))
                sc.full[name] = False
                name_, rank0 = self.choice([c for c in carried if not c[1]] or carried)
                out.append(
                    Update(
                        name_,
                        self.choice(["+", "-"]),
                        Name(name, sc.dtype) if not rank0 else Reduce("sum", Name(name, sc.dtype)),
                        sc.dtype,
                    )
                )
                self.note("a let local to a block")
            elif kind == "if":
                out.append(self.conditional(sc, depth, carried))
            elif kind == "for":
                out.append(self.loop(sc, depth + 1, carried))
                self.note("nested loop")
            elif kind == "many":
                out += self.call_many(sc, carried)
            else:
                out.append(self.println(sc))
        return out

    def conditional(self, sc: Scope, depth: int, carried: list) -> If:
        branches = [(self.condition(sc), self.block(sc.inner(), depth + 1, carried, 1))]
        for _ in range(self.rng.choice([0, 0, 1, 2])):
            branches.append((self.condition(sc), self.block(sc.inner(), depth + 1, carried, 1)))
            self.note("elif")
        otherwise = self.block(sc.inner(), depth + 1, carried, 1) if self.chance(0.6) else None
        self.note("if", "in a loop" if sc.indices else "outside loops")
        if otherwise is not None:
            self.note("else")
        return If(branches, otherwise)

    def range_of(self, sc: Scope) -> tuple[int, Expr | int, int]:
        """A loop's range: known when compiling, or at run time (``dim`` of a ``?`` size, an
        i64 parameter ``n``)."""
        runtime = []
        dynamic = [a for a, n in enumerate(sc.shape) if n is None]
        if dynamic:
            runtime.append(("dim", Size(Name(sc.subject, sc.dtype), self.choice(dynamic))))
        if sc.count_param:
            runtime.append(("param", Name(sc.count_param, "i64", True)))
        if runtime and self.chance(0.6):
            how, stop = self.choice(runtime)
            self.note("count at run time", how)
            start, step = (0, 1) if self.chance(0.6) else (self.choice([0, 1]), self.choice([1, 2]))
            if (start, step) != (0, 1):
                self.note("range(START, STOP, STEP)")
            return start, stop, step
        self.note("count known when compiling")
        if self.chance(0.3):
            self.note("range(START, STOP, STEP)")
            return self.rng.randint(0, 2), self.rng.randint(2, 6), self.choice([1, 2, 3])
        return 0, self.rng.randint(0, 4), 1

    def loop(self, sc: Scope, depth: int, carried: list) -> For:
        inner = sc.inner()
        index = self.fresh("i")
        start, stop, step = self.range_of(sc)
        inner.indices.append(index)
        return For(index, start, stop, step, self.block(inner, depth, carried))

    def call_many(self, sc: Scope, carried: list) -> list:
        """``let a, b = h(w)`` of a def with a block body and several results; both used."""
        h = self.choice([h for h in self.defs if h in sc.helpers and len(h.results) > 1])
        a, b = self.fresh("a"), self.fresh("b")
        self.note("def with several results called", "in a loop" if sc.indices else "outside loops")
        out: list = [LetMany([a, b], Call(h, self.arguments(h, sc, self.full_expr(sc, 1))), self.chance(0.3))]
        full = [c for c in carried if not c[1]]
        scalars = [c for c in carried if c[1]]
        if full:
            out.append(Update(self.choice(full)[0], self.choice(["+", "-"]), Name(a, sc.dtype), sc.dtype))
        if scalars:
            out.append(Update(self.choice(scalars)[0], "+", Name(b, sc.dtype, True), sc.dtype))
        elif full:
            out.append(Update(self.choice(full)[0], "+", Name(b, sc.dtype, True), sc.dtype))
        return out

    def println(self, sc: Scope) -> Println:
        parts: list = ["i "]
        idx = Name(sc.indices[-1], "i64", True)
        parts.append((idx, self.choice(["", "d", "3d"])))
        x = self.scalar_expr(sc, 1)
        spec = self.choice(["", ".3f", ".4f", "8.2f"]) if sc.dtype in FLOATS else self.choice(["", "d", "4d"])
        parts += [" s=", (x, spec)]
        self.note("println", sc.dtype, spec or "no spec")
        return Println(parts)

    # -- defs -----------------------------------------------------------------------------

    def pattern(self, shape: tuple, question: float) -> tuple:
        """``shape`` with some sizes ``?`` (``None``)."""
        return tuple(None if self.chance(question) else n for n in shape)

    def usable(self, defs: list, shape: tuple) -> list:
        """The defs a block over ``shape`` may call: each ``?`` of ``shape`` (a size that
        changes from call to call) a ``?`` of the def's too."""
        return [d for d in defs if all(n is not None or p is None for n, p in zip(shape, d.params[0][1]))]

    def helper(self, dtype: str, shape: tuple, several: bool) -> DefBlock:
        """A def with a block body, for calls inside loops: a local, maybe a var chosen by an
        ``if`` on a run-time value, then one result or two (its full value and a rank-0 one)."""
        pattern = self.pattern(shape, 0.5)
        p = self.fresh("p")
        sc = Scope(dtype, pattern, p, full={p: False})
        body: list = []
        if self.chance(0.6):
            name = self.fresh("l")
            body.append(Let(name, self.full_expr(sc, 1)))
            sc.full[name] = False
        if self.chance(0.5):
            name = self.fresh("v")
            body.append(Let(name, self.full_expr(sc, 1), mutable=True))
            sc.full[name] = True
            body.append(self.conditional(sc, 2, [(name, False)]))
        results = [(pattern, dtype)] + ([((), dtype)] if several else [])
        values = [self.full_expr(sc, 1)] + ([self.scalar_expr(sc, 1)] if several else [])
        body.append(Return(values))
        d = DefBlock(self.fresh("h"), [(p, pattern, dtype)], results, body, several or self.chance(0.7))
        self.note("def with a block body", "several results" if several else "one result")
        return d

    def loop_def(self, dtype: str, shape: tuple, helpers: list) -> DefBlock:
        """A def whose loop's result it returns: the count ``dim`` of a ``?`` size, a parameter
        ``n: tensor[i64]`` or a number; the vars made with ``zeros/ones/full(shape(x))``."""
        pattern = self.pattern(shape, 0.7)
        x = self.fresh("x")
        params = [(x, pattern, dtype)]
        n = self.fresh("n") if self.chance(0.5) else None
        if n:
            params.append((n, (), "i64"))
        sc = Scope(dtype, pattern, x, full={x: False}, helpers=self.usable(helpers, pattern), count_param=n)
        acc, t = self.fresh("acc"), self.fresh("t")
        fill = self.choice(["zeros", "ones", "full", "zeros_like", "copy"])
        init = (
            Bin("*", Name(x, dtype), Num(1, dtype))
            if fill == "copy"
            else Filled(fill, Name(x, dtype), dtype, 0.5 if dtype in FLOATS else 2)
        )
        self.note("var made from shape(x)", fill)
        body: list = [Let(acc, init, mutable=True), Let(t, Num(0, dtype), mutable=True, declared=())]
        sc.full[acc], sc.scalar[t] = True, True
        body.append(self.loop(sc, 1, [(acc, False), (t, True)]))
        if self.chance(0.3):
            body.append(self.update(sc, acc, False))
        several = self.chance(0.7)
        sc.full[acc] = True
        values = [Name(acc, dtype)] + (
            [self.choice([Name(t, dtype, True), Reduce("sum", Name(acc, dtype))])] if several else []
        )
        results = [(pattern, dtype)] + ([((), dtype)] if several else [])
        body.append(Return(values))
        self.note("a loop's result", "returned from a def")
        if any(p is None for p in pattern):
            self.note("def with ? parameters and a loop")
        return DefBlock(self.fresh("f"), params, results, body, True)

    def arguments(self, d: DefBlock, sc: Scope, first: Expr) -> tuple:
        args = [first]
        for _, shape, dtype in d.params[1:]:
            if sc.indices and self.chance(0.5):
                args.append(Name(self.choice(sc.indices), "i64", True))
                self.note("loop index passed as a run-time count")
            else:
                args.append(Num(self.rng.randint(0, 4), "i64"))
        return tuple(args)

    # -- the program ----------------------------------------------------------------------

    def use(self, sc: Scope, w: str, out: list, dynamic: bool = False) -> None:
        """Place the var ``w`` (a loop's or a call's result) in a position after it was made;
        ``dynamic``: ``w`` has ``?`` sizes (a def's result), so only numbers update it (a
        static value would change its type)."""
        d = sc.dtype
        position = self.choice(["unused", "printed", "call", "reduced", "updated twice"])
        self.note("a loop's result", position)
        x = Name(w, d)
        if position == "printed":
            out.append(Print(x))
        elif position == "call":
            singles = [h for h in sc.helpers if len(h.results) == 1]
            several = [h for h in sc.helpers if len(h.results) > 1]
            if several and (not singles or self.chance(0.6)):
                h = self.choice(several)
                a, b = self.fresh("a"), self.fresh("b")
                out += [LetMany([a, b], Call(h, self.arguments(h, sc, x))), Print(Name(a, d)), Print(Name(b, d, True))]
            elif singles:
                h = self.choice(singles)
                out.append(Print(Call(h, self.arguments(h, sc, x))))
            else:
                out.append(Print(Bin("+", x, x)))
        elif position == "reduced":
            fn = self.choice(["sum", "max"] + (["mean"] if d in FLOATS else []))
            if self.chance(0.4):
                spec = self.choice([".4f", ""]) if d in FLOATS else self.choice(["", "d"])
                out.append(Println([f"{fn} of {w} = ", (Reduce(fn, x), spec)]))
            elif sc.shape and self.chance(0.5):
                out.append(Print(Reduce(fn, x, (self.rng.randrange(len(sc.shape)),))))
            else:
                out.append(Print(Reduce(fn, x)))
        elif position == "updated twice":
            in_place = not dynamic and self.chance(0.5)
            out.append(self.update(sc, w, False) if in_place else Update(w, self.choice("+-*"), self.number(d), d))
            out.append(Print(self.choice([Bin("*", x, x), Bin("+", x, x), Bin("-", x, Reduce("sum", x))])))

    def program(self) -> BlockProgram:
        dtype = self.choice(self.dtypes)
        shape = tuple(self.rng.randint(1, 4) for _ in range(self.rng.choice([1, 2, 2])))
        out: list = []
        helpers = [self.helper(dtype, shape, self.chance(0.6)) for _ in range(self.rng.randint(0, 2))]
        self.defs = list(helpers)
        loops = [self.loop_def(dtype, shape, helpers) for _ in range(self.rng.randint(0, 2))]
        self.defs += loops
        out += self.defs
        x0 = self.fresh("x")
        out.append(Let(x0, self.literal(shape, dtype), declared=shape))
        sc = Scope(dtype, shape, x0, full={x0: False}, helpers=self.defs)
        for _ in range(self.rng.randint(1, 3)):
            if loops and self.chance(0.4):
                out += self.call_loop_def(sc, self.choice(loops))
                continue
            w = self.fresh("w")
            out.append(Let(w, self.full_expr(sc, 1) if self.chance(0.5) else self.literal(shape, dtype), True))
            sc.full[w] = True
            carried = [(w, False)]
            if self.chance(0.6):
                t = self.fresh("t")
                out.append(Let(t, Num(0, dtype), mutable=True, declared=()))
                sc.scalar[t] = True
                carried.append((t, True))
            out.append(self.loop(sc, 0, carried))
            self.use(sc, w, out)
            if len(carried) > 1 and self.chance(0.5):
                out.append(Print(Name(carried[1][0], dtype, True)))
        return BlockProgram(out, self.coverage)

    def call_loop_def(self, sc: Scope, f: DefBlock) -> list:
        """A def with a loop called at the top level: at the sizes of the program's values,
        its results bound (``let r, s = f(x, 3)``) and placed; with ``?`` parameters, also at
        other sizes."""
        d = sc.dtype
        out: list = []
        arg = self.full_expr(sc, 1)
        if len(f.results) > 1:
            r, s = self.fresh("r"), self.fresh("s")
            out.append(LetMany([r, s], Call(f, self.arguments(f, sc, arg)), mutable=True))
            out.append(Print(Name(s, d, True)))
            self.use(sc, r, out, dynamic=any(p is None for p in f.results[0][0]))
        else:
            out.append(Print(Call(f, self.arguments(f, sc, arg))))
        pattern = f.params[0][1]
        if any(p is None for p in pattern):
            other = tuple(self.rng.randint(1, 4) if p is None else p for p in pattern)
            call = Call(f, self.arguments(f, sc, self.literal(other, d)))
            self.note("def with a loop called at other sizes")
            if len(f.results) > 1:
                r, s = self.fresh("r"), self.fresh("s")
                out += [LetMany([r, s], call), Print(Name(r, d)), Print(Name(s, d, True))]
            else:
                out.append(Print(call))
        return out


def generate(rng: random.Random, dtypes=DTYPES, attempts: int = 50) -> tuple[BlockProgram, Machine]:
    """A program the interpreter vouches for, and its run: what it must print (``out``) and
    the largest magnitude it met (``scale``, for the tolerances)."""
    for _ in range(attempts):
        program = Generator(rng, dtypes).program()
        try:
            return program, program.run()
        except Reject:
            continue
    raise Reject(f"no program in {attempts} attempts")


# -- what a run printed, against the interpreter ----------------------------------------------

NUMBER = re.compile(r"-?nan|-?inf|-?\d+(?:\.\d*)?(?:e[+-]?\d+)?")


def read_output(text: str) -> list:
    """What a run printed, in order: ``(sizes, numbers)`` for each memref, a string for each
    other line (``println``'s)."""
    items: list = []
    lines = iter(text.splitlines())
    for line in lines:
        if not line.startswith("Unranked Memref"):
            items.append(line)
            continue
        found = re.search(r"sizes = \[([^\]]*)\]", line)
        sizes = tuple(int(s) for s in found.group(1).split(",") if s.strip()) if found else ()
        data, depth = "", 0
        for row in lines:
            data += row
            depth += row.count("[") - row.count("]")
            if depth <= 0 and "[" in data:
                break
        items.append((sizes, NUMBER.findall(data)))
    return items


def tolerance(dtype: str, scale: float) -> tuple[float, float]:
    """(rtol, atol) for a printed float: the printer's 6 significant digits, and rounding of
    a few dozen operations in another order, relative to the largest value the program made."""
    eps = EPS.get(dtype, 0.0)
    return 6e-6 + 64 * eps, 64 * eps * scale


def number_agrees(got: str, want: float, dtype: str, scale: float, decimals: int = 0) -> bool:
    if dtype in ("i32", "i64"):
        return re.fullmatch(r"-?\d+", got) is not None and int(got) == int(want)
    g, w = float(got), float(want)
    if np.isnan(w) or np.isinf(w):
        return g == w or (np.isnan(g) and np.isnan(w))
    rtol, atol = tolerance(dtype, scale)
    return abs(g - w) <= rtol * abs(w) + atol + (10.0**-decimals if decimals else 0.0)


def line_agrees(got: str, want: str, scale: float) -> bool:
    """A ``println`` line: the same text around the numbers, each number within the
    rounding of f32 (the element type is not known here: f32's, the wider) and its last digit."""
    if NUMBER.split(got) != NUMBER.split(want):
        return False
    pairs = list(zip(NUMBER.findall(got), NUMBER.findall(want)))
    if len(pairs) != len(NUMBER.findall(want)) or len(NUMBER.findall(got)) != len(pairs):
        return False
    for g, w in pairs:
        decimals = len(w.split(".")[1]) if "." in w and "e" not in w else 0
        if g != w and not number_agrees(g, float(w), "f32", scale, decimals):
            return False
    return True


def difference(stdout: str, expected: list[Out], scale: float) -> str | None:
    """None if the run printed what the interpreter did, else the first difference."""
    got = read_output(stdout)
    for k, (g, w) in enumerate(zip(got, expected)):
        if w.text is not None:
            if not isinstance(g, str) or not line_agrees(g, w.text, scale):
                return f"output {k + 1}: {g!r}, expected the line {w.text!r}"
            continue
        assert w.array is not None
        if isinstance(g, str):
            return f"output {k + 1}: the line {g!r}, expected a {w.dtype} tensor of sizes {list(w.array.shape)}"
        sizes, numbers = g
        if sizes != w.array.shape or len(numbers) != w.array.size:
            return f"output {k + 1}: sizes {list(sizes)}, expected {list(w.array.shape)}"
        for i, (n, v) in enumerate(zip(numbers, w.array.ravel())):
            if not number_agrees(n, v, w.dtype, scale):
                return f"output {k + 1} ({w.dtype}, sizes {list(w.array.shape)}): element {i} is {n}, expected {v}"
    if len(got) != len(expected):
        return f"{len(got)} outputs, expected {len(expected)}"
    return None


def expected_text(expected: list[Out]) -> str:
    """The interpreter's output, for a person."""
    return "".join(
        (o.text if o.text is not None else f"{o.dtype} {list(np.shape(o.array))}: {np.array2string(o.array)}") + "\n"
        for o in expected
    )
