# lit configuration for the FileCheck tests: each .mlir / .mg file here is one test.
import os
import shutil
import sys

import lit.formats

config.name = "mg-xdsl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".mg"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

bindir = os.path.dirname(sys.executable)
# The tools run from the same environment as lit itself.
config.environment["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "MG_NUM_THREADS", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Longer names first: lit substitutes in list order.
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("filecheck", os.path.join(bindir, "filecheck")))
if shutil.which("mlir-opt-22"):
    config.available_features.add("mlir-opt")
