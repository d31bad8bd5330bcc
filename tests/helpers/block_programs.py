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
- ``println`` with and without format specs, inside and after loops;
- in every position an expression takes: subscripts (``x[a:b, :, k]`` with static bounds,
  negative ones and left-out ones on static sizes, ``x[k]`` with fewer indices than axes,
  ``x[i]`` with a loop counter, ``i % n`` or an ``argmax`` as a run-time index, ``0:1`` of a
  ``?`` axis, and the mini-batch ``d[i * n : i * n + n]`` in loops over ``range(dim(d, 0) //
  n)``, ``d`` static or a def's ``?`` parameter), each placed as it is, grown by
  ``broadcast_to``, beside a full value (a trailing part of its shape) or reduced;
  ``% // **``; ``and``/``or``/``not`` of comparisons, in ``if`` conditions and as masks
  (``where``, ``cast``); ``argmax``/``argmin`` of values with ties (NumPy's first of equals);
  ``@`` with vectors (``m @ v``, ``v @ m``, ``v @ v``, batched ``b @ v``; floats);
  ``maximum(x, -inf)``, ``var best: tensor[] = inf`` kept by ``if loss < best:``; defs that
  end with ``if``/``elif``/``else`` returning on every path.

Float values are halves and small integers, combined with ``+ - *``, division by powers of
two, ``mean`` and ``abs``: mostly exact, so summing in another order changes nothing or
little. The interpreter rejects a program (``Reject``; the generator draws again) whose
values grow past ``LIMIT``, whose branch, float ``%``/``//`` or ``argmax`` depends on floats
closer than the rounding could move them (unless both are ``exact``: then a tie is a tie in
every pipeline), or whose run-time index or slice is out of range (the program would stop),
so each accepted program has one right output.
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
    notes: Counter = field(default_factory=Counter)  # what happened when run (an argmax's tie)

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
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
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


def exact(v: np.ndarray, dtype: str) -> bool:
    """Whether ``v`` is surely computed without rounding, in any order: integers, and floats
    that are multiples of a small power of two well inside the mantissa (sums and products of
    halves, ``@`` of them). A tie between exact values is a real tie, in every pipeline."""
    if dtype not in FLOATS:
        return True
    v = np.asarray(v, np.float64)
    grain, bound = (2.0**16, 2.0**30) if dtype == "f64" else (2.0**8, 2.0**15)
    return bool(np.isfinite(v).all() and (np.abs(v) < bound).all() and (v * grain == np.round(v * grain)).all())


def floor_guard(a: np.ndarray, b: np.ndarray, dtype: str, m: "Machine") -> None:
    """Float ``%`` and ``//`` jump where ``a / b`` is a whole number: reject operands of a
    quotient that rounding could move across one, unless both are exact."""
    if exact(a, dtype) and exact(b, dtype):
        return
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    q = a64 / b64
    off = np.abs(q - np.round(q)) * np.abs(b64)
    if off.size and float(np.min(off)) <= 1024 * EPS[dtype] * m.scale:
        raise Reject("a float floor close to a step")


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
        if self.op in ("%", "//"):
            if self.dtype not in FLOATS and (np.asarray(b) == 0).any():
                raise Reject("an integer division by zero")  # (the program stops: not this test's matter)
            if self.dtype in FLOATS:
                floor_guard(a, b, self.dtype, m)
        if self.op == "/":
            v = a / b if self.dtype in FLOATS else truncating_divide(a, b)
        else:
            f = {"+": np.add, "-": np.subtract, "*": np.multiply, "%": np.remainder, "//": np.floor_divide}
            v = (f | {"**": np.power})[self.op](a, b)
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
    rank0: bool = True  # false: an i1 mask of the full shape (for ``where`` and ``cast``)
    atom = False

    def mg(self) -> str:
        return f"{wrap(self.a)} {self.op} {wrap(self.b)}"

    def ev(self, env, m):
        a, b = self.a.ev(env, m), self.b.ev(env, m)
        d = self.a.dtype
        if d in FLOATS and not (exact(a, d) and exact(b, d)):
            with np.errstate(all="ignore"):
                gap = np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))
            if gap.size and float(np.min(gap)) <= 1024 * EPS[d] * m.scale:
                raise Reject("a close comparison")
        f = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
        f |= {"==": np.equal, "!=": np.not_equal}
        return np.asarray(f[self.op](a, b))


