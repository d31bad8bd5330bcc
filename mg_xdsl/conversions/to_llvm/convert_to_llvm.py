"""``convert-to-llvm``: every conversion to the LLVM dialect in one walk, as upstream's pass
of that name: ``vector``, ``arith``, ``math``, ``func``, ``cf`` and ``memref`` ops -> LLVM
dialect.

Each op is rewritten by the patterns of its own pass (``convert-vector-to-llvm``,
``convert-arith-to-llvm``, ``convert-math-to-llvm``, ``convert-func-to-llvm``, ``convert-cf-to-llvm``,
``finalize-memref-to-llvm``), exactly as that pass alone would rewrite it; each of those
passes runs alone in ``mg-opt`` and has its own tests. Run one after another, each pass
casts the values it converts back to their original types for the ops that the next pass
converts, and that pass casts them forward again: half of the ops made on the way to the
LLVM dialect were such casts, made, looked through and erased one by one. In one walk a
value goes straight from the op that makes it to the ops that use it (see
``llvm_type_conversion``), and only a value that crosses from an op defined after its user
(a branch back to a loop's head) is cast. ``reconcile-unrealized-casts`` still runs after it.

``use-generic-functions`` is ``finalize-memref-to-llvm``'s option: allocate with
``_mlir_memref_to_llvm_alloc`` and free with ``_mlir_memref_to_llvm_free``.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mg_xdsl.conversions.to_llvm.convert_arith_to_llvm import ArithConversion
from mg_xdsl.conversions.to_llvm.convert_cf_to_llvm import CfConversion
from mg_xdsl.conversions.to_llvm.convert_func_to_llvm import FuncConversion
from mg_xdsl.conversions.to_llvm.convert_math_to_llvm import MathConversion
from mg_xdsl.conversions.to_llvm.convert_vector_to_llvm import VectorConversion
from mg_xdsl.conversions.to_llvm.finalize_memref_to_llvm import MemRefConversion
from mg_xdsl.conversions.to_llvm.type_conversion import apply_conversions


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    name = "convert-to-llvm"

    use_generic_functions: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conversions(
            op,
            [
                VectorConversion(),
                ArithConversion(),
                MathConversion(),
                FuncConversion(),
                CfConversion(),
                MemRefConversion(self.use_generic_functions),
            ],
        )
