"""Whole random programs, each value placed in the positions where compilers go wrong.

A program grows statement by statement, and each statement is run by the reference as it
is added (so the generator knows every value, rejects a statement that would stop the
program or lose precision, and never emits one it cannot vouch for). Each step takes a
*subject* (a value bound earlier, recent ones preferred) and places it in a *position*:

- ``op``     an operation's operand:          ``let n3 = transpose(v1) + 2``
- ``print``  printed:                         ``print v1``
- ``dead``   consumed by a result never used: ``let d4 = col_sum(v1)``
- ``reduce`` reduced (every axis choice and keepdims)
- ``view``   viewed (a view of a view when the subject is one)
- ``def``    the operand of an operation in a new def, passed to it (its result returned)
- ``call``   passed to a def made earlier, whose ``?`` sizes it binds anew
- ``var``    bound to a var, which is then updated, and the subject used again
- ``update`` (a var) updated in place, ``+= -= *= /=``, or rebound
- ``twice``  used twice in one expression (``v * v``, ``v @ transpose(v)``)
- ``fresh``  (no subject) a new value: a literal of any element type, ``zeros``, ``iota``...

Defs are made by *abstracting* an expression built at the top level: its names (and some
literals) become parameters whose dimensions are ``?`` or static (a ``?`` pattern); the
body is rebuilt over those types, which checks that the pattern is valid for it. Each def
is called at once with the values it came from, and later with other sizes.

A kind fixes the mix: ``static`` (f64, no ``?``), ``question`` (defs with ``?`` sizes),
``dtypes`` (every element type), ``long`` (30 to 100 statements, so that the compiler
splits ``main`` into functions of 32 loop nests).
"""

import random
from collections import Counter
from dataclasses import dataclass

import numpy as np

from . import ops
from .ops import Skip
from .reference import Abort, Unusable
from .syntax import Apply, Def, Env, Expr, Let, Literal, Name, Number, Print, Update, program_source, run_program
from .types import Invalid, Sym, TType, Unsafe, is_tensor, pins, size_of
from .values import DTYPES, FLOATS, INTS, Val


@dataclass(frozen=True)
class Kind:
    name: str
    statements: tuple[int, int]  # how many statements (defs included)
    dtypes: tuple[str, ...]  # element types of fresh values
    defs: float  # weight of the def and call positions
    question: float  # chance of each '?' in a def's parameter types


KINDS = {
    "static": Kind("static", (3, 16), ("f64",), 1.0, 0.0),
    "question": Kind("question", (3, 16), ("f64", "f64", "f32", "i32", "bf16"), 3.0, 0.6),
    "dtypes": Kind("dtypes", (3, 16), DTYPES, 1.0, 0.3),
    "long": Kind("long", (30, 100), DTYPES, 1.0, 0.3),
}

POSITIONS = {
    "op": 3.0,
    "print": 2.0,
    "dead": 1.0,
    "reduce": 1.5,
    "view": 1.5,
    "def": 1.5,
    "call": 1.0,
    "var": 1.0,
    "update": 1.5,
    "twice": 1.0,
    "fresh": 1.5,
}
FAMILY_WEIGHTS = {
    "arithmetic": 3.0,
    "matmul": 1.0,
    "compare": 1.5,
    "cast": 1.0,
    "math": 1.5,
    "reduction": 1.5,
    "view": 2.0,
    "shape": 1.0,
    "indexing": 1.0,
    "scan": 1.0,
    "creation": 0.3,
    "query": 0.5,
}
FLOAT_VALUES = [x / 2 for x in range(-6, 9)]
INT_VALUES = list(range(-5, 7))
NUMBERS = {"float": [0.5, 1, 1.5, 2, 2.5, 3, -0.5, -1, -2, -3], "int": [1, 2, 3, 5, 7, -1, -2, -3]}
HUGE = {
    "i64": [2**63 - 1, -(2**63), 9223372036854775000, 2**53 + 1, -(2**62) - 7],
    "i32": [2**31 - 1, -(2**31), 2**30 + 3],
}
MAX_ELEMENTS = 48
MAX_MAGNITUDE = 1e6


class Rejected(Exception):
    """A statement whose values the generator does not want (too large, not finite)."""


