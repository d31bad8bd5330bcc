"""The Python API's disk cache (``mg_xdsl.api._open_cache``, entries of
``mg_xdsl.backend.cache``): a second process that compiles the same source loads the library
without compiling it (and without importing xDSL), with the same defs, results and warnings;
everything that changes the code changes the key; a damaged entry is compiled again and
replaced; ``MGC_NO_CACHE`` and ``MGC_KEEP`` bypass it; and no state of the cache directory
makes compiling fail.

Each test gives the cache a directory of its own (``MGC_CACHE_DIR``, not the module's of
conftest), and calls ``Library`` itself where it wants the disk cache asked: ``compile``'s
in-process cache would answer a repeated compile first. ``Library._cache_outcome`` says what
the disk cache did, in ``mgc run --time``'s words: ``hit (PATH)``, ``miss, stored in PATH``,
``miss: the entry was ..., stored in PATH``, ``off (WHY)``."""

import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import mg_xdsl
from mg_xdsl import api
from mg_xdsl.api import Def, Library, MgWarning, RuntimeCheckFailed
from mg_xdsl.backend import cache, kernel_library
from mg_xdsl.core import target
from mg_xdsl.core.target import host_identity
from mg_xdsl.driver import LLVM_STEP

# Two defs, one that runs a loop nest on the thread pool; a top-level statement draws a warning.
SOURCE = "def f(x: tensor[?x3]) = relu(x) * 2.0\ndef g(a: tensor[?x?], b: tensor[?x?]) = a + b\nprint [1]\n"
WARNING = (
    "<string>:3: warning: a library holds only the program's defs: this top-level statement and any after it "
    "are left out (mgc run runs them)"
)
X = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])


def process_entries(directory: Path) -> set[Path]:
    """The entries of the code every library calls (``kernel_library.PROCESS_CODE``), which
    the first process to use the directory stores, whatever it compiles."""
    return {directory / name for name in kernel_library.process_code_entries()}


def entries(directory: Path) -> list[Path]:
    """The libraries' entries."""
    return sorted(set(directory.glob("*.mgo")) - process_entries(directory)) if directory.is_dir() else []


def library(source: str = SOURCE, *args, **kwargs) -> Library:
    """``Library`` of ``source``, its warnings kept quiet (the tests that count them catch them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MgWarning)
        return Library(source, *args, **kwargs)


def outcome(lib: Library) -> str:
    """``hit``, ``miss`` or ``off``."""
    return lib._cache_outcome.split(" ")[0].rstrip(",:")


def check_results(lib: Library) -> None:
    np.testing.assert_array_equal(lib.f(X), np.maximum(X, 0) * 2)
    np.testing.assert_array_equal(lib.g(X, X), 2 * X)
    with pytest.raises(RuntimeCheckFailed, match="mg.add: operand shapes differ at runtime"):
        lib.g(X, X[:1])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The entry of ``SOURCE`` (as ``library()`` compiles it, from this test's working
    directory), compiled once for the module; ``seeded`` copies it."""
    directory = tmp_path_factory.mktemp("pristine")
    previous = os.environ.get("MGC_CACHE_DIR")
    os.environ["MGC_CACHE_DIR"] = str(directory)
    try:
        assert outcome(library()) == "miss"
    finally:
        if previous is None:
            del os.environ["MGC_CACHE_DIR"]
        else:
            os.environ["MGC_CACHE_DIR"] = previous
    [entry] = entries(directory)
    return entry


@pytest.fixture
def seeded(pristine, tmp_path, monkeypatch) -> Path:
    """A cache directory of this test's own, holding ``SOURCE``'s entry: its path."""
    directory = tmp_path / "cache"
    directory.mkdir()
    shutil.copy(pristine, directory)
    monkeypatch.setenv("MGC_CACHE_DIR", str(directory))
    monkeypatch.delenv("MGC_NO_CACHE", raising=False)
    monkeypatch.delenv("MGC_KEEP", raising=False)
    return directory / pristine.name


# A second process: compile SOURCE through mg_xdsl.compile, call the defs, and say (as JSON,
# on stdout) what came back, whether xDSL was imported, how long compile took and what the
# disk cache did. Its warnings go to stderr, as Python prints them.
_PROCESS = """
import json, sys, time
import numpy as np
start = time.perf_counter()
import mg_xdsl
lib = mg_xdsl.compile(sys.argv[1])
seconds = time.perf_counter() - start
x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
print(json.dumps({
    "f": lib.f(x).tolist(), "g": lib.g(x, x).tolist(), "doc": lib.f.__doc__,
    "xdsl": sorted(m for m in sys.modules if m == "xdsl" or m.startswith("xdsl.")) != [],
    "ml_dtypes": "ml_dtypes" in sys.modules,
    "seconds": seconds, "cache": lib._cache_outcome,
}))
"""


