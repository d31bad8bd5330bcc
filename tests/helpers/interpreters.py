"""Interpreting a program at each stage of the pipeline, for the stage-equivalence test.

xDSL's interpreters run the linalg, affine, scf, cf, arith, memref and func levels; this module adds
what they lack for our IR (``arith.divf/negf``, ``memref.cast``, the external
``printMemrefF64``) and an interpreter of the mg dialect itself, written with NumPy from the
ops' documented meaning, so that the very first stage is checked too.
"""

import io
from dataclasses import dataclass, field
from math import prod

import numpy as np
from xdsl.dialects import affine as affine_dialect, arith, cf, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, FloatAttr, IndexType, IntegerAttr, ModuleOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_external,
    register_impls,
)
from xdsl.interpreters import affine, arith as xarith, builtin, cf as xcf, func, linalg, memref as xmemref, scf
from xdsl.interpreters.builtin import xtype_for_el_type
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr

from mg_xdsl.backend.runtime import format_memref
from mg_xdsl.dialects import mg


@dataclass
class StridedArray(ShapedArray):
    """A view (``memref.subview``, ``memref.reinterpret_cast``): the elements of another
    array's storage at ``offset + sum(index * strides)``."""

    strides: list[int] = field(default_factory=list)
    start: int = 0

    @staticmethod
    def layout_of(a: ShapedArray) -> tuple[list[int], int]:
        if isinstance(a, StridedArray):
            return a.strides, a.start
        return [prod(a.shape[d + 1 :]) for d in range(len(a.shape))], 0

    def offset(self, index) -> int:
        return self.start + sum(i * s for i, s in zip(index, self.strides, strict=True))

    @property
    def data(self) -> list:
        return [self.load(i) for i in self.indices()]


def _mixed(static, dynamic) -> list[int]:
    values = iter(a.value.data for a in dynamic)
    return [next(values) if x == DYNAMIC_INDEX else x for x in static.get_values()]


def print_array(out: io.StringIO, a: np.ndarray) -> None:
    strides = [prod(a.shape[d + 1 :]) for d in range(a.ndim)]
    out.write(format_memref(0, a.ravel().tolist(), 0, list(a.shape), strides))


@register_impls
class MissingFunctions(InterpreterFunctions):
    def __init__(self, out: io.StringIO):
        self.out = out

    @impl(arith.DivfOp)
    def run_divf(self, interpreter: Interpreter, op: arith.DivfOp, args: PythonValues):
        with np.errstate(all="ignore"):
            return (FloatAttr(float(np.float64(args[0].value.data) / np.float64(args[1].value.data)), op.result.type),)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp, args: PythonValues):
        return (FloatAttr(-args[0].value.data, op.result.type),)

    @impl(memref.CastOp)
    def run_cast(self, interpreter: Interpreter, op: memref.CastOp, args: PythonValues):
        return (args[0],)

    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues):
        sizes = iter(a.value.data for a in args)
        shape = [next(sizes) if d == DYNAMIC_INDEX else d for d in op.memref.type.get_shape()]
        xtype = xtype_for_el_type(op.memref.type.get_element_type(), interpreter.index_bitwidth)
        return (ShapedArray(TypedPtr.zeros(prod(shape), xtype=xtype), shape),)

    @impl(affine_dialect.ForOp)
    def run_for(self, interpreter: Interpreter, op: affine_dialect.ForOp, args: PythonValues):
        """xDSL's knows only constant bounds; a loop over a `?` dimension has operands."""

        def bound(map_attr, operands):
            values = [interpreter.get_values((v,))[0].value.data for v in operands]
            m = map_attr.data
            (b,) = m.eval(values[: m.num_dims], values[m.num_dims :])
            return b

        lb = bound(op.lowerBoundMap, op.lowerBoundOperands)
        ub = bound(op.upperBoundMap, op.upperBoundOperands)
        for i in range(lb, ub, op.step.value.data):
            interpreter.run_ssacfg_region(op.body, (IntegerAttr(i, IndexType()),))
        return ()

    @impl(memref.SubviewOp)
    def run_subview(self, interpreter: Interpreter, op: memref.SubviewOp, args: PythonValues):
        source, n, m = args[0], 1 + len(op.offsets), 1 + len(op.offsets) + len(op.sizes)
        offsets, sizes, steps = args[1:n], args[n:m], args[m:]
        strides, start = StridedArray.layout_of(source)
        at = _mixed(op.static_offsets, offsets)
        return (
            StridedArray(
                source.data_ptr,
                _mixed(op.static_sizes, sizes),
                [s * t for s, t in zip(strides, _mixed(op.static_strides, steps))],
                start + sum(o * s for o, s in zip(at, strides)),
            ),
        )

    @impl(memref.ReinterpretCastOp)
    def run_reinterpret_cast(self, interpreter: Interpreter, op: memref.ReinterpretCastOp, args: PythonValues):
        assert not op.offsets and not op.sizes and not op.strides, "static reinterpret casts only"
        (offset,) = op.static_offsets.get_values()
        return (
            StridedArray(
                args[0].data_ptr, list(op.static_sizes.get_values()), list(op.static_strides.get_values()), offset
            ),
        )

    @impl(memref.DimOp)
    def run_dim(self, interpreter: Interpreter, op: memref.DimOp, args: PythonValues):
        return (IntegerAttr(args[0].shape[args[1].value.data], IndexType()),)

    @impl(memref.CopyOp)
    def run_copy(self, interpreter: Interpreter, op: memref.CopyOp, args: PythonValues):
        source, target = args
        for i, x in enumerate(source.data):
            target.data_ptr[i] = x
        return ()

    @impl(cf.AssertOp)
    def run_assert(self, interpreter: Interpreter, op: cf.AssertOp, args: PythonValues):
        if not args[0].value.data:
            raise RuntimeError(op.msg.data)
        return ()

    @impl_external("mgrt_check_failed")
    def check_failed(self, interpreter: Interpreter, op, args: PythonValues):
        raise RuntimeError("a run-time check failed")

    @impl_external("mgrt_range_check_failed")
    def range_check_failed(self, interpreter: Interpreter, op, args: PythonValues):
        raise RuntimeError("a run-time range check failed")

    @impl_external("printMemrefF64")
    def print_memref(self, interpreter: Interpreter, op, args: PythonValues):
        (array,) = args
        print_array(self.out, np.array(array.data, dtype=np.float64).reshape(array.shape))
        return ()


