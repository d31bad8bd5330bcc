"""Smaller programs that fail the same way: statements are deleted (with every statement that
depends on them) while the program still fails with the same key (``oracle.Verdict.key``),
first in large chunks, then one at a time, as delta debugging does."""

import time

from .execute import run_one
from .oracle import judge
from .syntax import program_source, run_program


def without(statements: list, doomed: set[int]) -> list:
    """``statements`` less those of ``doomed`` and every later one that reads a name (or
    calls a def) that they define."""
    gone: set[str] = set()
    kept = []
    for i, s in enumerate(statements):
        if i in doomed or s.uses() & gone:
            gone |= s.defines()
        else:
            kept.append(s)
    return kept


def fails_alike(statements: list, optimise: bool, key: str, timeout: float) -> bool:
    """Whether the program still fails with ``key`` (and the reference can run it)."""
    try:
        expected, abort = run_program(statements)
    except Exception:  # noqa: BLE001  (a deletion the reference cannot follow)
        return False
    return judge(run_one(program_source(statements), optimise, timeout), expected, statements, abort).key == key


def minimise(statements: list, optimise: bool, key: str, budget: float = 120.0, timeout: float = 60.0) -> list:
    """The smallest program found within ``budget`` seconds that fails like ``statements``."""
    deadline = time.monotonic() + budget
    current = list(statements)
    chunk = max(1, len(current) // 2)
    while time.monotonic() < deadline:
        changed, end = False, len(current)
        while end > 0 and time.monotonic() < deadline:
            start = max(0, end - chunk)
            candidate = without(current, set(range(start, end)))
            if candidate and len(candidate) < len(current) and fails_alike(candidate, optimise, key, timeout):
                current, changed = candidate, True
                end = min(start, len(current))
            else:
                end = start
        if chunk == 1 and not changed:
            break
        chunk = max(1, chunk // 2)
    return current