def in_a_new_process(directory: Path) -> tuple[dict, str]:
    p = subprocess.run(
        [sys.executable, "-c", _PROCESS, SOURCE],
        capture_output=True,
        text=True,
        env={**os.environ, "MGC_CACHE_DIR": str(directory)},
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), p.stderr


def test_a_second_process_loads_the_library_without_compiling_it(tmp_path):
    first, first_warnings = in_a_new_process(tmp_path)
    assert first["cache"].startswith("miss, stored in") and first["xdsl"]
    assert len(entries(tmp_path)) == 1
    shared = {entry: entry.stat().st_ino for entry in process_entries(tmp_path)}  # (stored too)
    second, second_warnings = in_a_new_process(tmp_path)
    assert second["cache"].startswith("hit") and not second["xdsl"]  # (no front end, no xDSL)
    assert {entry: entry.stat().st_ino for entry in shared} == shared  # (loaded: a store makes a new file)
    assert not second["ml_dtypes"]  # (half a second, for bf16 defs only)
    assert {k: second[k] for k in ("f", "g", "doc")} == {k: first[k] for k in ("f", "g", "doc")}
    assert f"MgWarning: {WARNING}" in first_warnings
    assert second_warnings == first_warnings  # the warning again, from the entry
    # Compiling takes most of a second (importing xDSL alone a quarter); a hit milliseconds.
    assert second["seconds"] < first["seconds"] / 3, (first["seconds"], second["seconds"])


def test_a_hit_is_the_library_a_miss_makes(seeded):
    lib = library()
    assert outcome(lib) == "hit"
    check_results(lib)
    miss = library(path="<other>")  # (the same defs, from the compiler)
    assert outcome(miss) == "miss"
    assert list(lib.functions) == list(miss.functions) == ["f", "g"]
    for name in ("f", "g"):
        assert getattr(lib, name).__doc__ == getattr(miss, name).__doc__
        assert getattr(lib, name).signature == getattr(miss, name).signature  # (made from the entry)
        assert getattr(lib, name).parameters == getattr(miss, name).parameters


def test_a_miss_says_where_its_time_went_and_a_hit_has_none_to_say(seeded):
    """``Library._compile_times`` (what ``benchmarks/compile_vs_jax.py`` splits mg's time by):
    on a miss, the steps of ``mgc run --time`` and LLVM's part, each a positive number of
    seconds within the compile's own time; on a hit, nothing was compiled."""
    start = time.perf_counter()
    miss = library(path="<other>")
    elapsed = time.perf_counter() - start
    times = miss._compile_times
    assert {"front end", "to LLVM IR", LLVM_STEP} <= set(times), times
    assert any(name.startswith("convert-to-llvm") for name in times), times
    assert all(seconds > 0 for seconds in times.values()), times
    assert sum(times.values()) < elapsed
    assert library()._compile_times == {}


def test_a_hit_takes_and_returns_each_dtype_as_a_miss_does(seeded):
    import ml_dtypes

    source = (
        "def f(a: tensor[?x3xi32], b: tensor[i64]) -> tensor[?x3xi32] = a * cast(b, i32)\n"
        "def g(x: tensor[?xbf16], m: tensor[?xi1]) -> (tensor[?xbf16], tensor[?xi1]):\n"
        "    return where(m, x * 3, x), x < 1\n"
        "def h(x: tensor[2xf32]) = x + 1\n"
    )
    miss, hit = library(source), library(source)
    assert (outcome(miss), outcome(hit)) == ("miss", "hit")
    a = np.array([[1, -2, 3]], np.int32)
    x = np.array([0.5, 2.0], ml_dtypes.bfloat16)
    for lib in (miss, hit):
        got = np.asarray(lib.f(a, 3))  # (one result: an array)
        assert got.dtype == np.int32 and got.tolist() == [[3, -6, 9]]
        y, small = lib.g(x, [True, False])
        assert y.dtype == ml_dtypes.bfloat16 and y.astype(np.float32).tolist() == [1.5, 2.0]
        assert small.dtype == np.bool_ and small.tolist() == [True, False]
        assert np.asarray(lib.h([1, 2])).dtype == np.float32
        assert repr(lib.g) == "<mg function g(x: ?xbf16, m: ?xi1) -> (?xbf16, ?xi1)>"
    for call in (
        lambda lib: lib.h(np.ones(2)),
        lambda lib: lib.f([[2**40, 0, 0]], 1),
        lambda lib: lib.g(np.ones(2, np.float32), [1]),
    ):
        messages = []
        for lib in (miss, hit):
            with pytest.raises(TypeError) as e:
                call(lib)
            messages.append(str(e.value))
        assert messages[0] == messages[1]