@register_impls
class MgFunctions(InterpreterFunctions):
    """The mg dialect's meaning, on NumPy arrays."""

    def __init__(self, out: io.StringIO):
        self.out = out

    @impl(mg.ConstantOp)
    def constant(self, interpreter, op: mg.ConstantOp, args):
        return (np.array(op.value.get_values(), dtype=np.float64).reshape(op.value.get_shape()),)

    @impl(mg.AddOp)
    def add(self, interpreter, op, args):
        return (args[0] + args[1],)

    @impl(mg.SubOp)
    def sub(self, interpreter, op, args):
        return (args[0] - args[1],)

    @impl(mg.MulOp)
    def mul(self, interpreter, op, args):
        return (args[0] * args[1],)

    @impl(mg.DivOp)
    def div(self, interpreter, op, args):
        with np.errstate(all="ignore"):
            return (args[0] / args[1],)

    @impl(mg.NegOp)
    def neg(self, interpreter, op, args):
        return (-args[0],)

    @impl(mg.ReluOp)
    def relu(self, interpreter, op, args):
        x = args[0]
        return (np.where(np.isnan(x), x, np.maximum(x, 0.0)),)

    @impl(mg.ScalarOp)
    def scalar(self, interpreter, op: mg.ScalarOp, args):
        x, c = args[0], np.float64(op.value.value.data)
        a, b = (c, x) if op.reversed.value.data else (x, c)
        with np.errstate(all="ignore"):
            return ({"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op.op.data](a, b),)

    @impl(mg.MatmulOp)
    def matmul(self, interpreter, op, args):
        a, b = args
        acc = np.zeros((a.shape[0], b.shape[1]))
        for k in range(a.shape[1]):  # the language's summation order
            acc = acc + np.multiply.outer(a[:, k], b[k, :])
        return (acc,)

    @impl(mg.TransposeOp)
    def transpose(self, interpreter, op, args):
        return (args[0].T.copy(),)

    @impl(mg.BroadcastOp)
    def broadcast(self, interpreter, op: mg.BroadcastOp, args):
        return (np.broadcast_to(args[0], op.result.type.get_shape()).copy(),)

    @impl(mg.ReduceOp)
    def reduce(self, interpreter, op: mg.ReduceOp, args):
        x, axis = args[0], op.axis.value.data
        combine = np.maximum if op.kind.data == "max" else np.add
        acc = np.full([1 if d == axis else s for d, s in enumerate(x.shape)], -np.inf if op.kind.data == "max" else 0.0)
        for k in range(x.shape[axis]):
            acc = combine(acc, np.take(x, [k], axis=axis))
        return (acc,)

    @impl(mg.CastOp)
    def cast(self, interpreter, op, args):
        x, want = args[0], op.result.type.get_shape()
        if any(w >= 0 and w != got for w, got in zip(want, x.shape)):
            raise RuntimeError("mg.cast: shape differs at runtime")
        return (x,)

    @impl(mg.PrintOp)
    def print_(self, interpreter, op, args):
        print_array(self.out, args[0])
        return ()


def interpret(module: ModuleOp) -> str:
    """Run ``@main`` of a module at any stage from mg to cf (linalg included); what it
    printed."""
    out = io.StringIO()
    interpreter = Interpreter(module)
    for functions in (
        affine.AffineFunctions(),
        xarith.ArithFunctions(),
        builtin.BuiltinFunctions(),
        xcf.CfFunctions(),
        func.FuncFunctions(),
        xmemref.MemRefFunctions(),
        scf.ScfFunctions(),
        linalg.LinalgFunctions(),
        MgFunctions(out),
    ):
        interpreter.register_implementations(functions)
    # Ours replace xDSL's memref.alloc, which knows only static shapes.
    interpreter.register_implementations(MissingFunctions(out), override=True)
    interpreter.call_op("main", ())
    return out.getvalue()
