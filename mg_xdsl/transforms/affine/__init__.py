"""Transforms of ``affine`` loops: normalising and parallelising them."""
