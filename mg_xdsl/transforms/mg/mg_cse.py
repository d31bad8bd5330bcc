"""``mg-cse``: an mg op that computes what an mg op before it in scope computes -> that op's
result. Common-subexpression elimination on the tensor ops, before they are lowered.

A program often writes one value twice: a softmax as ``exp(s - max(s)) / sum(exp(s -
max(s)))``, an attention as that softmax of ``q @ kt * 0.125``. Lowered as written, each copy
is a loop nest (or a matrix product) of its own, and once they are loops in different nests
``cse`` can no longer see that they are the same. Here they are one op each: two ops are the
same when they have the same name, operands, properties, attributes and result types
(``cse``'s key), and the earlier dominates the later (it is before it in its block, or
before the loop or branch the later is in: an op in a loop's body that repeats one before
the loop is the value computed once).

Which ops, since mg values are tensors, not buffers:

- every op that computes a value from its operands alone: the ``Pure`` ones, and those that
  only move elements or check sizes (``mg.broadcast``, ``mg.concat``, ``mg.index``,
  ``mg.gather``, ``mg.extract``, ``mg.dynamic_slice``, ``mg.item``, ``mg.from_item``), whose
  run-time checks the earlier op makes first on the same values; ``mg.random`` is a pure
  function of its seed and each element's position (two draws with one seed are one tensor);
- never an op with an effect or a value from outside: ``mg.print``, ``mg.println``,
  ``mg.save``, ``mg.load`` (the file may change), ``mg.arg``, ``mg.grad``, calls;
- never an update in place (``mg.in_place``: ``w += g`` writes ``w``'s buffer), nor an op
  whose result becomes such a buffer (``var w = x * 2`` then ``w += g``: the front end lets
  the var take the product's new buffer, so a ``let y = x * 2`` merged with it would see the
  update). Those buffers are followed through loops' carried values and branches' results.

Ops nobody uses stay (unlike ``cse``, this pass removes nothing else): a dead ``mg.cast``
or ``mg.index`` still makes its run-time check.

Before::

    %m = mg.reduce %s {axis = 1 : i64, kind = "max"} : tensor<4x8xf32> -> tensor<4x1xf32>
    %b = mg.broadcast %m : tensor<4x1xf32> -> tensor<4x8xf32>
    %d = mg.sub %s, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %e = mg.exp %d : tensor<4x8xf32> -> tensor<4x8xf32>
    %m2 = mg.reduce %s {axis = 1 : i64, kind = "max"} : tensor<4x8xf32> -> tensor<4x1xf32>
    %b2 = mg.broadcast %m2 : tensor<4x1xf32> -> tensor<4x8xf32>
    %d2 = mg.sub %s, %b2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %e2 = mg.exp %d2 : tensor<4x8xf32> -> tensor<4x8xf32>
    %t = mg.reduce %e2 {axis = 1 : i64, kind = "sum"} : tensor<4x8xf32> -> tensor<4x1xf32>

After::

    %m = mg.reduce %s {axis = 1 : i64, kind = "max"} : tensor<4x8xf32> -> tensor<4x1xf32>
    %b = mg.broadcast %m : tensor<4x1xf32> -> tensor<4x8xf32>
    %d = mg.sub %s, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %e = mg.exp %d : tensor<4x8xf32> -> tensor<4x8xf32>
    %t = mg.reduce %e {axis = 1 : i64, kind = "sum"} : tensor<4x8xf32> -> tensor<4x1xf32>

Each op's key is built once, as in ``cse`` (``transforms/cse.py``), whose walk this is: the
pass costs one walk of the module and a dictionary lookup per op.
"""

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, Pure

from mg_xdsl.dialects import mg
from mg_xdsl.transforms import cse

# The mg ops that compute a value from their operands alone but are not marked ``Pure``
# (they move elements, with run-time checks of sizes or indices).
_VALUE_OPS: tuple[type[Operation], ...] = (
    mg.BroadcastOp,
    mg.ConcatOp,
    mg.DynamicSliceOp,
    mg.IndexOp,
    mg.GatherOp,
    mg.ExtractOp,
    mg.ItemOp,
    mg.FromItemOp,
)


def _mergeable_class(op: Operation) -> bool:
    if op.regions:  # (loops, branches: never merged)
        return False
    if op.name.startswith("mg."):
        return op.has_trait(Pure) or isinstance(op, _VALUE_OPS)
    return cse._kind(op) == cse.PURE  # arith constants, index arithmetic


class _Buffers:
    """Union-find over the values that are one buffer: an update in place's operand and
    result, a loop's initial value, body argument, yielded value and result, a branch's
    yielded values and result."""

    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}

    def find(self, v: SSAValue) -> SSAValue:
        root = v
        while (up := self.parent.get(root, root)) is not root:
            root = up
        while v is not root:  # path compression
            self.parent[v], v = root, self.parent.get(v, root)
        return root

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[ra] = rb


def updated_buffers(module: ModuleOp) -> set[SSAValue]:
    """Every value whose buffer some update in place (``mg.in_place``) writes: the updated
    operand, and every value that is the same buffer through loops and branches."""
    buffers = _Buffers()
    seeds: list[SSAValue] = []
    for op in module.walk():
        if mg.IN_PLACE in op.attributes and op.operands and op.results:
            buffers.union(op.operands[0], op.results[0])
            seeds.append(op.operands[0])
        if isinstance(op, scf.ForOp):
            body = op.body.block
            for k, result in enumerate(op.results):
                buffers.union(op.iter_args[k], result)
                buffers.union(body.args[k + 1], result)
        if op.results and op.regions:  # (scf.for, scf.if, scf.while...) what each block yields
            for region in op.regions:
                for block in region.blocks:
                    last = block.last_op
                    if last is not None and last.has_trait(IsTerminator) and len(last.operands) == len(op.results):
                        for value, result in zip(last.operands, op.results):
                            buffers.union(value, result)
    if not seeds:
        return set()
    updated = {buffers.find(v) for v in seeds}
    return {v for v in buffers.parent if buffers.find(v) in updated} | updated


class MgCsePass(ModulePass):
    """Merge each mg op with an earlier one in scope that computes the same (see the module)."""

    name = "mg-cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        updated = updated_buffers(op)

        def kind(o: Operation) -> str:
            if (
                not _mergeable_class(o)
                or mg.IN_PLACE in o.attributes
                or (updated and any(r in updated for r in o.results))
            ):
                return cse.OTHER
            return cse.PURE

        cse.simplify_region(op.body, {}, kind, erase_dead=False)
