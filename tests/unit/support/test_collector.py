"""The garbage collector's pause around a compile: off inside, as it was after, a caller's
own pause kept, and the compile's cycles collected once it runs again."""

import gc

import pytest

import mg_xdsl
from mg_xdsl.support.collector import collector_paused


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_inside_and_restarted_after(collector_on):
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restarted_after_an_exception(collector_on):
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("in the block")
    assert gc.isenabled()


def test_a_callers_own_pause_is_kept(collector_on):
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_the_api_compiles_with_the_collector_paused(collector_on, monkeypatch):
    from mg_xdsl.driver import Compilation

    seen = []
    llvm_ir = Compilation.llvm_ir

    def watched(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return llvm_ir(self, *args, **kwargs)

    monkeypatch.setattr(Compilation, "llvm_ir", watched)
    monkeypatch.setenv("MGC_NO_CACHE", "1")  # (compiled here, not loaded from the disk cache)
    lib = mg_xdsl.compile("def f(a: tensor[?]) = a * 3  # collector\n")
    assert seen == [False] and gc.isenabled()
    assert lib.f([1.0, 2.0]).tolist() == [3.0, 6.0]


def test_collect_once_collects_the_first_time_only():
    """In a fresh process (the flag is the process's): a cycle is freed by the first call,
    and another left to the collector's own schedule by the second."""
    import subprocess
    import sys

    probe = """
import gc, weakref
from mg_xdsl.support.collector import collect_once
class Cycle:
    pass
def garbage():
    a = Cycle(); a.me = a
    return weakref.ref(a)
gc.disable()
first = garbage(); collect_once()
second = garbage(); collect_once()
print(first() is None, second() is None)
"""
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert p.stdout.split() == ["True", "False"], p.stderr
