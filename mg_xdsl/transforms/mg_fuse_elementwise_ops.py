"""``mg-fuse-elementwise-ops``: chains of elementwise mg ops -> one ``mg.elementwise`` each.

Lowered one op at a time, ``relu(a + b)`` is two loop nests and a temporary buffer the size
of the result, written once and read once: twice the memory traffic of a single pass. This
pass (named after upstream MLIR's ``linalg-fuse-elementwise-ops``) merges every tree of
elementwise ops -- ``mg.add/sub/mul/div``, ``mg.neg``, ``mg.relu``, ``mg.scalar`` -- into one
``mg.elementwise`` whose body computes an element of the result from an element of each
input, so that ``lower-mg-to-affine`` gives one nest and no intermediate buffer.

- A value joins its consumer's tree when it is made by an elementwise op in the same block
  and has no other use; a value used twice is computed once and stays a buffer.
- An ``mg.broadcast`` feeding the tree is not materialised: its input becomes an input of
  the fused op, which reads it at index 0 along the repeated dimensions.
- The tree's root is the op whose result leaves it; the fused op takes its place. Any other
  producer (a matmul, a reduction, a parameter) is an input. ``lower-mg-to-affine`` writes
  the fused result into the buffer of such an input where that buffer dies there, so
  ``relu(x @ w + b)`` applies its bias and relu in place in the matmul's result.
- A binary op with a ``?`` dimension had a run-time size check; it becomes an
  ``mg.check_same_shape`` at the op's old place, comparing its operands' types, with each
  ``?`` size read from the leftmost input of that operand's tree (which has it, as the
  earlier checks have passed).

Before::

    %1 = mg.broadcast %row : tensor<1x3xf64> -> tensor<4x3xf64>
    %2 = mg.add %a, %1 : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
    %3 = mg.relu %2 : tensor<4x3xf64> -> tensor<4x3xf64>

After::

    %3 = mg.elementwise %a, %row : tensor<4x3xf64>, tensor<1x3xf64> -> tensor<4x3xf64> {
    ^bb0(%x: f64, %y: f64):
      %s = arith.addf %x, %y : f64
      %zero = arith.constant 0.0 : f64
      %r = arith.maximumf %s, %zero : f64
      mg.yield %r : f64
    }
"""

from dataclasses import dataclass, field

from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.dialects import mg
from mg_xdsl.dialects.mg import shape_of

FUSIBLE = (mg.ElementwiseBinaryOp, mg.NegOp, mg.ReluOp, mg.ScalarOp)


def _producer(value: SSAValue, consumer: Operation) -> Operation | None:
    """The op that makes ``value`` if it can be fused into ``consumer``'s tree."""
    op = value.owner
    if not isinstance(op, (*FUSIBLE, mg.BroadcastOp)) or op.parent is not consumer.parent:
        return None
    if not value.has_one_use():
        return None
    return op


@dataclass
class Tree:
    """The ops of one fused tree, and the inputs they read, in first-use order."""

    root: Operation
    ops: list[Operation] = field(default_factory=list)  # in program order, the root last
    inputs: list[SSAValue] = field(default_factory=list)
    _known_inputs: set[SSAValue] = field(default_factory=set)

    @staticmethod
    def of(root: Operation, order: dict[Operation, int]) -> "Tree":
        """The tree whose result ``root`` makes; ``order`` numbers the ops in program order."""
        tree = Tree(root)
        tree.collect(root)
        tree.ops.sort(key=order.__getitem__)
        return tree

    def collect(self, root: Operation) -> None:
        """Depth first, operands left to right, so the inputs are in first-use order. An
        explicit stack, not recursion: a chain of 10^4 additions is a tree 10^4 deep."""
        self.ops.append(root)
        stack = [(root, 0)]  # an op, and the next of its operands to look at
        while stack:
            op, i = stack.pop()
            if i == len(op.operands):
                continue
            stack.append((op, i + 1))
            v = op.operands[i]
            producer = _producer(v, op)
            if isinstance(producer, mg.BroadcastOp):
                self.ops.append(producer)
                self.add_input(producer.input)
            elif producer is not None:
                self.ops.append(producer)
                stack.append((producer, 0))
            else:
                self.add_input(v)

    def add_input(self, v: SSAValue) -> None:
        if v not in self._known_inputs:
            self._known_inputs.add(v)
            self.inputs.append(v)


def witnesses(tree: Tree) -> dict[SSAValue, SSAValue]:
    """For each value of the tree, a tree input that has that value's size in each of its
    ``?`` dimensions: the leftmost input below it.

    An elementwise result is ``?`` in a dimension only where both operands are (against a
    static size it takes that size), and a broadcast's result is static; so the left operand
    has every ``?`` of the result, down to an input. Only the ``?`` sizes carry over: where
    a value is static its witness may be a broadcast 1, so a check reads those sizes from the
    value's type instead. (One pass in program order: a chain of 10^4 ops is 10^4 steps.)"""
    witness = {v: v for v in tree.inputs}
    for op in tree.ops:  # in program order: operands before the results they make
        left = op.operands[0]
        witness[op.results[0]] = witness.get(left, left)
    return witness


def build_body(tree: Tree) -> Region:
    """The scalar computation of the tree, one arith op per mg op."""
    element = tree.root.results[0].type.element_type  # type: ignore[attr-defined]
    block = Block(arg_types=[element] * len(tree.inputs))
    scalar: dict[SSAValue, SSAValue] = dict(zip(tree.inputs, block.args))
    with ImplicitBuilder(block):
        for op in tree.ops:
            if isinstance(op, mg.BroadcastOp):
                scalar[op.result] = scalar[op.input]
                continue
            constants = [arith.ConstantOp(FloatAttr(c, element)).result for c in op.scalar_constants()]
            scalar[op.results[0]] = op.scalar([scalar[x] for x in op.operands], constants)
        mg.YieldOp(scalar[tree.root.results[0]])
    return Region(block)


def fuse(tree: Tree) -> None:
    witness = witnesses(tree)
    for op in tree.ops:
        if isinstance(op, mg.ElementwiseBinaryOp) and (
                None in shape_of(op.lhs.type) or None in shape_of(op.rhs.type)):
            lhs, rhs = witness[op.lhs], witness[op.rhs]
            if lhs is rhs and op.lhs.type == op.rhs.type:
                continue
            check = mg.CheckSameShapeOp(lhs, rhs, op.lhs.type, op.rhs.type, op.name)
            check.location = op.location
            Rewriter.insert_op(check, InsertPoint.before(op))
    fused = mg.ElementwiseOp(tree.inputs, tree.root.results[0].type, build_body(tree))
    fused.location = tree.root.location
    Rewriter.replace_op(tree.root, fused)
    for op in reversed(tree.ops[:-1]):  # users before the values they use
        Rewriter.erase_op(op)


class MgFuseElementwiseOpsPass(ModulePass):
    name = "mg-fuse-elementwise-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        roots = [o for o in op.walk() if isinstance(o, FUSIBLE)
                 and not any(_producer(o.results[0], u.operation) for u in o.results[0].uses
                             if isinstance(u.operation, FUSIBLE))]
        order = {o: i for i, o in enumerate(op.walk())}
        for root in roots:
            fuse(Tree.of(root, order))
