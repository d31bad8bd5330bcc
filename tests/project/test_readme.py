"""Every command in README.md and docs/*.md runs as the page says, so the documentation
cannot drift; and the README's code map is the package's tree.

The commands are read from the pages themselves (the README's first comment states the
convention):

- each line of a ```sh block is a command, run with bash in a scratch directory holding
  copies of examples/, benchmarks/ and tests/cpp/; it must succeed;
- in a ```console block, each `$ ` line is a command, and the lines after it, up to the next
  `$ `, are what it prints, stdout and stderr together: `...` stands for any lines, a last
  line `Aborted` (the shell's) for exit status 134, and memref addresses are ignored;
- each ```python block runs as a script in the same kind of directory.

The few setup commands that make the environment these tests run in (a virtual
environment, `pip install`, the whole test suite) are not run again: ``SETUP`` checks what
each of them leaves behind instead. Commands may not hide in other blocks; one that takes
long (a benchmark, a campaign) is written in prose, where nothing runs it. CHANGELOG.md is a
record of the past and is not run.
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

from mg_xdsl.core.target import target
from mg_xdsl.pipeline.stages import pass_pipeline

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)\s*$")
COMMENT = re.compile(r"\s+#\s.*$")  # a shell comment after a command (two spaces, then #)
README_MAX_LINES = 320  # "a README for users, about 300 lines at most"

# The pages' commands run in order in one scratch directory (the module's), as a reader would
# type them: a command may use what an earlier one left (`mgc lib ... -o out`, then `g++ -Iout
# ...`). A parallel run keeps a module's tests on one worker, in order (pyproject.toml's
# --dist loadfile); one that spread them over workers would fail those commands.


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def blocks(text: str, where: str = "README.md") -> list[tuple[str, int, list[str]]]:
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
    assert lang is None, f"{where}:{start}: a code block is not closed"
    return found


# (page name, language, line number of the fence, lines) for every block of every page
BLOCKS = [(name(page), *block) for page in PAGES for block in blocks(page.read_text(), name(page))]


def sh_commands() -> list[tuple[str, str]]:
    """(where, command) for every line of every sh block."""
    commands = []
    for page, lang, start, lines in BLOCKS:
        if lang == "sh":
            for i, line in enumerate(lines, start=start + 1):
                line = COMMENT.sub("", line).strip()
                if line and not line.startswith("#"):
                    commands.append((f"{page}:{i}", line))
    return commands


def console_commands() -> list[tuple[str, str, list[str]]]:
    """(where, command, the lines it prints) for every `$ ` line of every console block."""
    commands = []
    for page, lang, start, lines in BLOCKS:
        if lang != "console":
            continue
        assert lines and lines[0].startswith("$ "), f"{page}:{start}: a console block starts with '$ '"
        for i, line in enumerate(lines):
            if line.startswith("$ "):
                commands.append((f"{page}:{start + 1 + i}", line[2:], []))
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
            if 'extra == "test"' in requirement:
                name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)
                importlib.metadata.distribution(name)

    def pytest_runs():
        assert "pytest" in sys.modules  # this very run

    return {
        "python3 -m venv .venv": venv,
        ". .venv/bin/activate": activate,
        "pip install -e .": installed,
        "pip install -e '.[test]'": installed_for_tests,
        "pytest": pytest_runs,
    }


SETUP = environment_checks()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A directory like the checkout's root, as far as the pages' commands need one."""
    path = tmp_path_factory.mktemp("readme")
    shutil.copytree(EXAMPLES, path / "examples")
    shutil.copytree(ROOT / "benchmarks", path / "benchmarks", ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    shutil.copytree(ROOT / "tests" / "cpp", path / "tests" / "cpp")
    return path


def shell(command: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """``command`` in bash, with this environment's scripts first on PATH; stderr merged into
    stdout, as a terminal shows them."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout
    )


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


def test_the_pages_have_commands_and_none_outside_the_checked_blocks():
    readme = [page for page, *_ in BLOCKS if page == "README.md"]
    assert len(readme) >= 8 and len(sh_commands()) >= 6 and len(console_commands()) >= 5
    command = re.compile(r"^\s*(//\s*|#\s*)?(\$ )?(mgc|mg-opt|g\+\+|c\+\+|cc|gcc|pip|python3?|pytest|lit) ")
    for page, lang, start, lines in BLOCKS:
        if lang in ("sh", "console", "python"):
            continue
        for i, line in enumerate(lines, start=start + 1):
            assert not command.match(line), f"{page}:{i}: a command outside a sh/console block: {line}"


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


@pytest.mark.parametrize("where,command,expected", console_commands(), ids=[w for w, _, _ in console_commands()])
def test_console_command_prints_what_the_page_shows(where, command, expected, scratch):
    status = 0
    if expected and expected[-1] == "Aborted":
        expected, status = expected[:-1], 134
    elif any(re.match(r"\S+:\d+: error: ", line) for line in expected):  # (not an indented quote of one)
        status = 1
    p = shell(command, scratch)
    out = mask(p.stdout.decode(errors="replace"))
    assert matches([mask(line) for line in expected], out.splitlines()), (
        f"{where}: `{command}` printed\n{out}\nbut the page shows\n" + "\n".join(expected)
    )
    assert p.returncode in ((134, -6) if status == 134 else (status,)), f"{where}: {out}"


PYTHON_BLOCKS = [(f"{page}:{start}", lines) for page, lang, start, lines in BLOCKS if lang == "python"]


@pytest.mark.parametrize("where,lines", PYTHON_BLOCKS, ids=[w for w, _ in PYTHON_BLOCKS])
def test_python_block_runs(where, lines, scratch):
    p = subprocess.run([sys.executable, "-c", "\n".join(lines)], cwd=scratch, capture_output=True, timeout=300)
    assert p.returncode == 0, f"{where}:\n{p.stderr.decode()}"


def test_the_docs_show_the_real_pipelines():
    """What `mgc pipeline` prints is pipeline.pass_pipeline, and the docs show both."""
    shown = {command: expected for _, command, expected in console_commands()}
    assert shown["mgc pipeline --cpu x86-64-v4"] == [pass_pipeline(True, target("x86-64-v4"))]
    assert shown["mgc pipeline --reference --cpu x86-64-v4"] == [pass_pipeline(False, target("x86-64-v4"))]


def test_the_matcher():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["a  "], ["a"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["a"], ["a", "b"])


# What a complete lowering must leave in the LLVM IR of each example: 07 frees its buffers
# (buffer-deallocation ran), 11 reports its failed check (lower-assert-to-stderr ran).
# (The optimised pipeline frees through the run-time library's generic function.)
LOWERED = {
    "07_mlp_layer.mg": r"call void @(_mlir_memref_to_llvm_)?free\(",
    "11_dynamic_no_broadcast.mg": r"call void @mgrt_check_failed\(",
}


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
@pytest.mark.parametrize("example", sorted(LOWERED))
def test_the_readme_pipeline_lowers_examples_to_llvm_ir_with_mg_opt(example, optimise, tmp_path):
    """The pipeline the docs show, run pass by pass with mg-opt, takes a program all the
    way to LLVM IR: nothing is left for a later pass to do."""
    p = subprocess.run(
        [str(BIN / "mg-opt"), str(EXAMPLES / example), "--no-warnings", "-p", pass_pipeline(optimise), "-t", "llvm"],
        capture_output=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr.decode()
    ir = p.stdout.decode()
    assert "define void @main()" in ir
    assert re.search(LOWERED[example], ir), ir
    assert "cf.assert" not in ir
    import llvmlite.binding as llvm

    llvm.parse_assembly(ir).verify()  # LLVM accepts it


# -- the README's code map ---------------------------------------------------------------

PACKAGE = ROOT / "mg_xdsl"


def code_map() -> list[tuple[int, str]]:
    """(line number, path) of each entry of the README's code map: the first fenced block
    after the heading "## Code map", one `path  description` per line."""
    heading = README.read_text().splitlines().index("## Code map") + 1
    start, entries = next((start, lines) for page, _, start, lines in BLOCKS if page == "README.md" and start > heading)
    return [(start + i, line.split()[0]) for i, line in enumerate(entries, start=1) if line.strip()]


def package_entries() -> set[str]:
    """What the code map must list: every package of mg_xdsl (a folder with an
    __init__.py) as ``mg_xdsl/NAME/``, and every module at its top as ``mg_xdsl/NAME.py``."""
    folders = {f"{p.parent.relative_to(ROOT).as_posix()}/" for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE}
    modules = {p.relative_to(ROOT).as_posix() for p in PACKAGE.glob("*.py")}
    return folders | modules


def test_the_code_map_lists_every_package_and_nothing_else():
    listed = [path for _, path in code_map()]
    assert len(listed) == len(set(listed)), f"listed twice: {sorted(p for p in listed if listed.count(p) > 1)}"
    missing = package_entries() - set(listed)
    assert not missing, f"README.md's code map lacks: {sorted(missing)}"
    for number, path in code_map():
        assert (ROOT / path).exists(), f"README.md:{number}: {path} is not in the tree"
        assert path.endswith("/") == (ROOT / path).is_dir(), f"README.md:{number}: a folder ends in /, a file not"


def test_the_code_map_is_in_layer_order():
    """Lowest layer first, as tests/project/test_layers.py orders them."""
    from test_layers import LAYER_OF

    def layer(path: str) -> int:
        top = path.split("/")[1].removesuffix(".py")
        return LAYER_OF[top]

    layers = [layer(path) for _, path in code_map() if path.startswith("mg_xdsl/")]
    assert layers == sorted(layers), [path for _, path in code_map()]


def test_the_check_of_the_code_map_sees_a_new_package(tmp_path, monkeypatch):
    """The check itself: what it asks the code map for is every package of the tree,
    nested ones included, and every module at its top."""
    fake = tmp_path / "mg_xdsl"
    for folder in ("core", "core/extra", "api_tools"):
        (fake / folder).mkdir(parents=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "api.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert package_entries() == {
        "mg_xdsl/core/",
        "mg_xdsl/core/extra/",
        "mg_xdsl/api_tools/",
        "mg_xdsl/__init__.py",
        "mg_xdsl/api.py",
    }


# -- what the pages say ------------------------------------------------------------------


def test_the_readme_is_short():
    """A README for users: the rest is in docs/."""
    count = len(README.read_text().splitlines())
    assert count <= README_MAX_LINES, f"README.md has {count} lines (at most {README_MAX_LINES}): move some to docs/"


PATH = re.compile(r"`((?:mg_xdsl|tests|examples|benchmarks|docs)/[^`\s]*)`")
# Files that running something writes (benchmarks/results.json): named, never committed.
WRITTEN = {line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()}
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_path_and_link_exists(page):
    """A file named in `backquotes` (mg_xdsl/..., tests/...; a `*` matches as a glob, a
    word in capitals is a placeholder) and every relative link."""
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        for path in PATH.findall(line):
            path = path.rstrip(".,:;)")
            if re.search(r"[A-Z]{3,}", path) or path in WRITTEN:  # tests/e2e/test_NAME.py; results.json
                continue
            found = list(ROOT.glob(path)) if "*" in path else [ROOT / path] if (ROOT / path).exists() else []
            assert found, f"{name(page)}:{number}: {path} does not exist"
        for link in LINK.findall(line):
            if re.match(r"[a-z]+:", link):
                continue
            assert (page.parent / link).exists(), f"{name(page)}:{number}: the link {link} leads nowhere"


HISTORY = re.compile(
    r"\b[Ii]ssues? \d+|\bcommit [0-9a-f]{7,}"
    r"|(?<![\w.@+-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w.+-])"
)


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_history_stays_in_the_changelog(page):
    """Issue numbers and commit hashes belong to CHANGELOG.md and git, not to the pages that
    say what the compiler does now."""
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        found = HISTORY.search(mask(line))
        assert not found, f"{name(page)}:{number}: {found.group(0)!r} is history: CHANGELOG.md"


def test_the_history_check():
    for history in ("issue 16", "(issues 16 and 17)", "at commit efd95de", "measured at 687acce,"):
        assert HISTORY.search(history), history
    for now in (
        "dense<[[1.000000e+00]]>",
        "double 0x3FF0000000000000",
        "%v0 = inttoptr i64 3735928559",
        "Unranked Memref base@ = 0x55c57ac6b6b0",
        "sha256 of the source",
        "the 8x16 block",
    ):
        assert not HISTORY.search(mask(now)), now
