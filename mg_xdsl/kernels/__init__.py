"""Kernels: the code that the optimisations put in place of a loop nest, each emitted once
per module as a private function that every matched nest of its kind calls.

A pass (``tile-matmul``, ``vectorize-reductions``) finds the nests it can speed up and
decides whether it is worth it (its cost model: nests of a few static elements keep their
plain loops); the kernel modules here say what the fast code is. Kept apart so that the
matchers can change (they will match ``linalg`` ops rather than ``affine`` nests) while the
kernels and the decision stay.

Why shared functions rather than a copy at every nest: a matrix product's tiled code is
some 1,200 ops in the LLVM dialect and a column reduction's some 500, which every later
pass lowers and LLVM optimises again at every copy; a program of twenty ``?x?`` products
took 5 s to compile. A call costs nanoseconds next to a kernel that is only chosen for
large or run-time sizes.

- ``shared``: find or add a module's ``@mg_...`` kernel function, and call it.
- ``matmul``: ``C += A @ B``, packed, cache-tiled and register-blocked (the BLIS scheme).
- ``reductions``: row and column sums and maxima in vector registers, rows in parallel.
"""
