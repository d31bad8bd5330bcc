"""``convert-parallel-loops-to-gpu``: outermost ``scf.parallel`` nests -> ``gpu.launch``.

Each ``scf.parallel`` that is not inside another one, together with the ``scf.parallel`` ops
perfectly nested in it (a body holding only constants and the inner loop), is linearised: the
extents ``e_k = ceildiv(ub_k - lb_k, step_k)`` of all its dimensions multiply to ``total``, and
it becomes

    gpu.launch blocks(ceildiv(total, 256), 1, 1) threads(256, 1, 1) {
      %id = %block_id_x * 256 + %thread_id_x
      scf.if %id < total {
        // indices recovered from %id by remainder / division, innermost dimension fastest
        %iv_k = lb_k + (%id / (e_{k+1} * ... ) rem e_k) * step_k
        <the innermost body, with its sequential scf.for loops>
      }
      gpu.terminator
    }

Sizes known at compile time are folded into constants; run-time sizes (``?`` dimensions)
are computed with ``arith`` before the launch. Unlike upstream MLIR's pass of this name, no
``gpu-map-parallel-loops`` mapping attribute is needed: every nest is mapped to a 1-D grid
of 1-D blocks of 256 threads.
"""

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, builtin, gpu, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

THREADS_PER_BLOCK = 256


def _const_value(v: SSAValue) -> int | None:
    if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, IntegerAttr):
        return v.owner.value.value.data
    return None


def _inner_parallel(op: scf.ParallelOp) -> scf.ParallelOp | None:
    """The scf.parallel perfectly nested in ``op`` (other ops only constants), if any."""
    ops = list(op.body.block.ops)
    if len(ops) < 2 or not isinstance(ops[-1], scf.ReduceOp) or not isinstance(ops[-2], scf.ParallelOp):
        return None
    if ops[-1].args or ops[-2].initVals or not all(isinstance(o, arith.ConstantOp) for o in ops[:-2]):
        return None
    inner = ops[-2]
    ivs = set(op.body.block.args)
    if any(v in ivs for v in inner.operands):
        return None
    return inner


class _Index:
    """Index arithmetic that folds constants."""

    def __init__(self, b: Builder):
        self.b = b

    def const(self, n: int) -> SSAValue:
        return self.b.insert(arith.ConstantOp(IntegerAttr(n, IndexType()))).result

    def _bin(self, cls, fold, x: SSAValue, y: SSAValue) -> SSAValue:
        cx, cy = _const_value(x), _const_value(y)
        if cx is not None and cy is not None:
            return self.const(fold(cx, cy))
        return self.b.insert(cls(x, y)).result

    def add(self, x, y):
        return self._bin(arith.AddiOp, lambda a, b: a + b, x, y)

    def sub(self, x, y):
        return self._bin(arith.SubiOp, lambda a, b: a - b, x, y)

    def mul(self, x, y):
        return self._bin(arith.MuliOp, lambda a, b: a * b, x, y)

    def div(self, x, y):
        return self._bin(arith.DivUIOp, lambda a, b: a // b, x, y)

    def rem(self, x, y):
        return self._bin(arith.RemUIOp, lambda a, b: a % b, x, y)

    def ceildiv(self, x, y):
        cy = _const_value(y)
        if cy == 1:
            return x
        return self.div(self.sub(self.add(x, y), self.const(1)), y)


def convert_nest(outer: scf.ParallelOp) -> None:
    # Collect the nest and hoist the constants between its levels in front of it.
    levels = [outer]
    while (inner := _inner_parallel(levels[-1])) is not None:
        for c in list(levels[-1].body.block.ops)[:-2]:
            c.detach()
            Rewriter.insert_op(c, InsertPoint.before(outer))
        levels.append(inner)
    dims: list[tuple[SSAValue, SSAValue, SSAValue, SSAValue]] = []  # (iv, lb, ub, step)
    for level in levels:
        for iv, lb, ub, step in zip(level.body.block.args, level.lowerBound, level.upperBound, level.step):
            dims.append((iv, lb, ub, step))

    b = Builder(InsertPoint.before(outer))
    ix = _Index(b)
    extents = [ix.ceildiv(ix.sub(ub, lb), step) for _, lb, ub, step in dims]
    total = ix.const(1)
    for e in extents:
        total = ix.mul(total, e)
    per_block = ix.const(THREADS_PER_BLOCK)
    grid = ix.ceildiv(total, per_block)
    one = ix.const(1)

    body = Block(arg_types=[IndexType()] * 12)
    block_id_x, thread_id_x = body.args[0], body.args[6]
    kb = Builder(InsertPoint.at_end(body))
    kx = _Index(kb)
    k256 = kx.const(THREADS_PER_BLOCK)
    gid = kx.add(kx.mul(block_id_x, k256), thread_id_x)
    in_range = kb.insert(arith.CmpiOp(gid, total, "ult")).result
    then = Block()
    kb.insert(scf.IfOp(in_range, [], Region(then)))
    kb.insert(gpu.TerminatorOp())

    tb = Builder(InsertPoint.at_end(then))
    tx = _Index(tb)
    rest = gid
    ivs: list[SSAValue] = [gid] * len(dims)
    for k in reversed(range(len(dims))):
        iv, lb, _, step = dims[k]
        if k == 0:
            idx = rest
        else:
            idx = tx.rem(rest, extents[k])
            rest = tx.div(rest, extents[k])
        value = idx
        if _const_value(step) != 1:
            value = tx.mul(value, step)
        if _const_value(lb) != 0:
            value = tx.add(value, lb)
        ivs[k] = value
    for (iv, *_), value in zip(dims, ivs):
        iv.replace_all_uses_with(value)
    innermost = levels[-1].body.block
    for op in list(innermost.ops):
        if isinstance(op, scf.ReduceOp):
            continue
        op.detach()
        then.add_op(op)
    then.add_op(scf.YieldOp())

    launch = gpu.LaunchOp(Region(body), [grid, one, one], [per_block, one, one])
    Rewriter.replace_op(outer, launch)


class ConvertParallelLoopsToGpuPass(ModulePass):
    name = "convert-parallel-loops-to-gpu"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        outermost = []
        for o in op.walk():
            if isinstance(o, scf.ParallelOp):
                p = o.parent_op()
                while p is not None and not isinstance(p, scf.ParallelOp | gpu.LaunchOp):
                    p = p.parent_op()
                if p is None:
                    outermost.append(o)
        for o in outermost:
            if o.initVals:
                raise ValueError("scf.parallel with reductions is not supported")
            convert_nest(o)
