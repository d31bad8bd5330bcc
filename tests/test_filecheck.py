"""The lit + FileCheck suite of tests/filecheck, run as one pytest test."""

import subprocess
import sys
from pathlib import Path

from conftest import ROOT, tool


def test_lit_suite():
    p = subprocess.run(
        [tool("lit"), "-q", "-j", "2", str(ROOT / "tests" / "filecheck")],
        capture_output=True, text=True, timeout=1200,
    )
    assert p.returncode == 0, p.stdout[-20000:] + p.stderr[-5000:]
