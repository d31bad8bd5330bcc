"""The LLVM IR printer (``mg_xdsl/backend/llvm_ir.py``) against xDSL's translation, the
reference it replaces for speed: on the LLVM dialect of every example and of random
programs, in both pipelines, LLVM reads the two texts as the same module (LLVM's own
printing of each, with value names numbered in order and entities sorted, is identical).
Then the cases the examples do not reach: exact constants, names LLVM must quote, phis of
a branch with arguments for both successors, and the fallback to xDSL's translation."""

import re
import shutil
import subprocess

import llvmlite.binding as llvm
import pytest
from conftest import ROOT
from helpers.programs import dynamic_program, program
from hypothesis import HealthCheck, given, settings
from xdsl.dialects.builtin import StringAttr
from xdsl.parser import Parser

from benchmarks.workloads import workloads
from mg_xdsl.backend import jit
from mg_xdsl.backend.llvm_ir import Unsupported, print_module
from mg_xdsl.driver import Compilation
from mg_xdsl.pipeline import stages as pipeline

EXAMPLES = sorted((ROOT / "examples").glob("*.mg"))

_LOCAL = re.compile(r'%"[^"]*"|%[-\w$.]+|^"[^"]*":|^[-\w$.]+:', re.M)
_ENTITY = re.compile(r"\n(?=define |declare |@|attributes )")


def canonical(text: str) -> list[str]:
    """LLVM's printing of ``text``, comments dropped, each top-level entity's local names
    (values and labels) renamed in order of appearance, attribute groups unnumbered, the
    entities sorted (the two translations declare in different orders)."""
    jit.initialise_llvm()
    module = llvm.parse_assembly(text)
    module.verify()
    printed = re.sub(r"[ \t]*;.*", "", str(module))
    entities = []
    for entity in _ENTITY.split(printed):
        names: dict[str, str] = {}

        def rename(m: re.Match) -> str:
            token = m.group(0)
            label = token.endswith(":")
            key = (token[:-1] if label else token[1:]).strip('"')
            name = names.setdefault(key, f"x{len(names)}")
            return f"{name}:" if label else f"%{name}"

        entity = re.sub(r"#\d+", "#A", _LOCAL.sub(rename, entity)).strip()
        if entity and not entity.startswith(("; ModuleID", "source_filename")):
            entities.append(entity)
    return sorted(entities)


_LOOP_METADATA = re.compile(r", !llvm\.(?:loop|access\.group) !\d+|^!\d+ = .*$", re.M)


def without_loop_hints(text: str) -> str:
    """``text`` without loop metadata (``!llvm.loop``) and access groups, which xDSL's
    translation drops; ``test_loop_hints_as_mlir_translate_writes_them`` checks ours against
    upstream's, ``test_parallel_accesses`` the access groups."""
    return _LOOP_METADATA.sub("", text)


def assert_same_as_xdsl(source: str, optimise: bool) -> None:
    module = Compilation(source, "prog.mg", keep_dir=None, optimise=optimise).mlir("llvm", verify=False)
    ours = print_module(module, llvm.get_default_triple())  # no fallback here
    assert canonical(without_loop_hints(ours)) == canonical(jit.translate_with_xdsl(module))


@pytest.mark.parametrize("optimise", [True, False])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_examples(example, optimise):
    assert_same_as_xdsl(example.read_text(), optimise)


def _kernels() -> list:
    """One benchmark workload of each kind, at its largest size: the matrix product's
    kernel, vector reductions with prefetches and FMAs, threads."""
    largest = {}
    for w in workloads(quick=False):
        largest[w.name] = w
    return sorted(largest.values(), key=lambda w: w.name)


@pytest.mark.parametrize("workload", _kernels(), ids=lambda w: w.name)
def test_benchmark_kernels(workload):
    assert_same_as_xdsl(workload.source, optimise=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_random_programs(case):
    assert_same_as_xdsl(case[0], optimise=True)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_program())
def test_random_dynamic_programs(case):
    assert_same_as_xdsl(case[0], optimise=True)


HAND_WRITTEN = r"""
builtin.module {
  llvm.mlir.global private constant @"a message"("say \"hi\"\n\00") {addr_space = 0 : i32} : !llvm.array<10 x i8>
  llvm.mlir.global private constant @numbers(dense<[0.1, -2.5]> : tensor<2xf64>) {addr_space = 0 : i32} : !llvm.array<2 x f64>
  llvm.func @puts(!llvm.ptr)
  llvm.func @pick(%c: i1, %x: f64) -> f64 {
    %third = llvm.mlir.constant(0.3333333333333333 : f64) : f64
    %tenth = llvm.mlir.constant(0.1 : f32) : f32
    %one = llvm.mlir.constant(1 : i64) : i64
    %m = llvm.mlir.addressof @"a message" : !llvm.ptr
    llvm.call @puts(%m) : (!llvm.ptr) -> ()
    llvm.cond_br %c, ^then(%x : f64), ^else(%one, %third : i64, f64)
  ^then(%p: f64):
    llvm.br ^join(%p, %one : f64, i64)
  ^else(%k: i64, %q: f64):
    llvm.br ^join(%q, %k : f64, i64)
  ^join(%v: f64, %n: i64):
    %w = llvm.fpext %tenth : f32 to f64
    %s = llvm.fadd %v, %w {fastmathFlags = #llvm.fastmath<reassoc, contract>} : f64
    llvm.return %s : f64
  }
}
"""