@dataclass
class Logic(Expr):
    """``a and b``, ``a or b`` of comparisons (i1, broadcasting), or ``not a`` (``b`` None);
    ``paren``: ``not (a)`` rather than ``not a``."""

    op: str
    a: Expr
    b: Expr | None = None
    rank0: bool = True
    paren: bool = False
    dtype: str = "i1"
    atom = False

    def mg(self) -> str:
        def side(e: Expr) -> str:
            return f"({e.mg()})" if isinstance(e, Logic) and e.op != "not" else e.mg()

        if self.b is None:
            return f"not ({self.a.mg()})" if self.paren else f"not {side(self.a)}"
        return f"{side(self.a)} {self.op} {side(self.b)}"

    def ev(self, env, m):
        a = np.asarray(self.a.ev(env, m), bool)
        if self.b is None:
            return np.logical_not(a)
        b = np.asarray(self.b.ev(env, m), bool)
        return (np.logical_and if self.op == "and" else np.logical_or)(a, b)


@dataclass
class Where(Expr):
    """``where(mask, a, b)``."""

    mask: Expr
    a: Expr
    b: Expr

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.a.dtype

    @property
    def rank0(self) -> bool:  # type: ignore[override]
        return self.mask.rank0 and self.a.rank0 and self.b.rank0

    def mg(self) -> str:
        return f"where({self.mask.mg()}, {self.a.mg()}, {self.b.mg()})"

    def ev(self, env, m):
        v = np.where(self.mask.ev(env, m), self.a.ev(env, m), self.b.ev(env, m))
        return np.asarray(v, NP[self.dtype])


@dataclass
class Sub(Expr):
    """A subscript ``x[...]``: each item a static index ``("idx", k)``, a run-time index
    ``("rt", e)`` (a rank-0 i64), a static slice ``("sl", a, b)`` (``None``: left out), or a
    run-time start ``("dyn", start, length)`` written ``x[S : S + length]``. ``rank0``: every
    axis indexed. A run-time index or slice out of range stops the program: rejected."""

    x: Expr
    items: tuple
    rank0: bool = False

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.x.dtype

    def mg(self) -> str:
        def text(item) -> str:
            if item[0] == "idx":
                return str(item[1])
            if item[0] == "rt":
                return item[1].mg()
            if item[0] == "sl":
                return f"{'' if item[1] is None else item[1]}:{'' if item[2] is None else item[2]}"
            return f"{item[1].mg()} : {item[1].mg()} + {item[2]}"

        x = self.x.mg() if isinstance(self.x, (Name, Call)) else f"({self.x.mg()})"
        return f"{x}[{', '.join(text(i) for i in self.items)}]"

    def ev(self, env, m):
        x = np.asarray(self.x.ev(env, m))
        index = []
        for axis, item in enumerate(self.items):
            n = x.shape[axis]
            if item[0] == "idx":
                index.append(item[1])
            elif item[0] == "rt":
                k = int(item[1].ev(env, m))
                if not 0 <= k < n:
                    raise Reject("a run-time index out of range")
                index.append(k)
            elif item[0] == "sl":
                a, b = item[1], item[2]
                if (a is not None and a >= 0 and a >= n) or (b is not None and b > n):
                    raise Reject("a slice beyond a run-time size")
                index.append(slice(a, b))
            else:
                k = int(item[1].ev(env, m))
                if not 0 <= k <= n - item[2]:
                    raise Reject("a run-time slice out of range")
                index.append(slice(k, k + item[2]))
        return np.array(x[tuple(index)], NP[self.dtype])


@dataclass
class ArgReduce(Expr):
    """``argmax(x, axis=k)`` / ``argmin``: i64, the first of equal values as NumPy's. Of
    floats that are not exact, rejected when the best two are closer than rounding."""

    fn: str
    x: Expr
    axis: int
    rank0: bool = False
    dtype: str = "i64"

    def mg(self) -> str:
        return f"{self.fn}({self.x.mg()}, axis={self.axis})"

    def ev(self, env, m):
        x = np.asarray(self.x.ev(env, m))
        d = self.x.dtype
        if d in FLOATS and x.shape[self.axis] > 1 and not exact(x, d):
            s = np.sort(x.astype(np.float64), axis=self.axis)
            lo, hi = (0, 1) if self.fn == "argmin" else (-2, -1)
            gap = np.take(s, hi, axis=self.axis) - np.take(s, lo, axis=self.axis)
            if float(np.min(gap)) <= 1024 * EPS[d] * m.scale:
                raise Reject("an argmax close to a tie")
        best = (np.min if self.fn == "argmin" else np.max)(x, axis=self.axis, keepdims=True)
        if ((x == best).sum(axis=self.axis) > 1).any():
            m.notes["argmax tie"] += 1
        return np.asarray(getattr(np, self.fn)(x, axis=self.axis), np.int64)


