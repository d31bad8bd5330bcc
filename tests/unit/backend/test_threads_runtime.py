"""The thread pool of ``mg_xdsl.backend.threads_ir``, JIT-compiled in this process and linked
into an executable.

The loop bodies are written in LLVM IR. ``@visit`` counts, for every index, how many times
it was visited (an ``i32`` per index, incremented atomically) and logs every chunk it is
given with the Linux thread id (``gettid``) of the thread that ran it. Python compares
``gettid`` with ``threading.get_native_id()`` and with ``/proc/self/task``.
"""

import ctypes
import os
import shutil
import subprocess
import threading
import time
import warnings

import llvmlite.binding as llvm
import numpy as np
import pytest

from mg_xdsl.backend.jit import optimise, target_machine
from mg_xdsl.backend.threads_ir import THREADS_IR

BODIES = r"""
; counts (i32 per index, at index - base), base, log ([3 x i64]: lo, hi, tid), its capacity,
; the number of chunks logged (may exceed the capacity; the excess is not written)
%ctx = type { ptr, i64, ptr, i64, i64 }

declare void @mgrt_parallel_for(ptr, ptr, i64, i64, i64)
declare i64 @mgrt_num_threads()
declare i32 @gettid()

define void @visit(ptr %ctx, i64 %lo, i64 %hi) {
entry:
  call void @log_chunk(ptr %ctx, i64 %lo, i64 %hi)
  %counts_p = getelementptr %ctx, ptr %ctx, i32 0, i32 0
  %counts = load ptr, ptr %counts_p
  %base_p = getelementptr %ctx, ptr %ctx, i32 0, i32 1
  %base = load i64, ptr %base_p
  br label %loop

loop:
  %i = phi i64 [ %lo, %entry ], [ %next, %step ]
  %more = icmp slt i64 %i, %hi
  br i1 %more, label %step, label %done

step:
  %k = sub i64 %i, %base
  %p = getelementptr i32, ptr %counts, i64 %k
  %old = atomicrmw add ptr %p, i32 1 monotonic
  %next = add i64 %i, 1
  br label %loop

done:
  ret void
}

define void @log_chunk(ptr %ctx, i64 %lo, i64 %hi) {
entry:
  %len_p = getelementptr %ctx, ptr %ctx, i32 0, i32 4
  %slot = atomicrmw add ptr %len_p, i64 1 monotonic
  %cap_p = getelementptr %ctx, ptr %ctx, i32 0, i32 3
  %cap = load i64, ptr %cap_p
  %room = icmp ult i64 %slot, %cap
  br i1 %room, label %record, label %done

record:
  %log_p = getelementptr %ctx, ptr %ctx, i32 0, i32 2
  %log = load ptr, ptr %log_p
  %entry_lo = getelementptr [3 x i64], ptr %log, i64 %slot, i64 0
  %entry_hi = getelementptr [3 x i64], ptr %log, i64 %slot, i64 1
  %entry_tid = getelementptr [3 x i64], ptr %log, i64 %slot, i64 2
  %tid32 = call i32 @gettid()
  %tid = sext i32 %tid32 to i64
  store i64 %lo, ptr %entry_lo
  store i64 %hi, ptr %entry_hi
  store i64 %tid, ptr %entry_tid
  br label %done

done:
  ret void
}

; Each chunk runs a parallel loop of its own over itself.
define void @nested(ptr %ctx, i64 %lo, i64 %hi) {
  call void @mgrt_parallel_for(ptr @visit, ptr %ctx, i64 %lo, i64 %hi, i64 1)
  ret void
}

define void @parallel_visit(ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk) {
  call void @mgrt_parallel_for(ptr @visit, ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk)
  ret void
}

define void @parallel_log(ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk) {
  call void @mgrt_parallel_for(ptr @log_chunk, ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk)
  ret void
}

define void @parallel_nested(ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk) {
  call void @mgrt_parallel_for(ptr @nested, ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk)
  ret void
}

define i64 @num_threads() {
  %t = call i64 @mgrt_num_threads()
  ret i64 %t
}
"""

