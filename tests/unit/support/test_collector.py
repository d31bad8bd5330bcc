"""``support.collector.paused``: the compiler pauses Python's cyclic garbage collector while
it works and sets it back as it was, when it fails too; ``mg_xdsl.compile`` and ``mgc`` use it."""

import gc
import time

import pytest

import mg_xdsl
from mg_xdsl.support import collector
from mg_xdsl.tools import mgc


@pytest.fixture
def collector_state():
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
def test_paused_sets_the_collector_back_as_it_was(collector_state, enabled):
    gc.enable() if enabled else gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled() == enabled
    with pytest.raises(ZeroDivisionError), collector.paused():
        1 / 0
    assert gc.isenabled() == enabled


def test_the_api_compiles_with_the_collector_paused(collector_state, monkeypatch):
    monkeypatch.setenv("MGC_NO_CACHE", "1")
    seen = []
    from mg_xdsl.backend import jit

    original = jit.Engine.__init__

    def spy(self, *args, **kwargs):
        seen.append(gc.isenabled())
        original(self, *args, **kwargs)

    monkeypatch.setattr(jit.Engine, "__init__", spy)
    gc.enable()
    lib = mg_xdsl.compile(f"def f(a: tensor[2]) = a + a\n# {time.time_ns()}\n")
    assert seen == [False] and gc.isenabled()
    assert lib.f([1.0, 2.0]).tolist() == [2.0, 4.0]
    with pytest.raises(mg_xdsl.MgError):
        mg_xdsl.compile(f"def f(a: tensor[2]) = a + b\n# {time.time_ns()}\n")
    assert gc.isenabled()


def test_mgc_sets_the_collector_back(collector_state, tmp_path, capfd):
    program = tmp_path / "p.mg"
    program.write_text("print relu([[1, -2, 3], [-4, 5, -6]])\n")
    gc.enable()
    assert mgc.main(["run", "--no-cache", str(program)]) == 0
    assert gc.isenabled()
    assert "[[1,   0,   3], \n [0,   5,   0]]" in capfd.readouterr().out
