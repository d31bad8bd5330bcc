"""Transforms of functions: inlining a def called once, outlining loop nests, keeping small functions out of LLVM's optimiser."""
