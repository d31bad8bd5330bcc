"""lit's shell test format, with the commonest RUN line run inside lit's worker process.

Most RUN lines here are ``mg-opt ARGS | filecheck ARGS``. Run as commands, each starts two
Python processes, and ``mg-opt`` spends about 0.7 s importing xDSL before it reads its
input. ``InProcessShTest`` runs a test whose every RUN line has that form by calling the
two tools' ``main`` functions in lit's worker (which imports them once), mg-opt's output as
filecheck's input, and runs any other test as ``ShTest`` does: the suite took 315 s of CPU
as commands, 134 s so (121 of its 163 tests). A line with a redirection, ``not`` or another
tool is not of the form, so the commands' own behaviour (exit statuses, stderr) is still
tested by running them.
"""

import contextlib
import io
import re
import shlex
import sys

import lit.formats
import lit.Test
from lit.TestRunner import applySubstitutions, getDefaultSubstitutions, getTempPaths, parseIntegratedTestScript

DEBUG_PREFIX = re.compile(r"%dbg\([^)]*\) ")  # lit's "RUN: at line N" marker before each command
SHELL = {"|", "||", "&&", ";", "&", "<", ">", ">>", "2>", "2>&1", "not", "%if", "%{", "%}"}


def simple_pipeline(command: str) -> tuple[list[str], list[str]] | None:
    """``(mg-opt's arguments, filecheck's)`` for ``mg-opt ARGS | filecheck ARGS``, else None."""
    words = shlex.split(DEBUG_PREFIX.sub("", command, count=1))
    if "|" not in words:
        return None
    bar = words.index("|")
    opt, check = words[:bar], words[bar + 1 :]
    if opt[:1] != ["mg-opt"] or not check or not check[0].endswith("filecheck"):
        return None
    if any(w in SHELL or w.startswith((">", "<", "2>")) for w in opt[1:] + check[1:]):
        return None
    return opt[1:], check[1:]


def run_in_process(opt_args: list[str], check_args: list[str]) -> tuple[bool, str]:
    """Run ``mg-opt opt_args | filecheck check_args`` here: (passed, what they wrote)."""
    from filecheck.main import main as filecheck_main

    from mg_xdsl.tools.mg_opt import main as mg_opt_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = mg_opt_main(opt_args)
    if status != 0:  # (lit's pipefail: a failing first command fails the line)
        return False, f"mg-opt exited with status {status}\n{err.getvalue()}"
    check_out, stdin = io.StringIO(), sys.stdin
    try:
        sys.stdin = io.StringIO(out.getvalue())
        with contextlib.redirect_stdout(check_out), contextlib.redirect_stderr(check_out):
            try:
                filecheck_main(["filecheck", *check_args])
                code = 0
            except SystemExit as e:
                code = e.code or 0
    finally:
        sys.stdin = stdin
    return code == 0, err.getvalue() + check_out.getvalue()


class InProcessShTest(lit.formats.ShTest):
    def execute(self, test, litConfig):
        if test.config.unsupported:
            return super().execute(test, litConfig)
        script = parseIntegratedTestScript(test)
        if isinstance(script, lit.Test.Result):
            return script
        tmp_dir, tmp_base = getTempPaths(test)
        conditions = {feature: True for feature in test.config.available_features}
        commands = applySubstitutions(
            script,
            getDefaultSubstitutions(test, tmp_dir, tmp_base),
            conditions,
            recursion_limit=test.config.recursiveExpansionLimit,
        )
        pipelines = [simple_pipeline(c) for c in commands]
        if not all(pipelines):
            return super().execute(test, litConfig)
        for command, (opt_args, check_args) in zip(commands, pipelines):
            passed, output = run_in_process(opt_args, check_args)
            if not passed:
                return lit.Test.Result(lit.Test.FAIL, f"{DEBUG_PREFIX.sub('', command, count=1)}\n{output}")
        return lit.Test.Result(lit.Test.PASS)
