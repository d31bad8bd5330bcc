"""Python's format specs (``{x:.4f}`` in ``println``) for rank-0 values of each element type:
which ones the compiled code prints exactly as Python would (``check``), and how it prints them
(``plan``, which ``mg.println``'s lowering follows).

The spec is Python's mini-language, ``[[fill]align][sign][z][#][0][width][grouping][.precision][type]``,
and the text printed is exactly ``format(value, spec)`` for a value of Python's type (an ``f64`` as
a ``float``; an ``f32`` or ``bf16`` as NumPy's ``np.float32`` formats it, which is ``float``'s
formatting of the same number; an integer as ``int``; an ``i1`` as ``bool``). The run-time
library (``mg_xdsl/backend/runtime_ir.py``, "println") makes the text of each value with C's
``snprintf``, then applies ``z``, the fill and the alignment itself, since ``printf`` pads
differently from Python (``%08f`` pads ``inf`` with spaces; it has no centring nor fill
characters).

Supported: every fill (an ASCII character) and alignment (``< > ^ =``), sign (``+ - space``),
``z``, ``0``, width and precision; types ``e E f F g G %`` and none for every element type
(an integer is formatted as the float it converts to, as Python does), ``d`` for integers and
``i1``; ``#`` with a type. Refused, with a message naming the part: grouping (``,`` ``_``),
``#`` without a type on a float, the types ``n`` (locale) ``b o x X c s``, a fill outside ASCII,
and a precision above ``MAX_GENERAL_PRECISION`` without a type. Specs Python itself rejects
(``.2d``) are refused with Python's reason.

No spec at all prints as ``str(value)``: an ``f64`` as Python's shortest repr (``1.0``,
``1e-05``, ``1e+16``, ``nan``, ``-0.0``), an ``f32``/``bf16`` as ``str(np.float32(value))``
(NumPy's shortest float32 digits, positional from 1e-4 to below 1e6; with a spec, NumPy
formats the Python float it converts to, so ``{x:+}`` of an ``f32`` 0.1 is ``+0.10000000149011612``,
as in Python), an integer as
``str(int)``, an ``i1`` as ``True``/``False`` (as Python prints a bool: ``f"{b}"``; a
non-empty spec formats it as the integer 0 or 1, as ``format(True, "5")`` does).

This module imports no xDSL: the front end calls ``check`` while it parses.
"""

import re
from dataclasses import dataclass

FLOAT_TYPES = ("f64", "f32", "bf16")
INTEGER_TYPES = ("i32", "i64")
BOOL_TYPE = "i1"
ELEMENT_TYPES = (*FLOAT_TYPES, *INTEGER_TYPES, BOOL_TYPE)
MAX_GENERAL_PRECISION = 120  # the run-time library's digit buffer (no type and a precision)

_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?(?P<type>.)?",
    re.DOTALL,
)
_FLOAT_PRESENTATIONS = "eEfFgG%"
_SAMPLES = {"f64": 1.5, "f32": 1.5, "bf16": 1.5, "i32": 1, "i64": 1, "i1": True}


@dataclass(frozen=True)
class Plan:
    """How the run-time library prints one value.

    ``kind``: ``"bool"`` (``True``/``False``), ``"repr"`` (a float's shortest repr, ``str()``),
    ``"general"`` (no type but a precision: ``g``'s digits, at least one after the point),
    ``"float"`` (``snprintf(printf, double)``; ``percent``: the value times 100 first), or
    ``"integer"`` (``snprintf(printf, long)``). ``as_float``: an integer converted to ``f64``
    first. ``sign``: the sign flag (``""``, ``"+"`` or ``" "``), which ``printf`` already has
    for ``float``/``integer``; ``z``: a negative zero (after rounding) loses its ``-``.
    ``fill``/``align``/``width``: the padding (``align`` ``""`` where there is none)."""

    kind: str
    printf: str = ""
    precision: int = 0
    percent: bool = False
    as_float: bool = False
    sign: str = ""
    z: bool = False
    fill: str = " "
    align: str = ""
    width: int = 0