LOG_CAPACITY = 1024


class Ctx(ctypes.Structure):
    _fields_ = [
        ("counts", ctypes.c_void_p),
        ("base", ctypes.c_int64),
        ("log", ctypes.c_void_p),
        ("cap", ctypes.c_int64),
        ("len", ctypes.c_int64),
    ]


def with_threads_ir(ir: str) -> llvm.ModuleRef:
    """``ir`` with the thread pool linked in and optimised at O2, as the compiler does."""
    target_machine()  # initialises LLVM
    mod = llvm.parse_assembly(ir)
    mod.link_in(llvm.parse_assembly(THREADS_IR))
    mod.verify()
    return optimise(mod, 2)


class Program:
    """The bodies above, JIT-compiled; each instance has its own copy of the pool."""

    LOOP = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)

    def __init__(self):
        self.module = with_threads_ir(BODIES)
        self.engine = llvm.create_mcjit_compiler(self.module, target_machine())
        self.engine.finalize_object()
        address = self.engine.get_function_address
        self.parallel_visit = self.LOOP(address("parallel_visit"))
        self.parallel_nested = self.LOOP(address("parallel_nested"))
        self.parallel_log = self.LOOP(address("parallel_log"))
        self.num_threads = ctypes.CFUNCTYPE(ctypes.c_int64)(address("num_threads"))
        # not called by the program, but kept by the pool's @llvm.used
        self.shutdown = ctypes.CFUNCTYPE(None)(address("mgrt_pool_shutdown"))

    def run(self, lo: int, hi: int, min_chunk: int = 1, nested: bool = False):
        """Runs ``@visit`` over [lo, hi); the visit count of every index, and the chunks
        (lo, hi, tid) sorted by lo."""
        counts = np.zeros(max(hi - lo, 1), np.int32)
        log = np.zeros((LOG_CAPACITY, 3), np.int64)
        ctx = Ctx(counts.ctypes.data, lo, log.ctypes.data, LOG_CAPACITY, 0)
        loop = self.parallel_nested if nested else self.parallel_visit
        loop(ctypes.addressof(ctx), lo, hi, min_chunk)
        assert ctx.len <= LOG_CAPACITY
        chunks = sorted(tuple(int(x) for x in row) for row in log[: ctx.len])
        return counts[: max(hi - lo, 0)], chunks


@pytest.fixture(scope="module")
def program():
    p = Program()
    yield p
    p.shutdown()  # before the engine, whose code the workers run, is freed


@pytest.fixture
def threads(monkeypatch):
    def set_threads(t):
        monkeypatch.setenv("MG_NUM_THREADS", str(t))

    return set_threads


def tasks() -> set[int]:
    return {int(t) for t in os.listdir("/proc/self/task")}


def expected_chunks(t: int, n: int, min_chunk: int) -> int:
    if n <= 0:
        return 0
    return max(1, min(t, n // max(min_chunk, 1)))


def check_run(program, lo, hi, min_chunk, t):
    counts, chunks = program.run(lo, hi, min_chunk)
    assert (counts == 1).all(), (lo, hi, min_chunk, t)
    n = hi - lo
    assert len(chunks) == expected_chunks(t, n, min_chunk), (lo, hi, min_chunk, t, chunks)
    if n <= 0:
        return chunks
    # contiguous, covering [lo, hi), sizes within one of each other
    assert chunks[0][0] == lo and chunks[-1][1] == hi
    assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))
    sizes = [c[1] - c[0] for c in chunks]
    assert max(sizes) - min(sizes) <= 1
    if len(chunks) > 1:
        assert min(sizes) >= min_chunk
    # the caller runs the first chunk, and every chunk runs on its own thread
    assert chunks[0][2] == threading.get_native_id()
    assert len({c[2] for c in chunks}) == len(chunks)
    return chunks


