"""The examples of examples/ and their expected outcomes (the chapter's listings), for the
tests that run them (``e2e/test_examples.py``, ``unit/backend/test_compile_cache.py``)."""

from conftest import EXAMPLES, mask

CASES = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*.mg"))

# The run-time arguments that make a long example short, for the harnesses that run every
# example many times slower (valgrind, the emulated GPU): what they check does not need the
# full run, which test_examples checks against the listing.
SHORT_RUN: dict[str, list[str]] = {"25_digits_mlp.mg": ["epochs=1"]}


def short_run(rel) -> list[str]:
    return SHORT_RUN.get(str(rel), [])


def expected_of(rel):
    base = EXAMPLES / rel.with_suffix("")
    return base.with_suffix(".expected").read_text(), int(base.with_suffix(".status").read_text())


def check_outcome(p, rel):
    """The chapter's conventions: status 1 = a compile error (its first stderr line listed),
    134 = an abort after a failed run-time check (the message on stderr), else stdout."""
    expected, status = expected_of(rel)
    out, err = p.stdout.decode(), p.stderr.decode()
    assert "Traceback" not in err
    if status == 1:
        assert p.returncode == 1, err
        assert out == ""
        assert err.splitlines()[0] == expected.strip()
    elif status == 134:
        assert p.returncode in (134, -6), err
        lines = expected.rstrip("\n").split("\n")
        # The report on stderr: the chapter's line, then where it failed ("  at PATH:LINE: ...").
        report = [line for line in lines if line.startswith(("mg.", "  at "))]
        stdout = [line for line in lines if line not in report and line != "Aborted"]
        assert mask(out) == "\n".join(stdout) + "\n"
        assert "\n".join(report) + "\n" in err
    else:
        assert p.returncode == 0, err
        assert mask(out) == expected
        assert err == ""
