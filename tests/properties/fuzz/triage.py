"""Which known bug a failure looks like: the items of the issue the fuzzer was written for
(at commit 8914cd3), for the campaign's report; a failure none of them recognises is
reported as new. Each test looks at the outcome and the program, and for items 3 to 5 at
what the compiler makes of it: whether the object code calls ``__truncsfbf2``, whether the
program fails otherwise when ``main`` is not split into functions of 32 loop nests; and for
item 1 (when the wrong print does not show it), whether it fails otherwise when its vars
are computed rather than bound to names."""

import re

import numpy as np

from . import ops
from .execute import run_one
from .oracle import judge
from .syntax import Let, Literal, Name, Number, Update, program_source, run_program


def compiled(source: str, optimise: bool):
    from mg_xdsl.driver import Compilation

    return Compilation(source, "prog.mg", keep_dir=None, optimise=optimise)


def outlined(source: str, optimise: bool) -> bool:
    """Whether ``outline-loop-nests`` split ``main`` (32 loop nests or more)."""
    try:
        return "@main_loops_" in str(compiled(source, optimise).mlir("scf"))
    except Exception:  # noqa: BLE001  (a program that does not compile was not split)
        return False


def fails_because_split(verdict, statements: list, optimise: bool) -> bool:
    """Whether the failure comes from ``main`` being split: with ``outline-loop-nests``
    doing nothing, the program passes or fails otherwise."""
    source = program_source(statements)
    if not outlined(source, optimise):
        return False
    expected, abort = run_program(statements)
    return judge(run_one(source, optimise, outline=False), expected, statements, abort).key != verdict.key


def calls_truncsfbf2(source: str, optimise: bool) -> bool:
    """Whether the object code calls compiler-rt's ``__truncsfbf2`` (f32 to bf16), which
    the JIT does not provide: LLVM legalising an operation on ``bfloat`` values."""
    try:
        return b"__truncsfbf2" in compiled(source, optimise).object_code()
    except Exception:  # noqa: BLE001
        return False


def copied(statements: list) -> list | None:
    """The program with each ``var W = NAME`` that is later updated in place made
    ``var W = NAME * 1`` (``NAME == true`` for i1): the same values, the var's computed
    rather than a name's; None if there is no such var."""
    updated = {s.name for s in statements if isinstance(s, Update) and s.op}
    out, changed = [], False
    for s in statements:
        if isinstance(s, Let) and s.mutable and isinstance(s.value, Name) and s.name in updated:
            x = s.value
            same = ops.Compare("==") if x.type.dtype == "i1" else ops.ARITHMETIC[2]
            one = Literal(np.array(True), "i1") if x.type.dtype == "i1" else Number(1)
            s, changed = Let(s.name, ops.Apply(same, (x, one)), True), True
        out.append(s)
    return out if changed else None


def fails_because_shared(verdict, statements: list, optimise: bool) -> bool:
    """Whether the failure comes from a var sharing the buffer of the name it was made
    from: with the var's value computed instead, the program passes or fails otherwise."""
    rewritten = copied(statements)
    if rewritten is None:
        return False
    expected, abort = run_program(rewritten)
    return judge(run_one(program_source(rewritten), optimise), expected, rewritten, abort).key != verdict.key


def crash_or_wrong(v) -> bool:
    return v.outcome in ("wrong_answer", "crash", "timeout")


ITEMS = {
    1: "item 1 (a var made from a let shares its buffer)",
    2: "item 2 (AssertionError in copy_at_boundaries: a dead op on a view)",
    3: "item 3 (bf16 code calling __truncsfbf2 in the reference pipeline: a segfault)",
    4: "item 4 (a print after 32 loop nests)",
    5: "item 5 (bf16 code calling __truncsfbf2 in the optimised pipeline: a segfault)",
    6: "item 6 (i64 literals through f64)",
}

# (item, test on (verdict, pipeline, statements, source)): the first test that holds names
# the failure; the cheap tests first, those that compile or run the program again last.
KNOWN = [
    (1, lambda v, p, st, s: "a var made from it was updated" in v.key),
    (2, lambda v, p, st, s: "copy_at_boundaries" in v.key),
    (6, lambda v, p, st, s: re.search(r"\d{16,}", s) and ("out of the range" in v.key or v.outcome == "wrong_answer")),
    (3, lambda v, p, st, s: v.outcome == "crash" and p == "reference" and calls_truncsfbf2(s, False)),
    (5, lambda v, p, st, s: v.outcome == "crash" and p == "optimised" and calls_truncsfbf2(s, True)),
    (4, lambda v, p, st, s: crash_or_wrong(v) and fails_because_split(v, st, p == "optimised")),
    (1, lambda v, p, st, s: fails_because_shared(v, st, p == "optimised")),
]


def known_item(verdict, pipeline: str, statements: list) -> str | None:
    source = program_source(statements)
    for item, test in KNOWN:
        if test(verdict, pipeline, statements, source):
            return ITEMS[item]
    return None
