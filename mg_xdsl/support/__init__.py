"""Helpers, not passes: builders of upstream ops (``op_builders``, ``loop_builders``),
small walkers (``rewrite_each``, ``affine_nests``), the thread pool's work split
(``thread_work``), the garbage collector paused while compiling (``collector``), and the
work-arounds for what xDSL 0.75 lacks or does slowly
(``xdsl_compat``, ``xdsl_lazy_formats``: each says when it can go).

Imports ``core`` and ``dialects`` only.
"""
