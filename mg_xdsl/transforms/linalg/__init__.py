"""Transforms of ``linalg`` ops on buffers: the optimised pipeline's fusion, kernels and stores."""