@dataclass
class Value:
    """A value bound at the top level, and what the coverage report says of it."""

    name: str
    type: TType
    origin: str  # the operation that made it (its position is what the report counts)
    mutable: bool = False
    view: bool = False


@dataclass
class Program:
    kind: str
    seed: int
    statements: list
    expected: list[Val]
    abort: str | None  # the failed check it must stop with (None: it ends normally)
    coverage: Counter

    @property
    def source(self) -> str:
        return program_source(self.statements)


def generate(kind: str, seed: int) -> Program:
    """The program of ``kind`` for ``seed``: the same one on every run and machine."""
    g = Generator(random.Random(f"{kind}:{seed}"), KINDS[kind])
    g.fill()
    printed, abort = run_program(g.statements)
    assert abort == g.abort, abort  # (every statement was run as it was added)
    return Program(kind, seed, g.statements, printed, abort, g.coverage)


class Generator:
    def __init__(self, rng: random.Random, kind: Kind):
        self.rng, self.kind = rng, kind
        self.dtypes = kind.dtypes
        self.statements: list = []
        self.env = Env(check=self.check)
        self.pool: dict[str, Value] = {}
        self.defs: list[Def] = []
        self.coverage: Counter = Counter()
        self.agenda: list[tuple[int, str, str]] = []  # (due, position, subject's name)
        self.count = 0
        self.abort: str | None = None  # the message of a failed check the program ends with

    # -- random choices ---------------------------------------------------------------------

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def choice(self, items):
        return self.rng.choice(list(items))

    def weighted(self, weights: dict):
        keys = list(weights)
        return self.rng.choices(keys, [weights[k] for k in keys])[0]

    def size(self) -> int:
        return self.rng.choice([1, 1, 2, 2, 3, 3, 4])

    def dtype(self) -> str:
        return self.choice(self.dtypes)

    def fresh_name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def factorisation(self, n: int) -> list[int]:
        """A random shape of ``n`` elements, of rank 1 to 3."""
        dims = []
        for _ in range(self.rng.randint(0, 2)):
            d = self.choice([f for f in range(1, n + 1) if n % f == 0])
            dims.append(d)
            n //= d
        dims.append(n)
        self.rng.shuffle(dims)
        return dims

    def batch(self, shape: tuple) -> list[int]:
        """Batch sizes that broadcast with ``shape``'s: some of its trailing ones (or 1s),
        or one where it has none."""
        if not shape:
            return [self.size()] if self.chance(0.2) else []
        return [1 if self.chance(0.3) else size_of(d) for d in shape[self.rng.randint(0, len(shape)) :]]

    def number_value(self, dtype: str):
        if dtype == "i1":
            return self.choice([0, 1])
        return self.choice(NUMBERS["int" if dtype in INTS else "float"])

    scan_coefficients = [0.5, -0.5, 1, 2, -1, 0.25]

    # -- operands ---------------------------------------------------------------------------

    def number(self, dtype: str, values=None) -> Number:
        return Number((values and self.choice(values)) or self.number_value(dtype))

    def literal(self, shape, dtype: str, huge: bool = False, nonzero: bool = False) -> Literal:
        """A literal of small integers and halves (``huge``: extreme integers too)."""
        count = int(np.prod(shape))
        if dtype == "i1":
            flat = [self.chance(0.5) for _ in range(count)]
        elif dtype in INTS:
            pool = INT_VALUES + (HUGE[dtype] if huge else [])
            flat = [self.choice(pool) for _ in range(count)]
        else:
            flat = [self.choice(FLOAT_VALUES) for _ in range(count)]
        if nonzero:
            flat = [x or 1 for x in flat]
        return Literal(np.array(flat, dtype=object if dtype in INTS else None).reshape(shape), dtype)

    def ids(self, shape, below: int) -> Literal:
        """Ids or indices ``0 <= i < below``, the last one a repeat of the first."""
        flat = [self.rng.randrange(below) for _ in range(int(np.prod(shape)))]
        flat[-1] = flat[0]
        return Literal(np.array(flat, dtype=object).reshape(shape), self.choice(INTS))

    def names_of(self, dtype: str, exclude: str = "") -> list[Value]:
        return [v for v in self.pool.values() if v.type.dtype == dtype and v.name != exclude]

    def partner(self, x: Expr, number_ok: bool = True, nonzero: bool = False, values=None) -> Expr:
        """An operand to combine with ``x`` elementwise: ``x`` itself, a number, a value of
        the same element type whose shape broadcasts with it, or a literal of a shape that
        broadcasts to it (its trailing sizes, some of them 1)."""
        if not nonzero and self.chance(0.12):
            return x
        return self.partner_of(x.type, number_ok, nonzero, values, exclude=getattr(x, "name", ""))

    def partner_of(
        self, t: TType, number_ok: bool = True, nonzero: bool = False, values=None, exclude: str = ""
    ) -> Expr:
        if number_ok and t.dtype != "i1" and (self.chance(0.35) or not t.rank):
            return self.number(t.dtype, values)
        names = [v for v in self.names_of(t.dtype, exclude) if broadcasts(v.type, t)]
        if names and not nonzero and self.chance(0.4):
            v = self.choice(names)
            return Name(v.name, v.type)
        rank = self.rng.randint(0, t.rank)
        shape = [size_of(d) if self.chance(0.7) or isinstance(d, Sym) else 1 for d in t.shape[t.rank - rank :]]
        if not shape:
            return self.number(t.dtype, values) if number_ok and t.dtype != "i1" else self.literal([1], t.dtype)
        return self.literal(shape, t.dtype, nonzero=nonzero)

    def operand(self, t: TType) -> Expr:
        """An operand of exactly ``t``'s sizes and element type: a value of those sizes, or a
        literal (a number for rank 0)."""
        if not t.rank and t.dtype != "i1":
            return self.number(t.dtype)
        names = [v for v in self.names_of(t.dtype) if v.type.sizes() == t.sizes()]
        if names and self.chance(0.5):
            v = self.choice(names)
            return Name(v.name, v.type)
        return self.literal(list(t.sizes()), t.dtype)

    # -- operations -------------------------------------------------------------------------

    def apply(self, x: Expr, family: str | None = None) -> Expr:
        """An operation (of ``family``, else any) applied to ``x``."""
        for _ in range(25):
            fam = family or self.weighted(FAMILY_WEIGHTS)
            choices = [op for op in ops.FAMILIES[fam] if op.accepts(x.type)]
            if not choices:
                if family:
                    raise Skip
                continue
            try:
                e = self.choice(choices).build(self, x)
            except (Skip, Invalid, Unsafe):
                continue
            if all(n.type.numel() <= MAX_ELEMENTS for n in e.walk() if is_tensor(n.type)):
                return e
        raise Skip

    def expression(self, x: Expr, family: str | None = None) -> Expr:
        """An operation applied to ``x``, sometimes with another applied to its result (so
        that results are also consumed inline: ``sum(slice(x, ...))``)."""
        e = self.apply(x, family)
        while self.chance(0.3):
            try:
                e = self.apply(e)
            except Skip:
                break
        return e

    # -- statements -------------------------------------------------------------------------

    def check(self, value) -> None:
        """Every value computed while generating: finite and of moderate size."""
        if isinstance(value, Val) and value.dtype in FLOATS:
            wide = value.wide()
            if not np.isfinite(wide).all() or (np.abs(wide) > MAX_MAGNITUDE).any():
                raise Rejected

    def emit(self, *statements) -> bool:
        """Add the statements if the reference runs them (to the end, within the limits)."""
        saved = (dict(self.env.values), dict(self.env.defs))
        try:
            for s in statements:
                s.run(self.env, [])
                if hasattr(s, "name") and s.name in self.env.values:
                    self.check(self.env.values[s.name])
        except (Abort, Unusable, Rejected, FloatingPointError, OverflowError, ZeroDivisionError) as e:
            self.env.values, self.env.defs = saved
            self.coverage[("rejected", type(e).__name__)] += 1
            return False
        except (ValueError, IndexError) as e:  # (the type rules let through what NumPy cannot do)
            self.env.values, self.env.defs = saved
            self.coverage[("inconsistent", type(e).__name__, str(e)[:60])] += 1
            return False
        self.statements.extend(statements)
        return True

    def bind(self, e: Expr, prefix: str = "v", mutable: bool = False, keep: bool = True) -> Value | None:
        """``let NAME = e`` (``var``); the new value joins the pool unless it is to stay
        unused (``keep`` false)."""
        name = self.fresh_name(prefix)
        if not self.emit(Let(name, e, mutable)):
            return None
        value = Value(name, e.type, e.op, mutable, e.op in ("transpose", "reshape", "slice"))
        if keep:
            self.pool[name] = value
        return value

    def note(self, position: str, subject: Value) -> None:
        self.coverage[("position", position, subject.origin)] += 1
        self.coverage[("dtype", subject.type.dtype, position)] += 1

    # -- positions --------------------------------------------------------------------------

    def place(self, position: str, s: Value) -> bool:
        """Put the subject ``s`` in ``position``; False if that did not work out."""
        x = Name(s.name, s.type)
        try:
            done = getattr(self, f"place_{position}")(s, x)
        except (Skip, Invalid, Unsafe):
            return False
        if done:
            self.note(position, s)
            if s.view and position in ("view", "op"):
                self.coverage[("view of a view", s.origin)] += 1
        return bool(done)

    def place_op(self, s, x):
        return self.bind(self.expression(x)) is not None

    def place_print(self, s, x):
        return self.emit(Print(x if self.chance(0.7) else self.expression(x)))

    def place_dead(self, s, x):
        return self.bind(self.expression(x), "dead", keep=False) is not None

    def place_reduce(self, s, x):
        return self.bind(self.apply(x, "reduction")) is not None

    def place_view(self, s, x):
        return self.bind(self.apply(x, "view")) is not None

    def place_twice(self, s, x):
        op = self.choice(ops.ARITHMETIC + ops.COMPARISONS + [ops.OPERATIONS["@"], ops.OPERATIONS["concat"]])
        if not op.accepts(s.type):
            raise Skip
        if op.name == "@":
            return self.bind(op.build(self, x)) is not None
        if op.name == "concat":
            return self.bind(Apply(op, (x, x), {"axis": self.rng.randrange(s.type.rank)})) is not None
        return self.bind(Apply(op, (x, x))) is not None

    def place_var(self, s, x):
        """``var w = s``; soon ``w`` is updated, then ``s`` and ``w`` are used again."""
        w = self.bind(x, "w", mutable=True)
        if w is None:
            return False
        step = len(self.statements)
        self.agenda += [
            (step + self.rng.randint(0, 2), "update", w.name),
            (step + self.rng.randint(1, 4), "print", s.name),
            (step + self.rng.randint(2, 6), "print", w.name),
        ]
        return True

    def place_update(self, s, x):
        """``s op= EXPR`` keeping ``s``'s type (an update in place), or ``s = EXPR``."""
        if not s.mutable:
            raise Skip
        if s.type.dtype == "i1" or self.chance(0.2):
            e = self.expression(x)
            if not self.emit(Update(s.name, "", e)):
                return False
            self.pool[s.name] = Value(s.name, e.type, e.op, True)
            return True
        op = self.choice(ops.ARITHMETIC[:4])
        value = self.partner(x, nonzero=op.name == "/" and s.type.dtype in INTS)
        if Apply(op, (x, value)).type != s.type:
            raise Skip
        return self.emit(Update(s.name, op.name, value))

    def place_def(self, s, x):
        """An operation on ``s`` made into a def, called with ``s`` (and its other operands)."""
        made = self.abstract(self.expression(x))
        if made is None:
            return False
        definition, call = made
        if self.chance(0.1):  # a def never called: compiled all the same
            if not self.emit(definition):
                return False
            self.coverage[("position", "def never called", definition.body.op)] += 1
            return True
        if not self.emit(definition, Let(name := self.fresh_name("v"), call)):
            return False
        self.defs.append(definition)
        self.pool[name] = Value(name, call.type, "call")
        self.coverage[("position", "returned from a def", definition.body.op)] += 1
        for _, t in definition.params:
            self.coverage[("pattern", t.text())] += 1
        return True

    def place_call(self, s, x):
        """``s`` passed to a def made earlier (its ``?`` sizes bound anew), the others of its
        arguments values or literals of sizes drawn for this call."""
        fits = [(d, i) for d in self.defs for i, (_, t) in enumerate(d.params) if parameter_fits(s.type, t, d.pinned)]
        if not fits:
            return self.place_def(s, x)
        definition, slot = self.choice(fits)
        sizes: dict[str, int] = {}
        bind_sizes(definition.params[slot][1], s.type, sizes)
        args = [
            x if i == slot else self.argument(t, sizes, definition.pinned) for i, (_, t) in enumerate(definition.params)
        ]
        call = Apply(ops.DefCall(definition), tuple(args))
        value = self.bind(call)
        if value is not None:
            value.origin = "call"
            self.coverage[("call shapes", definition.name, str([a.type.sizes() for a in args]))] += 1
        return value is not None

    def place_fresh(self, s, x):
        """A new value from nothing: a literal (its type declared), a creation builtin."""
        if self.chance(0.3):
            return self.bind(self.apply_fresh(x)) is not None
        dtype = self.dtype()
        shape = [self.size() for _ in range(self.rng.choice([0, 1, 1, 2, 2, 2, 3]))]
        lit = self.literal(shape, dtype, huge=self.chance(0.4))
        declared = dtype not in ("f64", "i1") or not shape or self.chance(0.3)
        name = self.fresh_name("x")
        mutable = self.chance(0.2)
        if not self.emit(Let(name, lit, mutable, declared)):
            return False
        self.pool[name] = Value(name, lit.type, "literal", mutable)
        return True

    def apply_fresh(self, x):
        op = self.choice(ops.FRESH)
        for _ in range(5):
            try:
                return op.build(self, x)
            except (Skip, Invalid, Unsafe):
                continue
        raise Skip

    def argument(self, t: TType, sizes: dict[str, int], pinned=frozenset()) -> Expr:
        """An argument for a parameter of type ``t``: its ``?`` sizes those of ``sizes``
        (drawn where not yet bound; a pinned one's is its first call's)."""
        shape = tuple(
            sizes.setdefault(d.name, d.size if d.name in pinned else self.size()) if isinstance(d, Sym) else d
            for d in t.shape
        )
        if not shape and t.dtype != "i1":
            return self.number(t.dtype)
        names = [v for v in self.names_of(t.dtype) if v.type.sizes() == shape and parameter_fits(v.type, t, pinned)]
        if names and self.chance(0.5):
            v = self.choice(names)
            return Name(v.name, v.type)
        return self.literal(list(shape), t.dtype)

    # -- defs -------------------------------------------------------------------------------

    def abstract(self, e: Expr) -> tuple[Def, Apply] | None:
        """A def whose body is ``e`` over parameters (its names, some of its literals), and
        its call with them; the parameters' types draw a ``?`` pattern the body accepts."""
        leaves, seen = [], set()
        for n in e.walk():
            key = n.name if isinstance(n, Name) else id(n)
            if key not in seen and (isinstance(n, Name) or isinstance(n, Literal) and self.chance(0.3)):
                seen.add(key)
                leaves.append(n)
        for attempt in range(4):
            question = self.kind.question if attempt < 3 else 0.0
            params = [(f"p{i}", self.parameter_type(leaf.type, question)) for i, leaf in enumerate(leaves)]
            try:
                with pins() as pinned:
                    body = substitute(e, leaves, [Name(p, t) for p, t in params])
                definition = Def(self.fresh_name("f"), params, body, self.chance(0.2), frozenset(pinned))
                return definition, Apply(ops.DefCall(definition), tuple(leaves))
            except (Invalid, Unsafe):
                continue
        return None

    def parameter_type(self, t: TType, question: float) -> TType:
        """``t`` with some dimensions ``?``: a ``Sym`` named by its size, so that every
        ``?`` of one size is one size at each call."""
        return t.with_shape(
            Sym(f"n{size_of(d)}", size_of(d), True) if self.chance(question) else size_of(d) for d in t.shape
        )

    # -- the program ------------------------------------------------------------------------

    def subject(self, position: str) -> Value | None:
        """A value for ``position``, recent ones preferred."""
        values = list(self.pool.values())
        if position == "update":
            values = [v for v in values if v.mutable]
        if not values:
            return None
        if self.chance(0.6):
            return values[-1 - min(self.rng.randrange(4), len(values) - 1)]
        return self.choice(values)

    def step(self) -> None:
        due = [a for a in self.agenda if a[0] <= len(self.statements)]
        if due:
            self.agenda.remove(due[0])
            _, position, name = due[0]
            if name in self.pool:
                self.place(position, self.pool[name])
            return
        weights = dict(POSITIONS)
        weights["def"] *= self.kind.defs
        weights["call"] *= self.kind.defs
        position = self.weighted(weights) if self.pool else "fresh"
        s = self.subject(position)
        if position == "fresh" or s is None:
            self.place_fresh(None, None)
        else:
            self.place(position, s)

    def fill(self) -> None:
        """Statements up to the kind's count, then prints of values made early (used again
        after many loop nests)."""
        target = self.rng.randint(*self.kind.statements)
        for _ in range(target * 6):
            if len(self.statements) >= target:
                break
            self.step()
        values = list(self.pool.values())
        early = values[: max(1, len(values) // 3)]
        late = self.rng.sample(early, min(len(early), self.rng.randint(1, 2)))
        late += self.rng.sample(values, min(len(values), self.rng.randint(0, 2)))
        for v in dict.fromkeys(v.name for v in late):
            if self.emit(Print(Name(v, self.pool[v].type))):
                self.note("print late", self.pool[v])
        if self.chance(0.1):
            self.stop()

    def stop(self) -> None:
        """A last print that must fail a run-time check: an integer division by a literal
        holding a zero, or an id out of range."""
        values = [v for v in self.pool.values() if v.type.rank and v.type.sizes()]
        if not values:
            return
        v = self.choice(values)
        x = Name(v.name, v.type)
        if v.type.dtype in INTS and self.chance(0.5):
            divisor = self.literal([size_of(v.type.shape[-1])], v.type.dtype, nonzero=True)
            divisor.values[self.rng.randrange(divisor.values.size)] = 0
            e = Apply(ops.ARITHMETIC[3], (x, divisor))
        else:
            rows = size_of(v.type.shape[0])
            e = Apply(ops.INDEX, (x, Literal(np.array([0, self.choice([rows, rows + 1])], dtype=object), "i64")))
        statement = Print(e)
        try:
            statement.run(self.env, [])
        except Abort as failed:
            self.statements.append(statement)
            self.abort = str(failed)
            self.coverage[("stop", e.op)] += 1
        except (Invalid, Unsafe, Unusable, Rejected, ValueError):
            pass


def broadcasts(a: TType, b: TType) -> bool:
    """Whether ``a`` combines with ``b`` (at the top level) and the result has ``b``'s sizes."""
    try:
        from .types import broadcast

        return tuple(size_of(d) for d in broadcast(a.shape, b.shape)) == b.sizes()
    except (Invalid, Unsafe):
        return False


def parameter_fits(arg: TType, param: TType, pinned=frozenset()) -> bool:
    """Whether a value of type ``arg`` may be passed for ``param``: the element type, the
    rank, every static size and every pinned ``?``'s."""
    return (
        arg.dtype == param.dtype
        and arg.rank == param.rank
        and all(
            size_of(a) == size_of(p) if not isinstance(p, Sym) or p.name in pinned else True
            for a, p in zip(arg.shape, param.shape)
        )
    )


def bind_sizes(param: TType, arg: TType, sizes: dict[str, int]) -> None:
    for p, a in zip(param.shape, arg.shape):
        if isinstance(p, Sym):
            sizes[p.name] = size_of(a)


def substitute(e: Expr, leaves: list[Expr], params: list[Expr]) -> Expr:
    """``e`` rebuilt with each leaf (a name: every occurrence; a literal: that one) replaced
    by its parameter: the types are worked out anew, which raises if they do not fit."""
    for leaf, param in zip(leaves, params):
        if e is leaf or isinstance(e, Name) and isinstance(leaf, Name) and e.name == leaf.name:
            return param
    if isinstance(e, Apply):
        return Apply(e.operation, tuple(substitute(a, leaves, params) for a in e.args), dict(e.attrs))
    return e
