"""``stream-large-results``: an elementwise ``linalg.generic`` that fills a large result of
its function -> a vector loop over the flattened buffers whose stores bypass the caches.

Storing into a line that is not in the cache first reads the line from memory (write-
allocate): ``c = a + b`` moves four bytes for every three it needs. A non-temporal store
(``vector.store {nontemporal = true}``, x86's ``vmovntpd``) writes whole lines without
reading them and leaves them out of the cache. That pays where the result's lines would
have come from memory anyway, in a loop that streams more bytes than the cache keeps
(``min-bytes``, ``mg_xdsl.core.target.streaming_min_bytes``), and where no later loop of the
function reads the result back: so only a buffer that the function returns is streamed.

The op is rewritten where it

- is elementwise (``linalg-fuse-elementwise-ops``' ``is_elementwise``) and reads every
  input through the identity map too (a broadcast input has no flat index);
- writes a ``memref.alloc`` of the function that the function returns (contiguous, offset
  0: its flat index ``i`` is at byte ``8 * i`` of the buffer, which is then allocated
  aligned to a cache line);
- computes with ``arith`` ops only (each applies lane by lane to vectors);
- has static sizes, with which its loop streams ``min-bytes`` or more in all into a result of
  fewer than ``max-result-bytes`` (``mg_xdsl.core.target.FRESH_PAGES_BYTES``: larger results are
  fresh pages, which the kernel's zeroing has just brought into the cache).

Sizes known only at run time are left to LLVM's vectoriser: there the choice would be made
at run time, and each such function would carry this loop beside the op's own (30 functions
``relu(a + b) * k`` of ``?x?`` compiled in 1.55 s instead of 1.09 s through the Python API;
in 1.42 s with this loop alone, its kind of store chosen at run time). Before::

    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<1000x1000xf64>, memref<1000x1000xf64>)
        outs(%c : memref<1000x1000xf64>) { ... arith.addf ... }
    return %c

After (L lanes, the streaming width / 64 for f64; blocks of B = 8192 elements)::

    %c = memref.alloc() {alignment = 64 : i64} : memref<1000x1000xf64>
    %fa = memref.collapse_shape %a [[0, 1]] : memref<1000x1000xf64> into memref<1000000xf64>
    ...
    scf.parallel (%k) = (0) to (ceil(N / B)) step (1) {
      %lo = k * B, %hi = min(%lo + B, N), %end = %lo + (%hi - %lo) rounded down to L
      scf.for %i = %lo to %end step L {
        %x = vector.load %fa[%i] : memref<1000000xf64>, vector<Lxf64>
        %y = vector.load %fb[%i] ...
        %s = arith.addf %x, %y : vector<Lxf64>
        vector.store %s, %fc[%i] {alignment = 8L, nontemporal = true}
      }
      scf.for %i = %end to %hi step 1 { the same on one element, stored as usual }
      llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    }

Non-temporal stores are weakly ordered: the ``sfence`` at the end of each block makes them
visible before the thread that ran the block reports it done (``mgrt_parallel_for``), and
before the function returns. Where the target has no such stores (``nontemporal=false``:
not x86-64), the pass changes nothing.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    FixedBitwidthType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mg_xdsl.core import element_types
from mg_xdsl.core.target import CACHE_LINE, DEFAULT, FRESH_PAGES_BYTES, STREAMING_MIN_BYTES, worth_streaming
from mg_xdsl.support.loop_builders import add, ceil_div, for_loop, index, minimum, mul, parallel_loop, round_down, sub
from mg_xdsl.transforms.linalg.linalg_fuse_elementwise_ops import is_elementwise

BLOCK = 8192  # elements per parallel block: 64 KiB of f64, one sfence each
SFENCE = "llvm.x86.sse.sfence"


@dataclass
class Streamable:
    """A matched op: ``out = body(inputs)`` elementwise, ``out`` a returned allocation."""

    op: linalg.GenericOp
    inputs: list[SSAValue]
    out: SSAValue
    alloc: memref.AllocOp

    @property
    def out_type(self) -> MemRefType:
        t = self.out.type
        assert isinstance(t, MemRefType)  # (the result of a memref.alloc)
        return t

    @property
    def element(self) -> FixedBitwidthType:
        element = self.out_type.element_type
        assert isinstance(element, FixedBitwidthType)  # (match took no other element type)
        return element


def match(op: Operation) -> Streamable | None:
    if not is_elementwise(op):
        return None
    assert isinstance(op, linalg.GenericOp)
    rank = op.indexing_maps.data[-1].data.num_dims
    identity = AffineMap.identity(rank)
    if any(m.data != identity for m in op.indexing_maps) or len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    if not isinstance(out.owner, memref.AllocOp) or not any(isinstance(u.operation, func.ReturnOp) for u in out.uses):
        return None
    if not all(o.dialect_name() == "arith" for o in op.body.block.ops if not isinstance(o, linalg.YieldOp)):
        return None
    elements = [element_types.element_of(v.type) for v in (*op.inputs, out)]
    if any(element_types.is_bool(e) or element_types.computed_in(e) != e for e in elements):
        return None  # (a vector of i1 is packed in bits, its buffer a byte each; bf16, computed in f32, is converted bit by bit)
    if not all(isinstance(v.type, MemRefType) and v.type.layout == out.owner.memref.type.layout for v in op.inputs):
        return None  # only identity layouts flatten (a scalar input has no flat index either)
    return Streamable(op, list(op.inputs), out, out.owner)


def flattened(b: Builder, buffer: SSAValue) -> SSAValue:
    """``buffer`` as a one-dimensional memref (``memref.collapse_shape`` of every dimension)."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    reassociation = ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in range(len(shape))])])
    flat = MemRefType(t.element_type, [prod(shape)])  # (static sizes only: see worth_streaming)
    return b.insert(
        memref.CollapseShapeOp(operands=[buffer], result_types=[flat], properties={"reassociation": reassociation})
    ).results[0]