def test_every_index_exactly_once(program, threads):
    for t in (1, 2, 3, 4, 7):
        threads(t)
        for lo, hi, min_chunk in [
            (0, 0, 1),
            (5, 5, 1),
            (7, 3, 1),
            (0, 1, 1),
            (0, 2, 1),
            (0, 3, 1),
            (-10, 10, 1),
            (100, 1101, 1),
            (-50, 47, 3),
            (3, 20, 0),
            (3, 20, -5),
            (0, 1000, 100),
            (0, 1000, 333),
            (0, 1000, 1001),
            (17, 10_017, 7),
            (0, 12_345, 1),
        ]:
            check_run(program, lo, hi, min_chunk, t)


def test_huge_ranges_are_cut_without_overflow(program, threads):
    threads(3)
    lo, hi = -(1 << 63), (1 << 63) - 1  # 2**64 - 1 iterations: more than INT64_MAX
    log = np.zeros((LOG_CAPACITY, 3), np.int64)
    ctx = Ctx(None, 0, log.ctypes.data, LOG_CAPACITY, 0)
    program.parallel_log(ctypes.addressof(ctx), lo, hi, 1 << 62)
    chunks = sorted((int(a), int(b)) for a, b, _ in log[: ctx.len])
    third = ((1 << 64) - 1) // 3
    assert chunks == [(lo, lo + third), (lo + third, lo + 2 * third), (lo + 2 * third, hi)]


def test_two_threads_share_a_large_range(program, threads):
    threads(2)
    chunks = check_run(program, 0, 1 << 20, 1, 2)
    assert len({tid for _, _, tid in chunks}) == 2
    assert chunks[1][2] in tasks()  # a worker of this process, and still alive


def test_one_thread_is_the_caller(program, threads):
    threads(1)
    chunks = check_run(program, 0, 1 << 16, 1, 1)
    assert chunks == [(0, 1 << 16, threading.get_native_id())]


def test_small_ranges_run_serially(program, threads):
    threads(4)
    assert len(check_run(program, 0, 99, 50, 4)) == 1  # below 2 * min_chunk
    assert len(check_run(program, 0, 100, 50, 4)) == 2
    assert len(check_run(program, 0, 3, 1, 4)) == 3  # fewer iterations than threads


def test_num_threads_follows_the_environment(program, monkeypatch):
    for t in (1, 2, 5, 64):
        monkeypatch.setenv("MG_NUM_THREADS", str(t))
        assert program.num_threads() == t
    monkeypatch.setenv("MG_NUM_THREADS", "100000")
    assert program.num_threads() == 256
    default = min(len(os.sched_getaffinity(0)), 256)
    for bad in ("0", "-3", "4x", "", "many"):
        monkeypatch.setenv("MG_NUM_THREADS", bad)
        assert program.num_threads() == default
    monkeypatch.delenv("MG_NUM_THREADS")
    assert program.num_threads() == default


def test_nested_loops_run_serially_inside(program, threads):
    for t in (2, 3):
        threads(t)
        counts, chunks = program.run(-1000, 9000, 1, nested=True)
        assert (counts == 1).all()
        # only the outer loop was split: one inner (serial) loop per outer chunk
        assert len(chunks) == t
        assert len({tid for _, _, tid in chunks}) == t


@pytest.mark.parametrize("policy", ["active", "passive"])
def test_many_calls_reuse_the_workers(program, threads, monkeypatch, policy):
    """Loops back to back: active workers watch for the next one (without the lock), passive
    ones sleep at once; either way each index runs once a loop."""
    monkeypatch.setenv("MG_WAIT_POLICY", policy)
    threads(3)
    counts = np.zeros(1000, np.int32)
    ctx = Ctx(counts.ctypes.data, 0, None, 0, 0)  # no log
    program.parallel_visit(ctypes.addressof(ctx), 0, 1000, 1)
    before = len(tasks())
    for _ in range(2000):
        program.parallel_visit(ctypes.addressof(ctx), 0, 1000, 1)
    assert (counts == 2001).all()
    assert ctx.len == 3 * 2001
    assert len(tasks()) <= before  # no thread started per call


