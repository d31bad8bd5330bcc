"""Helpers shared by tests in several folders (no tests here), imported as ``helpers.NAME``
(``conftest.py`` puts ``tests/`` on the path, as for its own helpers):

- ``block_programs`` random programs with loops, conditionals and block-bodied defs, and
                   the same program run on NumPy, for the property tests and the campaign
- ``examples``     the examples of examples/ and the check of a run against their expected output
- ``interpreters`` a program interpreted at each stage of the pipeline
- ``printed``      what ``mgc run`` printed, read back as NumPy arrays
- ``programs``     random programs and an independent NumPy reference, for the property tests
- ``threads``      a compiled function run at one and two threads
- ``upstream``     upstream MLIR 22 as an oracle (``mlir-opt-22``, ``--backend mlir``)
"""
