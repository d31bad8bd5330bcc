"""``outline-loop-nests``: in a function of many loop nests, each run of ``loops-per-function``
nests (with the ops between them) -> a call to a function of its own.

A program of N statements becomes one ``main`` with N loop nests, and LLVM's loop passes
(full unrolling above all) redo work over the whole function for each loop they change:
their time grows with the square of the function's size (1,000 statements of ``let a = a +
1``: 10 s in LLVM; 3,000: over 2 minutes). Moved into functions of a bounded size, the nests
are optimised a few at a time, and ``main`` keeps only the calls. Upstream LLVM's
``loop-extract`` does the same on LLVM IR, one loop a function, but itself takes quadratic
time there. Runs of nests rather than single nests, because every memref crossing a call
is unpacked into its descriptor's fields and packed again on the other side: a function a
nest made the LLVM dialect of a 100-statement program 70% larger.

Only functions with at least ``min-loops`` top-level ``scf.for`` nests are split, so that
the IR of ordinary programs, and the code LLVM makes of them, are unchanged. A run's
constants (the loops' bounds, above all, so that LLVM still sees their trip counts) are made
again inside the new function; every other value it uses from outside becomes a parameter,
and every value it defines that is used after it is returned (a constant is made again
before the call instead). The new functions carry ``passthrough = ["noinline"]`` (as
upstream's ``llvm.func`` does), so that LLVM's inliner does not put the giant function back
together. A run that would return a ``memref.alloca`` (stack memory, gone when the new
function returns) stays where it is.

Before (``min-loops=1``, ``loops-per-function=1``)::

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
      %a = func.call @main_loops_0() : () -> memref<2xf64>
      ...
    func.func private @main_loops_0() -> memref<2xf64> attributes {passthrough = ["noinline"]} {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %a = memref.alloc() : memref<2xf64>
      scf.for %i = %c0 to %c2 step %c1 {
        "use"(%a, %i) : (memref<2xf64>, index) -> ()
      }
      func.return %a : memref<2xf64>
    }
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, UnrankedMemRefType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.support.loop_builders import captured_values, split_captures, use_instead

NO_INLINE = ArrayAttr([StringAttr("noinline")])


def outline(ops: list[Operation], name: str) -> func.FuncOp | None:
    """Move the run ``ops`` (consecutive ops of one block) into a new function ``@name`` and
    call it where they were; ``None`` (nothing changed) where that cannot be done."""
    moved = {inner for op in ops for inner in op.walk()}
    returned: list[SSAValue] = [
        r for op in ops for r in op.results if any(use.operation not in moved for use in r.uses)
    ]
    if any(isinstance(v.owner, memref.AllocaOp) for v in returned):
        return None
    for v, constant in [(v, v.owner) for v in returned if isinstance(v.owner, arith.ConstantOp)]:
        # A constant used after the run is made again before the call, not returned.
        copy = constant.clone()
        Rewriter.insert_op(copy, InsertPoint.before(ops[0]))
        copy.results[0].name_hint = v.name_hint
        _redirect_uses_outside(v, copy.results[0], moved)
        returned.remove(v)
    # An unranked memref (what a print takes) points to a descriptor on the stack of the
    # function that cast it: one returned from the new function would point into its freed
    # frame. Its ranked source is returned instead, and the cast made again after the call.
    unranked: list[tuple[SSAValue, memref.CastOp]] = []
    for v in [v for v in returned if isinstance(v.type, UnrankedMemRefType)]:
        assert isinstance(v.owner, memref.CastOp), f"an unranked memref from {v.owner}"
        unranked.append((v, v.owner))
        returned.remove(v)
        source = v.owner.source
        if source.owner in moved and source not in returned:
            returned.append(source)
    constants, passed = split_captures(captured_values(ops))
    block = Block(arg_types=[v.type for v in passed])
    mapping: dict[SSAValue, SSAValue] = dict(zip(passed, block.args))
    for v, arg in mapping.items():
        arg.name_hint = v.name_hint
    for v in constants:
        assert isinstance(v.owner, arith.ConstantOp)  # (split_captures' constants)
        constant = v.owner.clone()
        block.add_op(constant)
        mapping[v] = constant.results[0]
    call = func.CallOp(name, passed, [v.type for v in returned])
    Rewriter.insert_op(call, InsertPoint.before(ops[0]))
    for v, result in zip(returned, call.results):
        result.name_hint = v.name_hint
        _redirect_uses_outside(v, result, moved)
    for v, unranked_cast in unranked:
        cast = unranked_cast.clone()
        source = cast.operands[0]
        if source in returned:
            cast.operands[0] = call.results[returned.index(source)]
        Rewriter.insert_op(cast, InsertPoint.after(call))
        cast.results[0].name_hint = v.name_hint
        _redirect_uses_outside(v, cast.results[0], moved)
    for op in ops:
        op.detach()
        block.add_op(op)
    block.add_op(func.ReturnOp(*returned))
    use_instead(moved, mapping)
    outlined = func.FuncOp(
        name, ([v.type for v in passed], [v.type for v in returned]), Region(block), visibility="private"
    )
    outlined.attributes["passthrough"] = NO_INLINE
    return outlined


def _redirect_uses_outside(value: SSAValue, to: SSAValue, moved: set[Operation]) -> None:
    for use in list(value.uses):
        if use.operation not in moved:
            use.operation.operands[use.index] = to


def runs(block: Block, loops_per_run: int) -> list[list[Operation]]:
    """The block's ops (but its terminator) cut after every ``loops_per_run``-th loop nest."""
    cut: list[list[Operation]] = [[]]
    loops = 0
    for op in list(block.ops)[:-1]:
        cut[-1].append(op)
        if isinstance(op, scf.ForOp):
            loops += 1
            if loops % loops_per_run == 0:
                cut.append([])
    return [run for run in cut if any(isinstance(op, scf.ForOp) for op in run)]


@dataclass(frozen=True)
class OutlineLoopNestsPass(ModulePass):
    name = "outline-loop-nests"

    min_loops: int = 32
    loops_per_function: int = 32  # as large as the largest function left whole

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in [o for o in op.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
            if len(f.body.blocks) != 1:
                continue
            if sum(isinstance(o, scf.ForOp) for o in f.body.block.ops) < self.min_loops:
                continue
            after: Operation = f
            for k, run in enumerate(runs(f.body.block, self.loops_per_function)):
                outlined = outline(run, f"{f.sym_name.data}_loops_{k}")
                if outlined is not None:
                    Rewriter.insert_op(outlined, InsertPoint.after(after))
                    after = outlined
            for constant in [o for o in f.body.block.ops if isinstance(o, arith.ConstantOp)]:
                if not constant.result.uses:  # all its users were moved
                    Rewriter.erase_op(constant)