def test_warnings_are_issued_again_on_a_hit(seeded):
    for expected in ("hit", "hit"):
        with pytest.warns(MgWarning) as record:
            lib = Library(SOURCE)
        assert outcome(lib) == expected
        assert [str(w.message) for w in record] == [WARNING]
        assert record[0].filename == __file__  # (at the caller's compile, as on a miss)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Library("def quiet(a: tensor[?]) = a\n")  # (a miss without warnings)
        assert outcome(Library("def quiet(a: tensor[?]) = a\n")) == "hit"


def test_everything_that_changes_the_code_misses(seeded, monkeypatch, tmp_path):
    from mg_xdsl.core.target import host

    assert outcome(library()) == "hit"
    variants = [
        lambda: library(optimise=False),  # the reference pipeline
        lambda: library(cpu=host()[1]),  # code for a named CPU (this host's, so that it runs here)
        lambda: library(SOURCE.replace("* 2.0", "* 3.0")),  # the source
        lambda: library(path="prog.mg"),  # the path, which a failed check names
    ]
    for i, variant in enumerate(variants):
        lib = variant()
        assert outcome(lib) == "miss", i
        assert outcome(variant()) == "hit", i
    assert len(entries(seeded.parent)) == 1 + len(variants)
    # Another working directory: a program given as text reads relative paths from there.
    monkeypatch.chdir(tmp_path)
    assert outcome(library()) == "miss"
    # Another host (CPU, its features or its caches), as the key sees it.
    monkeypatch.setattr(target, "host_identity", lambda: ("x86_64-unknown-linux-gnu", "another-cpu", "+sse2", "caches"))
    assert outcome(library()) == "miss"
    assert outcome(library()) == "hit"


def test_the_key_says_library_and_follows_mgc_runs_rules(seeded, monkeypatch):
    """The key is ``cache.key``'s, over the source bytes (a str and its UTF-8 bytes alike)
    and the options, with the mark of a library: a ``mgc run`` of the same text never finds
    a library, nor a library a program."""
    store, key, said = api._open_cache(SOURCE, "<string>", None, True, None)
    assert store is not None and said == "" and store.path(key) == seeded
    assert api._open_cache(SOURCE.encode(), "<string>", None, True, None)[1] == key
    options = {"kind": api.LIBRARY_KIND, "opt": 2, "optimise": True, "cpu": None, "path": "<string>"}
    assert cache.key(SOURCE.encode(), {**options, "directory": os.getcwd(), "defs": None}, host_identity()) == key
    monkeypatch.setattr(cache, "compiler_version", lambda: "another compiler")
    assert api._open_cache(SOURCE, "<string>", None, True, None)[1] != key


