"""The Mountain Goat language's front end, one stage a module, in the order they run on each
statement (``mg_xdsl.language.frontend`` drives them):

    lexer         source text -> the tokens of each statement
    syntax_tree   tokens -> a syntax tree (syntax errors)
    checker       syntax tree -> every expression typed, numbers folded (type and shape
                  errors, warnings)
    irgen         typed syntax tree -> mg dialect ops

Every problem is an ``MgError`` (``diagnostics``) carrying the line it was found on.
"""
