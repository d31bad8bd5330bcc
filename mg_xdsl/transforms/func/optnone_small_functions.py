"""``optnone-small-functions``: a ``func.func`` whose loops run at most ``max-work``
iterations in all, every bound known at compile time -> ``passthrough = ["noinline",
"optnone"]``, which LLVM compiles without optimising it.

A program on small static matrices runs in microseconds, but LLVM's ``-O2`` spends about a
third of a millisecond on each of its loop nests (rotating, unrolling and simplifying loops
of two or three iterations): a 100-statement program of 2x3 matrices spent 0.27 s in LLVM
and runs for 0.2 ms. Compiled unoptimised (``optnone``: no IR passes, LLVM's fast
instruction selector and register allocator) the same code is ready in a third of that
time, at a few nanoseconds more per loop iteration. Below ``max-work`` iterations that costs
less than the optimisation would take; so a function counts as small only if every loop in
it has constant bounds and the iterations of all its loop bodies add up to at most
``max-work``. Vector code (made only for large or run-time sizes) is never small. What
``optnone`` leaves out changes no result: the pipeline gives LLVM no fast-math flags for
such loops, so its optimisations could not reorder their arithmetic either.

LLVM requires ``noinline`` with ``optnone``; a function's calls are not its work (each
callee is judged on its own, and a large one stays optimised). Tiered JITs do the same:
code that runs little is compiled quickly and not optimised.

Before::

    func.func @main() {
      %c0 = arith.constant 0 : index
      %c6 = arith.constant 6 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c6 step %c1 { ... }
      func.return
    }

After::

    func.func @main() attributes {passthrough = ["noinline", "optnone"]} { ... }
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from mg_xdsl.support.loop_builders import constant_value

MAX_WORK = 1 << 14
"""Loop iterations a function may run and still be compiled unoptimised: at a few
nanoseconds more each, under 0.1 ms, less than LLVM takes to optimise one loop nest."""


def trip_count(loop: Operation) -> int | None:
    """How often the body of an ``scf.for`` or ``scf.parallel`` runs, if its bounds are
    constants; ``None`` otherwise."""
    if isinstance(loop, scf.ForOp):
        bounds = [(loop.lb, loop.ub, loop.step)]
    else:
        assert isinstance(loop, scf.ParallelOp)
        bounds = list(zip(loop.lowerBound, loop.upperBound, loop.step))
    count = 1
    for lb, ub, step in bounds:
        lo, hi, st = constant_value(lb), constant_value(ub), constant_value(step)
        if lo is None or hi is None or not st:
            return None
        count *= max(0, -(-(hi - lo) // st))
    return count


def work(op: Operation, times: int = 1) -> int | None:
    """The iterations of all loop bodies in ``op``'s regions, ``op`` itself running
    ``times`` times; ``None`` if a bound is known only at run time or the code is vector
    code."""
    total = 0
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                if inner.name.startswith("vector."):
                    return None
                runs = times
                if isinstance(inner, scf.ForOp | scf.ParallelOp):
                    count = trip_count(inner)
                    if count is None:
                        return None
                    runs = times * count
                    total += runs
                if inner.regions:
                    nested = work(inner, runs)
                    if nested is None:
                        return None
                    total += nested
    return total


@dataclass(frozen=True)
class OptnoneSmallFunctionsPass(ModulePass):
    name = "optnone-small-functions"

    max_work: int = MAX_WORK

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.body.block.ops:
            if not isinstance(f, func.FuncOp) or not f.body.blocks:
                continue
            n = work(f)
            if n is None or n > self.max_work:
                continue
            old = f.attributes.get("passthrough")
            names = [a.data for a in old] if isinstance(old, ArrayAttr) else []
            names += [a for a in ("noinline", "optnone") if a not in names]
            f.attributes["passthrough"] = ArrayAttr([StringAttr(a) for a in names])
