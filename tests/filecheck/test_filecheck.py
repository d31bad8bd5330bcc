"""The lit + FileCheck suite of tests/filecheck, run as one pytest test."""

import subprocess

from conftest import ROOT, tool


def test_lit_suite():
    p = subprocess.run(
        [tool("lit"), "-q", "-j", "2", str(ROOT / "tests" / "filecheck")],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert p.returncode == 0, p.stdout[-20000:] + p.stderr[-5000:]


def test_every_pass_has_a_folder_of_its_own():
    """``tests/filecheck/<pass name>/`` for each of the project's passes; the other folders
    test the front end, the dialect, pass options and whole pipelines."""
    from mg_xdsl.pipeline.registry import project_passes

    # (a folder holding no test, such as the lit outputs left by a renamed folder, is none)
    folders = {p.name for p in (ROOT / "tests" / "filecheck").iterdir() if any(p.glob("*.mlir")) or any(p.glob("*.mg"))}
    assert set(project_passes()) <= folders, sorted(set(project_passes()) - folders)
    assert folders - set(project_passes()) == {"frontend", "mg", "options", "pipelines"}
