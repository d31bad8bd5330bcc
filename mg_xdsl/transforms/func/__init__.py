"""Transforms of functions: outlining loop nests, keeping small functions out of LLVM's optimiser."""
