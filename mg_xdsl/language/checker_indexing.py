"""The type rules of the builtins that read or add at positions another tensor holds:
``index``, ``index_add``, ``gather``, ``scatter_add``."""

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import ShapeError
from mg_xdsl.language.builtins import Builtin
from mg_xdsl.language.checker_arguments import ArgumentReader
from mg_xdsl.language.checker_core import Scope
from mg_xdsl.language.checker_types import describe, type_text
from mg_xdsl.language.syntax_tree import Call, TensorType


class IndexingRules(ArgumentReader):
    """Family ``indexing``."""

    def indexing(self, c: Call, scope: Scope, builtin: Builtin) -> TensorType:
        """``index(table, ids)``: the rows of ``table`` that ``ids`` (a tensor of ``i32`` or
        ``i64``) name, of shape ``ids``' then a row's; ``index_add(base, ids, values)``: ``base``
        with each row of ``values`` (of that shape) added at its id. ``gather(x, idx, axis=-1)``:
        the elements of ``x`` at ``idx`` along ``axis`` (``idx`` of ``x``'s rank and sizes off
        the axis; the result of its shape); ``scatter_add(base, idx, values, axis=-1)``: ``base``
        with ``values`` (of ``idx``'s shape) added there. Ids are checked when the program runs."""
        args = self.arguments(c, scope)
        name = c.tok
        adds, along_axis = name.text.endswith("_add"), name.text in ("gather", "scatter_add")
        self.arity(name, args, 3 if adds else 2, builtin.takes)
        x, ids, *values = args
        positions = "indices" if along_axis else "ids"
        if not isinstance(x, TensorType):
            raise self.error(
                name, "E-DIM-003", f"{name.text} needs a tensor to {'add to' if adds else 'read'}, got {describe(x)}"
            )
        if not isinstance(ids, TensorType) or ids.element not in element_types.INDICES:
            raise self.error(
                name,
                "E-DIM-002",
                f"the {positions} of {name.text} must be a tensor of i32 or i64, got {describe(ids)} (cast it to i64)",
            )
        try:
            if along_axis:
                axis = self.keyword_axis(c, scope, len(x.shape), default=-1)
                self.options[c] = {"axis": axis}
                shape = shapes.along_axis_shape(x.shape, ids.shape, axis, name.text)
            else:
                shape = shapes.index_shape(x.shape, ids.shape)
        except ShapeError as e:
            raise self.error(name, "E-DIM-001", str(e)) from None
        if not adds:
            return TensorType(shape, x.element)
        (v,) = values
        if not isinstance(v, TensorType):
            raise self.error(name, "E-DIM-003", f"the values of {name.text} must be a tensor, got {describe(v)}")
        self.same_element_type(name, "add", x, v)
        self.no_booleans(name, f"{name.text} of", x)
        if not shapes.shapes_compatible(shape, v.shape):
            which = "the indices' shape" if along_axis else "the ids' shape, then a row's"
            raise self.error(
                name,
                "E-DIM-001",
                f"the values of {name.text} must be a "
                f"{type_text(TensorType(shape, v.element))} ({which}), got {describe(v)}",
            )
        return x
