"""A fixed sample of the mutation run (tests/mutation/run.py): each mutation must make a
test fail. The full run is documented in the README; this suite itself is the baseline."""

import subprocess
import sys

from conftest import ROOT

SAMPLE = ["1", "6", "9", "26", "33"]  # axis swap, max from 0, the equivalent mutant, printer, no dealloc


def test_sampled_mutations_are_all_caught():
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "mutation" / "run.py"), "--no-baseline",
                        "--only", *SAMPLE], capture_output=True, text=True, timeout=3000)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"{len(SAMPLE)} of {len(SAMPLE)} mutations caught" in p.stdout
