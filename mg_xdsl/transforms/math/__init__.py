"""Passes on the ``math`` dialect: ``math-polynomial-approximation``."""
