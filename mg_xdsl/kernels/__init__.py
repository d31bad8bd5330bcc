"""Kernels: the code that the optimisations put in place of a structured op, each emitted
once per module as a private function that every matched op of its kind calls.

A kernel module says which ``linalg`` ops its kernel computes (``match_product``,
``match_reduction``: by their indexing maps, iterator types and bodies) and what the fast
code is; a pass (``tile-matmul``, ``vectorize-reductions``) decides whether a matched op is
worth it (its cost model: ops of a few static elements stay, to become plain loops), and
``convert-mg-to-linalg`` asks the matchers which views a kernel would be passed.

Why shared functions rather than a copy at every nest: a matrix product's tiled code is
some 1,200 ops in the LLVM dialect and a column reduction's some 500, which every later
pass lowers and LLVM optimises again at every copy; a program of twenty ``?x?`` products
took 5 s to compile. A call costs nanoseconds next to a kernel that is only chosen for
large or run-time sizes.

- ``shared``: find or add a module's ``@mg_...`` kernel function, and call it.
- ``matmul``: ``C += A @ B``, packed, cache-tiled and register-blocked (the BLIS scheme).
- ``reductions``: row and column sums and maxima in vector registers, rows in parallel.
"""
