"""The facts every layer shares, with no compiler in them: element types (``element_types``),
the shape rules (``shapes``) and the CPU the code is made for (``target``).

Imports nothing of ``mg_xdsl``; everything else may import it.
"""
