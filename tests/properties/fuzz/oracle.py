"""What a run printed, compared with the reference, and the outcome that makes.

Outcomes: ``pass``; ``wrong_answer`` (other numbers or shapes, fewer or more prints, or
text on stderr); ``compile_error`` (the checker rejected a program the generator believes
valid: a generator or checker bug, to investigate); ``ice`` (an internal compiler error:
any other exception while compiling); ``crash`` (a signal, while compiling or running);
``runtime_error`` (the program stopped with a failed run-time check it should not have
failed); ``timeout``.

A failure's ``signature`` says what kind of failure it is, with the details that change
from program to program left out, so that the minimiser can keep it and the campaign count
failures of one kind together.
"""

import re
import signal
from dataclasses import dataclass

import numpy as np

from .execute import Run
from .syntax import Let, Name, Print, Update
from .values import INTS, Val

NUMBER = re.compile(r"-?nan|-?inf|-?[0-9.]+(?:e[+-]?[0-9]+)?")
OUTCOMES = ("pass", "wrong_answer", "compile_error", "ice", "crash", "runtime_error", "timeout")


@dataclass
class Printed:
    """One memref as printed: its sizes and its numbers as written (ints stay exact)."""

    sizes: tuple[int, ...]
    numbers: list[str]


def parse_printed(text: str) -> list[Printed]:
    out = []
    for block in text.split("Unranked Memref")[1:]:
        header, _, data = block.partition("data = \n")
        sizes = re.search(r"sizes = \[([^\]]*)\]", header)
        shape = tuple(int(s) for s in sizes.group(1).split(",") if s.strip()) if sizes else ()
        out.append(Printed(shape, NUMBER.findall(data)))
    return out


def element_agrees(written: str, want, bound: float, dtype: str) -> bool:
    """One printed number against the reference's, within its bound and the printer's
    6 significant digits (integers exactly)."""
    if np.isinf(bound) or np.isnan(bound):
        return True
    if dtype in INTS or dtype == "i1":
        return re.fullmatch(r"-?\d+", written) is not None and int(written) == int(want)
    got, want = float(written), float(want)
    if np.isnan(want):
        return np.isnan(got)
    if np.isinf(want):
        return got == want
    return bool(abs(got - want) <= bound + 6e-6 * (abs(want) + bound) + 1e-300)


def compare(printed: list[Printed], expected: list[Val]) -> tuple[int, str] | None:
    """None if the prints agree with the reference, else the index of the first print that
    differs and how."""
    for k, (got, want) in enumerate(zip(printed, expected)):
        if got.sizes != want.shape:
            return k, f"print {k + 1}: sizes {list(got.sizes)}, expected {list(want.shape)}"
        if len(got.numbers) != want.v.size:
            return k, f"print {k + 1}: {len(got.numbers)} numbers for {want.v.size} elements"
        for i, (written, v, e) in enumerate(zip(got.numbers, want.v.ravel(), want.e.ravel())):
            if not element_agrees(written, v, e, want.dtype):
                return k, (
                    f"print {k + 1} ({want.dtype}, sizes {list(want.shape)}): element {i} is {written}, "
                    f"expected {v} (within {e:g})"
                )
    if len(printed) != len(expected):
        return min(len(printed), len(expected)), f"{len(printed)} prints, expected {len(expected)}"
    return None


def wrong_print_key(statements: list, k: int) -> str:
    """What the ``k``-th print prints, for telling wrong answers apart: a value read after
    a var made from it was updated, or the operation and type of what it prints."""
    prints = [i for i, s in enumerate(statements) if isinstance(s, Print)]
    if k >= len(prints):
        return "wrong_answer: prints missing"
    at = prints[k]
    value = statements[at].value
    if any(shares_with_updated_var(statements[:at], name) for name in reads(statements[:at], value.names())):
        return "wrong_answer: a value printed after a var made from it was updated"
    dtype = value.type.dtype if value.type.dtype != "number" else "f64"
    return f"wrong_answer: print of {value.op} ({dtype})"


def reads(statements: list, names: set[str]) -> set[str]:
    """``names`` and every name the statements that bound them read, and so on."""
    found, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += [n for s in statements if isinstance(s, Let) and s.name == name for n in s.uses()]
    return found