@pytest.mark.parametrize("policy", ["active", "passive"])
def test_concurrent_callers(program, threads, monkeypatch, policy):
    monkeypatch.setenv("MG_WAIT_POLICY", policy)
    threads(2)
    results = {}

    def caller(name):
        counts = np.zeros(5000, np.int32)
        ctx = Ctx(counts.ctypes.data, 10, None, 0, 0)
        for _ in range(200):
            program.parallel_visit(ctypes.addressof(ctx), 10, 5010, 1)
        results[name] = (counts, ctx.len)

    callers = [threading.Thread(target=caller, args=(i,), daemon=True) for i in range(2)]
    for c in callers:
        c.start()
    for c in callers:
        c.join(timeout=60)
        assert not c.is_alive(), "deadlock"
    for counts, chunks in results.values():
        assert (counts == 200).all()
        assert 200 <= chunks <= 400  # each call ran in 1 chunk (pool busy) or 2


def wait_until(condition, seconds=20.0):
    # A joined thread disappears from /proc a moment after pthread_join returns.
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_shutdown_joins_the_workers_and_a_later_loop_restarts_them(threads):
    p = Program()
    threads(3)
    workers = {tid for _, _, tid in check_run(p, 0, 3000, 1, 3)[1:]}
    assert len(workers) == 2 and workers <= tasks()
    p.shutdown()
    assert wait_until(lambda: not workers & tasks())
    new_workers = {tid for _, _, tid in check_run(p, 0, 3000, 1, 3)[1:]}
    assert len(new_workers) == 2 and new_workers <= tasks()
    p.shutdown()
    assert wait_until(lambda: not new_workers & tasks())
    p.shutdown()  # with no workers: nothing to do


def test_a_forked_child_starts_its_own_workers(program, threads):
    threads(2)
    check_run(program, 0, 1000, 1, 2)  # the parent has workers now
    with warnings.catch_warnings():  # Python >= 3.12 warns about forking with threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: only this thread was copied
        try:
            check_run(program, 0, 1000, 1, 2)
            check_run(program, 0, 1000, 1, 2)
            program.shutdown()
            os._exit(0)
        finally:
            os._exit(1)
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child deadlocked")
    assert os.waitstatus_to_exitcode(done[1]) == 0
    check_run(program, 0, 1000, 1, 2)  # the parent's pool is untouched


def test_linking_twice():
    target_machine()
    mod = llvm.parse_assembly(BODIES)
    for _ in range(2):  # e.g. once in the run-time library, once more by hand
        mod.link_in(llvm.parse_assembly(THREADS_IR))
    mod.verify()
    assert "define linkonce_odr void @mgrt_parallel_for" in str(optimise(mod, 2))


def test_each_engine_has_its_own_pool(threads):
    threads(2)
    one, two = Program(), Program()
    worker_one = check_run(one, 0, 1000, 1, 2)[1][2]  # each pool has 1 worker
    worker_two = check_run(two, 0, 1000, 1, 2)[1][2]
    assert worker_one != worker_two
    two.shutdown()
    assert check_run(one, 0, 1000, 1, 2)[1][2] == worker_one
    one.shutdown()


# ---- In an executable, from two objects that each contain the pool -------------------------

OBJECT_IR = r"""
declare void @mgrt_parallel_for(ptr, ptr, i64, i64, i64)
declare i64 @mgrt_num_threads()

; keep the pool's entry points in the object for main.c, which calls them directly
@llvm.used = appending global [2 x ptr] [ptr @mgrt_parallel_for, ptr @mgrt_num_threads], section "llvm.metadata"

define void @NAME_body(ptr %a, i64 %lo, i64 %hi) {
entry:
  br label %loop
loop:
  %i = phi i64 [ %lo, %entry ], [ %next, %body ]
  %more = icmp slt i64 %i, %hi
  br i1 %more, label %body, label %done
body:
  %p = getelementptr i64, ptr %a, i64 %i
  %x = load i64, ptr %p
  %y = mul i64 %x, FACTOR
  store i64 %y, ptr %p
  %next = add i64 %i, 1
  br label %loop
done:
  ret void
}

; a[i] *= FACTOR for i in [0, n)
define void @NAME_scale(ptr %a, i64 %n) {
  call void @mgrt_parallel_for(ptr @NAME_body, ptr %a, i64 0, i64 %n, i64 1000)
  ret void
}
"""

