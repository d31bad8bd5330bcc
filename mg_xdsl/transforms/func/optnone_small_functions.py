"""``optnone-small-functions``: a ``func.func`` whose loops run at most ``max-work``
iterations in all, over every call of it the program makes, every bound known at compile
time -> ``passthrough = ["noinline", "optnone"]``, which LLVM compiles without optimising it.

A program on small static matrices runs in microseconds, but LLVM's ``-O2`` spends about a
third of a millisecond on each of its loop nests (rotating, unrolling and simplifying loops
of two or three iterations): a 100-statement program of 2x3 matrices spent 0.27 s in LLVM
and runs for 0.2 ms. Compiled unoptimised (``optnone``: no IR passes, LLVM's fast
instruction selector and register allocator) the same code is ready in a third of that
time, at a few nanoseconds more per loop iteration. Below ``max-work`` iterations that costs
less than the optimisation would take; so a function counts as small only if every loop in
it has constant bounds and the iterations of all its loop bodies, times the number of times
the function runs, add up to at most ``max-work``. Vector code (made only for large or
run-time sizes) is never small. What ``optnone`` leaves out changes no result: the pipeline
gives LLVM no fast-math flags for such loops, so its optimisations could not reorder their
arithmetic either.

How often a function runs. ``@main`` runs once; another function as often as its calls run
in all: a call in a loop of constant trip count runs that many times per run of its
caller, a call in a loop of run-time bounds an unknown number of times (then the function
is never small). A module without ``@main`` is a library (the Python API's, ``mgc lib``'s):
whoever links it may call its public functions any number of times, so those are never
small. A def that a training loop calls 300 times, or that Python calls in a loop, is
optimised even where one call of it is little work: unoptimised, 8,192 multiplications took
60 us a call instead of 3.

LLVM requires ``noinline`` with ``optnone``. Tiered JITs do the same: code that runs little
is compiled quickly and not optimised.

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
        functions = [f for f in op.body.block.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        runs = run_counts(functions)
        for f in functions:
            times = runs.get(f.sym_name.data)
            n = None if times is None else work(f)  # (a function run any number of times: no walk)
            if n is None or times is None or n * max(times, 1) > self.max_work:
                continue
            old = f.attributes.get("passthrough")
            names = [a.data for a in old] if isinstance(old, ArrayAttr) else []
            names += [a for a in ("noinline", "optnone") if a not in names]
            f.attributes["passthrough"] = ArrayAttr([StringAttr(a) for a in names])


def run_counts(functions: list[func.FuncOp]) -> dict[str, int | None]:
    """How many times each function runs in all (``None``: unknown, or any number).

    ``@main`` runs once; without a ``@main`` (a library) a public function runs any number of
    times. Otherwise a function runs as often as its calls do: each call runs its caller's
    count times the trip counts of the loops around it (``None`` where one has run-time
    bounds). A function in a cycle of calls counts as unknown."""
    by_name = {f.sym_name.data: f for f in functions}
    programme = "main" in by_name
    calls: dict[str, list[tuple[str, int | None]]] = {name: [] for name in by_name}
    for f in functions:
        for call in f.walk():
            if isinstance(call, func.CallOp) and call.callee.root_reference.data in calls:
                calls[call.callee.root_reference.data].append((f.sym_name.data, _loop_trips(call, f)))
    counts: dict[str, int | None] = {}
    visiting: set[str] = set()

    def count(name: str) -> int | None:
        if name in counts:
            return counts[name]
        if name == "main":
            return 1
        f = by_name[name]
        public = f.sym_visibility is None or f.sym_visibility.data == "public"
        if name in visiting or (public and not programme):
            return None
        visiting.add(name)
        total: int | None = 0
        for caller, trips in calls[name]:
            caller_runs = count(caller)
            if caller_runs is None or trips is None or total is None:
                total = None
            else:
                total += caller_runs * trips
        visiting.discard(name)
        counts[name] = total
        return total

    return {name: count(name) for name in calls}


def _loop_trips(op: Operation, f: func.FuncOp) -> int | None:
    """How often ``op`` runs per run of ``f``: the product of the trip counts of the loops
    around it, ``None`` if one of them has run-time bounds (or is a ``while``)."""
    total = 1
    parent = op.parent_op()
    while parent is not None and parent is not f:
        if isinstance(parent, scf.ForOp | scf.ParallelOp):
            trips = trip_count(parent)
            if trips is None:
                return None
            total *= trips
        elif isinstance(parent, scf.WhileOp):
            return None
        parent = parent.parent_op()
    return total
