"""The codes of compile errors, what each means, and a program that makes it: ``mgc explain``.

A code names a kind of mistake, not a message: messages may be reworded, codes stay. The
three ``E-DIM`` codes are seed 004's (shapes, element types, a tensor expected); the others
are this compiler's families: ``E-SYN`` (the text), ``E-NAME`` (names), ``E-ARG`` (a call's
arguments), ``E-BIND`` (let, var and declared types), ``E-LIMIT`` (sizes the compiler
refuses). Every code the front end raises has an entry here (a test reads the source for
them), and each entry's example raises its code (a test compiles them).
"""

import textwrap
from dataclasses import dataclass

from mg_xdsl.core.element_records import DEFAULT, IN_LANGUAGE_ORDER

ELEMENT_TYPE_NAMES = " ".join(e.name for e in IN_LANGUAGE_ORDER)  # f64 f32 bf16 i32 i64 i1


@dataclass(frozen=True)
class ErrorCode:
    title: str
    explanation: str
    example: str  # a program that fails with this code


CODES: dict[str, ErrorCode] = {
    "E-SYN-001": ErrorCode(
        "a character the language does not have",
        "A program is UTF-8 text of names, numbers, brackets and the operators + - * / @ "
        "and comparisons; anything else (a $, a ;, a byte that is not UTF-8) stops the "
        "compiler at the first one. A # starts a comment, which may hold anything.",
        "let a = [1, 2]\nprint a $ 3\n",
    ),
    "E-SYN-002": ErrorCode(
        "a token where it does not belong",
        "The parser expected something else at the caret: the end of an expression, a "
        "closing bracket, an operand after an operator. A statement is let, var, print, def "
        "or an assignment to a var, one per line (a bracket left open continues the line).",
        "let a = [1, 2]\nprint a +\n",
    ),
    "E-SYN-003": ErrorCode(
        "a malformed literal",
        "A literal is nested lists of numbers (or of true/false), every list of a level as "
        "long and as deep as the others, none empty: [[1, 2], [3, 4]] is a 2x2 tensor. A list "
        "holding names or calls is a list of tensors, which only concat takes; the empty list "
        "[] is no tensor, but a list of no axes or the shape of rank 0 (axes=[], reshape(x, [])).",
        "print [[1, 2], [3]]\n",
    ),
    "E-SYN-004": ErrorCode(
        "a malformed tensor type",
        "A type is tensor[D1xD2x...xT]: each D a positive integer or ? (known when the "
        f"program runs), T one of {ELEMENT_TYPE_NAMES} ({DEFAULT.name} where none is written); "
        "tensor[] and tensor[i32] are rank 0.",
        "def f(x: tensor[2xf16]) = x\n",
    ),
    "E-SYN-005": ErrorCode(
        "a block's indentation",
        "A def, for, if, elif or else line ends with ':' and the lines indented under it are "
        "its block, as in Python; the block ends at the first line indented no further than "
        "its header. The lines of a block are indented alike, with spaces (a tab's width "
        "depends on the editor), and a def is written at the top level.",
        "for i in range(3):\nprint i\n",
    ),
    "E-FLOW-001": ErrorCode(
        "if on a tensor",
        "An if (or elif) chooses one branch, so its condition is one true/false value: a "
        "rank-0 i1 such as loss < best or i == 0. A condition of many elements chooses "
        "element by element: write where(cond, a, b).",
        "let x = [1.0, -2.0]\nif x > 0.0:\n    print x\n",
    ),
    "E-FLOW-002": ErrorCode(
        "a loop that does not count",
        "A for loop counts with range(STOP), range(START, STOP) or range(START, STOP, STEP): "
        "each bound a whole number or a rank-0 integer tensor known when the program runs "
        "(dim(x, 0), an argument), the step a positive whole number.",
        "for i in range(2.5):\n    print i\n",
    ),
    "E-FLOW-003": ErrorCode(
        "a return out of place",
        "A def with a block body ends with return EXPR (return a, b for several results), "
        "giving one value per declared result, or with an if/elif/else each of whose "
        "branches ends so, every path returning the same types; return appears nowhere else "
        "(not at the top level, not inside a loop).",
        "def f(x: tensor[3]):\n    let y = x * 2.0\n",
    ),
    "E-FLOW-004": ErrorCode(
        "a var that a block cannot change",
        "A var assigned inside a loop or an if is carried out of it, in its buffer: it keeps "
        "the type it was declared with (rebind it only to a value of that type), and it must "
        "be a tensor (a var holding a number known when compiling is folded away; declare "
        "it var n: tensor[] = 0.0).",
        "var n = 0.0\nfor i in range(3):\n    n += 1.0\n",
    ),
    "E-LIMIT-001": ErrorCode(
        "beyond the compiler's limits",
        "A dimension is at most 2^40 and a tensor's bytes must be addressable with 63 bits; "
        "parentheses and calls nest at most 100 deep, a literal holds at most 100000 "
        "numbers, and a number must fit in f64.",
        "def f(x: tensor[2000000000000x1]) = x\n",
    ),
    "E-NAME-001": ErrorCode(
        "an unknown name",
        "The name is not a parameter of the def, not bound by let or var above this line, "
        "and not a function. A def sees only its parameters, not the top level's names. The "
        "message suggests the names closest to what was written.",
        "let total = [1, 2]\nprint totl + 1\n",
    ),
    "E-NAME-002": ErrorCode(
        "a name defined twice",
        "A def's name and its parameters' names are each defined once; to compute a new value, use another name.",
        "def f(x: tensor[2], x: tensor[2]) = x\n",
    ),
    "E-NAME-003": ErrorCode(
        "a reserved or built-in name",
        "Built-in functions (relu, sum, ...), keywords, and the symbols the compiled program "
        "links against (main, malloc, the printMemref functions) cannot be redefined or "
        "bound.",
        "def relu(x: tensor[2]) = x\n",
    ),
    "E-NAME-004": ErrorCode(
        "a name used as what it is not",
        "A function is called, not used as a value (f(x), not f); a tensor is not called; a "
        "def cannot call itself (there is no recursion).",
        "def f(x: tensor[2]) = x\nprint f + 1\n",
    ),
    "E-ARG-001": ErrorCode(
        "the wrong number of arguments",
        "Each function takes a fixed number of positional arguments, and the message says "
        "what they are; options come as keywords after them (sum(x, axes=[0])).",
        "print relu([1, 2], [3, 4])\n",
    ),
    "E-ARG-002": ErrorCode(
        "a keyword argument that is not one",
        "Each builtin takes the keyword arguments the message lists, each once and after "
        "the positional ones; a def takes none.",
        "print sum([1, 2], axis=[0])\n",
    ),
    "E-ARG-003": ErrorCode(
        "an argument that must be known when compiling",
        "Axes, shapes, indices, keepdims and the numbers of normal and uniform decide the "
        "shape of the result or the code, so they are numbers or lists of integers written "
        "in the program (or folded from them, or from shape(x)), not tensors computed when "
        "it runs.",
        "let a = [[1, 2]]\nprint sum(a, axes=a)\n",
    ),
    "E-ARG-004": ErrorCode(
        "an argument out of its range",
        "An axis is from -rank to rank - 1 (negative ones count from the end) and given "
        "once; an index is within its axis; sizes are positive; a transpose names each axis "
        "once; a seed is from 0 to 2^63 - 1; normal's std is not negative and uniform's low "
        "is not above its high.",
        "print sum([[1, 2]], axes=[2])\n",
    ),
    "E-BIND-001": ErrorCode(
        "an assignment to a let binding",
        "A let binding never changes; declare the name with var to update it in place "
        "(w += g) or rebind it (w = EXPR).",
        "let w = [1, 2]\nw += [1, 1]\n",
    ),
    "E-BIND-002": ErrorCode(
        "an update that would change a var's type",
        "w += g writes into the buffer w owns, so w + g must have w's shape and element "
        "type: g may broadcast to w, not w to g. Rebind it (w = w + g) to get a new tensor.",
        "var w = [1, 2]\nw += [[1, 1], [2, 2]]\n",
    ),
    "E-BIND-003": ErrorCode(
        "a value that does not have its declared type",
        "let a: TYPE = ... and def f(...) -> TYPE = ... state the type the value must have; "
        "only a literal or a number converts to it (let a: tensor[2xi32] = [1, 2]). Use "
        "cast to convert a tensor.",
        "let a: tensor[3] = [1, 2]\n",
    ),
    "E-ARG-005": ErrorCode(
        "results bound to the wrong number of names",
        "A def that returns several values (return a, b) is called as let a, b = f(...), one "
        "name per result; it cannot be used inside an expression.",
        "def f(x: tensor[2]) -> (tensor[2], tensor[2]):\n    return x, x * 2.0\nprint f([1.0, 2.0])\n",
    ),
    "E-ARG-006": ErrorCode(
        "a format spec println cannot apply",
        "The part after ':' in println's {value:spec} is Python's format spec: "
        "[[fill]align][sign][0][width][.precision][type], type one of e E f F g G % for "
        "floats and d for integers. A spec that does not fit the value's element type, or "
        "one whose output printf cannot give exactly, is an error.",
        'let x = [1.5]\nprintln("x = {x[0]:.2q}")\n',
    ),
    "E-ARG-007": ErrorCode(
        "load without a declared type",
        "load reads a NumPy .npy file into a tensor of the type the program declares, so the "
        'compiler knows its rank and element type: let x: tensor[?x64xf32] = load("x.npy") '
        "(the ? sizes are the file's; the rest is checked against the file when it runs).",
        'let x = load("x.npy")\n',
    ),
    "E-DIM-001": ErrorCode(
        "shapes do not fit",
        "The operands' shapes cannot combine: an elementwise operator broadcasts as NumPy "
        "does (sizes equal, or one of them 1, aligned from the right; a ? never grows), @ "
        "needs the inner sizes equal, an argument must have the parameter's shape. The note "
        "names the operands as written, with their shapes and element types.",
        "def f(x: tensor[2x16], weight: tensor[32x8]) = x @ weight\n",
    ),
    "E-DIM-002": ErrorCode(
        "element types differ, or a name is not an element type",
        "Two tensors of different element types never combine: cast one (cast(x, f32)). A "
        "number takes the tensor's type, so an integer tensor takes only integers in its "
        "range; i1 (true/false) has no arithmetic; float functions need floats; dtype= and "
        f"cast take {ELEMENT_TYPE_NAMES}.",
        "def f(x: tensor[3xf32], y: tensor[3]) = x + y\n",
    ),
    "E-DIM-003": ErrorCode(
        "a tensor was expected",
        "The operation works on tensors, and got a number known when compiling (which has "
        "no shape): @, a def's body, element access, the reductions and shape operations. "
        "full(shape(x), 2.0) or a literal makes a tensor of a number.",
        "print 2 @ [[1, 2]]\n",
    ),
    "E-GRAD-001": ErrorCode(
        "a gradient of something that is not one float number",
        "grad and value_and_grad differentiate one number, a loss: a rank-0 float value "
        "(sum(...), mean(...), x[0]). For the gradient of a tensor's elements, reduce it "
        "first; integers have no gradient.",
        "let w = [1.0, 2.0]\nlet g = grad(w * w, wrt=[w])\n",
    ),
    "E-GRAD-002": ErrorCode(
        "a gradient with respect to something that is not a float tensor's name",
        "wrt= lists the names of the float tensors to differentiate with respect to, each "
        "once: wrt=[w1, b1]. An integer or i1 tensor has no gradient (cast it to a float "
        "first, if it is a variable).",
        "let n: tensor[2xi64] = [1, 2]\nlet g = grad(sum(cast(n, f64)), wrt=[n])\n",
    ),
    "E-GRAD-003": ErrorCode(
        "a gradient with respect to a name the expression does not use",
        "Each name in wrt= must appear in the differentiated expression (or be passed to a "
        "def it calls): a gradient with respect to anything else would be zero, and is "
        "most likely a misspelt or wrong name.",
        "let w = [1.0]\nlet b = [2.0]\nlet g = grad(sum(w * w), wrt=[b])\n",
    ),
    "E-GRAD-004": ErrorCode(
        "a gradient through an operation that has no derivative",
        "The gradient is built from each operation's derivative rule. Integer arithmetic, "
        "comparisons, argmax, iota and random numbers are constants; % and //, and loops "
        "and ifs inside the differentiated expression (a loop around grad is fine) have no "
        "rule yet. The message names the operation and its line.",
        "let w = [1.0, 2.0]\nlet g = grad(sum(w % 1.5), wrt=[w])\n",
    ),
}


def listing() -> str:
    """Every code with its title, one a line: ``mgc explain`` without a code."""
    width = max(map(len, CODES))
    return "\n".join(f"{code:<{width}}  {entry.title}" for code, entry in CODES.items())


def explanation(code: str) -> str:
    """The paragraph and the example of ``code``, and what the compiler says of the example."""
    from mg_xdsl.language.frontend import MgError, parse_program

    entry = CODES[code]
    example = "\n".join("    " + line for line in entry.example.rstrip("\n").split("\n"))
    try:
        parse_program(entry.example, "example.mg")
        said = "    (it compiles: this entry's example is out of date)"
    except MgError as e:
        said = "\n".join("    " + line for line in e.render().split("\n"))
    paragraph = textwrap.fill(entry.explanation, 88)
    return f"{code}: {entry.title}\n\n{paragraph}\n\nFor example, example.mg:\n\n{example}\n\ngives\n\n{said}"
