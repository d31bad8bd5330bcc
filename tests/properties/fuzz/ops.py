"""The operation table: for each operation of the language, its type rule (``types``, as the
checker has it), its reference (``reference``), its source text, and how to build a random
application of it to a *subject*: the value whose positions the generator is exercising.

A builder gets the generator (``g``: random choices, partner operands, literals) and the
subject (an expression), and returns an ``Apply``; it raises ``Skip`` when the subject does
not suit it, and building the ``Apply`` raises ``types.Invalid``/``types.Unsafe`` when the
operands do not fit: the generator then tries something else.

To add an operation: a subclass of ``Op`` with ``type`` (the checker's rule), ``eval`` (the
reference, usually a function of ``reference``), ``render`` if it is not written as a call,
and ``build``; then an instance in ``FAMILIES``. The campaign's coverage report lists the
positions its results reached.
"""

import numpy as np

from . import reference as ref, types as ty
from .syntax import ATOM, COMPARE, SUM, TERM, UNARY, Apply, Expr, Literal, Number, as_tensor, binary_values, wrap
from .types import NUMBER, Invalid, Sym, TType, is_tensor, size_of
from .values import FLOATS, INTS, Val


class Skip(Exception):
    """This operation does not apply to this subject."""


def tensor_args(values: list, dtype: str) -> list[Val]:
    return [as_tensor(v, dtype) for v in values]


def dtype_of(types: list[TType]) -> str:
    """The element type of an operation on tensors and numbers (f64 if all are numbers)."""
    return next((t.dtype for t in types if is_tensor(t)), "f64")


def value_dtype(values: list) -> str:
    return next((v.dtype for v in values if isinstance(v, Val)), "f64")


def call_text(name: str, args: list[str], keywords: dict | None = None) -> str:
    """``name(a, b, key=value)``; keywords whose value is None are left out."""
    words = [f"{k}={text_of(v)}" for k, v in (keywords or {}).items() if v is not None]
    return f"{name}({', '.join([*args, *words])})"