MAIN_C = r"""
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

void mgrt_parallel_for(void (*body)(void *, int64_t, int64_t), void *ctx, int64_t lo,
                       int64_t hi, int64_t min_chunk);
int64_t mgrt_num_threads(void);
void one_scale(int64_t *a, int64_t n);
void two_scale(int64_t *a, int64_t n);

enum { N = 100000 };
static int64_t a[N];
static pid_t runners[N];  /* the thread that set a[i] */

static void init(void *ctx, int64_t lo, int64_t hi) {
    int64_t *x = ctx;
    for (int64_t i = lo; i < hi; i++) {
        x[i] = i;
        runners[i] = gettid();
    }
}

int main(void) {
    mgrt_parallel_for(init, a, 0, N, 1);
    one_scale(a, N);  /* from one object */
    two_scale(a, N);  /* from the other */
    int64_t sum = 0, threads = 1;
    for (int64_t i = 0; i < N; i++) {
        sum += a[i];
        if (i > 0 && runners[i] != runners[i - 1]) threads++;
    }
    printf("%lld %lld %lld\n", (long long)sum, (long long)threads, (long long)mgrt_num_threads());
    return 0;
}
"""


def object_file(ir: str) -> bytes:
    """For the generic CPU of the target, not this host's (as ``native.object_code`` does):
    valgrind 3.19 cannot decode AVX-512 instructions."""
    mod = with_threads_ir(ir)
    target = llvm.Target.from_default_triple()
    tm = target.create_target_machine(opt=3, reloc="pic", codemodel="small")
    return tm.emit_object(mod)


@pytest.fixture(scope="module")
def executable(tmp_path_factory):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    tmp = tmp_path_factory.mktemp("threads")
    objects = []
    for name, factor in (("one", 3), ("two", 5)):
        path = tmp / f"{name}.o"
        path.write_bytes(object_file(OBJECT_IR.replace("NAME", name).replace("FACTOR", str(factor))))
        objects.append(str(path))
    (tmp / "main.c").write_text(MAIN_C)
    exe = tmp / "prog"
    subprocess.run(
        [cc, "-O2", "-pthread", str(tmp / "main.c"), *objects, "-o", str(exe)],
        check=True,
        capture_output=True,
        text=True,
    )
    return exe


def expected_output(threads: int) -> str:
    n = 100_000
    return f"{15 * n * (n - 1) // 2} {threads} {threads}\n"


@pytest.mark.parametrize("policy", ["active", "passive"])
def test_executable_from_two_objects(executable, policy):
    for t in (1, 2, 3):
        env = {**os.environ, "MG_NUM_THREADS": str(t), "MG_WAIT_POLICY": policy}
        p = subprocess.run([str(executable)], env=env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout == expected_output(t)


def test_executable_has_no_data_races(executable):
    """The pool's locking, checked by helgrind, with ``MG_WAIT_POLICY=passive``: helgrind does
    not know the atomic loads by which an active pool watches for work without the lock
    (and would call them races); everything those loads see is looked at again under the
    lock, but for the caller's last look at ``@mgrt_job_pending``, an acquire that pairs
    with the worker's release."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        pytest.skip("valgrind is not installed")
    p = subprocess.run(
        [valgrind, "--tool=helgrind", "--error-exitcode=1", str(executable)],
        env={**os.environ, "MG_NUM_THREADS": "2", "MG_WAIT_POLICY": "passive"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    assert p.stdout == expected_output(2)
    assert "ERROR SUMMARY: 0 errors" in p.stderr
