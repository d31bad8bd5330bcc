"""Reverse-mode differentiation of the mg dialect: the chain rule over the ops' own rules.

``differentiate(grad)`` replaces one ``mg.grad`` by its reverse sweep, in mg ops;
``differentiate_all`` every one of a module. The pass ``mg-autodiff``
(``transforms/mg/autodiff.py``, whose docstring walks through an example) runs them, and so
does the front end at the end of a program that takes gradients, so that what cannot be
differentiated is reported as every other error. (A helper of the dialect, below both.)

What it does, in order:

1. Calls of defs on the way (``func.call`` whose arguments depend on a variable) are inlined,
   their bodies cloned in place, so the sweep sees every op.
2. The ops the value is computed from are collected (walking operands back from it; a
   variable is where a walk stops: each is independent, as JAX's arguments are) in an order
   where each op comes after those it reads.
3. An op is *active* if one of its operands depends on a variable and its result is a float:
   only active ops are differentiated (a comparison, ``argmax``, an integer op or a shape
   query is a constant). An active op without a rule, or with a region (a loop, an ``if``),
   is an error naming it and its line (``AutodiffError``, E-GRAD-004).
4. The sweep: the value's adjoint is 1; each active op, last first, gives its operands'
   adjoints from its result's (``op.adjoints``, see ``base.Differentiable``); a value used
   twice gets the sum of its uses' adjoints. A variable no active op reads gets zeros.

Only the adjoints that some variable needs are built (a rule asks ``d.active``).
"""

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from mg_xdsl.core import element_types
from mg_xdsl.dialects.mg.adjoint_builder import AdjointBuilder
from mg_xdsl.dialects.mg.base import Differentiable
from mg_xdsl.dialects.mg.gradients import GradOp
from mg_xdsl.dialects.mg.inlining import callee_of, inline_call


class AutodiffError(Exception):
    """A gradient that cannot be built: ``message`` about ``op`` (its source location, from
    the front end, says where)."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.message = message
        self.op = op

    def place(self) -> tuple[int, int] | None:
        """The line and column of the op's source, where it has one."""
        loc = self.op.location
        if isinstance(loc, FileLineColLoc):
            return loc.line.data, loc.column.data
        return None


def _is_float(value: SSAValue) -> bool:
    t = value.type
    return isinstance(t, TensorType) and element_types.is_float(t.element_type)


def _inside(op: Operation, v: SSAValue) -> bool:
    """Whether ``v`` is defined within ``op``'s regions."""
    owner = v.owner
    parent = owner.parent_op() if isinstance(owner, Block) else owner
    return parent is not None and (parent is op or op.is_ancestor(parent))


def _inputs(op: Operation) -> list[SSAValue]:
    """What ``op`` reads: its operands and, for an op with regions (a loop, an ``if``), every
    value its body reads from outside it (a loop that reads a variable only in its body
    still depends on it)."""
    if not op.regions:
        return list(op.operands)
    inputs = list(op.operands)
    for inner in op.walk():
        if inner is not op:
            inputs.extend(v for v in inner.operands if not _inside(op, v))
    return inputs


def _producers(value: SSAValue, variables: set[SSAValue]) -> list[Operation]:
    """The ops ``value`` is computed from, each after the ops whose results it reads (a
    depth-first post-order, without recursion: a long program is a deep chain), stopping at
    the variables and at block arguments."""
    order: list[Operation] = []
    seen: set[Operation] = set()
    stack: list[tuple[Operation, Iterator[SSAValue]]] = []

    def enter(v: SSAValue) -> None:
        op = v.owner
        if v in variables or not isinstance(op, Operation) or op in seen:
            return
        seen.add(op)
        stack.append((op, iter(_inputs(op))))

    enter(value)
    while stack:
        op, operands = stack[-1]
        operand = next(operands, None)
        if operand is None:
            stack.pop()
            order.append(op)
        else:
            enter(operand)
    return order