@dataclass
class MatMul(Expr):
    """``a @ b`` (NumPy's ``matmul``: a vector is a row on the left, a column on the right)."""

    a: Expr
    b: Expr
    rank0: bool = False
    atom = False

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.a.dtype

    def mg(self) -> str:
        return f"{wrap(self.a)} @ {wrap(self.b)}"

    def ev(self, env, m):
        v = np.matmul(self.a.ev(env, m), self.b.ev(env, m))
        return m.check(np.asarray(v, NP[self.dtype]), self.dtype)


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
        raise Returned([v.ev(env, m) for v in self.values])


class Returned(Exception):  # noqa: N818 (a return, not an error)
    """A ``return`` reached: its values, for the def's ``call``."""

    def __init__(self, values: list):
        self.values = values


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
        try:
            for s in self.body:
                s.run(env, m)
        except Returned as r:
            return [np.array(v, NP[d]) for v, (_, d) in zip(r.values, self.results)]
        raise AssertionError(f"{self.name} ended without a return")


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
    stack: tuple | None = None  # (name, R): a tensor of shape (R,) + shape, for ``st[k]``, ``st[i % R]``
    datas: list = field(default_factory=list)  # (name, n0): rows to take n0 at a time, ``shape[1:]`` each
    batches: list = field(default_factory=list)  # (index, data name, n0): loops over mini-batches
    bests: list = field(default_factory=list)  # (name, op, index var or None): ``if loss < best:``

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
            self.stack,
            list(self.datas),
            list(self.batches),
            list(self.bests),
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
        if depth < 2:
            options += ["subscript", "subscript", "operator", "mask", "argmax"]
            options += ["matmul"] if d in FLOATS else []
        if sc.batches and depth < 2:
            options += ["batch", "batch"]
        kind = self.choice(options)
        if kind in ("subscript", "operator", "mask", "argmax", "matmul", "batch"):
            made = getattr(self, "new_" + kind)(sc, depth)
            if made is not None:
                return made
            kind = "name"
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
            if fn in ("maximum", "minimum") and d in FLOATS and self.chance(0.3):
                self.feature(sc, "inf", "in " + fn)
                return Fn(fn, (x, Num(-np.inf if fn == "maximum" else np.inf, d)), d)
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
        if depth < 2:
            options += ["element", "part", "scalar op", "scalar arg"] + (["dot"] if d in FLOATS else [])
        kind = self.choice(options)
        if kind in ("element", "part", "scalar op", "scalar arg", "dot"):
            return getattr(self, "new_" + kind.replace(" ", "_"))(sc, depth)
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
        """A rank-0 i1 known at run time: one comparison (``basic_condition``), or two joined
        by ``and``/``or``, or one negated (``i % 3 == 0 and not (i == 3)``)."""
        kind = self.choice(["basic"] * 3 + ["and", "or", "not"])
        if kind == "basic":
            return self.basic_condition(sc)
        self.feature(sc, "and/or/not", "in an if")
        if kind == "not":
            return Logic("not", self.basic_condition(sc), paren=self.chance(0.5))
        a, b = self.basic_condition(sc), self.basic_condition(sc)
        if self.chance(0.4):
            b = Logic("not", b, paren=self.chance(0.5))
        if self.chance(0.2):
            b = Logic(self.choice(["and", "or"]), b, self.basic_condition(sc))
        return Logic(kind, a, b)

    def basic_condition(self, sc: Scope) -> Expr:
        """A loop index (or its ``%``) against a number, an ``argmax`` against a number, or a
        reduction of a value against a threshold no exact value can equal (``k + 0.3``)."""
        if sc.indices and self.chance(0.2):
            i = Name(self.choice(sc.indices), "i64", True)
            self.feature(sc, "operator", "% in a condition")
            return Cmp(self.choice(["==", "!="]), Bin("%", i, Num(self.rng.randint(2, 3), "i64")), Num(0, "i64"))
        if self.chance(0.1):
            v = self.vector(sc, 1)
            if v is not None:
                self.feature(sc, "argmax", "in a condition")
                return Cmp("==", ArgReduce(self.choice(["argmax", "argmin"]), v, 0, True), Num(0, "i64"))
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

    # -- subscripts, operators, argmax, @, masks ----------------------------------------------

    def feature(self, sc: Scope, *feature) -> None:
        """Note ``feature``, and where it stands: in a loop, in a def with ``?`` parameters."""
        self.note(*feature)
        if sc.indices:
            self.note(feature[0], "in a loop")
        if any(n is None for n in sc.shape):
            self.note(feature[0], "in a def with ?")

    def as_dtype(self, e: Expr, d: str) -> Expr:
        return e if e.dtype == d else Fn("cast", (e,), d)

    def full_name(self, sc: Scope) -> Name:
        return Name(self.choice(sc.full), sc.dtype)

    def static_index(self, n: int | None) -> int:
        if n is None:
            return 0
        k = self.rng.randrange(n)
        return k - n if self.chance(0.4) else k

    def static_slice(self, a: int, b: int, n: int) -> tuple:
        """``("sl", START, STOP)`` for rows ``a`` to ``b`` of a static size ``n``, spelled one of
        the ways NumPy allows (a bound left out, or counted from the end)."""
        start = self.choice([None, 0, -n]) if a == 0 else self.choice([a, a - n])
        stop = self.choice([None, n]) if b == n else self.choice([b, b - n])
        return ("sl", start, stop)

    def runtime_index(self, sc: Scope, n: int | None, axis: int, full_source: bool) -> Expr | None:
        """A rank-0 i64 index for an axis of size ``n`` known at run time: a loop counter
        (``i``, ``i % n``, ``i % dim(x, a)``) or an ``argmax``."""
        options: list = []
        if sc.indices:
            i = Name(self.choice(sc.indices), "i64", True)
            if n is not None:
                options += [Bin("%", i, Num(n, "i64"))] * 3 + [i]
            elif full_source:
                options.append(Bin("%", i, Size(Name(sc.subject, sc.dtype), axis)))
        if full_source and axis == 0 and n is not None:
            x = self.full_name(sc)
            if len(sc.shape) == 1:
                options.append(ArgReduce(self.choice(["argmax", "argmin"]), x, 0, True))
            elif len(sc.shape) == 2:
                column = Sub(x, (("sl", None, None), ("idx", self.static_index(sc.shape[1]))))
                options.append(ArgReduce(self.choice(["argmax", "argmin"]), column, 0, True))
        return self.choice(options) if options else None

    def subscript(self, sc: Scope, source: Expr, shape: tuple, goal: str, full_source: bool) -> tuple:
        """``source[...]`` of a value of ``shape`` and its result's shape. ``goal``: ``narrow``
        (every axis kept or sliced to 1), ``drop`` (axis 0 indexed, the rest kept), ``element``
        (every axis indexed) or ``any``. A ``?`` axis is sliced with both bounds (``0:1``) or
        kept by leaving its ``:`` out at the end."""
        entries = []  # (item, size in the result, or "drop")
        for axis, n in enumerate(shape):
            how = {"element": "index", "drop": "index" if axis == 0 else "keep"}.get(goal)
            how = how or self.choice(["keep", "one"] if goal == "narrow" else ["index", "keep", "one", "slice"])
            if how == "index":
                rt = self.runtime_index(sc, n, axis, full_source) if self.chance(0.4) else None
                entries.append((("rt", rt) if rt is not None else ("idx", self.static_index(n)), "drop"))
            elif how == "keep":
                entries.append((("keep",), n))
            elif how == "one" or n is None:
                a = 0 if n is None else self.rng.randrange(n)
                entries.append((("sl", 0, 1) if n is None else self.static_slice(a, a + 1, n), 1))
            else:
                a = self.rng.randrange(n)
                b = self.rng.randint(a + 1, n)
                entries.append((self.static_slice(a, b, n), b - a))
        result = [size for _, size in entries if size != "drop"]
        while entries and entries[-1][0] == ("keep",) and (entries[-1][1] is None or self.chance(0.6)):
            entries.pop()
        if not entries:  # (x[] is no subscript: write the first axis out)
            entries = [((("sl", None, None) if shape[0] is not None else ("sl", 0, 1)), shape[0] or 1)]
            result[0] = entries[0][1]
        items = []
        for k, (item, size) in enumerate(entries):
            if item == ("keep",):
                if size is None:  # (':' of a '?' axis is an error: its first row)
                    item, result[sum(1 for _, z in entries[:k] if z != "drop")] = ("sl", 0, 1), 1
                else:
                    item = ("sl", None, None) if self.chance(0.6) else self.static_slice(0, size, size)
            items.append(item)
        self.note_subscript(sc, items, shape)
        return Sub(source, tuple(items), not result), tuple(result)

    def note_subscript(self, sc: Scope, items: list, shape: tuple) -> None:
        if len(items) < len(shape):
            self.feature(sc, "subscript", "fewer indices than axes")
        for item, n in zip(items, shape):
            if item[0] == "idx":
                self.feature(sc, "subscript", "static index" if item[1] >= 0 else "negative index")
            elif item[0] == "rt":
                kind = "argmax" if isinstance(item[1], ArgReduce) else "loop counter"
                self.feature(sc, "subscript", "run-time index", kind)
                self.feature(sc, "subscript", "run-time index")
            elif item[0] == "sl":
                self.feature(sc, "subscript", "slice")
                if n is None:
                    self.feature(sc, "subscript", "slice of a ? axis")
                if None in item[1:]:
                    self.feature(sc, "subscript", "bound left out")
                if any(b is not None and b < 0 for b in item[1:]):
                    self.feature(sc, "subscript", "negative bound")

    def sources(self, sc: Scope, depth: int) -> list:
        """Values to subscript: (expression, shape, whether it has the full shape)."""
        x = self.full_name(sc) if depth >= 1 or self.chance(0.7) else self.full_expr(sc, depth + 1)
        out = [(x, sc.shape, True)] * 2
        if sc.stack:
            out.append((Name(sc.stack[0], sc.dtype), (sc.stack[1], *sc.shape), False))
        for name, _, rows in sc.datas:
            out.append((Name(name, sc.dtype), (rows, *sc.shape[1:]), False))
        return out

    def place(self, sc: Scope, e: Expr, shape: tuple, depth: int, how: str, aligned: bool = True) -> Expr:
        """``e`` of ``shape`` as a value of the full shape: itself, grown by ``broadcast_to``
        (sizes of 1), beside a full value (a trailing part of the shape), or reduced.
        ``aligned``: each size of ``shape`` is that of the full shape's axis as far from the end
        (so a ``?`` is the same ``?``); otherwise a ``?`` may be another, and it is reduced."""
        full = tuple(sc.shape)
        op = self.choice(["+", "-", "*"])
        if not aligned and None in shape:
            shape = (-1,)  # (matches nothing: reduced)
        if shape == full:
            where = "as is"
        elif len(shape) == len(full) and all(a == b or a == 1 for a, b in zip(shape, full)):
            where, e = "broadcast_to", BroadcastTo(e, Name(sc.subject, sc.dtype))
        elif len(shape) < len(full) and shape == full[len(full) - len(shape) :]:
            where = "beside a value"
            e = Bin(op, self.full_expr(sc, depth + 1), e) if self.chance(0.6) else Bin(op, e, self.full_name(sc))
        else:
            where = "reduced"
            fn = self.choice(["sum", "max", "min"] + (["mean"] if sc.dtype in FLOATS else []))
            e = Bin(op, self.full_expr(sc, depth + 1), Reduce(fn, e))
        self.feature(sc, how, where)
        return e

    def new_subscript(self, sc: Scope, depth: int) -> Expr:
        source, shape, full_source = self.choice(self.sources(sc, depth))
        goal = self.choice(["narrow", "drop", "any"]) if full_source else "drop"
        e, result = self.subscript(sc, source, shape, goal, full_source)
        return self.place(sc, e, result, depth, "subscript placed")

    def new_batch(self, sc: Scope, depth: int) -> Expr:
        """``d[i * n : i * n + n]``: the mini-batch of a loop over ``range(dim(d, 0) // n)``."""
        i, data, n0 = self.choice(sc.batches)
        index, n = Name(i, "i64", True), Num(n0, "i64")
        start = Bin("*", index, n) if self.chance(0.7) else Bin("*", n, index)
        rows = next(r for name, _, r in sc.datas if name == data)
        self.feature(sc, "subscript", "mini-batch", "? rows" if rows is None else "static rows")
        return Sub(Name(data, sc.dtype), (("dyn", start, n0),))

    def new_operator(self, sc: Scope, depth: int) -> Expr:
        """``x % y``, ``x // y`` (integers: a divisor never zero), ``x ** k`` (floats)."""
        d = sc.dtype
        op = self.choice(["%", "//"] + (["**"] if d in FLOATS else []))
        self.feature(sc, "operator", op)
        x = self.full_expr(sc, depth + 1)
        if op == "**":
            if self.chance(0.3):
                return Bin("**", Bin("+", Fn("abs", (x,), d), Num(1, d)), Num(self.choice([0.5, 2, 3]), d))
            return Bin("**", self.choice([x, Fn("abs", (x,), d)]), Num(self.choice([2, 3, 2.0]), d))
        if self.chance(0.6):
            return Bin(op, x, Num(self.choice([0.5, 1.5, -2.0, 2.5] if d in FLOATS else [2, 3, -2, 5]), d))
        y = self.full_expr(sc, depth + 1) if self.chance(0.6) else self.scalar_expr(sc, depth + 1)
        return Bin(op, x, Bin("+", Fn("abs", (y,), d), Num(0.5 if d in FLOATS else 1, d)))

    def mask(self, sc: Scope, depth: int) -> Expr:
        """An i1 tensor of the full shape: comparisons joined by ``and``/``or``/``not``."""
        d = sc.dtype

        def compare() -> Cmp:
            threshold = Num(self.rng.randint(-2, 4) + (0.3 if d in FLOATS else 0), d)
            ops = ["<", ">", "<=", ">="] + ([] if d in FLOATS else ["==", "!="])
            return Cmp(self.choice(ops), self.full_expr(sc, depth + 1), threshold, rank0=False)

        kind = self.choice(["one", "and", "or", "not", "and not"])
        if kind == "one":
            return compare()
        self.feature(sc, "and/or/not", "in a mask")
        if kind == "not":
            return Logic("not", compare(), rank0=False, paren=self.chance(0.5))
        if kind == "and not":
            return Logic("and", compare(), Logic("not", compare(), rank0=False, paren=True), rank0=False)
        return Logic(kind, compare(), compare(), rank0=False)

    def new_mask(self, sc: Scope, depth: int) -> Expr:
        d = sc.dtype
        m = self.mask(sc, depth)
        if self.chance(0.6):
            self.feature(sc, "mask", "where")
            return Where(m, self.full_expr(sc, depth + 1), self.full_expr(sc, depth + 1))
        self.feature(sc, "mask", "cast")
        return Fn("cast", (m,), d)

    def tie_prone(self, sc: Scope, depth: int) -> Expr:
        """A full value whose elements are often equal (for ``argmax``'s first-of-equals)."""
        x = self.full_expr(sc, depth + 1)
        if self.chance(0.4):
            return Bin("%", x, Num(2 if sc.dtype not in FLOATS else 1.5, sc.dtype))
        return Fn("abs", (x,), sc.dtype) if self.chance(0.3) else x

    def new_argmax(self, sc: Scope, depth: int) -> Expr:
        """``argmax(x, axis=k)``/``argmin``: an i64 of the shape less axis ``k``, placed."""
        axis = self.rng.randrange(len(sc.shape))
        fn = self.choice(["argmax", "argmin"])
        e = ArgReduce(fn, self.tie_prone(sc, depth), axis, len(sc.shape) == 1)
        shape = tuple(n for a, n in enumerate(sc.shape) if a != axis)
        self.feature(sc, "argmax", f"axis {axis} of rank {len(sc.shape)}")
        return self.place(sc, self.as_dtype(e, sc.dtype), shape, depth, "argmax placed", axis == 0)

    def new_matmul(self, sc: Scope, depth: int) -> Expr | None:
        """``@`` with vectors (floats): ``m @ v``, ``v @ m``, batched ``b @ v``, matrices."""
        d, shape = sc.dtype, sc.shape
        options = ["m @ v"]
        if len(shape) == 1 and shape[0] is not None:
            options += ["M @ x", "x @ M"]
        if len(shape) == 2 and shape[1] is not None:
            options.append("x @ M")
        if len(shape) == 2 and shape[0] is not None:
            options.append("v @ x")
        if len(shape) == 2 and None not in shape:
            options.append("b @ v")
        kind = self.choice(options)
        self.feature(sc, "@", kind)
        x = self.full_expr(sc, depth + 1)
        if kind == "M @ x":
            return MatMul(self.literal((shape[0], shape[0]), d), x)
        if kind == "x @ M":
            return MatMul(x, self.literal((shape[-1], shape[-1]), d))
        if kind == "v @ x":
            return self.place(sc, MatMul(self.literal((shape[0],), d), x), shape[1:], depth, "@ placed")
        if kind == "b @ v":
            v = Sub(self.full_name(sc), (("idx", self.static_index(shape[0])),))
            return MatMul(self.literal((shape[0], shape[1], shape[1]), d), v)
        if len(shape) == 1:  # (v @ v: their dot product)
            return self.place(sc, MatMul(x, self.full_expr(sc, depth + 1), True), (), depth, "@ placed")
        v = Sub(self.full_name(sc), (("idx", self.static_index(shape[0])),))
        return self.place(sc, MatMul(x, v), shape[:1], depth, "@ placed", aligned=False)

    def vector(self, sc: Scope, depth: int) -> Expr | None:
        """A rank-1 value: the full value of rank 1, or a row ``x[k]`` of a matrix."""
        if len(sc.shape) == 1:
            return self.full_expr(sc, depth)
        if len(sc.shape) == 2:
            return Sub(self.full_name(sc), (("idx", self.static_index(sc.shape[0])),))
        return None

    def new_element(self, sc: Scope, depth: int) -> Expr:
        source, shape, full_source = self.choice(self.sources(sc, depth))
        return self.subscript(sc, source, shape, "element", full_source)[0]

    def new_part(self, sc: Scope, depth: int) -> Expr:
        """A reduction of any part of a value (``sum(x[1:, -1])``), or an element."""
        source, shape, full_source = self.choice(self.sources(sc, depth))
        e, result = self.subscript(sc, source, shape, "any", full_source)
        if not result:
            return e
        fn = self.choice(["sum", "max", "min"] + (["mean"] if sc.dtype in FLOATS else []))
        self.feature(sc, "subscript placed", "reduced")
        return Reduce(fn, e)

    def new_scalar_op(self, sc: Scope, depth: int) -> Expr:
        d = sc.dtype
        op = self.choice(["%", "//"] + (["**"] if d in FLOATS else []))
        self.feature(sc, "operator", op, "rank 0")
        x = self.scalar_expr(sc, depth + 1)
        if op == "**":
            return Bin("**", Fn("abs", (x,), d), Num(self.choice([2, 0.5]), d))
        return Bin(op, x, Num(self.choice([0.5, 1.5, -2.0, 2.5] if d in FLOATS else [2, 3, -2, 5]), d))

    def new_scalar_arg(self, sc: Scope, depth: int) -> Expr:
        v = self.vector(sc, depth + 1)
        self.feature(sc, "argmax", "rank 0")
        return self.as_dtype(ArgReduce(self.choice(["argmax", "argmin"]), v, 0, True), sc.dtype)

    def new_dot(self, sc: Scope, depth: int) -> Expr:
        """``v @ v`` (rank 0), of rows when the value is a matrix."""
        self.feature(sc, "@", "v @ v")
        if len(sc.shape) == 1:
            return MatMul(self.full_expr(sc, depth + 1), self.full_expr(sc, depth + 1), True)
        rows = [Sub(self.full_name(sc), (("idx", self.static_index(sc.shape[0])),)) for _ in range(2)]
        return MatMul(rows[0], rows[1], True)

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
            if sc.indices and sc.bests:
                options += ["best", "best"]
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
            elif kind == "best":
                out.append(self.keep_best(sc))
            else:
                out.append(self.println(sc))
        return out

    def keep_best(self, sc: Scope) -> If:
        """``if loss < best: best = loss`` (and ``bi = i``): a var that started at ``inf``."""
        best, op, bi = self.choice(sc.bests)
        loss = self.scalar_expr(sc, 1)
        body: list = [Update(best, "", loss, sc.dtype)]
        if bi:
            body.append(Update(bi, "", Name(sc.indices[-1], "i64", True), "i64"))
        self.feature(sc, "best so far", sc.dtype)
        return If([(Cmp(op, loss, Name(best, sc.dtype, True)), body)])

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
        if sc.datas and self.chance(0.4):
            data, n0, rows = self.choice(sc.datas)
            stop = Bin("//", Size(Name(data, sc.dtype), 0), Num(n0, "i64"))
            inner.indices.append(index)
            inner.batches.append((index, data, n0))
            self.feature(sc, "mini-batch loop", "? rows" if rows is None else "static rows")
            body = self.block(inner, depth, carried)
            full = [c for c in carried if not c[1]]
            if full:  # (a batch used at least once)
                body.insert(
                    0, Update(self.choice(full)[0], self.choice(["+", "-"]), self.new_batch(inner, 1), sc.dtype)
                )
            return For(index, 0, stop, 1, body)
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
        if ":" in x.mg():  # (a slice's ':' inside the braces is the expression's, not the spec's)
            self.feature(sc, "subscript", "slice in a println")
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

        def values() -> list:
            return [self.full_expr(sc, 1)] + ([self.scalar_expr(sc, 1)] if several else [])

        if self.chance(0.4):
            branches = [(self.condition(sc), [Return(values())])]
            if self.chance(0.3):
                branches.append((self.condition(sc), [Return(values())]))
            body.append(If(branches, [Return(values())]))
            self.feature(sc, "def ends with if/else returns", "elif" if len(branches) > 1 else "if/else")
        else:
            body.append(Return(values()))
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
        data = self.fresh("d") if pattern[0] is not None and self.chance(0.4) else None
        if data:  # (rows of x's trailing sizes, taken pattern[0] at a time)
            params.append((data, (None, *pattern[1:]), dtype))
        sc = Scope(dtype, pattern, x, full={x: False}, helpers=self.usable(helpers, pattern), count_param=n)
        if data:
            sc.datas.append((data, pattern[0], None))
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

    def arguments(self, d: DefBlock, sc: Scope, first: Expr, sizes: tuple | None = None) -> tuple:
        """``first``, then a number or a loop index for each count, and a literal for each data
        parameter (a whole number of ``first``'s rows; ``sizes``: ``first``'s, else the scope's)."""
        args = [first]
        sizes = tuple(sc.shape) if sizes is None else sizes
        for _, shape, dtype in d.params[1:]:
            if shape:
                assert None not in sizes, (d.name, sizes)
                args.append(self.literal((self.rng.randint(1, 3) * sizes[0], *sizes[1:]), dtype))
            elif sc.indices and self.chance(0.5):
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
        if self.chance(0.4):  # (st[k], st[i % R]: a value of the full shape)
            st, rows = self.fresh("st"), self.rng.randint(2, 3)
            out.append(Let(st, self.literal((rows, *shape), dtype), declared=(rows, *shape)))
            sc.stack = (st, rows)
        if self.chance(0.4):  # (rows to take shape[0] at a time: dt[i * n : i * n + n])
            dt, rows = self.fresh("dt"), self.rng.randint(1, 3) * shape[0]
            out.append(Let(dt, self.literal((rows, *shape[1:]), dtype), declared=(rows, *shape[1:])))
            sc.datas.append((dt, shape[0], rows))
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
            best = self.best_var(sc, out)
            out.append(self.loop(sc, 0, carried))
            sc.bests = []
            self.use(sc, w, out)
            if len(carried) > 1 and self.chance(0.5):
                out.append(Print(Name(carried[1][0], dtype, True)))
            if best:
                out.append(Print(Name(best[0], dtype, True)))
                if best[2]:
                    out.append(Println(["best at ", (Name(best[2], "i64", True), "")]))
        return BlockProgram(out, self.coverage)

    def best_var(self, sc: Scope, out: list) -> tuple | None:
        """``var best: tensor[] = inf`` (``-inf``; a large number for integers), and maybe the
        index it was met at, for the next loop's ``if loss < best:``."""
        if not self.chance(0.4):
            return None
        d = sc.dtype
        best, op = self.fresh("best"), self.choice(["<", ">"])
        start = (np.inf if d in FLOATS else 10**6) * (1 if op == "<" else -1)
        out.append(Let(best, Num(start, d), mutable=True, declared=()))
        bi = self.fresh("bi") if self.chance(0.5) else None
        if bi:
            out.append(Let(bi, Num(-1, "i64"), mutable=True, declared=()))
        if d in FLOATS:
            self.note("inf", "a var's first value")
        sc.bests = [(best, op, bi)]
        return sc.bests[0]

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
            call = Call(f, self.arguments(f, sc, self.literal(other, d), other))
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
