"""``inline``: a ``func.call`` of a def that nothing else calls -> the def's body, in place of
the call. (Upstream MLIR's ``inline`` pass, with a simpler rule for what to inline.)

The passes after this one see a function at a time: fusion, ``mg-cse`` and the buffer
passes stop at a call. An attention written as ``softmax(q @ kt * 0.125) @ v`` with
``softmax`` a def of the program scales the products in a loop nest of its own and writes
them out, and the softmax reads them back three times; inlined, the scaling fuses into the
softmax's passes over each row (the figures are in the CHANGELOG).

Which calls. Only a def's one call: a def called from several places would be lowered once
per copy, and compile time grows with the code (a training loop that calls a step ten
times in its source would compile it ten times). A call in a loop is one call, however
often it runs. There is no recursion, so the defs can be visited callees first (the front
end writes them so; ``mg-opt`` may be given any order): a def's calls are inlined into it
before it is itself inlined into its caller.

What goes. A def that nothing outside the module can call is erased once its one call is
inlined: it need not be compiled again. In a program (a module with ``@main``) that is every
def but ``@main``; in a library, a ``private`` def (as upstream's inliner discards a private
callable whose uses it inlined all). The Python API compiles the defs that no def calls
first, the others private (``Compilation.exports``); ``mgc lib`` keeps every def public,
each callable on its own. (A def that nothing calls stays, as it was.)

The copy is the def's body as it is (see ``dialects/mg/inlining.py``): its ops keep their
source lines, so a run-time error inside it still names the line in the def; an argument of
static size given to a ``?`` parameter reaches the body through the same ``mg.cast`` the
call's operand already was.

Before::

    func.func @softmax(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %e = mg.exp %s : tensor<4x8xf32> -> tensor<4x8xf32>
      func.return %e : tensor<4x8xf32>
    }
    func.func @main() {
      %x = mg.constant ...
      %y = func.call @softmax(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      mg.print %y : tensor<4x8xf32>
      func.return
    }

After::

    func.func @main() {
      %x = mg.constant ...
      %y = mg.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
      mg.print %y : tensor<4x8xf32>
      func.return
    }
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from mg_xdsl.dialects.mg.inlining import calls_made_by, defs_by_name, inline_call


def callees_first(calls_in: dict[str, list[func.CallOp]]) -> list[str]:
    """The defs of ``calls_in`` (each def's calls) in an order where a def comes after every
    def it calls. There is no recursion."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in calls_in:
            return
        seen.add(name)
        for call in calls_in[name]:
            visit(call.callee.string_value())
        order.append(name)

    for name in calls_in:
        visit(name)
    return order


@dataclass(frozen=True)
class InlinePass(ModulePass):
    name = "inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        defs = defs_by_name(op)
        # One walk: the calls in each def, and each def's calls from anywhere.
        calls_in = {name: calls_made_by(f) for name, f in defs.items()}
        calls: dict[str, list[func.CallOp]] = {}
        for call in (c for its in calls_in.values() for c in its):
            calls.setdefault(call.callee.string_value(), []).append(call)
        program = "main" in defs
        # Callees first: the one call of a def is then in a caller not yet copied anywhere.
        for name in callees_first(calls_in):
            if name == "main" or len(calls.get(name, ())) != 1:
                continue
            inline_call(calls[name][0], defs[name])
            if program or defs[name].sym_visibility == StringAttr("private"):
                op.body.block.erase_op(defs[name])
