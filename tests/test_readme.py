"""Every command in README.md runs as the README says, so the README cannot drift.

The commands are read from the README itself (its first comment states the convention):

- each line of a ```sh block is a command, run with bash in a scratch directory holding
  copies of examples/ and tests/cpp/; it must succeed;
- in a ```console block, each `$ ` line is a command, and the lines after it, up to the next
  `$ `, are what it prints, stdout and stderr together: `...` stands for any lines, a last
  line `Aborted` (the shell's) for exit status 134, and memref addresses are ignored;
- each ```python block runs as a script in the same kind of directory.

The few setup commands that make the environment these tests run in (a virtual
environment, `pip install`, the whole test suite) are not run again: ``SETUP`` checks what
each of them leaves behind instead. Commands may not hide in other blocks.
"""

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BIN, EXAMPLES, ROOT, mask
from mg_xdsl.pipeline.stages import pass_pipeline
from mg_xdsl.core.target import target

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\S*)\s*$")
COMMENT = re.compile(r"\s+#\s.*$")  # a shell comment after a command (two spaces, then #)


def blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """The fenced code blocks: (language, line number of the fence, lines)."""
    found, lang, start, lines = [], None, 0, []
    for number, line in enumerate(text.splitlines(), start=1):
        fence = FENCE.match(line)
        if fence and lang is None:
            lang, start, lines = fence.group(1), number, []
        elif fence and fence.group(1) == "":
            found.append((lang, start, lines))
            lang = None
        elif lang is not None:
            lines.append(line)
    assert lang is None, f"README.md:{start}: a code block is not closed"
    return found


BLOCKS = blocks(README.read_text())


def sh_commands() -> list[tuple[str, str]]:
    """(where, command) for every line of every sh block."""
    commands = []
    for lang, start, lines in BLOCKS:
        if lang == "sh":
            for i, line in enumerate(lines, start=start + 1):
                line = COMMENT.sub("", line).strip()
                if line and not line.startswith("#"):
                    commands.append((f"README.md:{i}", line))
    return commands


def console_commands() -> list[tuple[str, str, list[str]]]:
    """(where, command, the lines it prints) for every `$ ` line of every console block."""
    commands = []
    for lang, start, lines in BLOCKS:
        if lang != "console":
            continue
        assert lines and lines[0].startswith("$ "), f"README.md:{start}: a console block starts with '$ '"
        for i, line in enumerate(lines):
            if line.startswith("$ "):
                commands.append((f"README.md:{start + 1 + i}", line[2:], []))
            else:
                commands[-1][2].append(line)
    return commands


def environment_checks() -> dict[str, object]:
    """What each setup command leaves behind, checked where it cannot be run again."""

    def venv():
        assert shutil.which("python3") and importlib.util.find_spec("venv")

    def activate():
        # `. .venv/bin/activate` puts the environment's scripts first on PATH; these tests
        # run the scripts beside this interpreter, as the activated shell would.
        assert (BIN / "mgc").exists() and (BIN / "mg-opt").exists()

    def installed():
        import mg_xdsl

        importlib.metadata.distribution("mg-xdsl")
        assert Path(mg_xdsl.__file__).resolve().is_relative_to(ROOT)  # -e: this checkout

    def installed_for_tests():
        installed()
        requirements = importlib.metadata.requires("mg-xdsl") or []
        for requirement in requirements:
            if "extra == \"test\"" in requirement:
                name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)
                importlib.metadata.distribution(name)

    def pytest_runs():
        assert "pytest" in sys.modules  # this very run

    return {"python3 -m venv .venv": venv, ". .venv/bin/activate": activate,
            "pip install -e .": installed, "pip install -e '.[test]'": installed_for_tests,
            "pytest": pytest_runs}