def apply_body(b: Builder, op: linalg.GenericOp, args: Sequence[SSAValue], lanes: int) -> SSAValue:
    """The value the body of ``op`` yields for ``args`` (one per input): scalars when
    ``lanes`` is 0, else vectors of that many lanes (each ``arith`` op applied to vectors;
    a constant made as a scalar, then broadcast)."""
    env: dict[SSAValue, SSAValue] = dict(zip(op.body.block.args, args))
    for inner in op.body.block.ops:
        if isinstance(inner, linalg.YieldOp):
            return env[inner.operands[0]]
        if not lanes:
            env.update(zip(inner.results, b.insert(inner.clone(value_mapper=env)).results))
        elif isinstance(inner, arith.ConstantOp):
            scalar = b.insert(inner.clone()).result
            env[inner.result] = b.insert(vector.BroadcastOp(scalar, VectorType(scalar.type, [lanes]))).vector
        else:
            vectorised = type(inner).create(
                operands=[env[v] for v in inner.operands],
                result_types=[VectorType(r.type, [lanes]) for r in inner.results],
                properties=dict(inner.properties),
                attributes=dict(inner.attributes),
            )
            env.update(zip(inner.results, b.insert(vectorised).results))
    raise AssertionError("a linalg.generic body ends with linalg.yield")


def stream(b: Builder, found: Streamable, lanes: int) -> None:
    """The vector loop with non-temporal stores that fills ``found.out``."""
    element = found.element
    vector_type = VectorType(element, [lanes])
    n = index(b, prod(found.out_type.get_shape()))
    flat_inputs = [flattened(b, v) for v in found.inputs]
    flat_out = flattened(b, found.out)
    alignment = IntegerAttr(lanes * element.bitwidth // 8, i64)

    def block(b: Builder, k: SSAValue) -> None:
        lo = mul(b, k, index(b, BLOCK))
        hi = minimum(b, add(b, lo, index(b, BLOCK)), n)
        end = add(b, lo, round_down(b, sub(b, hi, lo), lanes))

        def vectors(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            loaded = [b.insert(vector.LoadOp(v, [i], vector_type)).result for v in flat_inputs]
            store = vector.StoreOp(
                apply_body(b, found.op, loaded, lanes), flat_out, [i], nontemporal=BoolAttr.from_bool(True)
            )
            store.attributes["alignment"] = alignment
            b.insert(store)
            return []

        def elements(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            loaded = [b.insert(memref.LoadOp.get(v, [i])).res for v in flat_inputs]
            b.insert(memref.StoreOp.get(apply_body(b, found.op, loaded, 0), flat_out, [i]))
            return []

        for_loop(b, lo, end, lanes, vectors)
        for_loop(b, end, hi, 1, elements, short=True)
        b.insert(llvm.CallIntrinsicOp(SFENCE, [], []))

    # Each block is BLOCK elements' work (its loops' bounds depend on the block, so
    # convert-parallel-loops-to-threads cannot count them).
    parallel_loop(b, ceil_div(b, n, BLOCK), block, work_scale=BLOCK)


def static_bytes(buffer: SSAValue) -> int | None:
    """The bytes of ``buffer``, where its sizes are static."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    if any(size < 0 for size in t.get_shape()):
        return None
    return prod(t.get_shape()) * element_types.byte_size(t)


def align(alloc: memref.AllocOp, alignment: int) -> None:
    current = alloc.alignment.value.data if alloc.alignment is not None else 0
    if current < alignment:
        alloc.properties["alignment"] = IntegerAttr(alignment, i64)


@dataclass(frozen=True)
class StreamLargeResultsPass(ModulePass):
    name = "stream-large-results"

    # Loops that read and write at least this many bytes stream their result (the pipeline
    # passes the target's, ``mg_xdsl.core.target.streaming_min_bytes``).
    min_bytes: int = STREAMING_MIN_BYTES
    # Results this large are written in fresh pages, already in the cache (see
    # ``mg_xdsl.core.target.FRESH_PAGES_BYTES``): they are left as they are.
    max_result_bytes: int = FRESH_PAGES_BYTES
    # The target's vector registers and the width its datapath streams at (see
    # ``mg_xdsl.core.target.VectorUnit.stream_bits``); whether it has non-temporal stores.
    vector_bits: int = DEFAULT.bits
    vector_registers: int = DEFAULT.registers
    datapath_bits: int = 0
    nontemporal: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.nontemporal:
            return
        bits = self.datapath_bits or self.vector_bits
        for candidate in list(op.walk()):
            found = match(candidate)
            if found is None or not self.worth_streaming(found):
                continue
            element_bits = found.element.bitwidth
            lanes = max(1, bits // element_bits)
            stream(Builder(InsertPoint.before(candidate)), found, lanes)
            Rewriter.erase_op(candidate)
            align(found.alloc, max(CACHE_LINE, lanes * element_bits // 8))

    def worth_streaming(self, found: Streamable) -> bool:
        """Static sizes whose loop streams ``min-bytes`` or more into a result of fewer than
        ``max-result-bytes`` (``mg_xdsl.core.target.worth_streaming``)."""
        size = static_bytes(found.out)
        return size is not None and worth_streaming(size, len(found.inputs), self.min_bytes, self.max_result_bytes)
