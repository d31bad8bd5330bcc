"""Inlining one call of a def: the callee's body cloned in place of the call.

Shared by the ``inline`` pass (``transforms/func/inline.py``) and reverse-mode
differentiation (``reverse_mode.py``), which inlines the calls a gradient passes through (a
helper of the dialect, below both). A def's body is one block that ends in ``func.return``
(the front end allows ``return`` only as a def's last line; loops and branches are ops with
regions inside it), so the clone's ops go before the call and the returned values replace
its results.
"""

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import InsertPoint, Rewriter


def defs_by_name(module: ModuleOp) -> dict[str, func.FuncOp]:
    """The functions ``module`` defines (not those it only declares), by name."""
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks}


def calls_made_by(f: func.FuncOp) -> list[func.CallOp]:
    """The calls in ``f``'s body, in order."""
    return [c for c in f.walk() if isinstance(c, func.CallOp)]


def callee_of(call: func.CallOp, module: ModuleOp) -> func.FuncOp | None:
    """The ``func.func`` of ``module`` that ``call`` calls, if it has a body there (a
    declaration, such as a kernel compiled apart, has none)."""
    name = call.callee.string_value()
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op if op.body.blocks else None
    return None


def inline_call(call: func.CallOp, callee: func.FuncOp) -> None:
    """Replace ``call`` by a copy of ``callee``'s body, which must be one block ending in
    ``func.return``."""
    body = callee.body.clone()
    (block,) = body.blocks
    for arg, value in zip(block.args, call.arguments, strict=True):
        hint = value.name_hint  # (the caller's name stays: replacing gives an unnamed value the parameter's)
        arg.replace_all_uses_with(value)
        value.name_hint = hint
    terminator = block.last_op
    assert isinstance(terminator, func.ReturnOp), terminator
    returned = list(terminator.arguments)
    block.erase_op(terminator)
    for op in list(block.ops):
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(call))
    for result, value in zip(call.results, returned, strict=True):
        result.replace_all_uses_with(value)
    call.detach()
    call.erase()