SETUP = environment_checks()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A directory like the checkout's root, as far as the README's commands need one."""
    path = tmp_path_factory.mktemp("readme")
    shutil.copytree(EXAMPLES, path / "examples")
    shutil.copytree(ROOT / "tests" / "cpp", path / "tests" / "cpp")
    return path


def shell(command: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """``command`` in bash, with this environment's scripts first on PATH; stderr merged into
    stdout, as a terminal shows them."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=timeout)


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` line for line, where a line ``...`` in ``expected``
    stands for any number of lines (trailing spaces never count)."""
    expected = [line.rstrip() for line in expected]
    actual = [line.rstrip() for line in actual]
    # reachable[j]: expected[:i] can match actual[:j]
    reachable = [True] + [False] * len(actual)
    for line in expected:
        if line == "...":
            for j in range(1, len(actual) + 1):
                reachable[j] = reachable[j] or reachable[j - 1]
        else:
            reachable = [False] + [reachable[j] and actual[j] == line for j in range(len(actual))]
    return reachable[-1]


def test_the_readme_has_commands_and_none_outside_the_checked_blocks():
    assert len(sh_commands()) >= 6 and len(console_commands()) >= 5
    command = re.compile(r"^\s*(//\s*|#\s*)?(\$ )?(mgc|mg-opt|g\+\+|c\+\+|cc|gcc|pip|python3?|pytest) ")
    for lang, start, lines in BLOCKS:
        if lang in ("sh", "console", "python"):
            continue
        for i, line in enumerate(lines, start=start + 1):
            assert not command.match(line), f"README.md:{i}: a command outside a sh/console block: {line}"


@pytest.mark.parametrize("where,line", sh_commands(), ids=[w for w, _ in sh_commands()])
def test_sh_command(where, line, scratch):
    """Each line of a sh block succeeds (setup steps: what they leave behind is there)."""
    to_run = []
    for step in (s.strip() for s in line.split(" && ")):
        if step in SETUP:
            SETUP[step]()
        else:
            to_run.append(step)
    if not to_run:
        return
    p = shell(" && ".join(to_run), scratch)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, f"{where}: {line}\n{out}"
    assert "Traceback" not in out and "error:" not in out, f"{where}: {line}\n{out}"


@pytest.mark.parametrize("where,command,expected", console_commands(),
                         ids=[w for w, _, _ in console_commands()])
def test_console_command_prints_what_the_readme_shows(where, command, expected, scratch):
    status = 0
    if expected and expected[-1] == "Aborted":
        expected, status = expected[:-1], 134
    elif any(re.match(r"\S+:\d+: error: ", line) for line in expected):  # (not an indented quote of one)
        status = 1
    p = shell(command, scratch)
    out = mask(p.stdout.decode(errors="replace"))
    assert matches([mask(line) for line in expected], out.splitlines()), (
        f"{where}: `{command}` printed\n{out}\nbut the README shows\n" + "\n".join(expected))
    assert p.returncode in ((134, -6) if status == 134 else (status,)), f"{where}: {out}"


@pytest.mark.parametrize("start,lines", [(s, l) for lang, s, l in BLOCKS if lang == "python"],
                         ids=lambda v: f"README.md:{v}" if isinstance(v, int) else "")
def test_python_block_runs(start, lines, scratch):
    p = subprocess.run([sys.executable, "-c", "\n".join(lines)], cwd=scratch,
                       capture_output=True, timeout=300)
    assert p.returncode == 0, f"README.md:{start}:\n{p.stderr.decode()}"


def test_the_readme_shows_the_real_pipelines():
    """What `mgc pipeline` prints is pipeline.pass_pipeline, and the README shows both."""
    shown = {command: expected for _, command, expected in console_commands()}
    assert shown["mgc pipeline --cpu x86-64-v4"] == [pass_pipeline(True, target("x86-64-v4"))]
    assert shown["mgc pipeline --reference"] == [pass_pipeline(optimise=False)]


def test_the_matcher():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["a  "], ["a"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["a"], ["a", "b"])


# What a complete lowering must leave in the LLVM IR of each example: 07 frees its buffers
# (buffer-deallocation ran), 11 reports its failed check (lower-assert-to-stderr ran).
# (The optimised pipeline frees through the run-time library's generic function.)
LOWERED = {"07_mlp_layer.mg": r'call void @(_mlir_memref_to_llvm_)?free\(',
           "11_dynamic_no_broadcast.mg": r'call void @mgrt_check_failed\('}


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("example", sorted(LOWERED))
def test_the_readme_pipeline_lowers_examples_to_llvm_ir_with_mg_opt(example, optimise, tmp_path):
    """The pipeline the README shows, run pass by pass with mg-opt, takes a program all the
    way to LLVM IR: nothing is left for a later pass to do."""
    p = subprocess.run([str(BIN / "mg-opt"), str(EXAMPLES / example), "--no-warnings",
                        "-p", pass_pipeline(optimise), "-t", "llvm"], capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    ir = p.stdout.decode()
    assert "define void @main()" in ir
    assert re.search(LOWERED[example], ir), ir
    assert "cf.assert" not in ir
    import llvmlite.binding as llvm

    llvm.parse_assembly(ir).verify()  # LLVM accepts it