def hand_written():
    return Parser(pipeline.context(), HAND_WRITTEN).parse_module()


def test_exact_constants_quoted_names_and_the_phis_of_each_successor():
    text = print_module(hand_written(), "x86_64-unknown-linux-gnu")
    # 0.1 and 1/3 to the last bit: the hexadecimal of the double; a float's value widened.
    assert "double 0x3FB999999999999A, double 0xC004000000000000" in text
    assert "0x3FD5555555555555" in text
    assert "fpext float 0x3FB99999A0000000 to double" in text
    assert '@"a message" = private constant [10 x i8] c"say \\22hi\\22\\0A\\00"' in text
    assert 'call void @puts(ptr @"a message")' in text
    assert "fadd contract reassoc double" in text
    # Each successor of the cond_br gets its own operands; the join, its predecessors'.
    assert re.search(r"phi double \[ %a1, %bb0 \]\n", text)
    assert re.search(r"phi i64 \[ 1, %bb0 \]\n.*phi double \[ 0x3FD5555555555555, %bb0 \]\n", text, re.S)
    assert re.search(r"phi double \[ %v\d+, %bb1 \], \[ %v\d+, %bb2 \]", text)
    assert canonical(text) == canonical(jit.translate_with_xdsl(hand_written()))


def test_what_the_printer_does_not_know_goes_through_xdsls_translation():
    module = hand_written()
    module.body.block.first_op.properties["section"] = StringAttr(".rodata")
    with pytest.raises(Unsupported, match="section"):
        print_module(module, "x86_64-unknown-linux-gnu")
    # xDSL's translation drops the section (as it would have before this printer existed).
    assert '@"a message"' in jit.translate(module)


def loop_hints(text: str) -> dict[str, list[list[str]]]:
    """For each function, the hints of each loop that carries metadata, in the order of
    their branches: what LLVM reads from ``text`` (its own printing, renumbered)."""
    jit.initialise_llvm()
    printed = str(llvm.parse_assembly(text))
    nodes = dict(re.findall(r"^(!\d+) = (?:distinct )?!\{(.*)\}$", printed, re.M))
    hints: dict[str, list[list[str]]] = {}
    for name, body in re.findall(r"^define [^@]*@([\w.]+)\(.*?\{\n(.*?)^\}", printed, re.M | re.S):
        hints[name] = [
            [nodes[h] for h in nodes[node].split(", ")[1:]] for node in re.findall(r"br .*, !llvm\.loop (!\d+)", body)
        ]
    return {name: loops for name, loops in hints.items() if loops}


@pytest.mark.skipif(
    shutil.which("mlir-translate-22") is None,
    reason="mlir-translate-22 is not installed (apt-get install mlir-22-tools; CI installs it)",
)
def test_loop_hints_as_mlir_translate_writes_them():
    """The scalar tails of ``?``-shaped reductions tell LLVM not to vectorize or unroll them
    (``#llvm.loop_annotation``): our printer writes the metadata that upstream's
    ``mlir-translate-22`` writes for the same LLVM-dialect module, on the same branches, and
    LLVM keeps it through its optimisation."""
    example = EXAMPLES[0].parent / "09_dynamic_reductions.mg"
    module = Compilation(example.read_text(), "prog.mg", keep_dir=None, optimise=True).mlir("llvm")
    ours = print_module(module, llvm.get_default_triple())
    upstream = subprocess.run(
        ["mlir-translate-22", "--mlir-to-llvmir"], input=str(module), capture_output=True, text=True, check=True
    ).stdout
    # (upstream's translation does not see mg.parallel_accesses: test_parallel_accesses)
    hints = {
        name: [hints for hints in loops if hints and not hints[-1].startswith('!"llvm.loop.parallel_accesses"')]
        for name, loops in loop_hints(ours).items()
    }
    hints = {name: loops for name, loops in hints.items() if loops}
    tail = ['!"llvm.loop.vectorize.enable", i1 false', '!"llvm.loop.unroll.disable"']
    assert sum(len(loops) for loops in hints.values()) >= 3  # a row sum's tail, a column maximum's
    assert all(loop == tail for loops in hints.values() for loop in loops)
    assert hints == loop_hints(upstream)


