"""Compile and run a program in a forked child, as ``mgc run`` would, with a time limit.

The child compiles in-process (``mg_xdsl.driver.Compilation``) and runs ``main`` with the
JIT: a crash, a failed run-time check or an endless loop, in the compiler or in the program,
ends only the child. The parent has imported the compiler (and compiled one program) before
forking, so each child starts warm. ``Run`` says how far the child got and what it wrote.
"""

import os
import selectors
import signal
import time
import traceback
from dataclasses import dataclass

import mg_xdsl  # noqa: F401  (first: it defers xDSL's formats before xDSL is imported)

# Every stage verified, as the test suite compiles: a pass that breaks the IR fails there.
os.environ.setdefault("MGC_VERIFY_EACH", "1")

PIPELINES = {"optimised": True, "reference": False}


@dataclass
class Run:
    """What one child did. ``phase``: ``compile_error`` (the checker rejected the program;
    ``message`` is its report), ``ice`` (the compiler raised anything else; ``message`` is
    the traceback), ``compile_crash`` (the child died while compiling), ``ran`` (it
    compiled; ``status`` is how the run ended), ``timeout``."""

    phase: str
    stdout: str = ""
    stderr: str = ""
    status: int | None = None  # the exit code, or minus the signal that ended the child
    message: str = ""
    seconds: float = 0.0


class _FdWriter:
    """A text stream straight to a file descriptor (nothing is lost if the child aborts)."""

    def __init__(self, fd: int):
        self.fd = fd

    def write(self, text: str) -> int:
        os.write(self.fd, text.encode())
        return len(text)

    def flush(self) -> None:
        pass


def _child(source: str, optimise: bool, outline: bool, out_w: int, err_w: int, note_w: int) -> None:
    """In the child: compile, report how that went on ``note_w``, run ``main``; never returns.
    Not ``outline``: with ``outline-loop-nests`` doing nothing (for triage: whether a failure
    needs ``main`` split)."""
    status = 1
    try:
        import faulthandler

        faulthandler.disable()
        os.dup2(err_w, 2)
        if not outline:
            from mg_xdsl.transforms.func.outline_loop_nests import OutlineLoopNestsPass

            OutlineLoopNestsPass.apply = lambda self, ctx, op: None
        from mg_xdsl.backend import runtime
        from mg_xdsl.driver import Compilation
        from mg_xdsl.language.frontend import MgError

        try:
            engine = Compilation(source, "prog.mg", keep_dir=None, optimise=optimise).engine()
        except MgError as e:
            os.write(note_w, b"compile_error\n" + str(e).encode())
            status = 0
            return
        except BaseException:  # noqa: BLE001  (anything else is an internal compiler error)
            os.write(note_w, b"ice\n" + traceback.format_exc().encode())
            status = 0
            return
        os.write(note_w, b"ran\n")
        runtime._output.append(_FdWriter(out_w))
        engine.run_main()
        status = 0
    finally:
        os._exit(status)


class Child:
    """A running child and what it has written so far."""

    def __init__(self, source: str, optimise: bool, outline: bool = True):
        pipes = [os.pipe() for _ in range(3)]
        self.started = time.monotonic()
        self.pid = os.fork()
        if self.pid == 0:
            for r, _ in pipes:
                os.close(r)
            _child(source, optimise, outline, *(w for _, w in pipes))
        for _, w in pipes:
            os.close(w)
        self.fds = [r for r, _ in pipes]
        self.data = {fd: b"" for fd in self.fds}
        self.open = set(self.fds)

    def read(self, fd: int) -> None:
        chunk = os.read(fd, 65536)
        if chunk:
            self.data[fd] += chunk
        else:
            self.open.discard(fd)
            os.close(fd)

    def finish(self, timed_out: bool) -> Run:
        """Reap the child (killing it if it ran out of time) and say what it did."""
        if timed_out:
            os.kill(self.pid, signal.SIGKILL)
            for fd in list(self.open):
                os.close(fd)
        _, status = os.waitpid(self.pid, 0)
        out, err, note = (self.data[fd].decode(errors="replace") for fd in self.fds)
        seconds = time.monotonic() - self.started
        if timed_out:
            return Run("timeout", out, err, None, note, seconds)
        code = os.waitstatus_to_exitcode(status)
        head, _, rest = note.partition("\n")
        if head in ("compile_error", "ice"):
            return Run(head, out, err, code, rest, seconds)
        if head != "ran":
            return Run("compile_crash", out, err, code, note, seconds)
        return Run("ran", out, err, code, "", seconds)


def run_many(jobs: list[tuple], parallel: int = 1, timeout: float = 60.0, on_done=None) -> list[Run]:
    """Run each ``(source, optimise)`` (or ``(source, optimise, outline)``) in a child of
    its own, ``parallel`` at a time; ``on_done(index, run)`` is called as each finishes.
    The results, in ``jobs``' order."""
    results: list[Run | None] = [None] * len(jobs)
    waiting = list(enumerate(jobs))
    running: dict[int, tuple[int, Child]] = {}
    selector = selectors.DefaultSelector()
    while waiting or running:
        while waiting and len(running) < parallel:
            index, job = waiting.pop(0)
            child = Child(*job)
            running[child.pid] = (index, child)
            for fd in child.fds:
                selector.register(fd, selectors.EVENT_READ, child)
        for key, _ in selector.select(timeout=0.5):
            selector.unregister(key.fd)
            key.data.read(key.fd)
            if key.fd in key.data.open:
                selector.register(key.fd, selectors.EVENT_READ, key.data)
        now = time.monotonic()
        for pid, (index, child) in list(running.items()):
            timed_out = now - child.started > timeout
            if child.open and not timed_out:
                continue
            for fd in child.open:
                selector.unregister(fd)
            results[index] = child.finish(timed_out)
            del running[pid]
            if on_done:
                on_done(index, results[index])
    return results  # type: ignore[return-value]


def run_one(source: str, optimise: bool, timeout: float = 60.0, outline: bool = True) -> Run:
    return run_many([(source, optimise, outline)], 1, timeout)[0]


def warm_up() -> None:
    """Compile one small program in this process, so that forked children start warm."""
    from mg_xdsl.driver import Compilation

    for optimise in (True, False):
        Compilation("let x = [1, 2]\nprint sum(x * x) + 1\n", "warm.mg", keep_dir=None, optimise=optimise).engine()
