"""The work-arounds for the pinned xDSL (mg_xdsl/support/xdsl_compat.py): same results as xDSL's own
code, in linear time. When the pin moves, the tests marked "still needed" say whether xDSL
has fixed the cost itself (then the work-around can go)."""

import pytest
from conftest import EXAMPLES
from xdsl.dialects import func, test
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region
from xdsl.ir.core import RegionBlocks
from xdsl.utils.exceptions import VerifyException

from mg_xdsl.support import xdsl_compat


def chain_of_blocks(n: int) -> ModuleOp:
    """A function of ``n`` blocks, each branching to the next (a test op in each)."""
    from xdsl.dialects import cf

    blocks = [Block() for _ in range(n)]
    for i, b in enumerate(blocks):
        b.add_op(test.TestOp())
        b.add_op(cf.BranchOp(blocks[i + 1]) if i + 1 < n else func.ReturnOp())
    return ModuleOp([func.FuncOp("f", ((), ()), Region(blocks))])


def count_block_walks(monkeypatch) -> list[int]:
    walks = [0]
    original = xdsl_compat._walking_len

    def counting(self):
        walks[0] += 1
        return original(self)

    monkeypatch.setattr(xdsl_compat, "_walking_len", counting)
    return walks


def test_verification_counts_the_blocks_of_a_region_once(monkeypatch):
    module = chain_of_blocks(500)
    walks = count_block_walks(monkeypatch)
    xdsl_compat.verify(module)
    # One walk for the function's region (the module's single-block region is one more).
    assert walks[0] <= 2, walks[0]


def test_still_needed_xdsl_verify_walks_the_blocks_once_per_block(monkeypatch):
    module = chain_of_blocks(200)
    walks = count_block_walks(monkeypatch)
    module.verify()  # xDSL's own: every block's last op asks for the region's length
    assert walks[0] >= 200


def test_verify_reports_what_xdsl_reports():
    module = chain_of_blocks(3)
    region = module.body.block.first_op.body  # type: ignore[union-attr]
    middle = list(region.blocks)[1]
    middle.erase_op(middle.last_op)  # now a block of a multi-block region ends in a non-terminator
    with pytest.raises(VerifyException) as ours:
        xdsl_compat.verify(module)
    with pytest.raises(VerifyException) as theirs:
        module.verify()
    assert str(ours.value) == str(theirs.value)
    assert "terminates block in multi-block region but is not a terminator" in str(ours.value)


def test_len_outside_verification_sees_changes():
    module = chain_of_blocks(3)
    region = module.body.block.first_op.body  # type: ignore[union-attr]
    xdsl_compat.verify(module)
    region.add_block(Block())
    assert len(region.blocks) == 4
    assert RegionBlocks.__len__ is xdsl_compat._len_of_blocks


def test_split_before_places_the_new_block_after_its_block():
    module = chain_of_blocks(3)
    region = module.body.block.first_op.body  # type: ignore[union-attr]
    first, second, third = region.blocks
    ops = list(second.ops)
    new = second.split_before(ops[1], arg_types=())
    assert list(region.blocks) == [first, second, new, third]
    assert list(second.ops) == ops[:1] and list(new.ops) == ops[1:]
    assert all(op.parent is new for op in new.ops) and ops[0].parent is second
    assert ops[0].next_op is None and ops[1].prev_op is None


def test_split_before_the_first_op_moves_them_all():
    module = chain_of_blocks(2)
    region = module.body.block.first_op.body  # type: ignore[union-attr]
    first, last = region.blocks
    ops = list(first.ops)
    new = first.split_before(ops[0])
    assert list(first.ops) == [] and list(new.ops) == ops
    assert list(region.blocks) == [first, new, last]
    with pytest.raises(ValueError, match="outside of the block"):
        first.split_before(ops[0])