SOFTMAX = """def f(s: tensor[64x1000xf32]) -> tensor[64x1000xf32]:
    let e = exp(s - max(s, axes=[1], keepdims=true))
    return e / sum(e, axes=[1], keepdims=true)
"""


def test_parallel_accesses():
    """A loop marked ``mg.parallel_accesses`` (the innermost loop of an all-parallel nest:
    the softmax's ``exp`` and division, row by row) names an access group of its own in its
    metadata, and every load and store of its body is in that group; LLVM keeps the marks,
    and its vectoriser then makes no run-time check that the loop's pointers do not overlap
    (``%found.conflict = and i1 %bound0, %bound1``), which it makes for the same module
    unmarked."""
    module = Compilation(SOFTMAX, "prog.mg", keep_dir=None, optimise=True).mlir("llvm")
    ours = print_module(module, llvm.get_default_triple())
    group_of = dict(re.findall(r'^(!\d+) = !\{!"llvm.loop.parallel_accesses", (!\d+)\}$', ours, re.M))
    loops = {
        loop: group_of[hints.split(", ")[-1]]
        for loop, hints in re.findall(r"^(!\d+) = distinct !\{\1, (.*)\}$", ours, re.M)
        if hints.split(", ")[-1] in group_of
    }
    assert len(group_of) >= 2 and len(set(group_of.values())) == len(group_of) == len(loops)
    for group in group_of.values():
        assert f"{group} = distinct !{{}}" in ours
    blocks = 0
    for block in re.split(r"\n\n", ours):
        latch = re.search(r"^  br label %bb\d+, !llvm\.loop (!\d+)$", block, re.M)
        if latch is None or latch[1] not in loops:
            continue
        blocks += 1
        accesses = [line for line in block.splitlines() if re.match(r"  (%v\d+ = load|store) ", line)]
        assert accesses and all(line.endswith(f", !llvm.access.group {loops[latch[1]]}") for line in accesses)
    assert blocks == len(loops)
    assert "llvm.loop.parallel_accesses" in str(jit.optimise(ours))
    assert "found.conflict" not in str(jit.optimise(ours))
    for op in module.walk():
        op.attributes.pop("mg.parallel_accesses", None)
    unmarked = print_module(module, llvm.get_default_triple())
    assert "llvm.access.group" not in unmarked
    assert "found.conflict" in str(jit.optimise(unmarked))
    optimised = str(jit.optimise(ours))
    assert "llvm.loop.vectorize.enable" in optimised and "llvm.loop.unroll.disable" in optimised


def test_loop_annotation_parses_what_it_prints_and_names_what_it_does_not_know():
    from xdsl.utils.exceptions import ParseError

    from mg_xdsl.dialects.llvm_loop_annotation import SHORT_LOOP, LoopAnnotationAttr

    ctx = pipeline.context()
    text = "#llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>"
    assert str(SHORT_LOOP) == text
    assert Parser(ctx, text).parse_attribute() == SHORT_LOOP
    only_unroll = Parser(ctx, "#llvm.loop_annotation<unroll = <disable = true>>").parse_attribute()
    assert only_unroll == LoopAnnotationAttr(disable_unroll=True) and only_unroll.disabled() == ["unroll"]
    assert Parser(ctx, "#llvm.loop_annotation<>").parse_attribute().disabled() == []
    for hint, message in [
        ("licm = <disable = true>", "knows only `vectorize` and `unroll`"),
        ("unroll = <disable = false>", "knows only `unroll = <disable = true>`"),
    ]:
        with pytest.raises(ParseError, match=message):
            Parser(ctx, f"#llvm.loop_annotation<{hint}>").parse_attribute()


def test_bfloat_constants_round_to_nearest_even_as_ml_dtypes_does():
    """A bf16 constant is LLVM's ``bfloat 0xR....``: its 16 bits, rounded through f32 to
    nearest even (ml_dtypes' rounding); LLVM parses what the printer writes."""
    import ml_dtypes
    import numpy as np

    from mg_xdsl.backend.llvm_ir import bfloat16_bits

    values = [0.1, 1 / 3, -2.5, 1e10, 1.00390625, 1.01171875, 3e38, -0.0, 1e-40, 65504.0]
    want = np.array(values, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    assert [bfloat16_bits(v) for v in values] == [int(w) for w in want]
    assert bfloat16_bits(1e39) == 0x7F80 and bfloat16_bits(-1e39) == 0xFF80 and bfloat16_bits(float("nan")) == 0x7FC0
    text = "global bfloat 0xR%04X" % bfloat16_bits(0.1)
    import llvmlite.binding as llvm

    llvm.parse_assembly(f"@g = {text}\n").verify()
