"""A library compiles its entry points first (``mg_xdsl.api.Library``): the defs that no def
calls, each with the defs it calls inlined where ``inline`` inlines them. A def that another
def calls is compiled, with the others of its kind, when one of them is first called; it then
computes what it computes when called from its caller (checked against NumPy), its part of
the library has an entry of its own in the disk cache, the front end's warnings are not
issued twice, and threads that call it at once compile it once."""

import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from mg_xdsl import api
from mg_xdsl.api import Library, MgWarning
from mg_xdsl.driver import ENTRY_DEFS, Compilation

# ``softmax`` is called once (inlined into ``attention``); ``scale`` twice (a call each time);
# ``unused`` by nothing (an entry point too). The last line draws a warning.
SOURCE = """def softmax(s: tensor[3x5]) -> tensor[3x5]:
    let e = exp(s - max(s, axes=[1], keepdims=true))
    return e / sum(e, axes=[1], keepdims=true)

def scale(a: tensor[3x5]) = a * 0.5

def attention(q: tensor[3x4], k: tensor[4x5]) = scale(scale(softmax(q @ k)))

def unused(a: tensor[?]) = a + 1.0
print [1]
"""
Q = np.linspace(-2.0, 3.0, 12).reshape(3, 4)
K = np.linspace(1.0, -1.0, 20).reshape(4, 5)


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def defined(lib: Library) -> list[set[str]]:
    """The functions each of the library's parts defines (of a compiled part: its module)."""
    return [{f.name for f in e.module.functions if not f.is_declaration} for e in lib._engines]


def quiet(source: str = SOURCE) -> Library:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MgWarning)
        return Library(source)


def test_the_entry_points_come_first_and_a_called_def_at_its_first_call(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")  # (compiled here: the modules are there to look at)
    lib = quiet()
    [first] = defined(lib)
    assert {"mgrt_guarded_attention", "mgrt_guarded_unused"} <= first
    assert "softmax" not in first and "mgrt_guarded_softmax" not in first  # (inlined, then erased)
    assert "scale" in first and "mgrt_guarded_scale" not in first  # (called twice: a function, not exported)
    np.testing.assert_allclose(lib.attention(Q, K), softmax(Q @ K) * 0.25, rtol=1e-12)
    np.testing.assert_array_equal(lib.unused(np.arange(3.0)), [1.0, 2.0, 3.0])
    assert len(lib._engines) == 1
    np.testing.assert_allclose(lib.softmax(Q @ K), softmax(Q @ K), rtol=1e-12)
    [_, rest] = defined(lib)
    assert {"mgrt_guarded_softmax", "mgrt_guarded_scale"} <= rest
    assert not {"attention", "unused"} & rest
    np.testing.assert_array_equal(lib.scale(Q @ K), Q @ K * 0.5)  # (compiled with softmax)
    assert len(lib._engines) == 2
    assert lib.softmax.__doc__ == "softmax(s: 3x5) -> 3x5"


def test_the_entry_points_part_lowers_no_copy_of_an_inlined_def():
    """What the pipeline lowers, before LLVM (which would drop an unused copy anyway, after
    the time spent on it): the entry points public, ``scale`` private, ``softmax`` gone."""
    comp = Compilation(SOURCE, "<string>", lib=True, exports=ENTRY_DEFS)
    text = str(comp.mlir("linalg", verify=False))
    assert comp.exported == ["attention", "unused"]
    assert "func.func @attention(" in text and "func.func @unused(" in text
    assert "func.func private @scale(" in text
    assert "@softmax" not in text
    rest = Compilation(SOURCE, "<string>", lib=True, exports=["softmax", "scale"])
    text = str(rest.mlir("linalg", verify=False))
    assert rest.exported == ["softmax", "scale"]
    assert "func.func @softmax(" in text and "func.func @scale(" in text
    assert "@attention" not in text and "@unused" not in text


def test_a_library_whose_defs_all_are_entry_points_is_one_part(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    lib = quiet("def f(a: tensor[?]) = a * 2.0\ndef g(a: tensor[?]) = a - 1.0\n")
    np.testing.assert_array_equal(lib.f(np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(lib.g(np.ones(2)), [0.0, 0.0])
    assert len(lib._engines) == 1


def test_the_warnings_are_issued_once(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib = Library(SOURCE)
        lib.softmax(Q @ K)
    assert [str(w.message) for w in caught if w.category is MgWarning] == [
        "<string>:10: warning: a library holds only the program's defs: this top-level statement and any "
        "after it are left out (mgc run runs them)"
    ]


def test_each_part_has_its_own_entry_in_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MGC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("MGC_NO_CACHE", raising=False)
    monkeypatch.delenv("MGC_KEEP", raising=False)
    before = set(tmp_path.glob("*.mgo"))
    lib = quiet()
    lib.softmax(Q @ K)
    stored = set(tmp_path.glob("*.mgo")) - before
    assert len(stored) == 2  # (the entry points' part, then the called defs')
    _, first_key, _ = api._open_cache(SOURCE, "<string>", None, True, None)
    _, rest_key, _ = api._open_cache(SOURCE, "<string>", None, True, None, ["softmax", "scale"])
    assert {Path(p).name for p in stored} == {f"{first_key.hex()}.mgo", f"{rest_key.hex()}.mgo"}

    def no_compiling(*args):
        raise AssertionError("compiled, where the disk cache held both parts")

    monkeypatch.setattr(api, "_compiled", no_compiling)
    again = quiet()
    assert again._cache_outcome.startswith("hit")
    np.testing.assert_allclose(again.softmax(Q @ K), softmax(Q @ K), rtol=1e-12)
    np.testing.assert_allclose(again.attention(Q, K), softmax(Q @ K) * 0.25, rtol=1e-12)
    assert len(again._engines) == 2


def test_threads_calling_a_called_def_at_once_compile_it_once(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    lib = quiet()
    results: list = [None] * 4
    start = threading.Barrier(len(results))

    def call(i: int) -> None:
        start.wait()
        results[i] = lib.softmax(Q @ K * i)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        np.testing.assert_allclose(r, softmax(Q @ K * i), rtol=1e-12)
    assert len(lib._engines) == 2


@pytest.mark.parametrize("optimise", [True, False], ids=["optimised", "reference"])
def test_both_pipelines_compute_the_same(optimise, monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MgWarning)
        lib = Library(SOURCE, optimise=optimise)
    np.testing.assert_allclose(lib.attention(Q, K), softmax(Q @ K) * 0.25, rtol=1e-12)
    np.testing.assert_allclose(lib.scale(lib.softmax(Q @ K)), softmax(Q @ K) * 0.5, rtol=1e-12)


def test_a_called_def_left_uncompiled_raises_instead_of_calling_address_zero(monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    lib = quiet()
    monkeypatch.setattr(Library, "_compile_rest", lambda self: None)  # (a compiler bug's effect)
    with pytest.raises(RuntimeError, match="internal compiler error: softmax was compiled without its guard"):
        lib.softmax(Q @ K)
