"""``convert-parallel-loops-to-threads``: ``scf.parallel`` -> a call into the run time's thread
pool for large loops, ``scf.for`` for the rest.

The CPU counterpart of ``convert-parallel-loops-to-gpu`` (upstream MLIR would use
``convert-scf-to-openmp``). An outermost parallel loop ``scf.parallel %i = lb to ub step s``
in function ``@f`` is outlined into a function of its own,

    llvm.func internal @f_parallel_0(%ctx: !llvm.ptr, %lo: i64, %hi: i64) {
      // the values the loop body uses from outside, loaded from the struct at %ctx
      scf.for %k = %lo to %hi step 1 { %i = lb + k * s ... the loop body ... }
      llvm.return
    }

(an ``llvm.func`` already, whose body the later passes lower like any other, because its
address is taken: ``llvm.mlir.addressof`` names LLVM functions only), and the loop is
replaced by packing those values into a stack struct and calling

    func.call @mgrt_parallel_for(@f_parallel_0 (its address), %ctx, 0, %iterations, %min_chunk)

which runs the function on contiguous chunks of ``[0, iterations)`` on up to
``MG_NUM_THREADS`` threads (``mg_xdsl.backend.threads_ir``), the calling thread taking part.
Memrefs travel as their LLVM descriptor structs and ``index`` as ``i64``, through
``builtin.unrealized_conversion_cast``, so the later ``*-to-llvm`` passes see ordinary code.

Threads cost a few microseconds to wake, so a loop is worth splitting only when it does
enough work: ``min_chunk`` is the number of outer iterations that make about
``iterations-per-thread`` (the pass option, by default ``THRESHOLD``, 32768) innermost
iterations (estimated from the trip counts of the loops nested in the body, at run time
where they are run-time sizes, times the loop's ``mg.work_scale`` where the pass that made
it says that each such iteration stands for that many: a reduction kernel's vector step of
32 elements), and the run time stays on one thread when the loop has fewer than two
chunks' worth. A loop whose sizes are all static and too small is not
outlined at all, nor is one containing a run-time check (``cf.assert``), which must stop the
program on the calling thread. Nested ``scf.parallel`` loops, and the loops that stay serial, become
``scf.for``.
"""

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnrealizedConversionCastOp, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.conversions.to_llvm.type_conversion import PTR, alloca, build_struct, convert_type, extract
from mg_xdsl.dialects.llvm_loop_annotation import keep_parallel_accesses
from mg_xdsl.support.loop_builders import (
    INDEX,
    MIN_CHUNK_ATTR,
    WORK_SCALE_ATTR,
    captured_values,
    constant_value,
    index,
    split_captures,
    use_instead,
)
from mg_xdsl.support.thread_work import THRESHOLD, min_work

RUNTIME_FUNCTION = "mgrt_parallel_for"


def to_for(par: scf.ParallelOp) -> scf.ForOp:
    """A one-dimensional ``scf.parallel`` as the ``scf.for`` it is equivalent to."""
    if len(par.lowerBound) != 1 or par.initVals:
        raise NotImplementedError("only one-dimensional scf.parallel without reductions")
    body = Rewriter.move_region_contents_to_new_regions(par.body)
    reduce = body.block.last_op
    assert isinstance(reduce, scf.ReduceOp)
    Rewriter.replace_op(reduce, scf.YieldOp())
    loop = keep_parallel_accesses(par, scf.ForOp(par.lowerBound[0], par.upperBound[0], par.step[0], [], body))
    Rewriter.replace_op(par, loop)
    return loop


def _inside(value: SSAValue, op: Operation) -> bool:
    """Whether ``value`` is defined in ``op``'s regions (a result of ``op`` is not)."""
    return value.owner is not op and op.is_ancestor(value.owner)


