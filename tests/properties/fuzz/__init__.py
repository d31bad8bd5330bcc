"""A random-program generator ("fuzzer") for Mountain Goat with an independent NumPy reference.

Whole programs are generated (top-level ``let``/``var``/updates/``print`` and ``def``s with
static and ``?`` parameter shapes), evaluated with NumPy as they are generated, compiled in
both pipelines (optimised and reference) and run in a forked child; what they print is
compared with the reference. The modules, in the order a program travels through them:

- ``values``     element types, and reference values that carry a bound on their error
- ``reference``  the language's operations on those values (NumPy; bf16 via ml_dtypes)
- ``types``      tensor types with ``?`` dimensions and the checker's shape rules
- ``syntax``     expression trees and statements: source text and evaluation
- ``ops``        the operation table: for each operation, its type rule, its reference
                 and how to build a random application of it
- ``generator``  whole programs: values placed in every position, defs with ``?`` patterns
- ``execute``    compile and run a program in a forked child (a crash kills only the child)
- ``oracle``     compare what was printed with the reference; classify the outcome
- ``minimise``   delete statements while a failure stays the same
- ``campaign``   the command line: ``python -m tests.properties.fuzz.campaign --help``
"""
