"""A work-around for the pinned xDSL (0.75): ops' assembly formats read when first used.

Every op that xDSL defines with a declarative ``assembly_format`` has its format parsed into a
program when its class is defined, that is, when its dialect is imported: 126 formats for
the dialects the compiler uses, 20 to 30 ms of every ``mgc`` and ``mg-opt`` start (a cold
``mgc run`` of an example program takes about 250 ms, most of it importing xDSL). Most runs
print and parse few of those ops, or none.

``install()`` makes ``irdl_op_definition`` leave the format unread and give the op ``parse``
and ``print`` methods that read it the first time either is called, then do what xDSL's
would. The op's other accessors are xDSL's own. A malformed format raises the same
``PyRDLOpDefinitionError``, when first used instead of when defined; xDSL's formats at the
pinned version are well-formed, and the tests print and parse every op of the ``mg``
dialect.

``import mg_xdsl`` calls ``install()``. It imports nothing: if ``xdsl.irdl.operations`` is not
imported yet, it asks Python's import system to patch that module as soon as it has run,
before any dialect defines an op; a program that never imports xDSL (``mgc run`` of a cached
program) pays nothing. ``tests/unit/support/test_xdsl_compat.py`` checks that the formats are deferred
and that the accessors are xDSL's. It can go when xDSL reads formats lazily itself, or
when the pin moves and that test fails.
"""

from __future__ import annotations

import importlib.machinery
import sys
from types import ModuleType
from typing import Any

_MODULE = "xdsl.irdl.operations"


def defer_formats(operations: ModuleType) -> None:
    """Wrap ``operations.get_accessors_from_op_def`` (what ``irdl_op_definition`` calls for
    each op class) so that it leaves the assembly format to ``_format_methods``."""
    eager = operations.get_accessors_from_op_def
    if getattr(eager, "defers_formats", False):
        return

    def get_accessors_from_op_def(op_def: Any, custom_verify: Any) -> dict[str, Any]:
        text = op_def.assembly_format
        if text is None:
            return eager(op_def, custom_verify)
        op_def.assembly_format = None
        try:
            accessors = eager(op_def, custom_verify)
        finally:
            op_def.assembly_format = text
        accessors.update(_format_methods(op_def, text, operations))
        return accessors

    # Marked as installed, and xDSL's own kept beside it (for the tests).
    get_accessors_from_op_def.__dict__.update(defers_formats=True, eager=eager)
    setattr(operations, "get_accessors_from_op_def", get_accessors_from_op_def)  # (a module passed in)


def _format_methods(op_def: Any, text: str, operations: ModuleType) -> dict[str, Any]:
    """``parse`` and ``print`` that read the format ``text`` on first use, as
    ``get_accessors_from_op_def`` would have when the op was defined."""
    program: list[Any] = []

    def read() -> Any:
        if not program:  # (the format's parser too is imported when first needed)
            from xdsl.irdl.declarative_assembly_format import FormatProgram
            from xdsl.utils.exceptions import ParseError

            try:
                program.append(FormatProgram.from_str(text, op_def))
            except ParseError as e:
                raise operations.PyRDLOpDefinitionError(
                    "Error during the parsing of the assembly format: ", e.args
                ) from e
        return program[0]

    def parse(cls: Any, parser: Any) -> Any:
        return read().parse(parser, cls)

    def print_(self: Any, printer: Any) -> None:
        return read().print(printer, self)

    parse.__dict__["lazy_format"] = print_.__dict__["lazy_format"] = True  # (for the tests)
    return {"parse": classmethod(parse), "print": print_}


class _PatchWhenImported:
    """Finds ``xdsl.irdl.operations`` as Python would, and runs ``defer_formats`` on it
    right after the module has run (then leaves ``sys.meta_path``). A meta-path finder needs
    only ``find_spec``, so this one does not derive from ``importlib.abc.MetaPathFinder``,
    whose import would be most of the time ``import mg_xdsl`` takes (llvmlite imports it
    anyway once code is compiled or run)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != _MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        run_module = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            defer_formats(module)

        spec.loader.exec_module = exec_module
        return spec


def install() -> None:
    """Defer the formats of every op defined from now on (see the module's docstring)."""
    if _MODULE in sys.modules:
        defer_formats(sys.modules[_MODULE])
    elif not any(isinstance(finder, _PatchWhenImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PatchWhenImported())
