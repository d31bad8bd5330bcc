"""The type rules of the builtins that rearrange a tensor's elements (``transpose`` with a
permutation, ``reshape``, ``broadcast_to``, ``slice``, ``concat``) and of those that ask
for its shape (``shape``, ``rank``, ``dim``, ``numel``)."""

import math

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import ShapeError, fmt_shape
from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import Type, describe, type_text
from mg_xdsl.language.syntax_tree import Call, Expr, ExprList, TensorType


class ShapeRules(ArgumentReader):
    """Families ``shape_op`` and ``shape_query``."""

    def shape_op(self, c: Call, scope: Scope, _: Builtin | None = None) -> TensorType:
        """``transpose(x, [0, 2, 1])`` (a full permutation, negative axes counting from the
        end), ``reshape(x, [2, -1])`` (static sizes, the element count kept, one -1 inferred),
        ``broadcast_to(x, [4, 2, 3])`` (as an operator broadcasts ``x``), ``slice(x, axis,
        start, stop)`` (``0 <= start < stop <= size``)."""
        name = c.tok
        if name.text == "concat":
            return self.concat(c, scope)
        count = 4 if name.text == "slice" else 2
        self.arity(name, c.args, count, "a tensor and an axis, start and stop" if count == 4 else "a tensor and a list")
        t = self.expr(c.args[0], scope)
        if not isinstance(t, TensorType):
            raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(t)}")
        rank = len(t.shape)
        try:
            if name.text == "slice":
                axis, start, stop = (
                    self.static_ints(a, scope, f"the {what} of slice")
                    for a, what in zip(c.args[1:], ("axis", "start", "stop"))
                )
                if not len(axis) == len(start) == len(stop) == 1:
                    raise self.error(name, "E-ARG-003", "slice takes one integer each for its axis, start and stop")
                axis = self.axes(name, rank, axis)
                self.options[c] = {"axis": axis[0], "start": start[0], "stop": stop[0]}
                return TensorType(shapes.slice_shape(t.shape, axis[0], start[0], stop[0]), t.element)
            if name.text == "broadcast_to" and (like := self.run_time_shape(c.args[1], scope)) is not None:
                return self.broadcast_like(c, t, *like)
            written = self.static_ints(c.args[1], scope, f"the second argument of {name.text}")
            if name.text == "transpose":
                axes = [a % rank if -rank <= a < rank else a for a in written]
                if sorted(axes) != list(range(rank)):
                    raise self.error(
                        name,
                        "E-ARG-004",
                        f"transpose needs a permutation of the axes 0 to {rank - 1} "
                        f"(negative ones count from the end), got {written}",
                    )
                self.options[c] = {"permutation": axes}
                return TensorType(shapes.transpose_shape(t.shape, axes), t.element)
            if name.text == "reshape":
                return TensorType(shapes.reshape_shape(t.shape, written, type_text(t)), t.element)
            if any(d <= 0 for d in written):
                raise self.error(name, "E-ARG-004", f"the shape of broadcast_to must be positive sizes, got {written}")
            shape = shapes.broadcast_shapes(t.shape, written, "broadcast")
            if (
                len(written) < rank
                or shape != tuple(written)
                or None in t.shape[len(t.shape) - len(written) :]
                and shapes.never_broadcast(t.shape, written)
            ):
                raise self.error(
                    name,
                    "E-DIM-001",
                    f"cannot broadcast {describe(t)} to {fmt_shape(written)}: each size must "
                    "stay or grow from 1, and a '?' never grows",
                )
            return TensorType(tuple(written), t.element)
        except ShapeError as e:
            raise self.error(name, "E-DIM-001", str(e)) from None

    def broadcast_like(self, c: Call, t: TensorType, x: Expr, like: TensorType) -> TensorType:
        """``broadcast_to(m, shape(x))`` of an ``x`` with ``?`` sizes: ``m`` grown to ``x``'s
        shape when the program runs. Each size of ``m`` (right-aligned) is ``x``'s or a
        static 1, which grows, to a ``?`` too; a ``?`` of both is checked equal at run time."""
        lead = len(like.shape) - len(t.shape)
        for d, size in enumerate(t.shape):
            if lead < 0 or size != 1 and size != like.shape[lead + d]:
                raise self.error(
                    c.tok,
                    "E-DIM-001",
                    f"cannot broadcast {describe(t)} to the shape of {describe(like)}: each size must be "
                    "the same or a static 1, which grows",
                )
        self.options[c] = {"like": x}
        return TensorType(like.shape, t.element)

    def concat(self, c: Call, scope: Scope) -> TensorType:
        """``concat(axis, [a, b, c])``: tensors of one rank and element type, of equal sizes
        off ``axis`` (a ``?`` checked when the program runs), one after another along it."""
        name = c.tok
        self.arity(name, c.args, 2, "an axis and a list of tensors like [a, b]")
        axis_expr, listed = c.args
        if not isinstance(listed, ExprList):
            raise self.error(name, "E-ARG-003", "the second argument of concat must be a list of tensors like [a, b]")
        if not listed.items:
            raise self.error(name, "E-ARG-001", "concat needs at least one tensor to join, got the empty list []")
        tensors: list[TensorType] = []
        for i, e in enumerate(listed.items, start=1):
            t = self.expr(e, scope)
            if not isinstance(t, TensorType) or not t.shape:
                raise self.error(
                    name, "E-DIM-001", f"concat joins tensors of rank 1 or more: item {i} is {describe(t)}"
                )
            tensors.append(t)
        first = tensors[0]
        for i, t in enumerate(tensors[1:], start=2):
            self.same_element_type(name, "concatenate", first, t)
            if len(t.shape) != len(first.shape):
                raise self.error(
                    name,
                    "E-DIM-001",
                    f"concat joins tensors of one rank: item 1 is {describe(first)}, item {i} {describe(t)}",
                )
        axis = self.one_axis(name, axis_expr, scope, len(first.shape), f"the axis of {name.text}")
        shape = list(first.shape)
        for i, t in enumerate(tensors[1:], start=2):
            for d, (x, y) in enumerate(zip(shape, t.shape)):
                if d != axis and not shapes.dims_compatible(x, y):
                    raise self.error(
                        name,
                        "E-DIM-001",
                        f"concat along axis {axis} needs the other sizes equal: item 1 is "
                        f"{fmt_shape(first.shape)}, item {i} {fmt_shape(t.shape)}",
                    )
                if d != axis and x is None:
                    shape[d] = y
        sizes = [t.shape[axis] for t in tensors]
        static = [size for size in sizes if size is not None]
        shape[axis] = sum(static) if len(static) == len(sizes) else None  # (a '?' joined gives a '?')
        self.options[c] = {"axis": axis}
        return TensorType(tuple(shape), first.element)

    def shape_query(self, c: Call, scope: Scope, _: Builtin | None = None) -> Type:
        """``rank(x)``, ``dim(x, axis)``, ``numel(x)``: numbers the compiler knows from ``x``'s
        type, or of ``?`` sizes rank-0 ``i64`` tensors known when the program runs
        (``mg.size``); ``shape(x)``: its sizes, a list wherever one is expected
        (``zeros(shape(x))``) and elsewhere a tensor of ``i64``; of ``?`` sizes only where a
        shape is expected (``run_time_shape``)."""
        name = c.tok
        if name.text == "dim":
            self.arity(name, c.args, 2, "a tensor and an axis")
        else:
            self.arity(name, c.args, 1, "a tensor")
        t = self.expr(c.args[0], scope)
        if not isinstance(t, TensorType):
            raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(t)}")
        if name.text == "rank":
            return len(t.shape)
        axes = list(range(len(t.shape)))
        if name.text == "dim":
            axes = [self.one_axis(name, c.args[1], scope, len(t.shape), f"the axis of {name.text}")]
        sizes = tuple(t.shape[a] for a in axes)
        static = [size for size in sizes if size is not None]
        if len(static) != len(sizes) and name.text != "shape":  # dim, numel: known when it runs
            self.options[c] = {"axes": axes}
            return TensorType((), element_types.NAMES["i64"])
        if len(static) != len(sizes):
            raise self.error(
                name,
                "E-DIM-001",
                f"shape of {describe(t)} is known only when the program runs: it is a shape where "
                "one is expected (zeros(shape(x)), full(shape(x), v), broadcast_to(m, shape(x))); "
                "dim(x, axis) gives one size as a value",
            )
        if name.text != "shape":
            return math.prod(static)
        if not static:
            raise self.error(
                name,
                "E-DIM-001",
                "shape of a rank-0 tensor is the empty list, which is not a tensor: write [] where a list is expected",
            )
        self.constants[c] = list(static)
        return TensorType((len(static),), element_types.NAMES["i64"])
