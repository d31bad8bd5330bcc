"""A module's kernel functions: ``@mg_<kernel>_<element>``, private, on ``memref<?x?x<element>>``
operands (or, for the matrix product, ``strided_matrix``: a matrix of a batch is a view),
added on first use and called from every nest they replace."""

import hashlib
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, MemRefType, ModuleOp, StridedLayoutAttr, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mg_xdsl.support.buffers import element_type_of


def strided_matrix(element: Attribute) -> MemRefType:
    """``memref<?x?x<element>, strided<[?, 1], offset: ?>>``: rows of any length apart, from any
    offset (a whole matrix, cast to it, or one matrix of a batch, a subview)."""
    return MemRefType(element, [DYNAMIC_INDEX, DYNAMIC_INDEX], StridedLayoutAttr([None, 1], None))


def element_type(buffer: SSAValue) -> AnyFloat:
    """The element type of a buffer that a kernel reads or writes: a float, as the ops the
    kernels take compute on floats (``arith.mulf`` and ``arith.addf``, ``arith.maximumf``)."""
    t = element_type_of(buffer)
    assert isinstance(t, AnyFloat), t
    return t


KERNELS_APART = "mg.kernels_apart"
"""The attribute of a module whose kernels are compiled apart (the Python API's: see
``mg_xdsl.backend.kernel_library``), naming the CPU they are for ("" for this host)."""

BUILDERS: dict[str, Callable[[], ModuleOp]] = {}
"""How to make each kernel declared in a module whose kernels are apart, by its symbol: a
module of that kernel alone, to be lowered and compiled once per process."""


def kernel_function(
    module: ModuleOp,
    name: str,
    element: Attribute,
    arg_names: Sequence[str],
    body: Callable[[Builder, Sequence[BlockArgument]], None],
    depends_on: str,
    arg_type: MemRefType | None = None,
) -> func.FuncOp:
    """The function ``@name`` of ``module``; if there is none yet, one made of what ``body``
    builds on its arguments, one ``arg_type`` (by default ``memref<?x?x<element>>``) for each
    of ``arg_names``, added at the end. Only the module's own ops are looked at, not their
    bodies: the kernels are top-level.

    In a module whose kernels are apart (``KERNELS_APART``), a declaration instead, of
    ``@<name>_<digest>``, the digest of ``depends_on`` (what ``body`` makes of the target:
    its vector unit, its caches) and the CPU; ``BUILDERS`` makes the kernel itself."""
    apart = module.attributes.get(KERNELS_APART)
    if apart is not None:
        assert isinstance(apart, StringAttr)
        name += "_" + hashlib.sha256(f"{name}\0{depends_on}\0{apart.data}".encode()).hexdigest()[:16]
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    arg_types = [arg_type or MemRefType(element, [DYNAMIC_INDEX, DYNAMIC_INDEX])] * len(arg_names)

    def definition() -> func.FuncOp:
        block = Block(arg_types=arg_types)
        for arg, hint in zip(block.args, arg_names):
            arg.name_hint = hint
        b = Builder(InsertPoint.at_end(block))
        body(b, block.args)
        b.insert(func.ReturnOp())
        return func.FuncOp(name, (arg_types, []), Region(block), visibility="private" if apart is None else None)

    if apart is None:
        f = definition()
    else:
        f = func.FuncOp.external(name, arg_types, [])
        BUILDERS.setdefault(name, lambda: ModuleOp([definition()]))
    module.body.block.add_op(f)
    return f


def call_kernel(b: Builder, f: func.FuncOp, operands: Sequence[SSAValue]) -> None:
    """``func.call @f(operands)``, each operand cast to the parameter's type (a static
    ``memref<4096x1xf64>`` to ``memref<?x?xf64>``) where it differs."""

    def as_param(v: SSAValue, t: Attribute) -> SSAValue:
        if v.type == t:
            return v
        assert isinstance(t, MemRefType)  # (a kernel's parameters are memrefs)
        return b.insert(memref.CastOp.get(v, t)).dest

    cast = [as_param(v, t) for v, t in zip(operands, f.function_type.inputs.data)]
    b.insert(func.CallOp(f.sym_name.data, cast, []))
