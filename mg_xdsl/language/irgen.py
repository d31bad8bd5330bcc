"""IR generation: a checked statement -> mg dialect ops.

Nothing here can fail: the checker has typed every expression and reported every problem,
so each construct becomes its ops directly. Compile-time numbers are the checker's folded
values; a matrix with a number is ``mg.scalar``; an elementwise operator broadcasts a
static size-1 dimension by an explicit ``mg.broadcast``, so later stages only ever see
operands of agreeing shapes; an argument whose shape differs from its parameter's (a static
size passed as ``?``, or the reverse, checked when the program runs) goes through
``mg.cast``. Every op is located at the token it came from, and a cast that claims a static
size carries the messages of its run-time checks in the program's terms (the program wrote
a call or an operator, not the cast).
"""

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from mg_xdsl.core import element_types, shapes
from mg_xdsl.core.shapes import Shape
from mg_xdsl.dialects import mg
from mg_xdsl.language import syntax_tree as syntax
from mg_xdsl.language.builtins import BUILTINS, Builtin
from mg_xdsl.language.checker import Checker, TensorType, Type, fold, is_number, type_text
from mg_xdsl.language.lexer import Token

# Each operator, and each builtin that combines two tensors, by the name that mg.scalar gives
# it; the mg op of two tensors for each (a comparison's is mg.compare).
OPERATORS = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "%": "rem",
    "//": "floordiv",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    "==": "eq",
    "!=": "ne",
}
ELEMENTWISE_OPS: dict[str, type[mg.ElementwiseBinaryOp]] = {
    "add": mg.AddOp,
    "sub": mg.SubOp,
    "mul": mg.MulOp,
    "div": mg.DivOp,
    "rem": mg.RemOp,
    "floordiv": mg.FloorDivOp,
    "max": mg.MaxOp,
    "min": mg.MinOp,
    "pow": mg.PowOp,
    "atan2": mg.Atan2Op,
}

Value = SSAValue | int | float  # a matrix's SSA value, or a compile-time number


def as_tensor(v: Value) -> SSAValue:
    """``v``, which the checker typed as a tensor (where a number would be an error)."""
    assert isinstance(v, SSAValue), f"the checker let a number through where a tensor is needed: {v}"
    return v


def operands_differ(op: type[Operation]) -> Callable[[int], str]:
    """The message of the check that an operand of ``op`` has, in a dimension, the size the
    other operands give it: what ``lower-mg-to-affine`` says where two operands' sizes differ
    (``mg.add: operand shapes differ at runtime in dimension 0``)."""
    return lambda dim: mg.operands_differ(op.name, dim)


@dataclass
class Function:
    """The block being filled and the values of the names visible in it."""

    block: Block
    env: dict[str, Value] = field(default_factory=dict)


