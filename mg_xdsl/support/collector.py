"""Python's cyclic garbage collector, paused while the compiler works (``paused``).

xDSL builds IR, and its dialects, out of hundreds of thousands of small objects that refer
to one another. Every few hundred new objects the collector walks the youngest of them, and
now and then every object of the process: the compiler's own, and those of whatever the
program calling it has loaded (a process that has imported JAX holds about 100,000 objects
more). It frees next to nothing: the IR of one compilation is freed as a whole when it is
dropped, and the peak memory of every example is the same without the collector. Measured on
a Zen 3 (byte-compiled, 2026-12-07): 0.05 s of the 0.55 s of ``mgc run --no-cache
examples/01_relu.mg`` (medians of six alternating runs); 8% of the Python API's time for the
seven functions of ``benchmarks/compile_vs_jax.py`` compiled again and again in one process
(658 -> 599 ms, medians of eight alternating rounds; 657 -> 607 ms with JAX imported), about
1% in a fresh process, whose heap is young.

Imports nothing: ``mgc`` pauses the collector before it knows whether it will need xDSL.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block, then set it back as it was
    (left off where the caller had turned it off). The cycles made meanwhile are collected
    by the next collection after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
