"""The pipeline: the ordered stages from the mg dialect to the LLVM dialect (``stages``),
every pass by its command-line name (``registry``).

Imports every layer below it (passes through the registry, lazily); the backend and the
tools import it.
"""
