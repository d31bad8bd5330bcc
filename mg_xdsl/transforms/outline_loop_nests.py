"""``outline-loop-nests``: in a function of many loop nests, each nest -> a call to a function
of its own.

A program of N statements becomes one ``main`` with N loop nests, and LLVM's loop passes
(full unrolling above all) redo work over the whole function for each loop they change:
their time grows with the square of the function's size (1,000 statements of ``let a = a +
1``: 10 s in LLVM; 3,000: over 2 minutes). Moved into functions of their own, the nests are
optimised one small function at a time, and ``main`` keeps only the calls. Upstream LLVM's
``loop-extract`` does the same on LLVM IR, but itself takes quadratic time there.

Only functions with at least ``min-loops`` top-level ``scf.for`` nests are split, so that
the IR of ordinary programs, and the code LLVM makes of them, are unchanged. A nest's
constants (its bounds, above all, so that LLVM still sees its trip counts) are made again
inside the new function; every other value it uses from outside becomes a parameter. The new
functions carry ``passthrough = ["noinline"]`` (as upstream's ``llvm.func`` does), so that
LLVM's inliner does not put the giant function back together.

Before (``min-loops=1``)::

    func.func @main() {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %a = memref.alloc() : memref<2xf64>
      scf.for %i = %c0 to %c2 step %c1 {
        "use"(%a, %i) : (memref<2xf64>, index) -> ()
      }
      ...

After::

    func.func @main() {
      ...
      %a = memref.alloc() : memref<2xf64>
      func.call @main_loop_0(%a) : (memref<2xf64>) -> ()
      ...
    func.func private @main_loop_0(%a: memref<2xf64>) attributes {passthrough = ["noinline"]} {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c2 step %c1 {
        "use"(%a, %i) : (memref<2xf64>, index) -> ()
      }
      func.return
    }
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.transforms.loop_builders import captured_values, split_captures

NO_INLINE = ArrayAttr([StringAttr("noinline")])


def outline(loop: scf.ForOp, name: str) -> func.FuncOp:
    """Move ``loop`` into a new function ``@name`` and call it where the loop was."""
    constants, passed = split_captures(captured_values(loop))
    block = Block(arg_types=[v.type for v in passed])
    mapping = dict(zip(passed, block.args))
    for v, arg in mapping.items():
        arg.name_hint = v.name_hint
    for v in constants:
        constant = v.owner.clone()  # type: ignore[union-attr]
        block.add_op(constant)
        mapping[v] = constant.results[0]
    Rewriter.insert_op(func.CallOp(name, passed, []), InsertPoint.before(loop))
    loop.detach()
    block.add_op(loop)
    block.add_op(func.ReturnOp())
    for op in loop.walk():
        for i, v in enumerate(op.operands):
            if v in mapping:
                op.operands[i] = mapping[v]
    outlined = func.FuncOp(name, ([v.type for v in passed], []), Region(block), visibility="private")
    outlined.attributes["passthrough"] = NO_INLINE
    return outlined


@dataclass(frozen=True)
class OutlineLoopNestsPass(ModulePass):
    name = "outline-loop-nests"

    min_loops: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in [o for o in op.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
            if len(f.body.blocks) != 1:
                continue
            loops = [o for o in f.body.block.ops if isinstance(o, scf.ForOp) and not o.results]
            if len(loops) < self.min_loops:
                continue
            after: Operation = f
            for k, loop in enumerate(loops):
                outlined = outline(loop, f"{f.sym_name.data}_loop_{k}")
                Rewriter.insert_op(outlined, InsertPoint.after(after))
                after = outlined