@pytest.mark.parametrize(
    "damage",
    [
        "truncated",
        "a flipped byte",
        "empty",
        "garbage",
        "bad metadata",
        "a bad def",
        "objects' sizes that do not add up",
        "a program's entry",
    ],
)
def test_a_damaged_entry_is_ignored_and_replaced(seeded, damage):
    store = cache.ObjectCache(seeded.parent)
    key = bytes.fromhex(seeded.stem)
    objects, texts, functions, _ = store.load_library(key)
    assert objects is not None
    data = seeded.read_bytes()
    if damage == "truncated":
        seeded.write_bytes(data[: len(data) // 2])
    elif damage == "a flipped byte":
        seeded.write_bytes(data[:-7] + bytes([data[-7] ^ 0x10]) + data[-6:])
    elif damage == "empty":
        seeded.write_bytes(b"")
    elif damage == "garbage":
        seeded.write_bytes(b"not an entry at all\n" * 10)
    elif damage == "bad metadata":  # (a sound header and checksum around it)
        store.store(key, cache.WARNINGS_LENGTH.pack(5) + b"[1, 2" + b"".join(objects))
    elif damage == "a bad def":
        store.store_library(key, objects, texts, [{**functions[0], "params": [["x", [-1, 3], "f64"]]}, functions[1]])
    elif damage == "objects' sizes that do not add up":
        data = b"".join(objects)
        metadata = {"warnings": texts, "functions": functions, "objects": [len(data) + 1]}
        store.store(key, cache._pack(metadata, data))
    else:  # (the key says library: a program's entry there is damage too)
        store.store_program(key, objects[0], texts)
    lib = library()
    assert outcome(lib) == "miss", lib._cache_outcome
    assert "stored in" in lib._cache_outcome
    check_results(lib)
    assert entries(seeded.parent) == [seeded]  # replaced
    assert outcome(library()) == "hit"


@pytest.mark.parametrize("bypass", [{"MGC_NO_CACHE": "1"}, {"MGC_KEEP": "keep"}], ids=["MGC_NO_CACHE", "MGC_KEEP"])
def test_bypassing_neither_reads_nor_writes(seeded, bypass, monkeypatch, tmp_path):
    for name, value in bypass.items():
        monkeypatch.setenv(name, str(tmp_path / value) if name == "MGC_KEEP" else value)
    before = seeded.read_bytes()
    lib = library()  # (its entry is there, not to be used)
    assert outcome(lib) == "off", lib._cache_outcome
    check_results(lib)
    assert outcome(library("def h(a: tensor[?]) = a\n")) == "off"
    assert entries(seeded.parent) == [seeded] and seeded.read_bytes() == before
    monkeypatch.setenv("MGC_NO_CACHE", "0")  # (0 and empty mean no bypass, as for mgc run)
    monkeypatch.delenv("MGC_KEEP", raising=False)
    assert outcome(library()) == "hit"


def test_gpu_libraries_are_not_cached():
    for gpu in ("cuda", "emulated"):
        store, _, said = api._open_cache(SOURCE, "<string>", gpu, True, None)
        assert store is None and said.startswith("off (gpu=")


def test_an_unusable_cache_directory_still_compiles(tmp_path, monkeypatch):
    """A cache "directory" below a regular file can be neither read nor created (even by root)."""
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("MGC_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.delenv("MGC_NO_CACHE", raising=False)
    for _ in range(2):
        lib = library()
        assert outcome(lib) == "miss" and ", not stored: " in lib._cache_outcome
        check_results(lib)


def test_compile_asks_its_in_process_cache_first_then_the_disk_cache(seeded):
    source = "def only_here(a: tensor[?]) = a * 5\n"
    lib = mg_xdsl.compile(source)
    assert outcome(lib) == "miss"
    assert mg_xdsl.compile(source) is lib  # (the in-process cache, as before)
    assert outcome(Library(source)) == "hit"
    np.testing.assert_array_equal(Library(source).only_here([1.0, 2.0]), [5.0, 10.0])


def test_a_def_is_kept_as_plain_data_and_made_a_signature_again():
    """``Def`` (what the entry keeps of each def) holds every element type and rank, its
    JSON reads back as it was written, its ``signature()`` is the front end's, and
    ``_written`` writes each type as the checker does."""
    from mg_xdsl.core.element_records import ELEMENT_TYPES
    from mg_xdsl.driver import Compilation
    from mg_xdsl.language.checker_types import type_text

    elements = [e.name for e in ELEMENT_TYPES]
    source = "".join(
        f"def f{i}(a: tensor[?x3x{e}], b: tensor[{e}], c: tensor[2x{e}]) -> "
        f"(tensor[?x3x{e}], tensor[{e}], tensor[2x{e}]):\n    return a, b, c\n"
        for i, e in enumerate(elements)
    )
    comp = Compilation(source, "types.mg", lib=True, keep_dir=None)
    comp.mlir("mg")
    assert len(comp.signatures) == len(elements)
    for name, sig in comp.signatures.items():
        d = Def.of(name, sig)
        assert Def.from_json(json.loads(json.dumps(d.to_json()))) == d
        assert d.signature() == sig
        for (_, shape, element), t in zip(d.params, sig.types):
            assert api._written(shape, element) == type_text(t)
    for bad in (
        None,
        [],
        {"name": "f", "params": [], "results": []},  # no result
        {"name": "f", "params": [["x", [2], "f16"]], "results": [[[2], "f64"]]},  # no such element type
        {"name": "f", "params": [["x", [True], "f64"]], "results": [[[2], "f64"]]},  # a bool for a size
        {"name": "f", "params": [["x y", [2], "f64"]], "results": [[[2], "f64"]]},
        {"name": "f", "params": [], "results": [[[2], "f64"]], "more": 1},
    ):
        with pytest.raises(ValueError):
            Def.from_json(bad)
