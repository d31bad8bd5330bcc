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


def test_every_mutation_still_applies():
    """Each mutation's text occurs exactly once in its file: a mutation whose code has
    changed under it would otherwise be reported as not applicable, not as caught."""
    sys.path.insert(0, str(ROOT / "tests" / "mutation"))
    from mutations import MUTATIONS

    stale = [(i, m.file, (ROOT / m.file).read_text().count(m.old))
             for i, m in enumerate(MUTATIONS, 1) if (ROOT / m.file).read_text().count(m.old) != 1]
    assert not stale, stale
