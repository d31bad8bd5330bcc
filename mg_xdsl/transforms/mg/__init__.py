"""Transforms of ``mg`` ops, before the mg dialect is lowered: differentiation (``mg-autodiff``)."""
