"""``format_spec``: which specs are refused and why; the plans the lowering follows. (What the
compiled code prints for each plan is compared with Python's ``format`` for many values and
specs in tests/e2e/test_println_ir.py; here, the same values through a Python model of the
run-time library's steps, so that a wrong plan shows without compiling.)"""

import math

import numpy as np
import pytest

from mg_xdsl.core import format_spec
from mg_xdsl.core.format_spec import check, plan

FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-5, 1e-4, 1e16, 123456.789, 5e-324, 2 / 3, -0.04, 12.04, 1e22,
          math.inf, -math.inf, math.nan]  # fmt: skip
FLOAT_SPECS = ["", ".4f", "e", ".3E", "g", "%", ".1%", "+", " ", "10", "<10", "^11.3f", "*>12.2e", "=+10.1f",
               "010.3f", "z.1f", "z", "+z.0f", "#.0f", "#g", ".3", ".17", "x<8", "F", "08", "z.2e"]  # fmt: skip
INTS = [0, 1, -1, 42, -(2**63), 2**63 - 1]
INT_SPECS = ["", "d", "+d", " d", "5", "<6", "^7d", "08", "=+9", "*^9", ".2f", "e", "%", "g", ".3e"]


def _repr_digits(x: float, mode: int, precision: int) -> str:
    """What mgrt_println_python does for a finite non-negative x."""
    if mode == 2:
        text = "%.*e" % (precision - 1, x)
        mantissa, exp = text.split("e")
        decimals = len(mantissa.rstrip("0").rstrip(".").replace(".", "")) - 1
        decimals = max(decimals, 0)
    else:
        decimals = 16
        for decimals in range(17):
            text = "%.*e" % (decimals, x)
            back = float(text)
            if (back == x) if mode == 0 else (np.float32(back) == np.float32(x)):
                break
    exp = int(("%.*e" % (decimals, x)).split("e")[1])
    high = precision - 1 if mode == 2 else 16
    scientific = (x != 0 and (x < 1e-4 or x >= 1e6)) if mode == 1 else (exp < -4 or exp >= high)
    if scientific:
        return "%.*e" % (decimals, x)
    places = decimals - exp
    return "%.*f" % (places, x) if places > 0 else "%.0f" % x + ".0"


def model(x: float | int | bool, element: str, spec: str) -> str:
    """The run-time library's steps for a plan, in Python."""
    p = plan(spec, element)
    if p.kind == "bool":
        text = "True" if x else "False"
    elif p.kind == "integer":
        text = p.printf.replace("ld", "d") % int(x)
    elif p.kind == "float":
        y = float(x) * (100 if p.percent else 1)
        text = p.printf % (abs(y) if math.isnan(y) else y)
    else:
        y = float(x)
        negative = math.copysign(1, y) < 0 and not math.isnan(y)
        text = "-" if negative else p.sign
        y = abs(y)
        mode = 2 if p.kind == "general" else 1 if (spec == "" and element != "f64") else 0
        text += ("%f" % y) if not math.isfinite(y) else _repr_digits(y, mode, p.precision)
    if p.z and text.startswith("-") and all(c in "0.%" for c in text[1:].split("e")[0].split("E")[0]):
        text = p.sign + text[1:]
    pad = p.width - len(text)
    if pad > 0:
        left = {"<": 0, "^": pad // 2}.get(p.align, pad)
        skip = 1 if p.align == "=" and text[:1] in "+- " and text else 0
        text = text[:skip] + p.fill * left + text[skip:] + p.fill * (pad - left)
    return text


@pytest.mark.parametrize("spec", FLOAT_SPECS)
def test_f64_plans_give_pythons_text(spec: str) -> None:
    for x in FLOATS:
        assert model(x, "f64", spec) == format(x, spec), (x, spec)


@pytest.mark.parametrize("spec", FLOAT_SPECS)
def test_f32_plans_give_numpys_text(spec: str) -> None:
    for x in [0.1, 3.0, 1e10, 1e-4, 1.5e-45, 3.4e38, -0.0, 123456.0, 999999.0, 1e6, 16777216.0, 2 / 3, math.nan]:
        f = np.float32(x)
        want = str(f) if spec == "" else format(f, spec)
        assert model(float(f), "f32", spec) == want, (x, spec)


@pytest.mark.parametrize("spec", INT_SPECS)
def test_integer_plans_give_pythons_text(spec: str) -> None:
    for x in INTS:
        assert model(x, "i64", spec) == format(x, spec), (x, spec)


@pytest.mark.parametrize("spec", ["", "d", "5", "<4", ".1f", "+"])
def test_bool_plans_give_pythons_text(spec: str) -> None:
    for b in (True, False):
        assert model(b, "i1", spec) == format(b, spec), (b, spec)


@pytest.mark.parametrize(
    ("spec", "element", "message"),
    [
        (".4q", "f64", "format spec '.4q' is not valid for an f64 value: unknown type 'q'"),
        (".2d", "i32", "format spec '.2d' is not valid for an i32 value: precision not allowed in integer format"),
        ("d", "f32", "format spec 'd' is not valid for an f32 value: unknown type 'd'"),
        (",.2f", "f64", "grouping with ',' is not supported"),
        ("_d", "i64", "grouping with '_' is not supported"),
        ("x", "i32", "the type 'x' is not supported"),
        ("n", "f64", "the type 'n' is not supported"),
        ("#", "f64", "'#' without a type is not supported"),
        ("é<5", "f64", "the fill character 'é' is not supported"),
        (".200", "f64", "a precision above 120 without a type is not supported"),
        ("z", "i32", "not valid for an i32 value"),
        ("q", "bf16", "format spec 'q' is not valid for a bf16 value: unknown type 'q'"),
    ],
)
def test_refused_specs_say_which_part(spec: str, element: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        check(spec, element)
    assert message in str(e.value)


def test_every_element_type_takes_no_spec() -> None:
    for element in format_spec.ELEMENT_TYPES:
        check("", element)
    with pytest.raises(ValueError, match="cannot print an f16 value"):
        check("", "f16")
