"""Every example of examples/ through `mgc run`, compared byte for byte with the expected
output beside it (the chapter's listings; memref addresses masked)."""

import pytest
from conftest import EXAMPLES, mask, mgc

CASES = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*.mg"))


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


@pytest.mark.parametrize("rel", CASES, ids=[str(c) for c in CASES])
def test_example(rel):
    check_outcome(mgc("run", str(rel), cwd=EXAMPLES), rel)