@dataclass
class IRGen:
    path: str
    checker: Checker
    module: ModuleOp = field(default_factory=lambda: ModuleOp([]))
    main: Function = field(default_factory=lambda: Function(Block()))
    # The names declared with var (from the first on, the top level's names own their buffers).
    variables: set[str] = field(default_factory=set)
    # The values a top-level name has been bound to: their buffers have an owner already.
    named: set[SSAValue] = field(default_factory=set)
    differentiates: bool = False  # whether the program takes a gradient (mg.grad)

    @property
    def directory(self) -> str:
        """What a relative path in the program (``load``, ``save``) is relative to: the
        program's directory, or the working directory for ``<stdin>``, ``-`` and text."""
        if self.path.startswith("<") or self.path == "-":
            return os.getcwd()
        return os.path.dirname(os.path.abspath(self.path))

    def loc(self, tok: Token) -> FileLineColLoc:
        return FileLineColLoc(StringAttr(self.path), IntAttr(tok.line), IntAttr(tok.col))

    def place(self, fn: Function, op: Operation, tok: Token) -> None:
        """Append ``op`` to ``fn``, located at ``tok``."""
        op.location = self.loc(tok)
        fn.block.add_op(op)

    def emit(self, fn: Function, op: Operation, tok: Token) -> SSAValue:
        """Append ``op``, an op with a result, to ``fn``, located at ``tok``; its result."""
        self.place(fn, op, tok)
        return op.results[0]

    # -- statements ---------------------------------------------------------------------

    def statement(self, s: syntax.Statement, fn: Function | None = None) -> None:
        fn = fn or self.main
        if isinstance(s, syntax.Def):
            return self.define(s)
        if isinstance(s, syntax.Assign):
            return self.assign(s, fn)
        if isinstance(s, syntax.For):
            return self.for_loop(s, fn)
        if isinstance(s, syntax.If):
            return self.conditional(s, fn)
        if isinstance(s, syntax.LetMany):
            return self.let_many(s, fn)
        if isinstance(s, syntax.Println):
            return self.println(s, fn)
        if isinstance(s, syntax.Do):  # save("w.npy", w), the one call made as a statement
            path, x = s.call.args
            assert isinstance(path, syntax.Str)
            self.place(fn, mg.SaveOp(as_tensor(self.expr(x, fn)), self.file_path(path.value)), s.head)
            return
        assert not isinstance(s, syntax.Return)  # (define_block emits a def's return)
        value = self.expr(s.value, fn)
        if isinstance(s, syntax.Let):
            self.let(s.name.text, value, s.mutable, s.head, fn)
            return
        if not isinstance(value, SSAValue):  # a compile-time number prints as a rank-0 tensor
            value = self.constant(fn, TensorType(()), [value], s.head)
        element = mg.tensor_type_of(value).element_type
        shown = element_types.printed_as(element)  # (i1 as printMemrefI32 prints 0 and 1, bf16 as f32)
        if shown != element:
            value = self.emit(fn, mg.ConvertOp(value, shown), s.head)
        self.place(fn, mg.PrintOp(value), s.head)

    # -- variables ----------------------------------------------------------------------

    def let(self, name: str, value: Value, mutable: bool, tok: Token, fn: Function) -> None:
        """``let``/``var NAME = value``: from the first var on, a name owns its buffer."""
        if mutable:
            self.variables.add(name)
        value = self.owned(value, tok, fn) if self.variables else value
        if not mutable:
            self.variables.discard(name)  # (a let of a var's name binds a fixed one)
        self.bind(name, value, fn)

    def bind(self, name: str, value: Value, fn: Function) -> None:
        """Bind ``name`` to ``value`` in ``fn``'s block."""
        fn.env[name] = value
        if isinstance(value, SSAValue):
            self.named.add(value)

    def owned(self, value: Value, tok: Token, fn: Function) -> Value:
        """``value`` in a buffer that nothing else holds, so that a ``var`` may update it in
        place and a name bound to it never sees an update: a copy (``mg.convert`` to its own
        type) unless an op has just computed it into a new buffer that no name holds yet
        (``var v = a`` copies ``a``'s value, computed or not). A constant is a global, and a
        cast or a call may give back its operand's buffer: they are copied too."""
        owner = value.owner if isinstance(value, SSAValue) else None
        fresh = (
            isinstance(owner, Operation)
            and owner.name.startswith("mg.")
            and not isinstance(owner, mg.CastOp | mg.ConstantOp)
            and value not in self.named
        )
        if not isinstance(value, SSAValue) or fresh:
            return value
        return self.emit(fn, mg.ConvertOp(value, mg.tensor_type_of(value).element_type), tok)

    def assign(self, s: syntax.Assign, fn: Function) -> None:
        """``w += g``: ``w + g`` (``g`` grown to ``w``'s shape) computed into ``w``'s own
        buffer (``mg.in_place``); ``w = EXPR`` rebinds ``w`` to a buffer of its own."""
        name = s.head.text
        value = self.expr(s.value, fn)
        if s.op.text == "=":
            self.bind(name, self.owned(value, s.head, fn), fn)
            return
        w, op = fn.env[name], OPERATORS[s.op.text[0]]
        if not isinstance(w, SSAValue):  # a number, folded (the checker made sure value is one)
            assert is_number(value)
            self.bind(name, fold(s.op.text[0], w, value), fn)
            return
        if not isinstance(value, SSAValue):
            update = mg.ScalarOp(w, op, value, reversed=False)
        else:
            grown = self.grow(fn, value, mg.shape_of(w.type), s.op, [w], operands_differ(ELEMENTWISE_OPS[op]))
            update = ELEMENTWISE_OPS[op](w, grown, w.type)
        update.attributes[mg.IN_PLACE] = UnitAttr()
        self.bind(name, self.emit(fn, update, s.op), fn)

    # -- blocks: loops, conditionals, several results ------------------------------------

    def index_of(self, fn: Function, bound: syntax.Expr, tok: Token) -> SSAValue:
        """A bound of a loop as an ``index``: a constant, or a rank-0 integer tensor's
        element (``mg.item``) converted."""
        value = self.expr(bound, fn)
        if not isinstance(value, SSAValue):
            return self.emit(fn, arith.ConstantOp(IntegerAttr(int(value), IndexType())), tok)
        item = self.emit(fn, mg.ItemOp(value), tok)
        if item.type != i64:
            item = self.emit(fn, arith.ExtSIOp(item, i64), tok)
        return self.emit(fn, arith.IndexCastOp(item, IndexType()), tok)

    def for_loop(self, s: syntax.For, fn: Function) -> None:
        """``scf.for`` from START to STOP by STEP, carrying the vars its body assigns
        (``iter_args``, the loop's results bound to them after it): an update in place
        writes into the buffer the loop carries, so no iteration allocates one. The counter
        is a rank-0 ``i64`` tensor (``mg.from_item``), made only if the body reads it."""
        args = s.range.args
        bounds = [self.index_of(fn, e, s.head) for e in args]
        if len(bounds) == 1:
            bounds.insert(0, self.emit(fn, arith.ConstantOp(IntegerAttr(0, IndexType())), s.head))
        if len(bounds) == 2:
            bounds.append(self.emit(fn, arith.ConstantOp(IntegerAttr(1, IndexType())), s.head))
        carried = self.checker.carried[s]
        inits = [as_tensor(fn.env[name]) for name in carried]
        block = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        body = Function(block, dict(fn.env))
        counter = self.emit(body, arith.IndexCastOp(block.args[0], i64), s.name)
        number = self.emit(body, mg.FromItemOp(counter), s.name)
        body.env[s.name.text] = number
        for name, arg in zip(carried, block.args[1:]):
            arg.name_hint = name
            body.env[name] = arg
        for statement in s.body:
            self.statement(statement, body)
        self.place(body, scf.YieldOp(*(as_tensor(body.env[name]) for name in carried)), s.head)
        if not number.uses:
            for unused in (number.owner, counter.owner):
                assert isinstance(unused, Operation)
                unused.detach()
                unused.erase()
        loop = scf.ForOp(bounds[0], bounds[1], bounds[2], inits, block)
        self.place(fn, loop, s.head)
        for name, result in zip(carried, loop.results):
            self.bind(name, result, fn)

    def conditional(self, s: syntax.If, fn: Function) -> None:
        """``scf.if`` on the condition's element (``mg.item``), its results the vars the
        branches assign; ``elif`` is an ``scf.if`` in the else branch, and a branch that is
        not written gives the vars back unchanged."""
        self.branches(s.branches, self.checker.carried[s], fn)

    def branches(self, branches: list, carried: list[str], fn: Function) -> None:
        (head, condition, body), rest = branches[0], branches[1:]
        if condition is None:  # else: its body is the block the if before it made
            for statement in body:
                self.statement(statement, fn)
            return
        flag = self.emit(fn, mg.ItemOp(as_tensor(self.expr(condition, fn))), head)
        types = [as_tensor(fn.env[name]).type for name in carried]
        regions = []
        for fill in (
            lambda b: [self.statement(x, b) for x in body],
            lambda b: rest and self.branches(rest, carried, b),
        ):
            branch = Function(Block(), dict(fn.env))
            fill(branch)
            self.place(branch, scf.YieldOp(*(as_tensor(branch.env[name]) for name in carried)), head)
            regions.append(Region(branch.block))
        op = scf.IfOp(flag, types, regions[0], regions[1])
        self.place(fn, op, head)
        for name, result in zip(carried, op.results):
            self.bind(name, result, fn)

    def returned(self, last: syntax.Statement, fn: Function, types: list[TensorType]) -> list[Value]:
        """The values a def's last statement returns: a ``return``'s, or those of an ``if``
        that returns on every path, as an ``scf.if`` whose branches yield them."""
        if isinstance(last, syntax.Return):
            return [self.expr(e, fn) for e in last.values]
        assert isinstance(last, syntax.If) and last in self.checker.returning
        return list(self.returning_branches(last.branches, fn, types))

    def returning_branches(self, branches: list, fn: Function, types: list[TensorType]) -> list[SSAValue]:
        (head, condition, body), rest = branches[0], branches[1:]

        def values(branch: Function, body: list[syntax.Statement]) -> list[SSAValue]:
            *statements, last = body
            for statement in statements:
                self.statement(statement, branch)
            returned = self.returned(last, branch, types)
            return [
                v if isinstance(v, SSAValue) else self.constant(branch, t, [v], head) for v, t in zip(returned, types)
            ]

        if condition is None:
            return values(fn, body)
        flag = self.emit(fn, mg.ItemOp(as_tensor(self.expr(condition, fn))), head)
        regions = []
        for fill in (lambda b: values(b, body), lambda b: self.returning_branches(rest, b, types)):
            branch = Function(Block(), dict(fn.env))
            self.place(branch, scf.YieldOp(*fill(branch)), head)
            regions.append(Region(branch.block))
        op = scf.IfOp(flag, [mg.tensor_type(t.shape, t.element) for t in types], regions[0], regions[1])
        self.place(fn, op, head)
        return list(op.results)

    def let_many(self, s: syntax.LetMany, fn: Function) -> None:
        """``let a, b = f(...)``: the results of one ``func.call`` (or of ``grad``), a name each."""
        c = s.value
        assert isinstance(c, syntax.Call)
        if c.tok.text in ("grad", "value_and_grad") and c.tok.text not in self.checker.functions:
            results = self.gradients(c, fn)
        else:
            results = list(self.call_def(c, fn, None).results)
        for name, result in zip(s.names, results):
            self.let(name.text, result, s.mutable, s.head, fn)

    def gradients(self, c: syntax.Call, fn: Function) -> list[SSAValue]:
        """``grad(EXPR, wrt=[w, b])``: the expression's ops, then ``mg.grad`` of its value with
        respect to the names' values (``mg-autodiff`` builds the sweep); ``value_and_grad``
        gives the value first."""
        value = as_tensor(self.expr(c.args[0], fn))
        listed = c.keywords["wrt"][1]
        assert isinstance(listed, syntax.ExprList)
        wrt = [as_tensor(self.expr(item, fn)) for item in listed.items]
        grad = mg.GradOp(value, wrt)
        self.place(fn, grad, c.tok)
        self.differentiates = True
        return [value, *grad.gradients] if c.tok.text == "value_and_grad" else list(grad.gradients)

    def build_gradient(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        (gradient,) = self.gradients(c, fn)
        return gradient

    def println(self, s: syntax.Println, fn: Function) -> None:
        """``mg.println`` of the values (a number as a rank-0 constant of its type)."""
        values = []
        for e in s.values:
            v = self.expr(e, fn)
            if not isinstance(v, SSAValue):  # (a whole number known when compiling prints as one)
                whole = isinstance(v, int) and -(2**63) <= v < 2**63
                element = element_types.NAMES["i64"] if whole else element_types.DEFAULT
                v = self.constant(fn, TensorType((), element), [v], e.tok)
            values.append(v)
        self.place(fn, mg.PrintlnOp(s.pieces, values, s.specs), s.head)

    def define(self, d: syntax.Def) -> None:
        """``def NAME(P: TYPE, ...) = EXPR`` (or with a block ending in ``return a, b``)
        becomes ``func.func @NAME``."""
        fn = Function(Block())
        for pname, ptype in d.params:
            arg = fn.block.insert_arg(mg.tensor_type(ptype.shape, ptype.element), len(fn.block.args))
            arg.name_hint = pname.text
            fn.env[pname.text] = arg
        sig = self.checker.functions[d.name.text]
        if d.body is not None:
            returned = [self.expr(d.body, fn)]
            where = d.name
        else:
            assert d.block is not None
            *body, last = d.block
            for statement in body:
                self.statement(statement, fn)
            returned = self.returned(last, fn, sig.results)
            where = last.head
        values = [
            v if isinstance(v, SSAValue) else self.constant(fn, t, [v], where) for v, t in zip(returned, sig.results)
        ]
        self.place(fn, func.ReturnOp(*values), where)
        fn_type = FunctionType.from_lists(
            [mg.tensor_type(t.shape, t.element) for t in sig.types],
            [mg.tensor_type(t.shape, t.element) for t in sig.results],
        )
        op = func.FuncOp(d.name.text, fn_type, Region(fn.block))
        # Callable from C, C++ and Python through a `_mlir_ciface_` wrapper.
        op.attributes["llvm.emit_c_interface"] = UnitAttr()
        op.location = self.loc(d.name)
        self.module.body.block.add_op(op)

    def finish(self, with_main: bool = True) -> ModuleOp:
        """The module; without ``@main`` for a library, which holds only the defs."""
        if with_main:
            self.main.block.add_op(func.ReturnOp())
            self.module.body.block.add_op(func.FuncOp("main", ((), ()), Region(self.main.block)))
        return self.module

    # -- expressions --------------------------------------------------------------------

    def expr(self, e: syntax.Expr, fn: Function) -> Value:
        t = self.checker.types[e]
        if not isinstance(t, TensorType):
            return t  # folded by the checker
        if e in self.checker.constants:  # a literal or number of a declared type
            return self.constant(fn, t, self.checker.constants[e], e.tok)
        if isinstance(e, syntax.Name):
            return fn.env[e.tok.text]
        if isinstance(e, syntax.Literal):
            return self.constant(fn, t, e.values, e.tok)
        if isinstance(e, syntax.Negate):
            v = self.expr(e.operand, fn)
            for tok in reversed(e.signs):  # the innermost minus applies first
                v = self.emit(fn, mg.NegOp(as_tensor(v)), tok)
            return v
        if isinstance(e, syntax.Compare):
            return self.step(fn, e.op, self.expr(e.left, fn), self.expr(e.right, fn), t)
        if isinstance(e, syntax.Logical):
            return self.logical(fn, e, t)
        if isinstance(e, syntax.Chain):
            left = self.expr(e.first, fn)
            for (tok, right), t in zip(e.rest, self.checker.steps[e]):
                left = self.step(fn, tok, left, self.expr(right, fn), t)
            return left
        if isinstance(e, syntax.Index):
            base = as_tensor(self.expr(e.base, fn))
            options = self.checker.options[e]
            if "part" in options:
                return self.part(fn, e, base, options["part"], t)
            return self.emit(fn, mg.ExtractOp(base, options["indices"]), e.tok)
        assert isinstance(e, syntax.Call)
        return self.call(e, fn, t)

    def part(self, fn: Function, e: syntax.Index, x: SSAValue, steps: list[tuple], t: TensorType) -> SSAValue:
        """``x[a:b, i, s : s + n]``: an ``mg.slice`` per axis with compile-time bounds (a view
        where the pipeline can make one), an ``mg.dynamic_slice`` per run-time start (an
        index is a slice of one), then ``mg.reshape`` dropping the indexed axes."""
        for kind, axis, *bounds in steps:
            if kind == "slice":
                lo, hi = bounds
                if (lo, hi) != (0, mg.shape_of(x.type)[axis]):
                    x = self.emit(fn, mg.SliceOp(x, axis, lo, hi), e.tok)
            else:
                start, length = bounds
                x = self.emit(fn, mg.DynamicSliceOp(x, as_tensor(self.expr(start, fn)), axis, length), e.tok)
        if mg.shape_of(x.type) != t.shape:
            x = self.emit(fn, mg.ReshapeOp(x, mg.tensor_type(t.shape, t.element)), e.tok)
        return x

    def logical(self, fn: Function, e: syntax.Logical, t: TensorType) -> SSAValue:
        """``a and b`` is ``where(a, b, false)``, ``a or b`` ``where(a, true, b)``, ``not a``
        ``where(a, false, true)`` (``mg.select``, each operand grown to the result's shape)."""
        values = [self.expr(x, fn) for x in e.operands]
        if e.tok.text == "not":
            return self.where(fn, e.tok, [values[0], 0, 1], t)
        result = values[0]
        for v in values[1:]:
            args = [result, v, 0] if e.tok.text == "and" else [result, 1, v]
            shape = shapes.broadcast_shapes(mg.shape_of(as_tensor(result).type), mg.shape_of(as_tensor(v).type))
            result = self.where(fn, e.tok, args, TensorType(shape, t.element))
        return as_tensor(result)

    def step(self, fn: Function, tok: Token, left: Value, right: Value, t: Type) -> Value:
        """One operator of a chain, whose result the checker typed ``t`` (a number is its
        own value, a matrix's shape is its value's type)."""
        if not isinstance(t, TensorType):
            return t
        if tok.text == "@":  # (the batch axes of each operand grown to the result's)
            left, right = as_tensor(left), as_tensor(right)
            # a vector as a row on the left, a column on the right (NumPy's matmul rule)
            as_matrices = shapes.as_matrices(mg.shape_of(left.type), mg.shape_of(right.type))
            left, right = (
                v if mg.shape_of(v.type) == m else self.emit(fn, mg.ReshapeOp(v, mg.tensor_type(m, t.element)), tok)
                for v, m in zip((left, right), as_matrices)
            )
            batch = shapes.batched_matmul_shape(*as_matrices)[:-2]
            lhs = self.grow(fn, left, (*batch, *mg.shape_of(left.type)[-2:]), tok, [right], mg.batch_differs)
            rhs = self.grow(fn, right, (*batch, *mg.shape_of(right.type)[-2:]), tok, [left], mg.batch_differs)
            product = self.accumulating(fn, tok, [lhs, rhs], lambda a, b: self.emit(fn, mg.MatmulOp(a, b), tok))
            if mg.shape_of(product.type) != t.shape:
                product = self.emit(fn, mg.ReshapeOp(product, mg.tensor_type(t.shape, t.element)), tok)
            return product
        return self.combine(fn, tok, OPERATORS[tok.text], left, right, t)

    def combine(self, fn: Function, tok: Token, op: str, left: Value, right: Value, t: TensorType) -> SSAValue:
        """``left op right`` element by element, of type ``t``: ``mg.scalar`` with a number,
        else both grown to ``t``'s shape and combined."""
        if not isinstance(left, SSAValue) or not isinstance(right, SSAValue):
            tensor, number, reversed_ = (left, right, False) if isinstance(left, SSAValue) else (right, left, True)
            assert isinstance(tensor, SSAValue) and is_number(number)  # (the checker folded two numbers)
            return self.emit(fn, mg.ScalarOp(tensor, op, number, reversed_), tok)
        check = operands_differ(mg.CompareOp if op in mg.COMPARISONS else ELEMENTWISE_OPS[op])
        lhs = self.grow(fn, left, t.shape, tok, [right], check)
        rhs = self.grow(fn, right, t.shape, tok, [left], check)
        if op in mg.COMPARISONS:
            return self.emit(fn, mg.CompareOp(lhs, rhs, op), tok)
        return self.emit(fn, ELEMENTWISE_OPS[op](lhs, rhs), tok)  # of type tensor<t.shape>

    def grow(
        self, fn: Function, v: SSAValue, target: Shape, tok: Token, others: Sequence[Value], check: Callable[[int], str]
    ) -> SSAValue:
        """Broadcast ``v`` to ``target`` with an explicit ``mg.broadcast`` where needed. A
        ``?`` of ``v`` where ``target`` has a static size is never broadcast: an ``mg.cast``
        claims that size first (checked at run time, ``check(d)`` the message for dimension
        ``d`` of ``target``), and the static 1s grow after it. A ``?`` that ``v``
        lacks (a dimension added in front) takes its size from the ``others`` it is combined
        with (the broadcast's ``like`` operands)."""
        shape = mg.shape_of(v.type)
        if not shapes.needs_broadcast(shape, target):
            return v
        element = mg.tensor_type_of(v).element_type
        lead = len(target) - len(shape)
        v = self.claim_sizes(fn, v, target, len(target), tok, check)
        like = [o for o in others if isinstance(o, SSAValue)] if None in target[:lead] else []
        return self.emit(fn, mg.BroadcastOp(v, mg.tensor_type(target, element), like), tok)

    def claim_sizes(
        self, fn: Function, v: SSAValue, shape: Shape, rank: int, tok: Token, check: Callable[[int], str]
    ) -> SSAValue:
        """``v`` with the static sizes of ``shape`` (aligned on the right) claimed for its
        ``?``s; ``check(d)`` the message for dimension ``d`` of a result of rank ``rank``."""
        have = mg.shape_of(v.type)
        lead = len(shape) - len(have)
        claimed = tuple(shape[lead + d] if s is None else s for d, s in enumerate(have))
        if claimed == have:
            return v
        return self.claim(fn, v, claimed, tok, lambda d: check(rank - len(have) + d))

    def claim(self, fn: Function, v: SSAValue, claimed: Shape, tok: Token, message: Callable[[int], str]) -> SSAValue:
        """``mg.cast`` of ``v`` to the shape ``claimed`` (a static size for some of its ``?``s,
        or a ``?`` for a static size); ``message(d)`` is what the run-time check of a claimed
        dimension ``d`` says when the size differs."""
        shape = mg.shape_of(v.type)
        messages = [
            message(d) if want is not None and have is None else ""
            for d, (have, want) in enumerate(zip(shape, claimed))
        ]
        cast = mg.CastOp(
            v,
            mg.tensor_type(claimed, mg.tensor_type_of(v).element_type),
            messages if any(messages) else None,
        )
        return self.emit(fn, cast, tok)

    def constant(self, fn: Function, t: TensorType, values: list[int | float], tok: Token) -> SSAValue:
        """An ``mg.constant`` of type ``t`` holding ``values`` (row-major)."""
        if element_types.is_integer(t.element):
            values = [int(v) for v in values]  # (the checker made sure they are whole)
        attr = DenseIntOrFPElementsAttr.from_list(mg.tensor_type(t.shape, t.element), values)  # pyright: ignore[reportCallIssue, reportArgumentType]  # xDSL: from_list's overloads want the element type's class known statically
        return self.emit(fn, mg.ConstantOp(attr), tok)

    def accumulating(
        self, fn: Function, tok: Token, operands: list[SSAValue], build: Callable[..., SSAValue]
    ) -> SSAValue:
        """``build(*operands)``, an op that accumulates (a product, a reduction): built on the
        operands converted to the type their element type accumulates in and its result
        converted back (``bf16`` accumulates in ``f32`` and rounds once)."""
        element = mg.tensor_type_of(operands[0]).element_type
        wide = element_types.accumulates_in(element)
        if wide == element:
            return build(*operands)
        converted = [self.emit(fn, mg.ConvertOp(v, wide), tok) for v in operands]
        return self.emit(fn, mg.ConvertOp(build(*converted), element), tok)

    def reduction(
        self, fn: Function, tok: Token, kind: str, x: SSAValue, axes: list[int], keepdims: bool, t: TensorType
    ) -> SSAValue:
        """``kind`` (sum, prod, max, min, mean) along ``axes``: one ``mg.reduce`` per axis, the
        last axis first (each keeps its axis, of size 1); a mean divides by the number of
        elements folded; without ``keepdims``, ``mg.reshape`` drops the axes. (``bf16``: all
        of it in ``f32``, see ``accumulating``.) Along no axes (``axes=[]``) nothing is folded:
        the value is ``x`` itself, as NumPy's ``axis=()`` gives."""
        if not axes:
            return x
        return self.accumulating(fn, tok, [x], lambda x: self.reduce_axes(fn, tok, kind, x, axes, keepdims, t))

    def reduce_axes(
        self, fn: Function, tok: Token, kind: str, x: SSAValue, axes: list[int], keepdims: bool, t: TensorType
    ) -> SSAValue:
        mean, kind = kind == "mean", "sum" if kind == "mean" else kind
        shape, element = mg.shape_of(x.type), mg.tensor_type_of(x).element_type
        # A mean over '?' sizes divides by the count when the program runs (mg.size).
        counted = self.emit(fn, mg.SizeOp(x, axes), tok) if mean and any(shape[a] is None for a in axes) else None
        # The innermost axis first: its loop then reads contiguous elements, and the later
        # reductions (along the axes that strided) have less to read.
        for axis in reversed(axes):
            x = self.emit(fn, mg.ReduceOp(x, axis, kind), tok)
        if mean and counted is None:
            count = math.prod(shape[a] or 1 for a in axes)
            x = self.emit(fn, mg.ScalarOp(x, "div", float(count), reversed=False), tok)
        elif counted is not None:
            count = self.emit(fn, mg.ConvertOp(counted, element), tok)
            count = self.emit(fn, mg.BroadcastOp(count, x.type, [x]), tok)
            x = self.emit(fn, mg.DivOp(x, count), tok)
        if not keepdims and axes:
            x = self.emit(fn, mg.ReshapeOp(x, mg.tensor_type(t.shape, mg.tensor_type_of(x).element_type)), tok)
        return x

    def shape_op(self, fn: Function, c: syntax.Call, options: dict, t: TensorType) -> SSAValue:
        """``mg.transpose`` with a permutation, ``mg.reshape``, ``mg.broadcast`` (a ``?`` of
        the input claimed by ``mg.cast`` first, as for an operator), ``mg.slice``."""
        name = c.tok
        if name.text == "concat":
            listed = c.args[1]
            assert isinstance(listed, syntax.ExprList)
            items = [as_tensor(self.expr(e, fn)) for e in listed.items]
            return self.emit(fn, mg.ConcatOp(items, options["axis"], mg.tensor_type(t.shape, t.element)), name)
        x = as_tensor(self.expr(c.args[0], fn))
        if name.text == "transpose":
            return self.emit(fn, mg.TransposeOp(x, permutation=options["permutation"]), name)
        if name.text == "reshape":
            return self.emit(fn, mg.ReshapeOp(x, mg.tensor_type(t.shape, t.element)), name)
        if name.text == "slice":
            return self.emit(fn, mg.SliceOp(x, options["axis"], options["start"], options["stop"]), name)

        def differs(d: int) -> str:
            return f"mg.broadcast: dimension {d} differs at runtime from the shape broadcast to"

        if "like" in options:  # broadcast_to(m, shape(x)) of an x with '?' sizes
            like = as_tensor(self.expr(options["like"], fn))
            grown = mg.BroadcastOp(x, mg.tensor_type(t.shape, t.element), [like])
            grown.attributes[mg.LIKE_SHAPE] = UnitAttr()  # (every '?' it keeps checked against x's)
            return self.emit(fn, grown, name)

        grown = self.grow(fn, x, t.shape, name, [], differs)
        if mg.shape_of(grown.type) != t.shape:  # (a '?' where nothing grows: claimed, as grow claims)
            grown = self.claim(fn, grown, t.shape, name, differs)
        return grown

    def scan(self, fn: Function, tok: Token, args: list[Value], options: dict, t: TensorType) -> SSAValue:
        """``mg.linear_scan`` of ``a`` and ``b`` grown to the result's shape (a number an
        ``mg.full_like`` of the other); ``cumsum(x)`` is the scan of ``a = 1``."""
        if tok.text == "cumsum":
            args = [self.emit(fn, mg.FullLikeOp(as_tensor(args[0]), 1.0, t.element), tok), args[0]]
        check = operands_differ(mg.LinearScanOp)
        grown = [
            self.grow(fn, v, t.shape, tok, [o for o in args if o is not v], check) if isinstance(v, SSAValue) else v
            for v in args
        ]
        a, b = (
            v
            if isinstance(v, SSAValue)
            else self.emit(fn, mg.FullLikeOp(next(o for o in grown if isinstance(o, SSAValue)), v, t.element), tok)
            for v in grown
        )
        return self.emit(
            fn,
            mg.LinearScanOp(
                a,
                b,
                options["axis"],
                options["reverse"],
                mg.tensor_type(t.shape, t.element),
            ),
            tok,
        )

    def random(self, fn: Function, tok: Token, options: dict, t: TensorType) -> SSAValue:
        """``mg.random``; a spread of zero (``std=0.0``, ``low == high``) is the constant
        itself, with no random op (seed 004's rule)."""
        result = mg.tensor_type(t.shape, t.element)
        if tok.text == "normal":
            a, b, spread = options["mean"], options["std"], options["std"]
        else:
            a, b = options["low"], options["high"]
            spread = b - a
        if spread == 0:
            return self.emit(fn, mg.FullOp(result, a), tok)
        return self.emit(fn, mg.RandomOp(result, tok.text, int(options["seed"]), a, b), tok)

    def where(self, fn: Function, tok: Token, args: list[Value], t: TensorType) -> SSAValue:
        """``mg.select`` of the three arguments grown to the result's shape; a number is an
        ``mg.full_like`` of a tensor argument (the mask at least). As the checker types it, the
        two values combine first, as an operator combines them: a ``?`` of one against a
        static size of the other takes that size (checked when the program runs), a static 1
        that then grows against the mask."""
        check = operands_differ(mg.SelectOp)
        tensors = [a for a in args[1:] if isinstance(a, SSAValue)]
        if len(tensors) == 2:
            values = shapes.broadcast_shapes(mg.shape_of(tensors[0].type), mg.shape_of(tensors[1].type))
            args = [args[0], *(self.claim_sizes(fn, v, values, len(t.shape), tok, check) for v in tensors)]
        grown = [
            self.grow(fn, a, t.shape, tok, [o for o in args if o is not a], check) if isinstance(a, SSAValue) else a
            for a in args
        ]
        mask = as_tensor(grown[0])
        values = [
            v if isinstance(v, SSAValue) else self.emit(fn, mg.FullLikeOp(mask, v, t.element), tok) for v in grown[1:]
        ]
        return self.emit(fn, mg.SelectOp(mask, *values), tok)

    # -- calls: a builtin's is built by its family's method (its record names the family) --

    def call(self, c: syntax.Call, fn: Function, t: TensorType) -> SSAValue:
        builtin = BUILTINS.get(c.tok.text)
        if builtin is not None:
            return getattr(self, f"build_{builtin.family}")(c, fn, t, builtin)
        return self.call_def(c, fn, t).results[0]

    def arguments(self, c: syntax.Call, fn: Function) -> list[Value]:
        return [self.expr(a, fn) for a in c.args]

    def tensors(self, c: syntax.Call, fn: Function) -> list[SSAValue]:
        """The values of ``c``'s arguments, which the checker typed as tensors."""
        return [as_tensor(v) for v in self.arguments(c, fn)]

    def build_cast(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        x = as_tensor(self.expr(c.args[0], fn))  # (the second argument names the element type)
        return self.emit(fn, mg.ConvertOp(x, t.element), c.tok)

    def file_path(self, path: str) -> str:
        """``path`` made absolute: a relative one is relative to the program's directory (the
        working directory for a program read from standard input or given as text)."""
        return os.path.abspath(os.path.join(self.directory, os.path.expanduser(path)))

    def build_argument(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        """``arg("lr", 0.1)``: ``mg.arg``, the value given on the command line or the default."""
        options = self.checker.options[c]
        return self.emit(fn, mg.ArgOp(options["name"], options["default"]), c.tok)

    def build_files(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        """``load("x.npy")`` into its declared type ``t`` (``save`` is a statement)."""
        path = c.args[0]
        assert isinstance(path, syntax.Str)
        return self.emit(fn, mg.LoadOp(self.file_path(path.value), mg.tensor_type(t.shape, t.element)), c.tok)

    def build_shape_query(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        """``dim(x, a)``, ``numel(x)`` of ``?`` sizes: ``mg.size`` (the static ones are numbers)."""
        x = as_tensor(self.expr(c.args[0], fn))
        return self.emit(fn, mg.SizeOp(x, self.checker.options[c]["axes"]), c.tok)

    def build_creation(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        options = self.checker.options.get(c, {})
        if "like" in options:  # zeros(shape(x)) of an x with '?' sizes
            like = as_tensor(self.expr(options["like"], fn))
            return self.emit(fn, mg.FullLikeOp(like, options["value"], t.element), c.tok)
        if builtin.op is mg.FullLikeOp:
            like = as_tensor(self.expr(c.args[0], fn))
            return self.emit(fn, mg.FullLikeOp(like, options["value"], t.element), c.tok)
        if builtin.op is mg.IotaOp:
            return self.emit(fn, mg.IotaOp(mg.tensor_type(t.shape, t.element), options["axis"]), c.tok)
        return self.emit(fn, mg.FullOp(mg.tensor_type(t.shape, t.element), options["value"]), c.tok)

    def build_random(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        return self.random(fn, c.tok, self.checker.options.get(c, {}), t)

    def build_shape_op(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin | None = None) -> SSAValue:
        return self.shape_op(fn, c, self.checker.options.get(c, {}), t)

    def build_transpose(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        if len(c.args) == 2:  # transpose(x, perm)
            return self.build_shape_op(c, fn, t)
        x = as_tensor(self.expr(c.args[0], fn))
        return self.emit(fn, mg.TransposeOp(x), c.tok)

    def build_where(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        return self.where(fn, c.tok, self.arguments(c, fn), t)

    def build_arg_reduction(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        (x,) = self.tensors(c, fn)
        return self.emit(fn, mg.ArgReduceOp(x, self.checker.options[c]["axis"], builtin.kind), c.tok)

    def build_reduction(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        options = self.checker.options.get(c, {})
        (x,) = self.tensors(c, fn)
        return self.reduction(fn, c.tok, builtin.kind, x, options["axes"], options["keepdims"], t)

    def build_scan(self, c: syntax.Call, fn: Function, t: TensorType, _: Builtin) -> SSAValue:
        return self.scan(fn, c.tok, self.arguments(c, fn), self.checker.options.get(c, {}), t)

    def build_indexing(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        assert builtin.op is not None
        return self.emit(fn, builtin.op(*self.tensors(c, fn), **self.checker.options.get(c, {})), c.tok)

    def build_math_unary(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        assert builtin.op is not None and issubclass(builtin.op, mg.UnaryOp)
        x = as_tensor(self.expr(c.args[0], fn))
        return self.emit(fn, builtin.op(x), c.tok)

    def build_math_binary(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        left, right = self.arguments(c, fn)
        return self.combine(fn, c.tok, builtin.combines, left, right, t)

    def build_chapter(self, c: syntax.Call, fn: Function, t: TensorType, builtin: Builtin) -> SSAValue:
        """``relu``, and the ``row_*`` (one value per row: axis 1) and ``col_*`` reductions
        (one per column: axis 0), the reduced axis kept."""
        (x,) = self.tensors(c, fn)
        if builtin.op is mg.ReluOp:
            return self.emit(fn, mg.ReluOp(x), c.tok)
        return self.reduction(fn, c.tok, builtin.kind, x, [builtin.axis], True, t)

    def call_def(self, c: syntax.Call, fn: Function, t: TensorType | None) -> func.CallOp:
        """A call of a def: each argument given the parameter's type (a number a constant, a
        size claimed or forgotten), then ``func.call``."""
        name = c.tok
        args = self.arguments(c, fn)
        sig = self.checker.functions[name.text]
        values: list[SSAValue] = []
        for i, (arg, pname, ptype) in enumerate(zip(args, sig.names, sig.types), start=1):
            if not isinstance(arg, SSAValue):  # a number given for a tensor[] parameter
                arg = self.constant(fn, ptype, [arg], name)
            if mg.shape_of(arg.type) != ptype.shape:
                # A static size passed as '?' is forgotten; a '?' passed where a static size
                # is expected is checked when the program runs (the argument named as the
                # checker's errors name it).
                wanted = f"argument {i} of {name.text} ({pname}) must be {type_text(ptype)}"
                arg = self.claim(
                    fn,
                    arg,
                    ptype.shape,
                    name,
                    lambda d: f"{wanted}: its size in dimension {d} differs at runtime",
                )
            values.append(arg)
        call = func.CallOp(name.text, values, [mg.tensor_type(r.shape, r.element) for r in sig.results])
        self.place(fn, call, name)
        return call
