"""The campaign's ``blocks`` kind: programs with blocks (defs with block bodies and several
results, ``for`` loops with counts known when compiling and at run time, ``if``/``elif``/``else``
on run-time values, vars carried out of loops, ``println``; in them subscripts with static and
run-time indices and mini-batch slices, ``% // **``, ``and``/``or``/``not``, ``argmax``, ``@``
with vectors, ``inf``), from ``helpers/block_programs.py``, whose statements are also their
Python/NumPy interpreter.

The other kinds' statements (``syntax``) have no blocks, so this kind brings its own judge and
its own failure folders; the campaign asks this module (``generate``, ``judge``, ``save``) and
it hands the other kinds to ``generator`` and ``oracle``. A block program is not minimised by
deleting statements (a deleted statement may be a loop's only update): its folder holds the
whole program, the interpreter's output and the run's.
"""

import dataclasses
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from . import generator, oracle
from .execute import Run, run_one

try:  # (under pytest, tests/ is on the path; from the repository root, tests is a namespace)
    from helpers.block_programs import (
        DTYPES,
        BlockProgram,
        Machine,
        difference,
        expected_text,
        generate as generate_block,
    )
except ImportError:
    from tests.helpers.block_programs import (
        DTYPES,
        BlockProgram,
        Machine,
        difference,
        expected_text,
        generate as generate_block,
    )

# name: the element types its programs draw from.
KINDS = {"blocks": DTYPES}


@dataclass
class BlockCase:
    """A block program as the campaign handles programs (``generator.Program``'s fields)."""

    kind: str
    seed: int
    program: BlockProgram
    machine: Machine
    abort: None = None

    @property
    def source(self) -> str:
        return self.program.source

    @property
    def statements(self) -> list:
        return self.program.statements

    @property
    def expected(self) -> list:
        return self.machine.out

    @property
    def coverage(self) -> Counter:
        """The generator's features, as the campaign's report counts positions: a loop's
        result's position by element type, and every feature under ``blocks``."""
        dtype = next((s.value.dtype for s in self.statements if hasattr(s, "value") and hasattr(s, "declared")), "f64")
        out = Counter()
        for feature, n in self.program.coverage.items():
            if feature[0] == "a loop's result":
                out[("dtype", dtype, "loop result " + feature[1])] += n
            out[("position", " ".join(map(str, feature)), "blocks")] += n
        return out


def is_block(kind: str) -> bool:
    return kind in KINDS


def generate(kind: str, seed: int):
    """The program of ``kind`` for ``seed`` (of any kind: the others are ``generator``'s)."""
    if not is_block(kind):
        return generator.generate(kind, seed)
    program, machine = generate_block(random.Random(f"{kind}:{seed}"), KINDS[kind])
    return BlockCase(kind, seed, program, machine)


def judge(run: Run, program) -> oracle.Verdict:
    """The outcome of ``run`` of ``program``: the oracle's, for how the run ended; for a
    block program, its output against the interpreter's (``println`` lines included)."""
    if not isinstance(program, BlockCase):
        return oracle.judge(run, program.expected, program.statements, program.abort)
    ended = oracle.judge(dataclasses.replace(run, stdout=""), [], None, None)
    if not ended.ok:
        return ended
    different = difference(run.stdout, program.expected, program.machine.scale)
    if different is None:
        return oracle.Verdict("pass")
    what = "a println line" if "line" in different else "a print"
    return oracle.Verdict("wrong_answer", different, f"wrong_answer: blocks: {what}")


def save(out: Path, failure, pipeline: str) -> Path:
    """A block program's failure folder: ``prog.mg``, ``expected.txt`` (the interpreter's
    output), ``output.txt``, ``verdict.txt``, ``reproduce.sh``."""
    program = failure.program
    folder = out / oracle_slug(failure.verdict.key) / f"{program.kind}-{program.seed}-{pipeline}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prog.mg").write_text(program.source)
    (folder / "expected.txt").write_text(expected_text(program.expected))
    run = run_one(program.source, pipeline == "optimised")
    (folder / "output.txt").write_text(
        f"exit status {run.status} ({run.phase})\n--- stdout\n{run.stdout}--- stderr\n{run.stderr}{run.message}"
    )
    (folder / "verdict.txt").write_text(
        f"{failure.verdict.outcome} ({pipeline} pipeline)\n\n{failure.verdict.detail}\n"
    )
    flag = " --reference" if pipeline == "reference" else ""
    (folder / "reproduce.sh").write_text(
        f"mgc run{flag} prog.mg\n# again: python -m tests.properties.fuzz.campaign --check {program.kind} {program.seed}\n"
    )
    return folder


def oracle_slug(key: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")[:80] or "failure"


def expected_of(program) -> str | None:
    """The interpreter's output of a block program, for ``--show``; None for other kinds."""
    return expected_text(program.expected) if isinstance(program, BlockCase) else None