FAST_MATH_CALL = """
builtin.module {
  llvm.func @f(%a: vector<4xf64>, %b: vector<4xf64>) -> vector<4xf64> {
    %r = llvm.call_intrinsic "llvm.maximum.v4f64"(%a, %b) {fastmathFlags = #llvm.fastmath<nsz>} : (vector<4xf64>, vector<4xf64>) -> vector<4xf64>
    %s = llvm.call_intrinsic "llvm.maximum.v4f64"(%r, %b) : (vector<4xf64>, vector<4xf64>) -> vector<4xf64>
    llvm.return %s : vector<4xf64>
  }
}
"""


def parsed_call_module() -> ModuleOp:
    from xdsl.parser import Parser

    from mg_xdsl.pipeline import stages as pipeline

    return Parser(pipeline.context(), FAST_MATH_CALL).parse_module()


def test_translation_keeps_the_fast_math_flags_of_intrinsic_calls():
    from mg_xdsl.backend.jit import translate_with_xdsl

    calls = [line.strip() for line in translate_with_xdsl(parsed_call_module()).splitlines() if "call " in line]
    assert len(calls) == 2
    assert '= call nsz <4 x double> @"llvm.maximum.v4f64"' in calls[0]
    assert '= call <4 x double> @"llvm.maximum.v4f64"' in calls[1]


def test_still_needed_xdsl_refuses_fast_math_flags_on_intrinsic_calls(monkeypatch):
    from xdsl.backend.llvm import convert, convert_op

    original = getattr(convert_op._convert_call_intrinsic, "__wrapped__", None)
    if original is not None:  # the work-around is installed: call xDSL's own
        monkeypatch.setattr(convert_op, "_convert_call_intrinsic", original)
    with pytest.raises(NotImplementedError, match="Fast-math flags not supported"):
        convert.convert_module(parsed_call_module(), fallback_target_triple=None)


def _fields(op) -> dict:
    """Every field of an op, with itself (as user of its operands and successors, owner of
    its results and regions) written as "self"."""
    me = lambda x: "self" if x is op else x  # noqa: E731
    fields = dict(vars(op))
    for name in ("_operand_uses", "_successor_uses"):
        fields[name] = [(me(use.operation), use.index) for use in fields[name]]
    fields["results"] = [(r.type, r.index, me(r.owner)) for r in op.results]
    fields["regions"] = [(me(r.parent), len(r.blocks)) for r in op.regions]
    fields["uses of operands"] = [[(me(u.operation), u.index) for u in v.uses] for v in op.operands]
    return fields


def test_create_op_makes_what_operation_create_makes():
    from xdsl.dialects import arith, cf, llvm, scf
    from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, UnitAttr, i1, i32, i64

    cases = [
        (llvm.ConstantOp, lambda v, f, t, o: dict(properties={"value": IntegerAttr(3, i64)}, result_types=[i64])),
        # llvm.add's overflowFlags and arith.addi's overflowFlags are defaults, filled in
        (llvm.AddOp, lambda v, f, t, o: dict(operands=[v, v], result_types=[i64])),
        (arith.AddiOp, lambda v, f, t, o: dict(operands=[v, v], result_types=[i64], attributes={"tag": UnitAttr()})),
        (
            cf.ConditionalBranchOp,
            lambda v, f, t, o: dict(
                operands=[f, v],
                successors=[t, o],
                properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 0])},
            ),
        ),
        (scf.ForOp, lambda v, f, t, o: dict(operands=[v, v, v], regions=[Region(Block())])),
    ]
    for cls, arguments in cases:
        made = []
        for make in (cls.create, lambda **a: xdsl_compat.create_op(cls, **a)):
            value = test.TestOp(result_types=[i64]).results[0]
            flag = test.TestOp(result_types=[i1]).results[0]
            made.append(make(**arguments(value, flag, Block(arg_types=[i64]), Block())))
        created, lean = made
        assert set(vars(created)) == set(vars(lean)), f"xDSL's Operation has other fields now ({cls.name})"
        a, b = _fields(created), _fields(lean)
        for name in a:
            if name not in ("_operands", "_successors"):  # (values and blocks of their own)
                assert a[name] == b[name], (cls.name, name)
        assert [v.type for v in created.operands] == [v.type for v in lean.operands]
        assert [len(list(s.uses)) for s in created.successors] == [len(list(s.uses)) for s in lean.successors]
    # Defaults are filled in (arith.addi's overflow flags), as IRDLOperation.__post_init__ does.
    assert (
        "overflowFlags" in xdsl_compat.create_op(arith.AddiOp, operands=[value, value], result_types=[i64]).properties
    )


