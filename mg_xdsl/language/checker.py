"""The checker: gives every expression of a statement's syntax tree its type, and reports
what makes a program wrong (an unknown name, shapes that cannot combine, a call with the
wrong arguments) or likely to abort when it runs (warnings).

Its modules, in the order to read them:

    checker_types       what a type is (a tensor type or a compile-time number), how
                        messages write one, and arithmetic on compile-time numbers
    checker_core        the checker's state, its diagnostics, and the language's own rules:
                        statements, names, operators, calls of defs; a builtin's call goes
                        to the rule its record's family names (``Checker.<family>``)
    checker_arguments   how those rules read a builtin's arguments (counts, axes, keywords)
    checker_blocks      blocks: a def's body and return, for, if/elif/else, let a, b = ...,
                        println, calls made as statements
    checker_elementwise, checker_reductions, checker_creation, checker_shape_ops,
    checker_indexing, checker_scans, checker_matrix, checker_gradients
                        the rules of the families of builtins, a module per group

The rules themselves are ``mg_xdsl.core.shapes``'s and ``mg_xdsl.core.element_types``'s,
shared with the mg dialect's verifiers; the checker phrases them for the program's author.
"""

from mg_xdsl.language.checker_blocks import BlockRules
from mg_xdsl.language.checker_creation import CreationRules
from mg_xdsl.language.checker_elementwise import ElementwiseRules
from mg_xdsl.language.checker_gradients import GradientRules
from mg_xdsl.language.checker_indexing import IndexingRules
from mg_xdsl.language.checker_matrix import MatrixRules
from mg_xdsl.language.checker_reductions import ReductionRules
from mg_xdsl.language.checker_scans import ScanRules
from mg_xdsl.language.checker_types import Signature, Type, fold, is_number, type_text
from mg_xdsl.language.syntax_tree import TensorType


class Checker(
    BlockRules,
    ElementwiseRules,
    ReductionRules,
    CreationRules,
    MatrixRules,
    IndexingRules,
    ScanRules,
    GradientRules,
):
    """The checker of one program: the core's rules and every family's (``MatrixRules``
    brings ``ShapeRules``, whose ``shape_op`` its ``transpose`` calls)."""


__all__ = ["Checker", "Signature", "TensorType", "Type", "fold", "is_number", "type_text"]