def _active(order: list[Operation], variables: set[SSAValue]) -> set[SSAValue]:
    """The values of ``order`` that depend on a variable and are floats, and the variables."""
    active = set(variables)
    for op in order:
        if any(o in active for o in _inputs(op)):
            active.update(r for r in op.results if _is_float(r))
    return active


def _inline(call: func.CallOp, module: ModuleOp) -> None:
    """Replace ``call`` by a copy of its callee's body."""
    callee = callee_of(call, module)
    if callee is None:
        name = call.callee.string_value()
        raise AutodiffError(f"the gradient cannot pass through {name}, whose body is not in the program", call)
    inline_call(call, callee)


def _inline_calls(grad: GradOp, module: ModuleOp) -> None:
    """Inline the calls the value is computed from that read a variable, until none is left."""
    variables = set(grad.wrt)
    while True:
        order = _producers(grad.value, variables)
        active = _active(order, variables)
        calls = [op for op in order if isinstance(op, func.CallOp) and any(a in active for a in op.arguments)]
        if not calls:
            return
        for call in calls:
            _inline(call, module)


@dataclass
class Sweep:
    """The reverse sweep of one ``mg.grad``: the adjoint of each active value so far."""

    grad: GradOp
    active: set[SSAValue]

    def run(self, order: list[Operation]) -> list[SSAValue]:
        d = AdjointBuilder(lambda v: v in self.active)
        value = self.grad.value
        adjoints: dict[SSAValue, SSAValue] = {value: d.full_like(value, 1.0)}
        for op in reversed(order):
            g = adjoints.get(op.results[0]) if len(op.results) == 1 else None
            if g is None:
                continue
            for operand, adjoint in zip(op.operands, self.rule(op, d, g), strict=True):
                if adjoint is None or operand not in self.active:
                    continue
                adjoint = d.like(adjoint, operand)
                adjoints[operand] = d.add(adjoints[operand], adjoint) if operand in adjoints else adjoint
        return [adjoints[w] if w in adjoints else d.full_like(w, 0.0) for w in self.grad.wrt]

    @staticmethod
    def rule(op: Operation, d: AdjointBuilder, g: SSAValue):
        if not isinstance(op, Differentiable):
            raise AutodiffError(f"no derivative rule for {op.name}: the gradient cannot pass through it", op)
        try:
            return op.adjoints(d, g)
        except NotImplementedError as e:
            what = e.args[0] if e.args else op.name
            raise AutodiffError(f"no derivative rule for {what}: the gradient cannot pass through it", op) from None


def differentiate(grad: GradOp, module: ModuleOp) -> None:
    """Replace ``grad`` by its reverse sweep (see the module's docstring)."""
    _inline_calls(grad, module)
    variables = set(grad.wrt)
    order = _producers(grad.value, variables)
    active = _active(order, variables)
    order = [op for op in order if any(r in active for r in op.results)]
    for op in order:
        if op.regions:
            raise AutodiffError(
                f"no derivative rule for {op.name} (a loop or an if) yet: the gradient cannot pass through it", op
            )
    before = grad.prev_op
    with ImplicitBuilder(Builder(InsertPoint.before(grad))):
        gradients = Sweep(grad, active).run(order)
    # The sweep's ops say where the gradient was asked for (a run-time check's message).
    op = before.next_op if before is not None else grad.parent_block().first_op  # type: ignore[union-attr]
    while op is not None and op is not grad:
        op.location = grad.location
        op = op.next_op
    for result, gradient in zip(grad.gradients, gradients, strict=True):
        result.replace_all_uses_with(gradient)
    grad.detach()
    grad.erase()


def differentiate_all(module: ModuleOp) -> None:
    """Replace every ``mg.grad`` of ``module`` by its reverse sweep, in program order (so a
    gradient whose value reads an earlier one's sees it built)."""
    for grad in [o for o in module.walk() if isinstance(o, GradOp)]:
        differentiate(grad, module)
