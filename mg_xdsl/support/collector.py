"""``collector_paused``: Python's cyclic garbage collector paused while the compiler runs.

xDSL builds IR, and the first time its dialects, out of hundreds of thousands of objects,
which the collector would walk again and again while a program compiles, to free next to
nothing: passes replace IR that reference counting frees. Paused, a small program's cold
``mgc run`` takes a third less time, and a fresh process's first ``mg_xdsl.compile`` a
quarter less (0.87 -> 0.66 s for a one-line def on the Zen 3 of docs/compile-time.md); the
peak memory of every example is the same. What cycles a compile leaves are collected once
the collector runs again.

The objects the first compile makes for good (xDSL's dialects and the compiler's tables,
built on first use) are young when the collector restarts, and would be walked in full by
a collection during a later compile (22 ms of the next function's 60 in
``benchmarks/compile_vs_jax.py``): the API collects once after its first compile
(``collect_once``), which moves them to the oldest generation.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the ``with`` block; restart it after, unless it was
    off before (a caller's own pause, or another thread's compile: the collector is the
    process's, and the first to finish restarts it, which costs only time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_collected = False


def collect_once() -> None:
    """A full collection, the first time this is called in the process (see above)."""
    global _collected
    if not _collected:
        _collected = True
        gc.collect()
