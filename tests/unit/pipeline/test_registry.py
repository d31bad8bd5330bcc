"""The pass registry (``mg_xdsl/pipeline/registry.py``): ``make_pass`` makes each pass once
per process and pipeline text and hands the same object to every compilation, which is
right only because a pass keeps nothing from one module to the next."""

import dataclasses

from mg_xdsl.pipeline.registry import all_passes, make_pass


def test_passes_are_frozen():
    """Every pass is a frozen dataclass: its options are all it has, and ``apply`` cannot
    keep anything on it."""
    for name, load in all_passes().items():
        cls = load()
        assert dataclasses.is_dataclass(cls), name
        assert cls.__dataclass_params__.frozen, f"{name} is not frozen: make_pass would share its state"  # type: ignore[attr-defined]


def test_make_pass_reads_each_text_once():
    spec = "convert-linalg-to-affine-loops{min-parallel-work=65536}"
    assert make_pass(spec) is make_pass(spec)
    assert make_pass(spec).min_parallel_work == 65536  # type: ignore[attr-defined]
    assert make_pass("convert-linalg-to-affine-loops").min_parallel_work == -1  # type: ignore[attr-defined]
