"""Interpreting a program at each stage of the pipeline, for the stage-equivalence test.

xDSL's interpreters run the affine, scf, cf, arith, memref and func levels; this module adds
what they lack for our IR (``arith.divf/negf``, ``memref.cast``, the external
``printMemrefF64``) and an interpreter of the mg dialect itself, written with NumPy from the
ops' documented meaning, so that the very first stage is checked too.
"""

import io
from math import prod

import numpy as np
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import FloatAttr, ModuleOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_external,
    register_impls,
)
from xdsl.interpreters import affine, arith as xarith, builtin, cf, func, memref as xmemref, scf

from mg_xdsl.backend.runtime import format_memref
from mg_xdsl.dialects import mg


def print_array(out: io.StringIO, a: np.ndarray) -> None:
    strides = [prod(a.shape[d + 1:]) for d in range(a.ndim)]
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
        acc = np.full([1 if d == axis else s for d, s in enumerate(x.shape)],
                      -np.inf if op.kind.data == "max" else 0.0)
        for k in range(x.shape[axis]):
            acc = combine(acc, np.take(x, [k], axis=axis))
        return (acc,)

    @impl(mg.PrintOp)
    def print_(self, interpreter, op, args):
        print_array(self.out, args[0])
        return ()


def interpret(module: ModuleOp) -> str:
    """Run ``@main`` of a module at any stage from mg to cf; what it printed."""
    out = io.StringIO()
    interpreter = Interpreter(module)
    for functions in (affine.AffineFunctions(), xarith.ArithFunctions(), builtin.BuiltinFunctions(),
                      cf.CfFunctions(), func.FuncFunctions(), xmemref.MemRefFunctions(),
                      scf.ScfFunctions(), MissingFunctions(out), MgFunctions(out)):
        interpreter.register_implementations(functions)
    interpreter.call_op("main", ())
    return out.getvalue()
