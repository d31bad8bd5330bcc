# lit configuration for the FileCheck tests: each .mlir / .mg file here is one test.
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from in_process import InProcessShTest  # noqa: E402  (beside this file)

config.name = "mg-xdsl"
# lit's shell format; a test of `mg-opt ARGS | filecheck ARGS` lines only runs them in lit's
# worker process, which imports xDSL once instead of once a line (in_process.py).
config.test_format = InProcessShTest(execute_external=False)
config.suffixes = [".mlir", ".mg"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "in_process.py", "Inputs"]

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
