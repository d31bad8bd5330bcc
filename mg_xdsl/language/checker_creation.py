"""The type rules of the builtins that make a tensor from nothing but its shape: ``zeros``,
``ones``, ``full``, ``iota``, ``zeros_like``, ``ones_like``, and the random ``normal`` and
``uniform``."""

import math

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import ShapeError
from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import describe, is_number, is_whole, number_of_type, number_text
from mg_xdsl.language.syntax_tree import Call, Expr, TensorType


class CreationRules(ArgumentReader):
    """Families ``creation`` and ``random``."""

    def creation(self, c: Call, scope: Scope, _: Builtin | None = None) -> TensorType:
        """``zeros([2, 3])``, ``ones``, ``full([2, 3], 7.5)``, ``iota([4, 4], axis=1)`` (static
        shapes, ``dtype=`` as their element type), ``zeros_like(x)``, ``ones_like(x)``."""
        name = c.tok
        if name.text.endswith("_like"):
            self.arity(name, c.args, 1, "a tensor")
            like = self.expr(c.args[0], scope)
            if not isinstance(like, TensorType):
                raise self.error(name, "E-DIM-003", f"{name.text} needs a tensor, got {describe(like)}")
            element = self.keyword_dtype(c, element_types.NAME_OF[like.element])
            self.options[c] = {"value": 0.0 if name.text == "zeros_like" else 1.0}
            return TensorType(like.shape, element)
        if name.text == "full":
            self.arity(name, c.args, 2, "a shape and a number")
        else:
            self.arity(name, c.args, 1, "a shape like [2, 3]")
        if name.text != "iota" and (like := self.run_time_shape(c.args[0], scope)) is not None:
            return self.created_like(c, scope, *like)
        dims = self.static_ints(c.args[0], scope, f"the shape of {name.text}")
        if any(d <= 0 for d in dims):
            raise self.error(name, "E-ARG-004", f"the shape of {name.text} must be positive sizes, got {dims}")
        try:
            shapes.check_size(dims)
        except ShapeError as e:
            raise self.error(name, "E-LIMIT-001", str(e)) from None
        element = self.keyword_dtype(c, "i32" if name.text == "iota" else "f64")
        t = TensorType(tuple(dims), element)
        if name.text == "iota":
            if element not in element_types.INTEGERS:
                raise self.error(
                    name,
                    "E-DIM-002",
                    f"iota makes integers: dtype must be "
                    f"{element_types.one_of(element_types.INTEGERS)}, got "
                    f"{element_types.NAME_OF[element]}",
                )
            self.options[c] = {"axis": self.keyword_axis(c, scope, len(dims))}
            return t
        value = {"zeros": 0.0, "ones": 1.0}.get(name.text)
        if value is None:
            number = self.expr(c.args[1], scope)
            if not is_number(number):
                raise self.error(name, "E-ARG-003", f"the value of full must be a number, got {describe(number)}")
            if (problem := number_of_type(number, t)) is not None:
                raise self.error(name, "E-DIM-002", f"full: {problem}")
            value = number
        self.options[c] = {"value": value}
        return t

    def created_like(self, c: Call, scope: Scope, x: Expr, like: TensorType) -> TensorType:
        """``zeros(shape(x))``, ``ones``, ``full(shape(x), v)`` of an ``x`` with ``?`` sizes:
        a tensor of ``x``'s shape when the program runs (``mg.full_like`` of ``x``)."""
        element = self.keyword_dtype(c, "f64")
        t = TensorType(like.shape, element)
        value = {"zeros": 0.0, "ones": 1.0}.get(c.tok.text)
        if value is None:
            number = self.expr(c.args[1], scope)
            if not is_number(number):
                raise self.error(c.tok, "E-ARG-003", f"the value of full must be a number, got {describe(number)}")
            if (problem := number_of_type(number, t)) is not None:
                raise self.error(c.tok, "E-DIM-002", f"full: {problem}")
            value = number
        self.options[c] = {"value": value, "like": x}
        return t

    def random(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``normal([2, 3], std=1.0, mean=0.0, seed=0)``, ``uniform([2, 3], low=0.0, high=1.0,
        seed=0)``, ``dtype=`` a float type (default ``f64``): numbers known when compiling,
        the seed an integer from 0 to 2^63 - 1, ``std`` not negative, ``low`` at most ``high``
        (equal, or ``std=0``, give the constant)."""
        name = c.tok
        self.arity(name, c.args, 1, "a shape like [2, 3], then keywords")
        dims = self.static_ints(c.args[0], scope, f"the shape of {name.text}")
        if any(d <= 0 for d in dims):
            raise self.error(name, "E-ARG-004", f"the shape of {name.text} must be positive sizes, got {dims}")
        options = dict(builtin.defaults)
        for key, (tok, e) in c.keywords.items():
            if key == "dtype":
                continue
            value = self.expr(e, scope)
            if not is_number(value) or math.isnan(value) or math.isinf(value):
                raise self.error(
                    tok,
                    "E-ARG-003",
                    f"{key} of {name.text} must be a finite number known when compiling, got {describe(value)}",
                )
            options[key] = value
        seed = options["seed"]
        if not (is_whole(seed) and 0 <= seed < 2**63):
            raise self.error(
                name,
                "E-ARG-004",
                f"the seed of {name.text} must be an integer from 0 to 2^63 - 1, got {number_text(seed)}",
            )
        if options.get("std", 0.0) < 0:
            raise self.error(name, "E-ARG-004", f"the std of normal must not be negative, got {options['std']:g}")
        if name.text == "uniform" and options["low"] > options["high"]:
            raise self.error(
                name, "E-ARG-004", f"uniform needs low <= high, got low {options['low']:g} and high {options['high']:g}"
            )
        element = self.keyword_dtype(c, "f64")
        if not element_types.is_float(element):
            floats = element_types.one_of(t for t in element_types.NAMES.values() if element_types.is_float(t))
            raise self.error(
                name,
                "E-DIM-002",
                f"{name.text} makes floats: dtype must be {floats}, got {element_types.NAME_OF[element]}",
            )
        self.options[c] = options
        return TensorType(tuple(dims), element)
