"""Every example of examples/ through `mgc run`, compared byte for byte with the expected
output beside it (the chapter's listings; memref addresses masked)."""

import pytest
from conftest import EXAMPLES, mgc
from helpers.examples import CASES, check_outcome


@pytest.mark.parametrize("rel", CASES, ids=[str(c) for c in CASES])
def test_example(rel):
    check_outcome(mgc("run", str(rel), cwd=EXAMPLES), rel)