def text_of(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


def no_booleans(*types: TType) -> None:
    if any(t.dtype == "i1" for t in types):
        raise Invalid("i1 tensors have no arithmetic")


def floats_only(*types: TType) -> None:
    if any(is_tensor(t) and t.dtype not in FLOATS for t in types):
        raise Invalid("a float tensor is needed")


def tensor_only(t: TType) -> None:
    if not is_tensor(t):
        raise Invalid("a tensor is needed")


def normal_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise Invalid("axis out of range")
    return axis % rank


def normal_axes(written: list[int] | None, rank: int) -> list[int]:
    if written is None:
        return list(range(rank))
    axes = [normal_axis(a, rank) for a in written]
    if len(set(axes)) != len(axes):
        raise Invalid("an axis given twice")
    return sorted(axes)


def maybe_negative(g, axis: int, rank: int) -> int:
    """An axis as written: sometimes counted from the end."""
    return axis - rank if g.chance(0.3) else axis


class Op:
    """An operation; subclasses give ``type``, ``eval``, ``render`` (default: a call) and
    ``build``. ``accepts`` filters subjects cheaply before ``build`` is tried."""

    name = ""
    prec = ATOM

    def accepts(self, t: TType) -> bool:
        return is_tensor(t)

    def render(self, args: tuple[Expr, ...], **attrs) -> str:
        return call_text(self.name, [a.source() for a in args])


# -- operators ---------------------------------------------------------------------------------


class Binary(Op):
    """``+ - * /``: elementwise with broadcasting; a number takes the tensor's type."""

    def __init__(self, symbol: str):
        self.name, self.prec = symbol, SUM if symbol in "+-" else TERM

    def accepts(self, t):
        return is_tensor(t) and t.dtype != "i1"

    def type(self, types, **attrs):
        no_booleans(*types)
        if not any(map(is_tensor, types)):
            raise Invalid("two numbers fold")  # (the generator does not fold numbers)
        return ty.combine(*types)

    def eval(self, values, env, **attrs):
        return binary_values(self.name, *values)

    def render(self, args, **attrs):
        return f"{wrap(args[0], self.prec)} {self.name} {wrap(args[1], self.prec + 1)}"

    def build(self, g, x):
        integer_division = self.name == "/" and x.type.dtype in INTS
        p = g.partner(x, nonzero=integer_division)
        pair = (x, p) if integer_division or g.chance(0.6) else (p, x)
        return Apply(self, pair)


class Matmul(Op):
    name, prec = "@", TERM

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 2 and t.dtype != "i1"

    def type(self, types, **attrs):
        return ty.matmul(*types)

    def eval(self, values, env, **attrs):
        return ref.matmul(*values)

    def render(self, args, **attrs):
        return f"{wrap(args[0], self.prec)} @ {wrap(args[1], self.prec + 1)}"

    def build(self, g, x):
        if g.chance(0.3):  # x @ xᵀ: the subject used twice
            flip = list(range(x.type.rank - 2)) + [x.type.rank - 1, x.type.rank - 2]
            return Apply(self, (x, Apply(TRANSPOSE, (x,), {"written": flip})))
        left = g.chance(0.7)
        k = x.type.shape[-1] if left else x.type.shape[-2]
        other = g.operand(
            TType(
                (*g.batch(x.type.shape[:-2]), k, g.size()) if left else (*g.batch(x.type.shape[:-2]), g.size(), k),
                x.type.dtype,
            )
        )
        return Apply(self, (x, other) if left else (other, x))


class Compare(Op):
    """``< <= > >= == !=``: i1 results; they bind more loosely than ``+ -``."""

    prec = COMPARE

    def __init__(self, symbol: str):
        self.name = symbol

    def type(self, types, **attrs):
        t = ty.combine(*types)
        if not is_tensor(t):
            raise Invalid("a comparison of two numbers")
        return t.with_dtype("i1")

    def eval(self, values, env, **attrs):
        return ref.compare(self.name, *tensor_args(values, value_dtype(values)))

    def render(self, args, **attrs):
        return f"{wrap(args[0], SUM)} {self.name} {wrap(args[1], SUM)}"

    def build(self, g, x):
        return Apply(self, (x, g.partner(x, number_ok=x.type.dtype != "i1")))


class Neg(Op):
    name, prec = "neg", UNARY

    def accepts(self, t):
        return is_tensor(t) and t.dtype != "i1"

    def type(self, types, **attrs):
        no_booleans(*types)
        return types[0]

    def eval(self, values, env, **attrs):
        return ref.elementwise("neg", values)

    def render(self, args, **attrs):
        return "-" + (f"({args[0].source()})" if args[0].prec <= UNARY else args[0].source())

    def build(self, g, x):
        return Apply(self, (x,))


# -- functions -------------------------------------------------------------------------------


class Unary(Op):
    """``relu`` and ``abs`` (every numeric type) and the float math functions."""

    # Functions defined on part of the line, and an exact way into it for most operands.
    DOMAINS = {"sqrt": "positive", "rsqrt": "positive", "log": "positive", "acos": "unit", "asin": "unit"}

    def __init__(self, name: str, floats: bool):
        self.name, self.floats = name, floats

    def accepts(self, t):
        return is_tensor(t) and (t.dtype in FLOATS if self.floats else t.dtype != "i1")

    def type(self, types, **attrs):
        tensor_only(types[0])
        no_booleans(*types)
        if self.floats:
            floats_only(*types)
        return types[0]

    def eval(self, values, env, **attrs):
        return ref.elementwise(self.name, values)

    def build(self, g, x):
        """``f(x)``, or for a function of part of the line, sometimes ``f`` of ``x`` moved
        into it: ``abs(x) + 1``, ``minimum(maximum(x, -1), 1)``."""
        domain = self.DOMAINS.get(self.name)
        if domain and g.chance(0.6):
            if domain == "positive":
                x = Apply(ARITHMETIC[0], (Apply(OPERATIONS["abs"], (x,)), Number(1)))
            else:
                x = Apply(OPERATIONS["minimum"], (Apply(OPERATIONS["maximum"], (x, Number(-1))), Number(1)))
        return Apply(self, (x,))


class BinaryFunction(Op):
    """``maximum minimum`` (every numeric type), ``pow atan2`` (floats)."""

    def __init__(self, name: str, floats: bool):
        self.name, self.floats = name, floats

    def accepts(self, t):
        return is_tensor(t) and (t.dtype in FLOATS if self.floats else t.dtype != "i1")

    def type(self, types, **attrs):
        no_booleans(*types)
        if self.floats:
            floats_only(*types)
        if not any(map(is_tensor, types)):
            raise Invalid("two numbers fold")
        return ty.combine(*types)

    def eval(self, values, env, **attrs):
        return ref.elementwise(self.name, tensor_args(values, value_dtype(values)))

    def build(self, g, x):
        if self.name == "pow":  # (a negative base has a power only for whole exponents)
            return Apply(self, (x, g.number(x.type.dtype, [2, 3, -1, 1, 0.5, -0.5])))
        p = g.partner(x)
        return Apply(self, (x, p) if g.chance(0.5) else (p, x))


class Where(Op):
    """``where(mask, a, b)``: the three broadcast; ``a`` or ``b`` may be a number."""

    name = "where"

    def type(self, types, **attrs):
        mask, a, b = types
        if not is_tensor(mask) or mask.dtype != "i1":
            raise Invalid("the mask of where must be i1")
        values = TType((), "f64") if not is_tensor(a) and not is_tensor(b) else ty.combine(a, b)
        return TType(ty.broadcast(mask.shape, values.shape), values.dtype)

    def eval(self, values, env, **attrs):
        mask, a, b = values
        return ref.where(mask, *tensor_args([a, b], value_dtype([a, b])))

    def build(self, g, x):
        if x.type.dtype == "i1":
            dtype = g.dtype()
            first = g.partner_of(TType(x.type.shape, dtype))
            return Apply(self, (x, first, g.partner_of(TType(x.type.shape, dtype), number_ok=is_tensor(first.type))))
        mask = Apply(g.choice(COMPARISONS), (x, g.partner(x)))
        if g.chance(0.3):  # values of another type than the mask's operands
            values = TType(x.type.shape, g.dtype())
            first = g.partner_of(values)
            return Apply(self, (mask, first, g.partner_of(values, number_ok=is_tensor(first.type))))
        other = g.partner(x)
        return Apply(self, (mask, x, other) if g.chance(0.5) else (mask, other, x))


class Cast(Op):
    name = "cast"

    def type(self, types, to: str):
        tensor_only(types[0])
        return types[0].with_dtype(to)

    def eval(self, values, env, to: str):
        return ref.cast(values[0], to)

    def render(self, args, to: str):
        return call_text("cast", [args[0].source(), to])

    def build(self, g, x):
        return Apply(self, (x,), {"to": g.choice([d for d in g.dtypes if d != x.type.dtype] or ["f64"])})


# -- reductions ------------------------------------------------------------------------------


class Reduction(Op):
    """``sum prod max min mean`` with ``axes=`` (default every axis) and ``keepdims=``."""

    def __init__(self, kind: str):
        self.name = kind

    def accepts(self, t):
        return is_tensor(t) and t.dtype != "i1" and (self.name != "mean" or t.dtype in FLOATS)

    def type(self, types, axes=None, keepdims=None):
        (t,) = types
        tensor_only(t)
        no_booleans(t)
        normal = normal_axes(axes, t.rank)
        if self.name == "mean":
            floats_only(t)
            if any(isinstance(t.shape[a], Sym) for a in normal):
                raise Invalid("mean along a '?'")
        return ty.reduce(t, normal, bool(keepdims))

    def eval(self, values, env, axes=None, keepdims=None):
        return ref.reduce(self.name, values[0], normal_axes(axes, values[0].v.ndim), bool(keepdims))

    def render(self, args, axes=None, keepdims=None):
        return call_text(self.name, [args[0].source()], {"axes": axes, "keepdims": keepdims})

    def build(self, g, x):
        rank = x.type.rank
        axes = None
        if rank and g.chance(0.7):
            chosen = g.rng.sample(range(rank), g.rng.randint(1, rank))
            axes = [maybe_negative(g, a, rank) for a in chosen]
        return Apply(self, (x,), {"axes": axes, "keepdims": g.choice([None, True, False])})


class RowCol(Op):
    """``row_sum`` (one value per row, Mx1) ... ``col_mean`` (1xN): of matrices."""

    def __init__(self, name: str):
        self.name = name
        side, self.kind = name.split("_")
        self.axis = 1 if side == "row" else 0

    def accepts(self, t):
        return is_tensor(t) and t.rank == 2 and t.dtype != "i1" and (self.kind != "mean" or t.dtype in FLOATS)

    def type(self, types, **attrs):
        (t,) = types
        if not is_tensor(t) or t.rank != 2:
            raise Invalid(f"{self.name} needs a matrix")
        no_booleans(t)
        if self.kind == "mean" and (t.dtype not in FLOATS or isinstance(t.shape[self.axis], Sym)):
            raise Invalid("mean of integers or along a '?'")
        return ty.reduce(t, [self.axis], True)

    def eval(self, values, env, **attrs):
        return ref.reduce(self.kind, values[0], [self.axis], True)

    def build(self, g, x):
        return Apply(self, (x,))


# -- shapes and views ------------------------------------------------------------------------


class Transpose(Op):
    """``transpose(x)`` (the axes reversed) or ``transpose(x, [perm])``."""

    name = "transpose"

    def type(self, types, written=None):
        (t,) = types
        tensor_only(t)
        return t.with_shape([t.shape[p] for p in self.permutation(written, t.rank)])

    @staticmethod
    def permutation(written, rank: int) -> list[int]:
        if written is None:
            return list(reversed(range(rank)))
        perm = [normal_axis(p, rank) for p in written] if rank else []
        if sorted(perm) != list(range(rank)) or len(written) != rank:
            raise Invalid("not a permutation")
        return perm

    def eval(self, values, env, written=None):
        return values[0].map(lambda a: np.transpose(a, self.permutation(written, a.ndim)))

    def render(self, args, written=None):
        return call_text("transpose", [args[0].source()] + ([] if written is None else [text_of(written)]))

    def build(self, g, x):
        rank = x.type.rank
        if g.chance(0.3) or not rank:  # (an empty permutation cannot be written)
            return Apply(self, (x,))
        perm = g.rng.sample(range(rank), rank)
        return Apply(self, (x,), {"written": [maybe_negative(g, p, rank) for p in perm]})


class Reshape(Op):
    name = "reshape"

    def type(self, types, written):
        (t,) = types
        tensor_only(t)
        if not t.is_static():
            raise Invalid("reshape of '?' sizes")
        count = t.numel()
        known = int(np.prod([d for d in written if d != -1]))
        target = [count // known if d == -1 else d for d in written]
        if int(np.prod(target)) != count or count % known:
            raise Invalid("reshape changes the count")
        return t.with_shape(target)

    def eval(self, values, env, written):
        return values[0].map(lambda a: a.reshape(written))

    def render(self, args, written):
        return call_text("reshape", [args[0].source(), text_of(written)])

    def build(self, g, x):
        if not x.type.is_static():
            raise Skip
        target = g.factorisation(x.type.numel())
        if g.chance(0.4):
            target[g.rng.randrange(len(target))] = -1
        return Apply(self, (x,), {"written": target})


class BroadcastTo(Op):
    name = "broadcast_to"

    def type(self, types, written):
        (t,) = types
        tensor_only(t)
        if len(written) < t.rank:
            raise Invalid("broadcast_to a lower rank")
        for d, w in zip(t.shape, written[len(written) - t.rank :]):
            if isinstance(d, Sym) and w == 1:
                raise Invalid("a '?' broadcast to 1")
        if ty.broadcast(t.shape, tuple(written)) != tuple(written):
            raise Invalid("broadcast_to shrinks")
        return t.with_shape(written)

    def eval(self, values, env, written):
        return values[0].map(lambda a: np.broadcast_to(a, written).copy())

    def render(self, args, written):
        return call_text("broadcast_to", [args[0].source(), text_of(written)])

    def build(self, g, x):
        grown = [g.size() if size_of(d) == 1 else size_of(d) for d in x.type.shape]
        lead = [g.size() for _ in range(g.rng.randint(0 if x.type.rank else 1, 1 if x.type.rank < 3 else 0))]
        return Apply(self, (x,), {"written": lead + grown})


class Slice(Op):
    name = "slice"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1

    def type(self, types, axis, start, stop):
        (t,) = types
        tensor_only(t)
        return ty.slice_(t, normal_axis(axis, t.rank), start, stop)

    def eval(self, values, env, axis, start, stop):
        return ref.slice_(values[0], normal_axis(axis, values[0].v.ndim), start, stop)

    def render(self, args, axis, start, stop):
        return call_text("slice", [args[0].source(), str(axis), str(start), str(stop)])

    def build(self, g, x):
        axis = g.rng.randrange(x.type.rank)
        size = size_of(x.type.shape[axis])
        start = g.rng.randrange(size)
        stop = g.rng.randint(start + 1, size)
        return Apply(self, (x,), {"axis": maybe_negative(g, axis, x.type.rank), "start": start, "stop": stop})


class Concat(Op):
    """``concat(axis, [a, b, ...])``; a literal in the list is parenthesised (a list of
    literals alone would be a literal)."""

    name = "concat"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1

    def type(self, types, axis):
        for t in types:
            tensor_only(t)
            if t.rank == 0:
                raise Invalid("concat of rank 0")
        return ty.concat(list(types), normal_axis(axis, types[0].rank))

    def eval(self, values, env, axis):
        return ref.concat(normal_axis(axis, values[0].v.ndim), list(values))

    def render(self, args, axis):
        items = [f"({a.source()})" if isinstance(a, Literal) and a.dtype in ("f64", "i1") else a.source() for a in args]
        return f"concat({axis}, [{', '.join(items)}])"

    def build(self, g, x):
        axis = g.rng.randrange(x.type.rank)
        items = [x]
        for _ in range(g.rng.randint(1, 2)):
            shape = list(x.type.shape)
            shape[axis] = g.size()
            items.append(x if g.chance(0.3) else g.operand(TType(tuple(shape), x.type.dtype)))
        g.rng.shuffle(items)
        return Apply(self, tuple(items), {"axis": maybe_negative(g, axis, x.type.rank)})


class Element(Op):
    """``x[i, j]``: one element, a rank-0 tensor."""

    name = "element"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1

    def type(self, types, indices):
        (t,) = types
        tensor_only(t)
        if len(indices) != t.rank:
            raise Invalid("one index per axis")
        return ty.element(t, indices)

    def eval(self, values, env, indices):
        return ref.element(values[0], indices)

    def render(self, args, indices):
        return f"{wrap(args[0], ATOM)}[{', '.join(map(str, indices))}]"

    def build(self, g, x):
        """``x[i, j]``, or that element combined with ``x`` (``x[1] * x``: used twice)."""
        indices = []
        for d in x.type.shape:
            i = g.rng.randrange(size_of(d))
            indices.append(i - size_of(d) if g.chance(0.3) else i)
        element = Apply(self, (x,), {"indices": indices})
        if x.type.dtype == "i1" or g.chance(0.5):
            return element
        return Apply(g.choice(ARITHMETIC[:3]), (element, x) if g.chance(0.5) else (x, element))


# -- indexing by ids -------------------------------------------------------------------------


class Index(Op):
    """``index(table, ids)``: the rows of ``table`` that ``ids`` name."""

    name = "index"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1

    def type(self, types, **attrs):
        table, ids = types
        tensor_only(table)
        if table.rank < 1 or not is_tensor(ids):
            raise Invalid("index needs a table and ids")
        ty.ids_ok(ids)
        return table.with_shape((*ids.shape, *table.shape[1:]))

    def eval(self, values, env, **attrs):
        return ref.index(*values)

    def build(self, g, x):
        return Apply(self, (x, g.ids([g.size() for _ in range(g.rng.randint(1, 2))], size_of(x.type.shape[0]))))


class IndexAdd(Op):
    """``index_add(base, ids, values)``: each row of ``values`` added at its id's row."""

    name = "index_add"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1 and t.dtype != "i1"

    def type(self, types, **attrs):
        base, ids, values = types
        rows = Index().type([base, ids])
        no_booleans(base)
        if not is_tensor(values) or values.dtype != base.dtype:
            raise Invalid("values of another type")
        ty.check_equal_shapes(rows.shape, values.shape)
        return base

    def eval(self, values, env, **attrs):
        return ref.index_add(*values)

    def build(self, g, x):
        ids = g.ids([g.size()], size_of(x.type.shape[0]))
        rows = Apply(INDEX, (x, ids))
        values = rows if g.chance(0.3) else g.operand(rows.type)
        return Apply(self, (x, ids, values))


class Gather(Op):
    """``gather(x, idx, axis=-1)``: ``np.take_along_axis``."""

    name = "gather"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1

    def type(self, types, axis=None):
        x, idx = types
        tensor_only(x)
        if not is_tensor(idx):
            raise Invalid("indices must be a tensor")
        ty.along_axis(x, idx, normal_axis(-1 if axis is None else axis, x.rank))
        return x.with_shape(idx.shape)

    def eval(self, values, env, axis=None):
        x, idx = values
        return ref.gather(x, idx, normal_axis(-1 if axis is None else axis, x.v.ndim))

    def render(self, args, axis=None):
        return call_text(self.name, [a.source() for a in args], {"axis": axis})

    def build(self, g, x):
        idx, attrs = self.indices(g, x)
        return Apply(self, (x, idx), attrs)

    @staticmethod
    def indices(g, x: Expr) -> tuple[Literal, dict]:
        """Indices along a random axis of ``x`` (its sizes elsewhere), and ``axis=``."""
        axis = g.rng.randrange(x.type.rank)
        shape = list(x.type.sizes())
        shape[axis] = g.size()
        written = None if axis == x.type.rank - 1 and g.chance(0.5) else maybe_negative(g, axis, x.type.rank)
        return g.ids(shape, size_of(x.type.shape[axis])), {"axis": written}


class ScatterAdd(Gather):
    """``scatter_add(base, idx, values, axis=-1)``: the adjoint of ``gather``."""

    name = "scatter_add"

    def accepts(self, t):
        return super().accepts(t) and t.dtype != "i1"

    def type(self, types, axis=None):
        base, idx, values = types
        no_booleans(base)
        Gather.type(self, [base, idx], axis=axis)
        if not is_tensor(values) or values.dtype != base.dtype:
            raise Invalid("values of another type")
        ty.check_equal_shapes(idx.shape, values.shape)
        return base

    def eval(self, values, env, axis=None):
        base, idx, vals = values
        return ref.scatter_add(base, idx, vals, normal_axis(-1 if axis is None else axis, base.v.ndim))

    def build(self, g, x):
        idx, attrs = self.indices(g, x)
        return Apply(self, (x, idx, g.operand(TType(idx.type.shape, x.type.dtype))), attrs)


# -- scans -----------------------------------------------------------------------------------


class Cumsum(Op):
    name = "cumsum"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1 and t.dtype != "i1"

    def type(self, types, axis=None):
        (t,) = types
        tensor_only(t)
        no_booleans(t)
        if t.rank == 0:
            raise Invalid("cumsum of rank 0")
        normal_axis(0 if axis is None else axis, t.rank)
        return t

    def eval(self, values, env, axis=None):
        return ref.cumsum(values[0], normal_axis(0 if axis is None else axis, values[0].v.ndim))

    def render(self, args, axis=None):
        return call_text(self.name, [args[0].source()], {"axis": axis})

    def build(self, g, x):
        axis = g.rng.randrange(x.type.rank)
        return Apply(
            self, (x,), {"axis": None if axis == 0 and g.chance(0.5) else maybe_negative(g, axis, x.type.rank)}
        )


class LinearScan(Op):
    """``linear_scan(a, b, axis=0, reverse=false)``: ``h[t] = a[t] * h[t-1] + b[t]``."""

    name = "linear_scan"

    def accepts(self, t):
        return is_tensor(t) and t.rank >= 1 and t.dtype in FLOATS

    def type(self, types, axis=None, reverse=None):
        floats_only(*types)
        t = ty.combine(*types)
        if not is_tensor(t) or t.rank == 0:
            raise Invalid("linear_scan needs a tensor of rank 1 or more")
        normal_axis(0 if axis is None else axis, t.rank)
        return t

    def eval(self, values, env, axis=None, reverse=None):
        a, b = tensor_args(values, value_dtype(values))
        rank = len(np.broadcast_shapes(a.shape, b.shape))
        return ref.linear_scan(a, b, normal_axis(0 if axis is None else axis, rank), bool(reverse))

    def render(self, args, axis=None, reverse=None):
        return call_text(self.name, [a.source() for a in args], {"axis": axis, "reverse": reverse})

    def build(self, g, x):
        p = g.partner(x, values=g.scan_coefficients)
        a, b = (p, x) if g.chance(0.6) else (x, p)
        axis = g.rng.randrange(x.type.rank)
        return Apply(
            self,
            (a, b),
            {
                "axis": maybe_negative(g, axis, x.type.rank) if g.chance(0.7) else None,
                "reverse": g.choice([None, True, False]),
            },
        )


# -- creation and shape queries ----------------------------------------------------------------


class Like(Op):
    """``zeros_like(x)``, ``ones_like(x)``, with ``dtype=`` sometimes."""

    def __init__(self, name: str):
        self.name, self.value = name, 0 if name == "zeros_like" else 1

    def type(self, types, dtype=None):
        tensor_only(types[0])
        return types[0].with_dtype(dtype or types[0].dtype)

    def eval(self, values, env, dtype=None):
        return ref.full(values[0].shape, self.value, dtype or values[0].dtype)

    def render(self, args, dtype=None):
        return call_text(self.name, [args[0].source()], {"dtype": dtype})

    def build(self, g, x):
        return Apply(self, (x,), {"dtype": g.dtype() if g.chance(0.3) else None})


class Fill(Op):
    """``zeros ones full`` of a shape written out, or ``shape(x)`` of the subject; ``iota``."""

    def __init__(self, name: str):
        self.name = name

    def type(self, types, shape, value=None, axis=None, dtype=None):
        if types:
            if not types[0].is_static():
                raise Invalid("shape of '?' sizes")
            shape = list(types[0].sizes())
        if self.name == "iota" and (dtype or "i32") not in INTS:
            raise Invalid("iota makes integers")
        if not shape and self.name == "iota":
            raise Invalid("iota of rank 0")
        return TType(tuple(shape), dtype or ("i32" if self.name == "iota" else "f64"))

    def eval(self, values, env, shape, value=None, axis=None, dtype=None):
        shape = list(values[0].shape) if values else shape
        if self.name == "iota":
            return ref.iota(shape, normal_axis(axis or 0, len(shape)), dtype or "i32")
        return ref.full(shape, {"zeros": 0, "ones": 1}.get(self.name, value), dtype or "f64")

    def render(self, args, shape, value=None, axis=None, dtype=None):
        written = f"shape({args[0].source()})" if args else text_of(shape)
        values = [] if value is None else [text_of(value)]
        return call_text(self.name, [written, *values], {"axis": axis, "dtype": dtype})

    def build(self, g, x):
        """A tensor of ``x``'s shape (``shape(x)``) or a fresh one."""
        args = (x,) if x is not None and x.type.is_static() and x.type.rank and g.chance(0.5) else ()
        shape = [g.size() for _ in range(g.rng.randint(1, 3))]
        rank = x.type.rank if args else len(shape)
        attrs = {"shape": shape}
        if self.name == "iota":
            attrs.update(axis=g.rng.randrange(rank) if g.chance(0.7) else None, dtype=g.choice([None, "i32", "i64"]))
        else:
            dtype = g.choice([None, *g.dtypes])
            attrs["dtype"] = dtype
            if self.name == "full":
                attrs["value"] = g.number_value(dtype or "f64")
        return Apply(self, args, attrs)


class Query(Op):
    """``rank(x)``, ``dim(x, axis)``, ``numel(x)``: numbers known when compiling."""

    def __init__(self, name: str):
        self.name = name

    def type(self, types, axis=None):
        (t,) = types
        tensor_only(t)
        sizes = t.shape if self.name != "dim" else (t.shape[normal_axis(axis, t.rank)],)
        if self.name != "rank" and any(isinstance(d, Sym) for d in sizes):
            raise Invalid(f"{self.name} of a '?'")
        return NUMBER

    def eval(self, values, env, axis=None):
        shape = values[0].shape
        return float(
            {
                "rank": len(shape),
                "numel": int(np.prod(shape)),
                "dim": shape[normal_axis(axis, len(shape))] if axis is not None else 0,
            }[self.name]
        )

    def render(self, args, axis=None):
        return call_text(self.name, [args[0].source()] + ([] if axis is None else [str(axis)]))

    def build(self, g, x):
        """``x op query(x)``: the number combined with the subject."""
        if self.name == "dim" and not x.type.rank:
            raise Skip
        axis = maybe_negative(g, g.rng.randrange(x.type.rank), x.type.rank) if self.name == "dim" else None
        query = Apply(self, (x,), {"axis": axis})
        return Apply(g.choice(ARITHMETIC[:3]), (x, query) if g.chance(0.5) else (query, x))


# -- defs ------------------------------------------------------------------------------------


class DefCall(Op):
    """A call of a generated def: the arguments' sizes bind its ``?`` dimensions."""

    def __init__(self, definition):
        self.definition = definition
        self.name = definition.name

    def type(self, types, **attrs):
        bound: dict[str, object] = {}
        params = self.definition.params
        if len(types) != len(params):
            raise Invalid("argument count")
        for (_, p), a in zip(params, types):
            if not is_tensor(a):
                if p.rank:
                    raise Invalid("a number for a tensor parameter")
                continue
            if a.dtype != p.dtype or a.rank != p.rank:
                raise Invalid("argument type")
            for pd, ad in zip(p.shape, a.shape):
                if isinstance(pd, Sym):
                    if pd.name in bound:
                        ty.check_same_size(bound[pd.name], ad)
                    bound[pd.name] = ad
                elif isinstance(ad, Sym):
                    ty.check_same_size(ad, pd)
                elif ad != pd:
                    raise Invalid("argument size")
        return self.result(bound)

    def result(self, bound: dict) -> TType:
        """The result's type as the checker sees it: each ``?`` of the body's type a new
        ``?``, of the size this call's arguments give it."""
        shape = [
            Sym(f"{self.name}()", *self.size(d, bound)) if isinstance(d, Sym) else d
            for d in self.definition.body.type.shape
        ]
        return TType(tuple(shape), self.definition.body.type.dtype)

    def size(self, d, bound: dict) -> tuple[int, bool]:
        """The size of the body's dimension ``d`` at this call, and whether it varies."""
        if not isinstance(d, Sym):
            return d, False
        if d.name in bound:
            return size_of(bound[d.name]), ty.varies(bound[d.name])
        sizes = [self.size(part, bound) for part in d.parts]  # (a concat's)
        return sum(s for s, _ in sizes), any(v for _, v in sizes)

    def eval(self, values, env, **attrs):
        return env.defs[self.name].call(env, values)


# -- the table ---------------------------------------------------------------------------------

ARITHMETIC = [Binary(s) for s in "+-*/"]
COMPARISONS = [Compare(s) for s in ("<", "<=", ">", ">=", "==", "!=")]
TRANSPOSE = Transpose()
INDEX = Index()
MATH = ["sqrt", "rsqrt", "exp", "log", "sin", "cos", "tanh", "acos", "asin"]

# Families of operations, for the generator's choices and the coverage report.
FAMILIES = {
    "arithmetic": ARITHMETIC + [Neg()],
    "matmul": [Matmul()],
    "compare": COMPARISONS + [Where()],
    "cast": [Cast()],
    "math": [Unary(m, True) for m in MATH]
    + [Unary("relu", False), Unary("abs", False)]
    + [BinaryFunction(f, False) for f in ("maximum", "minimum")]
    + [BinaryFunction(f, True) for f in ("pow", "atan2")],
    "reduction": [Reduction(k) for k in ("sum", "prod", "max", "min", "mean")]
    + [RowCol(f"{s}_{k}") for s in ("row", "col") for k in ("sum", "max", "mean")],
    "view": [TRANSPOSE, Reshape(), Slice()],
    "shape": [BroadcastTo(), Concat(), Element()],
    "indexing": [INDEX, IndexAdd(), Gather(), ScatterAdd()],
    "scan": [Cumsum(), LinearScan()],
    "creation": [Like("zeros_like"), Like("ones_like")],
    "query": [Query("rank"), Query("dim"), Query("numel")],
}
FRESH = [Fill(n) for n in ("zeros", "ones", "full", "iota")]  # creation from nothing
OPERATIONS = {op.name: op for ops in FAMILIES.values() for op in ops}
VIEWS = FAMILIES["view"]
REDUCTIONS = FAMILIES["reduction"]
