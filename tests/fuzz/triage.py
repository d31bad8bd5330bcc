"""Which known bug a failure looks like: the items of the issue the fuzzer was written for
(at commit 8914cd3). A heuristic on the outcome and the (minimised) program, for the
campaign's report: a failure it does not recognise is reported as new."""

import re

# item -> test on (verdict, pipeline, source); the first that holds names the failure.
KNOWN = {
    "item 1 (a var made from a let shares its buffer)":
        lambda v, p, s: v.outcome == "wrong_answer" and re.search(r"^var (\w+) = \w+\n(?:.*\n)*\1 [-+*/]?= ", s, re.M),
    "item 2 (AssertionError in copy_at_boundaries: a dead op on a view)":
        lambda v, p, s: "copy_at_boundaries" in v.key,
    "item 4 (a print after 32 loop nests)":
        lambda v, p, s: v.outcome in ("wrong_answer", "crash") and s.count("\n") >= 25,
    "item 5 (bf16 code calling __truncsfbf2)":
        lambda v, p, s: v.outcome == "crash" and p == "optimised" and "bf16" in s,
    "item 3 (bf16 in the reference pipeline: a segfault)":
        lambda v, p, s: v.outcome == "crash" and p == "reference" and "bf16" in s,
    "item 6 (i64 literals through f64)":
        lambda v, p, s: re.search(r"\d{16,}", s) and ("out of the range" in v.key or v.outcome == "wrong_answer"),
}


def known_item(verdict, pipeline: str, source: str) -> str | None:
    for item, test in KNOWN.items():
        if test(verdict, pipeline, source):
            return item
    return None