def _refuse(spec: str, element: str, reason: str) -> ValueError:
    article = "a" if element == "bf16" else "an"
    return ValueError(f"format spec {spec!r} is not valid for {article} {element} value: {reason}")


def _python_reason(message: str) -> str:
    """Python's message for a spec it rejects, worded for a program's author."""
    unknown = re.match(r"Unknown format code '(.)'", message)
    if unknown:
        return f"unknown type {unknown.group(1)!r}"
    return message[:1].lower() + message[1:]


def plan(spec: str, element: str) -> Plan:
    """How to print a value of ``element`` (a language type name: ``f64``, ``i32``...) with
    ``spec`` (without its ``:``; ``""`` for none), exactly as Python's ``format`` would; a
    ValueError saying which part is wrong or unsupported if it cannot be."""
    if element not in ELEMENT_TYPES:
        raise ValueError(f"println cannot print an {element} value")
    try:
        format(_SAMPLES[element], spec)
    except ValueError as e:
        raise _refuse(spec, element, _python_reason(str(e))) from None
    if spec == "":
        if element == BOOL_TYPE:
            return Plan("bool")
        if element in INTEGER_TYPES:
            return Plan("integer", printf="%ld")
        return Plan("repr", precision=-1)
    m = _SPEC.fullmatch(spec)
    assert m is not None, f"Python accepted {spec!r}, the grammar did not"
    fill, align, sign = m["fill"], m["align"] or "", m["sign"] or ""
    presentation = m["type"] or ""
    if fill is not None and not (" " <= fill <= "~"):
        raise _refuse(spec, element, f"the fill character {fill!r} is not supported (only ASCII ones are)")
    if m["grouping"]:
        raise _refuse(spec, element, f"grouping with {m['grouping']!r} is not supported")
    if presentation and presentation not in _FLOAT_PRESENTATIONS + "d":
        raise _refuse(spec, element, f"the type {presentation!r} is not supported (only e E f F g G % and d are)")
    if m["zero"]:
        # Python: ``0`` before the width is fill '0' with '=' alignment, unless they are given.
        fill = "0" if fill is None else fill
        align = align or "="
    width = int(m["width"] or 0)
    precision = None if m["precision"] is None else int(m["precision"])
    sign = "" if sign == "-" else sign
    padding = {"fill": fill or " ", "align": align or ">", "width": width}
    if element in FLOAT_TYPES or (presentation != "" and presentation in _FLOAT_PRESENTATIONS):
        as_float = element not in FLOAT_TYPES
        if not presentation:
            if m["alt"]:
                raise _refuse(spec, element, "'#' without a type is not supported")
            if precision is None:
                return Plan("repr", precision=-1, sign=sign, z=bool(m["z"]), as_float=as_float, **padding)
            if precision > MAX_GENERAL_PRECISION:
                raise _refuse(
                    spec, element, f"a precision above {MAX_GENERAL_PRECISION} without a type is not supported"
                )
            return Plan("general", precision=max(precision, 1), sign=sign, z=bool(m["z"]), as_float=as_float, **padding)
        c_type = "f" if presentation == "%" else presentation
        printf = "%" + sign + ("#" if m["alt"] else "") + ("" if precision is None else f".{precision}") + c_type
        if presentation == "%":
            printf += "%%"
        return Plan(
            "float",
            printf=printf,
            percent=presentation == "%",
            as_float=as_float,
            sign=sign,
            z=bool(m["z"]),
            **padding,
        )
    # An integer (or an i1, formatted as its integer) with ``d`` or no type.
    return Plan("integer", printf="%" + sign + "ld", sign=sign, **padding)


def check(spec: str, element: str) -> None:
    """Raise ValueError with a message for the program's author if ``spec`` is not a format
    spec that compiled code prints exactly as Python would for an ``element`` value, e.g.
    ``format spec '.4q' is not valid for an f64 value: unknown type 'q'``."""
    plan(spec, element)
