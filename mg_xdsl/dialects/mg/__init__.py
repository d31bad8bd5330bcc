"""The ``mg`` dialect: Mountain Goat's tensor operations, one op per language construct.

Values are ranked tensors (``tensor<2x3xf64>``, ``tensor<?x3xf64>``). Ops are value-based
(``Pure``) except ``mg.print``; every op after the front end has operands whose shapes
already agree, because the front end inserts an explicit ``mg.broadcast`` wherever a size-1
dimension grows. Each verifier states its rule in its message. The rules themselves live in
``mg_xdsl.core.shapes`` (shared with the front end) and ``mg_xdsl.core.element_types`` (the trait
``LoweredElementTypes`` of every op), so no op carries its own copy.

Each differentiable op carries its derivative rule (``adjoints``, the ``Differentiable``
base), written in ``adjoint_builder``'s words; ``reverse_mode`` applies the chain rule over
them (``mg.grad`` -> its reverse sweep, for the front end and the pass ``mg-autodiff``).

What each op computes on one element is said here too, once: an elementwise op's
``scalar`` builds its arith ops (the interface ``ScalarComputation``), and ``REDUCTIONS``
names each reduction's combining op and identity. ``lower-mg-to-affine``,
``convert-mg-to-linalg`` and the reduction kernels ask them; none keeps a table of its own.

The dialect is a package, one module per family of ops (``elementwise``, ``structured``,
``shape``, ``indexing``, ``creation``, ``items``, ``printing``, ``files``,
``arguments``, ``gradients``) over ``base`` (the op base and the
element-type trait) and ``scalar`` (what the ops compute on one element); every name is
also here, so the rest of the compiler writes ``mg.AddOp``, ``mg.REDUCTIONS``.
"""

from xdsl.ir import Dialect

from mg_xdsl.dialects.mg.arguments import ArgOp  # noqa: F401
from mg_xdsl.dialects.mg.base import (  # noqa: F401
    CHECK_MESSAGES,
    IN_PLACE,
    LIKE_SHAPE,
    MOVES,
    Differentiable,
    LoweredElementTypes,
    MgOp,
    UnaryOp,
    batch_differs,
    inferred_type,
    operands_differ,
    shape_of,
    tensor_type,
    tensor_type_of,
)
from mg_xdsl.dialects.mg.creation import (  # noqa: F401
    ConstantOp,
    FullLikeOp,
    FullOp,
    IotaOp,
    RandomOp,
)
from mg_xdsl.dialects.mg.elementwise import (  # noqa: F401
    MATH_UNARY_OPS,
    SCALAR_OPS,
    AbsOp,
    AcosOp,
    AddOp,
    AsinOp,
    Atan2Op,
    BinaryOp,
    CompareOp,
    ConvertOp,
    CosOp,
    DivOp,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
    ExpOp,
    FloorDivOp,
    LogOp,
    MathUnaryOp,
    MaxOp,
    MinOp,
    MulOp,
    NegOp,
    PowOp,
    ReluOp,
    RemOp,
    RsqrtOp,
    ScalarOp,
    SelectOp,
    SinOp,
    SqrtOp,
    SubOp,
    TanhOp,
)
from mg_xdsl.dialects.mg.files import (  # noqa: F401
    NPY_TYPES,
    LoadOp,
    SaveOp,
)
from mg_xdsl.dialects.mg.gradients import GradOp  # noqa: F401
from mg_xdsl.dialects.mg.indexing import (  # noqa: F401
    ExtractOp,
    GatherOp,
    IndexAddOp,
    IndexingAddOp,
    IndexingOp,
    IndexOp,
    ScatterAddOp,
)
from mg_xdsl.dialects.mg.items import (  # noqa: F401
    FromItemOp,
    ItemOp,
    SizeOp,
)
from mg_xdsl.dialects.mg.printing import (  # noqa: F401
    PrintlnOp,
    PrintOp,
)
from mg_xdsl.dialects.mg.scalar import (  # noqa: F401
    ARITHMETIC,
    BINARY_ARITH,
    COMPARISONS,
    DIVISION_BY_ZERO,
    FLOATS,
    INTEGER_REDUCTIONS,
    REDUCTIONS,
    Reduction,
    ScalarComputation,
    binary_arith,
    compare,
    convert_element,
    integer_division,
    narrow_to_bf16,
    narrowed,
    widen_bf16,
    widened,
)
from mg_xdsl.dialects.mg.shape import (  # noqa: F401
    CastOp,
    ConcatOp,
    DynamicSliceOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
)
from mg_xdsl.dialects.mg.structured import (  # noqa: F401
    REDUCE_KINDS,
    ArgReduceOp,
    BroadcastOp,
    LinearScanOp,
    MatmulOp,
    ReduceOp,
    grows,
    size_source,
)

Mg = Dialect(
    "mg",
    [
        ConstantOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        RemOp,
        FloorDivOp,
        NegOp,
        ReluOp,
        ScalarOp,
        MatmulOp,
        TransposeOp,
        SliceOp,
        DynamicSliceOp,
        ConcatOp,
        ReduceOp,
        ArgReduceOp,
        BroadcastOp,
        CastOp,
        ConvertOp,
        CompareOp,
        SelectOp,
        FullLikeOp,
        MaxOp,
        MinOp,
        PowOp,
        Atan2Op,
        *MATH_UNARY_OPS,
        AbsOp,
        ReshapeOp,
        FullOp,
        IotaOp,
        RandomOp,
        LinearScanOp,
        IndexOp,
        IndexAddOp,
        GatherOp,
        ScatterAddOp,
        ExtractOp,
        ItemOp,
        FromItemOp,
        SizeOp,
        PrintOp,
        PrintlnOp,
        LoadOp,
        SaveOp,
        ArgOp,
        GradOp,
    ],
)
