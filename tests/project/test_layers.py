"""The packages of ``mg_xdsl`` are layers, and a module imports only from its own layer or
the layers below it: the front end never reaches into a pass, a pass never into the
pipeline or the backend, nothing below the tools into the tools. Every import counts, at the
top of a module or inside a function (one deferred for start-up time still says what the
module depends on).

The layers, lowest first (the README's code map lists them in this order):
"""

import ast
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "mg_xdsl"

LAYERS: list[tuple[str, ...]] = [
    ("core",),  # element types, shapes, the target CPU: no compiler in them
    ("dialects",),  # mg and the small upstream dialects xDSL lacks
    ("support",),  # op and loop builders, xDSL work-arounds
    ("language",),  # .mg text -> the mg dialect
    ("kernels",),  # the matrix-product and reduction kernels the transforms build
    ("transforms",),  # passes within a dialect
    ("conversions",),  # passes from one dialect to another
    ("pipeline",),  # the stages and the pass registry
    ("backend",),  # LLVM IR, native code, the run-time library, GPU, C++, cache
    ("driver",),  # one compilation, from text to what was asked for
    ("api", "tools"),  # the Python API; mgc and mg-opt
    ("__init__",),  # the package itself: compile(), the exceptions
]
__doc__ += "\n".join(f"    {i}. {', '.join(names)}" for i, names in enumerate(LAYERS, 1))
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    """The layer of ``mg_xdsl.<top>...``: its top-level package or module."""
    parts = module.split(".")
    return LAYER_OF[parts[1] if len(parts) > 1 else "__init__"]


def imports(path: Path) -> set[str]:
    """Every ``mg_xdsl`` module that the module at ``path`` imports, anywhere in it. ``from
    P import n`` imports ``P.n`` where that is a module, else ``P``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):  # (``import mg_xdsl`` for ``__version__``: the package
            # itself, which importing any of its modules has already run)
            found.update(a.name for a in node.names if a.name.startswith("mg_xdsl."))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mg_xdsl"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if module_path(sub) else node.module)
    return found


def module_path(module: str) -> Path | None:
    base = PACKAGE.parent.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def upward_imports(modules: dict[str, Path]) -> list[tuple[str, str]]:
    return sorted(
        (name, target) for name, path in modules.items() for target in imports(path) if layer(target) > layer(name)
    )


def test_every_package_has_a_layer():
    tops = {module_name(p).split(".")[1] for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.stem != "__init__"}
    assert tops <= set(LAYER_OF), f"packages without a layer: {sorted(tops - set(LAYER_OF))}"


def test_imports_only_go_down():
    up = upward_imports(all_modules())
    assert not up, "upward imports:\n" + "\n".join(f"  {a} imports {b}" for a, b in up)


def test_no_import_cycle_between_packages():
    """Between the second-level packages (``conversions.to_llvm``, ``transforms.linalg``,
    ``backend``, ...), the imports form no cycle."""

    def package(module: str) -> str:
        path = module_path(module)
        assert path is not None, module
        folder = path.parent.relative_to(PACKAGE).parts
        return ".".join(folder) if folder else module.split(".")[-1] if module != "mg_xdsl" else "__init__"

    graph: dict[str, set[str]] = {}
    for name, path in all_modules().items():
        for target in imports(path):
            a, b = package(name), package(target)
            if a != b:
                graph.setdefault(a, set()).add(b)
    seen: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                pytest.fail("import cycle: " + " -> ".join([*path[path.index(nxt) :], nxt]))
            if nxt not in seen:
                visit(nxt, [*path, nxt])
        seen[node] = 2

    for start in sorted(graph):
        if start not in seen:
            visit(start, [start])


def test_the_check_fails_on_an_upward_import(tmp_path, monkeypatch):
    """The check itself: a pass that imports the pipeline is reported."""
    fake = tmp_path / "mg_xdsl"
    (fake / "transforms").mkdir(parents=True)
    (fake / "pipeline").mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "transforms" / "__init__.py").write_text("")
    (fake / "pipeline" / "__init__.py").write_text("")
    (fake / "pipeline" / "stages.py").write_text("")
    (fake / "transforms" / "fold.py").write_text("def f():\n    from mg_xdsl.pipeline import stages\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert upward_imports(all_modules()) == [("mg_xdsl.transforms.fold", "mg_xdsl.pipeline.stages")]
