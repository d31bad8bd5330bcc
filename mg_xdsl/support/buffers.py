"""Building blocks of the passes that make and walk buffers (memrefs): the memref of a
tensor type, sizes (a number where static, else the run-time size), new buffers, perfect
nests of affine loops with their loads and stores, run-time size checks, and a memref
type's strides where they are known.

``lower-mg-to-affine`` and ``convert-mg-to-linalg`` build their code from these; the memref
transforms and the to-LLVM conversions read types with them. A helper module: no pass.
"""

from collections.abc import Callable, Sequence
from functools import cache

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, cf, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ContainerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from mg_xdsl.core import element_types
from mg_xdsl.dialects import mg
from mg_xdsl.support import op_builders
from mg_xdsl.support.op_builders import (
    INDEX,
    affine_for,
    affine_load,
    affine_parallel,
    affine_store,
    affine_yield,
    arith_constant,
    memref_alloc,
)


@cache  # a type takes longer to build than to look up, and a program has few of them
def memref_type_of(t: Attribute) -> MemRefType:
    """The memref that holds a value of tensor type ``t`` (same shape and element type)."""
    assert isinstance(t, TensorType | MemRefType)
    return MemRefType(t.element_type, t.get_shape())


@cache
def _bound_map(size: int | None) -> AffineMapAttr:
    """A loop bound: the number ``size``, or (``None``) the run-time size passed to the loop."""
    if size is None:
        return AffineMapAttr(AffineMap(0, 1, (AffineExpr.symbol(0),)))
    return AffineMapAttr(AffineMap(0, 0, (AffineExpr.constant(size),)))


def element_type_of(v: SSAValue) -> Attribute:
    """The element type of a tensor, memref or vector value."""
    t = v.type
    assert isinstance(t, ContainerType), f"{t} has no elements"
    return t.get_element_type()


def element_constant(value: float, t: Attribute) -> SSAValue:
    """The number ``value`` of element type ``t`` (``-inf``: an integer type's minimum)."""
    return arith_constant(element_types.attr(value, t), t).result


def index_constant(value: int) -> SSAValue:
    return op_builders.index_constant(value).result


def extents(like: SSAValue, shape: Sequence[int | None]) -> list[int | SSAValue]:
    """Loop extents for ``shape``: the number where it is static, else the run-time size of
    that dimension of ``like`` (a memref of the same rank)."""
    return [d if d is not None else memref.DimOp(like, index_constant(i)).result for i, d in enumerate(shape)]


def as_index(size: int | SSAValue) -> SSAValue:
    return index_constant(size) if isinstance(size, int) else size


def check_same_size(a: int | SSAValue, b: int | SSAValue, message: str) -> None:
    """A run-time check (``cf.assert``) that two sizes agree, where either is known only at
    run time. Two static sizes were already checked by the front end and the verifier, so
    static shapes get no check at all; nor does a size compared with itself."""
    if (isinstance(a, int) and isinstance(b, int)) or a is b:
        return
    same = arith.CmpiOp(as_index(a), as_index(b), "eq")
    cf.AssertOp(same.result, message)


def result_buffer(op: Operation, sizes: Sequence[int | SSAValue]) -> SSAValue:
    """Where an elementwise op writes its result: its first operand's buffer if it is
    computed in place (``mg.IN_PLACE``: an update of a ``var``), else a new one."""
    return op.operands[0] if mg.IN_PLACE in op.attributes else alloc(op.results[0].type, sizes)


def alloc(result_type: Attribute, sizes: Sequence[int | SSAValue]) -> SSAValue:
    """A new buffer for a result; dynamic dimensions take their size from ``sizes``."""
    t = memref_type_of(result_type)
    dynamic = [s for s in sizes if isinstance(s, SSAValue)]
    return memref_alloc(dynamic, t).memref


def nest(
    sizes: Sequence[int | SSAValue],
    body: Callable[[list[SSAValue]], None],
    parallel: Sequence[bool] = (),
) -> Operation | None:
    """A perfect nest of loops, one per entry of ``sizes`` (outermost first), whose innermost
    body is built by ``body(induction_variables)``: an ``affine.for`` each, or an
    ``affine.parallel`` where ``parallel`` says so. Returns the innermost loop (``None``
    for no ``sizes``: the body alone)."""
    loops: list[Operation] = []

    def level(depth: int, ivs: list[SSAValue]) -> None:
        if depth == len(sizes):
            body(ivs)
            return
        block = Block(arg_types=[INDEX])
        with ImplicitBuilder(block):
            level(depth + 1, [*ivs, block.args[0]])
            affine_yield()
        size = sizes[depth]
        loop = affine_parallel if depth < len(parallel) and parallel[depth] else affine_for
        if isinstance(size, int):
            loops.append(loop(_bound_map(0), _bound_map(size), [], [], Region(block)))
        else:
            loops.append(loop(_bound_map(0), _bound_map(None), [], [size], Region(block)))

    level(0, [])
    return loops[0] if loops else None  # (the innermost is made first)


def load(buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return affine_load(buffer, indices).result


def store(value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
    affine_store(value, buffer, indices)


def module_prologue(module: ModuleOp) -> Builder:
    """Where module-level definitions (globals, declarations) go: before the first
    function, after the definitions already there, so they read top-down as in MLIR."""
    block = module.body.block
    first_func = next((op for op in block.ops if isinstance(op, func.FuncOp) and op.body.blocks), None)
    return Builder(InsertPoint.before(first_func) if first_func else InsertPoint.at_end(block))


def to_memref(t: Attribute) -> Attribute:
    return memref_type_of(t) if isinstance(t, TensorType) else t


def is_identity_layout(layout: Attribute) -> bool:
    return isinstance(layout, NoneAttr) or (
        isinstance(layout, AffineMapAttr) and layout.data == layout.data.identity(layout.data.num_dims)
    )


def static_strides_and_offset(t: MemRefType) -> tuple[list[int | None], int | None]:
    """Strides and offset of ``t`` where they are known at compile time (``None`` if not).

    The identity layout is row-major with offset 0; a stride is static when every size to its
    right is.
    """
    if isinstance(t.layout, StridedLayoutAttr):
        strides = [None if s is None or s == DYNAMIC_INDEX else s for s in t.layout.get_strides()]
        offset = t.layout.get_offset()
        return strides, None if offset is None or offset == DYNAMIC_INDEX else offset
    # An identity affine map is the default layout spelled out. Other layouts are declined
    # by ``check_convertible`` before a pass gets here.
    assert is_identity_layout(t.layout), f"unsupported memref layout {t.layout}"
    strides: list[int | None] = []
    running: int | None = 1
    for size in reversed(t.get_shape()):
        strides.append(running)
        running = None if running is None or size == DYNAMIC_INDEX else running * size
    return list(reversed(strides)), 0