def shares_with_updated_var(statements: list, name: str) -> bool:
    """Whether ``name`` is a ``var`` bound to another name (or a name a ``var`` was bound
    to), and that var was then updated in place: where a var that shares its buffer
    shows."""
    pairs = {
        (s.name, s.value.name) for s in statements if isinstance(s, Let) and s.mutable and isinstance(s.value, Name)
    }
    vars_ = {w for w, n in pairs if name in (w, n)}
    return any(isinstance(s, Update) and s.op and s.name in vars_ for s in statements)


@dataclass
class Verdict:
    outcome: str
    detail: str = ""  # what went wrong, for a person
    key: str = ""  # the failure's kind, for counting and minimising

    @property
    def ok(self) -> bool:
        return self.outcome == "pass"


def judge(run: Run, expected: list[Val], statements: list | None = None, abort: str | None = None) -> Verdict:
    """The outcome of ``run`` of a program that must print ``expected``, then stop with the
    message ``abort`` (None: end normally). With the program's ``statements``, a wrong
    answer's key says what the wrong print prints."""
    if run.phase == "timeout":
        return Verdict("timeout", f"no result after {run.seconds:.0f} s", "timeout")
    if run.phase == "compile_error":
        first = run.message.splitlines()[0] if run.message else ""
        return Verdict("compile_error", run.message, "compile_error: " + mask(first.split("error: ", 1)[-1]))
    if run.phase == "ice":
        return Verdict("ice", run.message, "ice: " + ice_key(run.message))
    if run.phase == "compile_crash":
        return Verdict(
            "crash",
            f"while compiling: {signal_name(run.status)}\n{run.stderr}",
            f"crash while compiling: {signal_name(run.status)}",
        )
    if run.status and run.status < 0 and run.status != -signal.SIGABRT:
        return Verdict(
            "crash",
            f"{signal_name(run.status)}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}",
            f"crash: {signal_name(run.status)}",
        )
    first = (run.stderr.splitlines() or ["(nothing on stderr)"])[0]
    if run.status and first != abort:
        outcome = "runtime_error" if first.startswith("mg.") else "crash"
        expectation = f"expected: {abort}" if abort else "expected no failed check"
        return Verdict(
            outcome, f"exit {run.status} ({expectation})\nstderr:\n{run.stderr}", f"{outcome}: {mask(first)}"
        )
    if abort and not run.status:
        return Verdict(
            "wrong_answer",
            f"the program ended normally; expected it to stop with: {abort}",
            "wrong_answer: a failed check did not stop the program",
        )
    difference = compare(parse_printed(run.stdout), expected)
    if difference is None and run.stderr.strip() and not abort:
        return Verdict("wrong_answer", "stderr: " + run.stderr.strip(), "wrong_answer: text on stderr")
    if difference is not None:
        k, text = difference
        return Verdict("wrong_answer", text, wrong_print_key(statements, k) if statements else "wrong_answer")
    return Verdict("pass")


def signal_name(status: int | None) -> str:
    if status is None or status >= 0:
        return f"exit {status}"
    try:
        return signal.Signals(-status).name
    except ValueError:
        return f"signal {-status}"


def mask(text: str) -> str:
    """A message with its types, numbers and names left out (``mg.slice: stop # ...``)."""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x#", re.sub(r"tensor\[[^\]]*\]", "tensor[#]", text))
    return re.sub(r"\b(?:[a-z]+\d+|\d+)\b", "#", text)[:120]


def ice_key(trace: str) -> str:
    """An internal error's exception, the compiler frame it was raised in and the start of
    its message."""
    frames = re.findall(r'File "[^"]*/(mg_xdsl/[^"]+)", line \d+, in (\w+)', trace)
    raised = re.findall(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit))\b:? ?(.*)$", trace, re.M)
    exception, message = raised[-1] if raised else ("?", "")
    where = f"{frames[-1][0]}:{frames[-1][1]}" if frames else "?"
    return f"{exception.rsplit('.', 1)[-1]} in {where}: {mask(message)[:70]}".rstrip(": ")