@dataclass
class TripCount:
    """A loop's number of iterations: a number where the bounds are static, else SSA."""

    static: int | None
    lb: SSAValue
    ub: SSAValue
    step: SSAValue

    @staticmethod
    def of(lb: SSAValue, ub: SSAValue, step: SSAValue) -> "TripCount":
        first, end, stride = (constant_value(v) for v in (lb, ub, step))
        static = None if first is None or end is None or stride is None else max(0, -(-(end - first) // stride))
        return TripCount(static, lb, ub, step)

    def build(self, b: Builder) -> SSAValue:
        """The count as a value at ``b``'s insertion point; constant bounds made there."""
        if self.static is not None:
            return index(b, self.static)
        lb, ub, step = (
            index(b, c) if (c := constant_value(v)) is not None else v for v in (self.lb, self.ub, self.step)
        )
        span = ub if constant_value(self.lb) == 0 else b.insert(arith.SubiOp(ub, lb)).result
        if constant_value(self.step) == 1:
            return span
        return b.insert(arith.CeilDivSIOp(span, step)).result


def inner_trip_counts(par: scf.ParallelOp) -> list[TripCount]:
    """The trip counts of the chain of first nested loops in the body whose bounds are known
    before the loop starts (constants, or values from outside): a (rough) measure of the
    work of one outer iteration."""
    counts = []
    block = par.body.block
    while True:
        loop = next((o for o in block.ops if isinstance(o, scf.ForOp | scf.ParallelOp)), None)
        if loop is None:
            return counts
        if isinstance(loop, scf.ForOp):
            bounds = (loop.lb, loop.ub, loop.step)
        else:
            bounds = (loop.lowerBound[0], loop.upperBound[0], loop.step[0])
        if any(_inside(v, par) and constant_value(v) is None for v in bounds):
            return counts
        counts.append(TripCount.of(*bounds))
        block = loop.body.block


def outline(par: scf.ParallelOp, name: str, constants: list[SSAValue], passed: list[SSAValue]) -> llvm.FuncOp:
    """The loop's body as ``@name(%ctx, %lo, %hi)``, iterating ``[lo, hi)`` of the loop's
    iteration numbers; ``constants`` are re-made inside, ``passed`` read from ``%ctx``."""
    block = Block(arg_types=[PTR, i64, i64])
    b = Builder(InsertPoint.at_end(block))
    ctx = block.args[0]
    lo, hi = (b.insert(UnrealizedConversionCastOp.get([a], [INDEX])).results[0] for a in block.args[1:])
    mapping: dict[SSAValue, SSAValue] = {}
    for c in constants:
        assert isinstance(c.owner, arith.ConstantOp)  # (split_captures' constants)
        mapping[c] = b.insert(c.owner.clone()).results[0]
    if passed:
        struct_type = llvm.LLVMStructType.from_type_list([convert_type(v.type) for v in passed])
        struct = b.insert(llvm.LoadOp(ctx, struct_type)).dereferenced_value
        for k, v in enumerate(passed):
            field = extract(b, struct, [k], convert_type(v.type))
            if field.type != v.type:
                field = b.insert(UnrealizedConversionCastOp.get([field], [v.type])).results[0]
            mapping[v] = field
    one = index(b, 1)
    body = Block(arg_types=[INDEX])
    inner = Builder(InsertPoint.at_end(body))
    k = body.args[0]
    lb, step = (mapping.get(v, v) for v in (par.lowerBound[0], par.step[0]))
    if constant_value(par.step[0]) == 1 and constant_value(par.lowerBound[0]) == 0:
        iv = k
    else:
        iv = inner.insert(arith.AddiOp(lb, inner.insert(arith.MuliOp(k, step)).result)).result
    mapping[par.body.block.args[0]] = iv
    # The body's ops move into the function, which then uses what ``mapping`` says in place
    # of the loop's index and the values from outside (cloning them, and erasing the
    # originals with the loop, took half of this pass).
    for op in list(par.body.block.ops):
        if not isinstance(op, scf.ReduceOp):
            op.detach()
            inner.insert(op)
    use_instead(body.walk(), mapping)
    inner.insert(scf.YieldOp())
    b.insert(keep_parallel_accesses(par, scf.ForOp(lo, hi, one, [], body)))
    b.insert(llvm.ReturnOp())
    return llvm.FuncOp(name, llvm.LLVMFunctionType([PTR, i64, i64]), body=Region(block))


def call_runtime(par: scf.ParallelOp, name: str, passed: list[SSAValue], min_chunk: int | SSAValue) -> None:
    """Replace the loop by packing ``passed`` into a stack struct and calling the thread pool."""
    b = Builder(InsertPoint.before(par))
    if passed:
        fields = [
            v
            if convert_type(v.type) == v.type
            else b.insert(UnrealizedConversionCastOp.get([v], [convert_type(v.type)])).results[0]
            for v in passed
        ]
        struct = build_struct(b, llvm.LLVMStructType.from_type_list([f.type for f in fields]), fields)
        one = b.insert(llvm.ConstantOp(IntegerAttr(1, i64), i64)).result
        ctx = alloca(b, struct.type, one)
        b.insert(llvm.StoreOp(struct, ctx))
    else:
        ctx = b.insert(llvm.ZeroOp(result_types=[PTR])).res
    function = b.insert(llvm.AddressOfOp(name, PTR)).result
    zero = index(b, 0)
    iterations = TripCount.of(par.lowerBound[0], par.upperBound[0], par.step[0]).build(b)
    if isinstance(min_chunk, int):
        min_chunk = index(b, min_chunk)
    b.insert(func.CallOp(RUNTIME_FUNCTION, [function, ctx, zero, iterations, min_chunk], []))
    Rewriter.erase_op(par)


def min_chunk_of(par: scf.ParallelOp, per_thread: int = THRESHOLD) -> int | SSAValue | None:
    """Outer iterations per thread for about ``per_thread`` innermost ones; ``None`` if the
    loop is statically too small to be worth splitting (``min_work``). A pass that made the
    loop and knows an iteration's cost may have said it instead (``mg.min_chunk``, e.g. ``tile-matmul``'s
    row blocks, each a large matrix product), or how many elements' work each counted
    iteration stands for (``mg.work_scale``, e.g. a reduction's vector steps)."""
    if isinstance(given := par.attributes.get(MIN_CHUNK_ATTR), IntegerAttr):
        return given.value.data
    counts = [TripCount.of(par.lowerBound[0], par.upperBound[0], par.step[0]), *inner_trip_counts(par)]
    scale = par.attributes.get(WORK_SCALE_ATTR)
    scale = scale.value.data if isinstance(scale, IntegerAttr) else 1
    statics = [c.static for c in counts if c.static is not None]
    if len(statics) == len(counts):
        inner = scale
        for s in statics[1:]:
            inner *= s
        if statics[0] * inner < min_work(per_thread):
            return None
        return max(1, -(-per_thread // max(inner, 1)))
    b = Builder(InsertPoint.before(par))
    one = index(b, 1)
    inner = index(b, scale) if scale != 1 else one
    for c in counts[1:]:
        inner = b.insert(arith.MuliOp(inner, c.build(b))).result
    inner = b.insert(arith.MaxSIOp(inner, one)).result
    return b.insert(arith.CeilDivSIOp(index(b, per_thread), inner)).result


def _declare_runtime(module: ModuleOp) -> None:
    if any(isinstance(o, func.FuncOp) and o.sym_name.data == RUNTIME_FUNCTION for o in module.body.block.ops):
        return
    decl = func.FuncOp.external(RUNTIME_FUNCTION, [PTR, PTR, INDEX, INDEX, INDEX], [])
    Rewriter.insert_op(decl, InsertPoint.at_start(module.body.block))


@dataclass(frozen=True)
class ConvertParallelLoopsToThreadsPass(ModulePass):
    name = "convert-parallel-loops-to-threads"

    # Innermost iterations a thread should get at least (the pipeline's
    # convert-linalg-to-affine-loops leaves nests of fewer than twice this sequential: see
    # thread_work).
    iterations_per_thread: int = THRESHOLD

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in [o for o in op.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
            outermost = [
                p
                for p in f.walk()
                if isinstance(p, scf.ParallelOp) and not any(isinstance(a, scf.ParallelOp) for a in _ancestors(p))
            ]
            for p in reversed([p for p in f.walk() if isinstance(p, scf.ParallelOp) and p not in outermost]):
                to_for(p)
            for k, par in enumerate(outermost):
                # A failed check must stop the program on the thread that called it.
                checks = any(isinstance(o, cf.AssertOp) for o in par.walk())
                min_chunk = None if checks else min_chunk_of(par, self.iterations_per_thread)
                if min_chunk is None:
                    to_for(par)
                    continue
                name = f"{f.sym_name.data}_parallel_{k}"
                constants, passed = split_captures(captured_values(par, own_operands=False))
                Rewriter.insert_op(outline(par, name, constants, passed), InsertPoint.after(f))
                call_runtime(par, name, passed, min_chunk)
                _declare_runtime(op)


def _ancestors(op: Operation):
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()