def test_create_op_inserts_into_an_implicit_builder():
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import IntegerAttr, i64

    block = Block()
    with ImplicitBuilder(block):
        op = xdsl_compat.create_op(llvm.ConstantOp, properties={"value": IntegerAttr(3, i64)}, result_types=[i64])
    assert list(block.ops) == [op]


# --- Assembly formats read on first use (mg_xdsl/support/xdsl_lazy_formats.py) -----------------


def test_import_mg_xdsl_defers_the_formats_of_the_dialects_imported_after_it():
    """In a fresh interpreter, as ``mgc`` starts: ``import mg_xdsl`` first, then xDSL."""
    import subprocess
    import sys

    code = (
        "import mg_xdsl\n"
        "from xdsl.dialects import arith, llvm, memref\n"
        "for op in (arith.AddfOp, llvm.BrOp, memref.LoadOp):\n"
        "    assert getattr(op.print, 'lazy_format', False), op\n"
        "    assert getattr(op.parse, 'lazy_format', False), op\n"
        "import xdsl.irdl.operations as ops\n"
        "assert ops.get_accessors_from_op_def.defers_formats\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_deferred_formats_give_xdsls_accessors_and_text(monkeypatch):
    """Every op class of the pipeline's dialects: the same accessors as xDSL's own
    ``get_accessors_from_op_def`` makes; and a program of many kinds of op (the LLVM stage
    of an example) printed, and parsed back, as with xDSL's eagerly read formats."""
    import xdsl.irdl.operations as ops
    from xdsl.dialects import arith, cf, llvm, memref, scf, vector
    from xdsl.parser import Parser

    from mg_xdsl.driver import Compilation
    from mg_xdsl.pipeline import stages as pipeline
    from mg_xdsl.support.xdsl_lazy_formats import defer_formats

    defer_formats(ops)  # done already by import mg_xdsl; twice does no harm
    lazy = ops.get_accessors_from_op_def
    classes = [
        op
        for d in (arith.Arith, cf.Cf, llvm.LLVM, memref.MemRef, scf.Scf, vector.Vector)
        for op in d.operations
        if op.get_irdl_definition().assembly_format is not None
    ]
    assert len(classes) > 50
    for op in classes:
        deferred, eager = lazy(op.get_irdl_definition(), None), lazy.eager(op.get_irdl_definition(), None)
        assert deferred.keys() == eager.keys(), op.name
        assert getattr(op.print, "lazy_format", False), op.name

    source = (EXAMPLES / "09_dynamic_reductions.mg").read_text()
    stages = {stage: str(Compilation(source, "x.mg", keep_dir=None).mlir(stage)) for stage in ("scf", "llvm")}
    for op in classes:  # xDSL's own, formats read now
        eager = lazy.eager(op.get_irdl_definition(), None)
        monkeypatch.setattr(op, "print", eager["print"])
        monkeypatch.setattr(op, "parse", eager["parse"])
    ctx = pipeline.context()
    ctx.load_dialect(vector.Vector)
    for text in stages.values():
        assert str(Parser(ctx, text).parse_module()) == text


def test_a_malformed_format_fails_when_first_used():
    from xdsl.dialects.builtin import f64
    from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def
    from xdsl.irdl.operations import PyRDLOpDefinitionError

    @irdl_op_definition
    class Bad(IRDLOperation):
        name = "test.bad_format"
        x = operand_def()
        assembly_format = "$x $nothing attr-dict"

    op = Bad.create(operands=[Block(arg_types=[f64]).args[0]])
    with pytest.raises(PyRDLOpDefinitionError, match="assembly format"):
        str(op)
