"""Which known bug a failure looks like: the items of the issue the fuzzer was written for
(at commit 8914cd3). Heuristics on the outcome and the (minimised) program, for the
campaign's report; a failure none of them recognises is reported as new."""

import re


def outlined(source: str, optimise: bool) -> bool:
    """Whether ``outline-loop-nests`` split ``main`` (32 loop nests or more)."""
    from mg_xdsl.driver import Compilation

    try:
        return "@main_loops_" in str(Compilation(source, "prog.mg", keep_dir=None, optimise=optimise).mlir("scf"))
    except Exception:  # noqa: BLE001  (a program that does not compile was not split)
        return False


def crash_or_wrong(v) -> bool:
    return v.outcome in ("wrong_answer", "crash")


# item -> test on (verdict, pipeline, source); the first that holds names the failure.
KNOWN = {
    "item 1 (a var made from a let shares its buffer)":
        lambda v, p, s: "a var made from it was updated" in v.key,
    "item 2 (AssertionError in copy_at_boundaries: a dead op on a view)":
        lambda v, p, s: "copy_at_boundaries" in v.key,
    "item 6 (i64 literals through f64)":
        lambda v, p, s: re.search(r"\d{16,}", s) and ("out of the range" in v.key or v.outcome == "wrong_answer"),
    "item 4 (a print after 32 loop nests)":
        lambda v, p, s: crash_or_wrong(v) and outlined(s, p == "optimised"),
    "item 3 (bf16 element access in a def, reference pipeline: a segfault)":
        lambda v, p, s: v.outcome == "crash" and p == "reference"
        and re.search(r"^def [^\n]*bf16[^\n]*=[^\n]*(?:p\d+|\))\[-?\d", s, re.M),
    "item 5 (bf16 code calling __truncsfbf2: a segfault)":
        lambda v, p, s: v.outcome == "crash" and p == "optimised" and "bf16" in s,
}


def known_item(verdict, pipeline: str, source: str) -> str | None:
    for item, test in KNOWN.items():
        if test(verdict, pipeline, source):
            return item
    return None
