"""A small thread pool for compiled code, written in LLVM IR so that it needs no C compiler.

Compiled code runs a parallel loop by calling (C view)::

    void mgrt_parallel_for(void (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx,
                           int64_t lo, int64_t hi, int64_t min_chunk);
    int64_t mgrt_num_threads(void);

``mgrt_parallel_for`` cuts ``[lo, hi)`` into ``T`` contiguous chunks whose sizes differ by at
most one, runs ``body(ctx, chunk_lo, chunk_hi)`` once per chunk and returns when all of
them are done. The calling thread runs the first chunk itself; *workers* run the others.
An empty range runs nothing.

How many threads. ``mgrt_num_threads()`` is ``MG_NUM_THREADS`` when that is set to a
positive integer, else the number of CPUs this thread may run on (``sched_getaffinity``;
``sysconf(_SC_NPROCESSORS_ONLN)`` if that fails), at most 256. It is read at every call so
that a program can change it. ``T`` is that, but no more than ``(hi - lo) / min_chunk``, so
that every chunk has at least ``min_chunk`` iterations (``min_chunk <= 0`` counts as 1).

Never a deadlock. Only one parallel loop uses the pool at a time: whoever takes the
*submission mutex* (with ``pthread_mutex_trylock``, which never waits) owns it until its
loop is done. A loop that cannot take it -- one started by a body (a nested loop) or by
another thread meanwhile -- simply calls ``body(ctx, lo, hi)`` itself, as does a loop
with ``T <= 1``. So a loop never waits for a thread that might be waiting for it.
A body must return normally, though: a ``longjmp`` out of it would leave the pool taken.

The workers. They are started with ``pthread_create`` when a loop first needs them (more
when a later loop wants more) and then kept: between loops they sleep on the condition
variable ``@mgrt_pool_work``, but first watch for the next loop a while (below). The *pool lock* guards every piece of shared state: the
description of the current loop (``@mgrt_job_*``) is written under it before the workers
are woken, and a worker reads it under the lock when it claims a chunk, so the lock's
acquire/release ordering is all the memory ordering needed. To claim a chunk a worker
takes the next number from ``@mgrt_job_next``, the caller having kept chunk 0 for itself.
A worker runs at most one chunk of each loop (it remembers the ``@mgrt_job_generation`` of
the last loop it worked for), so the ``T`` chunks run on ``T`` different threads, as with
OpenMP's static schedule. (If the system refuses to start a thread, the pool stays smaller
and loops are cut into fewer chunks.) The worker that finishes the last outstanding chunk signals
``@mgrt_pool_done``, where the caller waits.

Watching before sleeping. Waking a thread that sleeps on a condition variable takes the
kernel some microseconds, and tens of them in a virtual machine (a 2-core KVM guest: 40 to
80), as long as a loop over 100K elements takes: two threads were slower than one there. So
a worker with nothing to do first looks at ``@mgrt_job_generation`` ``SPINS`` times without
the lock (an atomic acquire load; some 40 microseconds on a Zen 3) and takes the lock to
claim a chunk as soon as it changes, and only then sleeps; and the caller, its own chunk
done, looks at ``@mgrt_job_pending`` as long before it takes the lock and sleeps until the
workers are done. A loop that follows another within that time (the next op of a program,
the next call through the Python API) then wakes nobody. Both stores the watchers look for
are atomic releases, made under the lock; whatever else a watcher sees it looks at again
under the lock, but for the caller's last look at ``@mgrt_job_pending``, which pairs with
the worker's release. ``MG_WAIT_POLICY=passive`` (as ``OMP_WAIT_POLICY``) sleeps at once
(``mgrt_spins``, read by the caller at each loop and handed to the workers in
``@mgrt_pool_spins``): for a machine shared with other work, and for helgrind, which does not
know atomic loads and would call the watching a race.

``mgrt_pool_shutdown()`` stops and joins the workers (a later loop starts new ones). A
program never needs it, exit ends them; but the workers run code of this module, so
whoever frees that code while the process goes on -- a JIT engine being disposed of --
must call it first. It waits for a loop in progress and must not be called from a body.
``@llvm.used`` keeps it through the optimiser (which drops unused ``linkonce_odr``
functions), so that it can be found wherever the pool is linked in.

``fork()``. A child process inherits this memory but not the workers, and possibly a
lock held or a condition variable waited on by a thread that does not exist there. The
pool remembers the pid that started its workers; when a loop finds another pid it forgets
the workers and re-initialises the lock and condition variables.

Assumptions, true of glibc on x86-64 and aarch64: ``pthread_mutex_t`` and
``pthread_cond_t`` fit in 64 bytes, and their static initialisers
(``PTHREAD_MUTEX_INITIALIZER``, ``PTHREAD_COND_INITIALIZER``) are all zero, so a zeroed
global *is* an initialised mutex or condition variable; ``pthread_t`` is 64 bits;
``_SC_NPROCESSORS_ONLN`` is 84; a ``cpu_set_t`` is 1024 bits. Since glibc 2.34 the
pthread functions are in libc itself, so the JIT finds them in the process.

Every symbol starts with ``mgrt_``, and every definition is ``linkonce_odr`` (``@llvm.used``
is appended to, not defined), so that several objects containing this module link into one
program with one pool. (Each JIT engine, though, has its own copy, hence its own pool and
its own workers.)

Every definition is ``noinline optnone`` too. The pool's time goes to locks, condition
variables and thread starts, none of which an optimiser speeds up, while optimising it cost
every program that runs a loop on threads a seventh of its LLVM time (``examples/09``: 98 ms
with the pool optimised, 83 ms without).
"""

SPINS = 50_000
"""How many times a worker with nothing to do, or a caller whose workers are not done, looks
again before it sleeps: some 30 to 50 microseconds on a Zen 3 (the run time, in
``/proc/self/task/*/schedstat``, of a worker after a loop of 5 microseconds' work, less that
of a passive one), enough to span the Python API's own time between two calls."""

THREADS_IR = r"""
; ---- State -------------------------------------------------------------------------------

; Zero bytes are PTHREAD_MUTEX_INITIALIZER / PTHREAD_COND_INITIALIZER (see the docstring).
@mgrt_pool_submit = linkonce_odr global [64 x i8] zeroinitializer, align 16  ; one loop at a time
@mgrt_pool_lock = linkonce_odr global [64 x i8] zeroinitializer, align 16    ; guards all below
@mgrt_pool_work = linkonce_odr global [64 x i8] zeroinitializer, align 16    ; workers sleep here
@mgrt_pool_done = linkonce_odr global [64 x i8] zeroinitializer, align 16    ; the caller sleeps here

; The pool. (@mgrt_pool_pid is guarded by the submission mutex instead.)
@mgrt_pool_pid = linkonce_odr global i32 0
@mgrt_pool_workers = linkonce_odr global i64 0
@mgrt_pool_threads = linkonce_odr global [255 x i64] zeroinitializer  ; their pthread_t
@mgrt_pool_quit = linkonce_odr global i1 false

; The current loop: chunks of [lo, lo + n), numbered 0 .. chunks-1.
@mgrt_job_body = linkonce_odr global ptr null
@mgrt_job_ctx = linkonce_odr global ptr null
@mgrt_job_lo = linkonce_odr global i64 0
@mgrt_job_n = linkonce_odr global i64 0
@mgrt_job_chunks = linkonce_odr global i64 0
@mgrt_job_generation = linkonce_odr global i64 0  ; counts the loops, the first is 1
@mgrt_job_next = linkonce_odr global i64 0     ; the first chunk nobody has claimed
@mgrt_job_pending = linkonce_odr global i64 0  ; chunks handed to workers, not finished yet

; Kept even where unused, for whoever must stop the workers (see the docstring).
@llvm.used = appending global [1 x ptr] [ptr @mgrt_pool_shutdown], section "llvm.metadata"

@mgrt_num_threads_env = linkonce_odr unnamed_addr constant [15 x i8] c"MG_NUM_THREADS\00"
@mgrt_wait_policy_env = linkonce_odr unnamed_addr constant [15 x i8] c"MG_WAIT_POLICY\00"
@mgrt_pool_spins = linkonce_odr global i64 0  ; the current loop's: how long to watch before sleeping

declare ptr @getenv(ptr)
declare i64 @strtol(ptr, ptr, i32)
declare i32 @sched_getaffinity(i32, i64, ptr)
declare i64 @sysconf(i32)
declare i32 @getpid()
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_join(i64, ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_trylock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_signal(ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare <16 x i64> @llvm.ctpop.v16i64(<16 x i64>)
declare i64 @llvm.vector.reduce.add.v16i64(<16 x i64>)
declare i64 @llvm.umin.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; ---- How many threads ----------------------------------------------------------------------

define linkonce_odr i64 @mgrt_num_threads() noinline optnone {
entry:
  %end = alloca ptr
  %cpus = alloca <16 x i64>, align 8  ; a cpu_set_t
  %env = call ptr @getenv(ptr @mgrt_num_threads_env)
  %has_env = icmp ne ptr %env, null
  br i1 %has_env, label %parse, label %affinity

parse:                                  ; a positive integer and nothing after it
  %asked = call i64 @strtol(ptr %env, ptr %end, i32 10)
  %stop = load ptr, ptr %end
  %after = load i8, ptr %stop
  %whole = icmp eq i8 %after, 0
  %positive = icmp sgt i64 %asked, 0
  %valid = and i1 %whole, %positive
  br i1 %valid, label %cap, label %affinity

affinity:                               ; the CPUs this thread may run on
  %failed = call i32 @sched_getaffinity(i32 0, i64 128, ptr %cpus)
  %got = icmp eq i32 %failed, 0
  br i1 %got, label %count, label %online

count:
  %mask = load <16 x i64>, ptr %cpus, align 8
  %bits = call <16 x i64> @llvm.ctpop.v16i64(<16 x i64> %mask)
  %allowed = call i64 @llvm.vector.reduce.add.v16i64(<16 x i64> %bits)
  br label %cap

online:                                 ; more than 1024 CPUs, or no such system call
  %onln = call i64 @sysconf(i32 84)     ; _SC_NPROCESSORS_ONLN
  br label %cap

cap:
  %t = phi i64 [ %asked, %parse ], [ %allowed, %count ], [ %onln, %online ]
  %at_least_1 = call i64 @llvm.smax.i64(i64 %t, i64 1)
  %at_most_256 = call i64 @llvm.umin.i64(i64 %at_least_1, i64 256)  ; room in @mgrt_pool_threads
  ret i64 %at_most_256
}

; ---- How long to watch ------------------------------------------------------------------

; SPINS looks before sleeping, or none where MG_WAIT_POLICY starts with "p" or "P" (passive).
define linkonce_odr i64 @mgrt_spins() noinline optnone {
entry:
  %env = call ptr @getenv(ptr @mgrt_wait_policy_env)
  %has_env = icmp ne ptr %env, null
  br i1 %has_env, label %read, label %active

read:
  %first = load i8, ptr %env
  %lower = or i8 %first, 32           ; ('P' | 32 is 'p')
  %passive = icmp eq i8 %lower, 112   ; 'p'
  br i1 %passive, label %none, label %active

none:
  ret i64 0

active:
  ret i64 SPINS
}

; Looks at *%at (an atomic acquire load) up to %spins times, until it equals %value (where
; %equal) or differs from it (where not): whether it did. With %spins 0 (passive) it does not
; look at all.
define linkonce_odr i1 @mgrt_watch(ptr %at, i64 %value, i1 %equal, i64 %spins) noinline optnone {
entry:
  br label %test

test:
  %k = phi i64 [ 0, %entry ], [ %k1, %again ]
  %more = icmp ult i64 %k, %spins
  br i1 %more, label %look, label %no

look:
  %now = load atomic i64, ptr %at acquire, align 8
  %same = icmp eq i64 %now, %value
  %seen = icmp eq i1 %same, %equal
  br i1 %seen, label %yes, label %again

again:
  %k1 = add i64 %k, 1
  br label %test

yes:
  ret i1 true

no:
  ret i1 false
}

; ---- Chunks ------------------------------------------------------------------------------

; Chunk %i of [lo, lo + n) cut into %chunks: q = n / chunks iterations each, and the first
; n % chunks chunks one more. Unsigned, so that n may exceed INT64_MAX and nothing overflows.
define linkonce_odr void @mgrt_run_chunk(ptr %body, ptr %ctx, i64 %lo, i64 %n, i64 %chunks, i64 %i) noinline optnone {
entry:
  %q = udiv i64 %n, %chunks
  %r = urem i64 %n, %chunks
  %start_whole = mul i64 %i, %q
  %start_extra = call i64 @llvm.umin.i64(i64 %i, i64 %r)
  %start_offset = add i64 %start_whole, %start_extra
  %start = add i64 %lo, %start_offset
  %bigger = icmp ult i64 %i, %r
  %extra = zext i1 %bigger to i64
  %size = add i64 %q, %extra
  %stop = add i64 %start, %size
  call void %body(ptr %ctx, i64 %start, i64 %stop)
  ret void
}

; ---- The workers -----------------------------------------------------------------------

; A worker's life: claim a chunk of each new loop while there is one left, sleep when there is
; none, leave when told to. It holds the pool lock except while it runs a chunk or sleeps.
define linkonce_odr ptr @mgrt_worker(ptr %unused) noinline optnone {
entry:
  %l0 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  br label %look

look:                                   ; %seen: the last loop this worker ran a chunk of
  %seen = phi i64 [ 0, %entry ], [ %seen, %relock ], [ %seen, %doze ], [ %seen, %wait ], [ %job, %claim ], [ %job, %tell_caller ]
  %quit = load i1, ptr @mgrt_pool_quit
  br i1 %quit, label %leave, label %any

any:
  %job = load i64, ptr @mgrt_job_generation
  %i = load i64, ptr @mgrt_job_next
  %chunks = load i64, ptr @mgrt_job_chunks
  %new_job = icmp ne i64 %job, %seen
  %unclaimed = icmp ult i64 %i, %chunks
  %mine = and i1 %new_job, %unclaimed
  br i1 %mine, label %claim, label %sleep

sleep:                                  ; first watches for a new loop a while, unlocked
  %looked = load i64, ptr @mgrt_job_generation
  %spins = load i64, ptr @mgrt_pool_spins
  %u0 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_lock)
  %came = call i1 @mgrt_watch(ptr @mgrt_job_generation, i64 %looked, i1 false, i64 %spins)
  br i1 %came, label %relock, label %doze

relock:
  %l2 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  br label %look

doze:                                   ; then sleeps, unless a loop or the end came meanwhile
  %l3 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  %ending = load i1, ptr @mgrt_pool_quit
  %then = load i64, ptr @mgrt_job_generation
  %missed = icmp ne i64 %then, %looked
  %up = or i1 %ending, %missed
  br i1 %up, label %look, label %wait

wait:                                   ; releases the lock while asleep
  %w = call i32 @pthread_cond_wait(ptr @mgrt_pool_work, ptr @mgrt_pool_lock)
  br label %look

claim:
  %next = add i64 %i, 1
  store i64 %next, ptr @mgrt_job_next
  %body = load ptr, ptr @mgrt_job_body
  %ctx = load ptr, ptr @mgrt_job_ctx
  %lo = load i64, ptr @mgrt_job_lo
  %n = load i64, ptr @mgrt_job_n
  %u1 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_lock)
  call void @mgrt_run_chunk(ptr %body, ptr %ctx, i64 %lo, i64 %n, i64 %chunks, i64 %i)
  %l1 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  %pending = load i64, ptr @mgrt_job_pending
  %left = sub i64 %pending, 1
  store atomic i64 %left, ptr @mgrt_job_pending release, align 8  ; (the caller may be watching)
  %last = icmp eq i64 %left, 0
  br i1 %last, label %tell_caller, label %look

tell_caller:
  %s = call i32 @pthread_cond_signal(ptr @mgrt_pool_done)
  br label %look

leave:
  %u2 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_lock)
  ret ptr null
}

; Starts workers until there are %wanted (< 256). Called with the pool lock held; a new
; worker waits for it, then looks for a chunk. If the system refuses a thread, the pool
; stays smaller and the caller cuts fewer chunks.
define linkonce_odr void @mgrt_pool_grow(i64 %wanted) noinline optnone {
entry:
  br label %loop

loop:
  %have = load i64, ptr @mgrt_pool_workers
  %enough = icmp uge i64 %have, %wanted
  br i1 %enough, label %done, label %start

start:
  %slot = getelementptr [255 x i64], ptr @mgrt_pool_threads, i64 0, i64 %have
  %failed = call i32 @pthread_create(ptr %slot, ptr null, ptr @mgrt_worker, ptr null)
  %started = icmp eq i32 %failed, 0
  br i1 %started, label %count, label %done

count:
  %more = add i64 %have, 1
  store i64 %more, ptr @mgrt_pool_workers
  br label %loop

done:
  ret void
}

; After fork() (or before the first loop) the workers recorded are not ours: forget them and
; re-initialise what they may have left locked or waited on. Called with the submission
; mutex held, so no other thread of this process is using the pool.
define linkonce_odr void @mgrt_pool_check_fork() noinline optnone {
entry:
  %pid = call i32 @getpid()
  %owner = load i32, ptr @mgrt_pool_pid
  %ours = icmp eq i32 %pid, %owner
  br i1 %ours, label %done, label %reset

reset:
  call void @llvm.memset.p0.i64(ptr @mgrt_pool_lock, i8 0, i64 64, i1 false)
  call void @llvm.memset.p0.i64(ptr @mgrt_pool_work, i8 0, i64 64, i1 false)
  call void @llvm.memset.p0.i64(ptr @mgrt_pool_done, i8 0, i64 64, i1 false)
  store i64 0, ptr @mgrt_pool_workers
  store i32 %pid, ptr @mgrt_pool_pid
  br label %done

done:
  ret void
}

; ---- Parallel loops ----------------------------------------------------------------------

define linkonce_odr void @mgrt_parallel_for(ptr %body, ptr %ctx, i64 %lo, i64 %hi, i64 %min_chunk) noinline optnone {
entry:
  %empty = icmp sle i64 %hi, %lo
  br i1 %empty, label %done, label %measure

measure:
  %n = sub i64 %hi, %lo                 ; unsigned from here on
  %min = call i64 @llvm.smax.i64(i64 %min_chunk, i64 1)
  %most = udiv i64 %n, %min             ; chunks of at least min_chunk iterations
  %t = call i64 @mgrt_num_threads()
  %want = call i64 @llvm.umin.i64(i64 %t, i64 %most)
  %worth_it = icmp uge i64 %want, 2
  br i1 %worth_it, label %submit, label %serial

submit:                                 ; busy: a loop is running, maybe the one we are in
  %busy = call i32 @pthread_mutex_trylock(ptr @mgrt_pool_submit)
  %ours = icmp eq i32 %busy, 0
  br i1 %ours, label %publish, label %serial

publish:
  call void @mgrt_pool_check_fork()
  %spins = call i64 @mgrt_spins()
  %l0 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  store i64 %spins, ptr @mgrt_pool_spins
  %helpers = sub i64 %want, 1
  call void @mgrt_pool_grow(i64 %helpers)
  %workers = load i64, ptr @mgrt_pool_workers
  %threads = add i64 %workers, 1
  %chunks = call i64 @llvm.umin.i64(i64 %want, i64 %threads)
  %handed_out = sub i64 %chunks, 1
  store ptr %body, ptr @mgrt_job_body
  store ptr %ctx, ptr @mgrt_job_ctx
  store i64 %lo, ptr @mgrt_job_lo
  store i64 %n, ptr @mgrt_job_n
  store i64 %chunks, ptr @mgrt_job_chunks
  store i64 1, ptr @mgrt_job_next       ; chunk 0 is the caller's
  %previous = load i64, ptr @mgrt_job_generation
  %generation = add i64 %previous, 1
  store atomic i64 %generation, ptr @mgrt_job_generation release, align 8  ; (workers may be watching)
  store i64 %handed_out, ptr @mgrt_job_pending
  br label %wake

wake:                                   ; one worker per chunk; any extra ones sleep on
  %to_wake = phi i64 [ %handed_out, %publish ], [ %fewer, %wake_one ]
  %all_woken = icmp eq i64 %to_wake, 0
  br i1 %all_woken, label %run, label %wake_one

wake_one:
  %s = call i32 @pthread_cond_signal(ptr @mgrt_pool_work)
  %fewer = sub i64 %to_wake, 1
  br label %wake

run:
  %u0 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_lock)
  call void @mgrt_run_chunk(ptr %body, ptr %ctx, i64 %lo, i64 %n, i64 %chunks, i64 0)
  ; the workers' chunks watched a while, unlocked
  %all_done = call i1 @mgrt_watch(ptr @mgrt_job_pending, i64 0, i1 true, i64 %spins)
  br i1 %all_done, label %let_go, label %lock

lock:
  %l1 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  br label %wait

wait:
  %pending = load i64, ptr @mgrt_job_pending
  %finished = icmp eq i64 %pending, 0
  br i1 %finished, label %release, label %sleep

sleep:
  %w = call i32 @pthread_cond_wait(ptr @mgrt_pool_done, ptr @mgrt_pool_lock)
  br label %wait

release:
  %u1 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_lock)
  br label %let_go

let_go:
  %u2 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_submit)
  br label %done

serial:
  call void %body(ptr %ctx, i64 %lo, i64 %hi)
  br label %done

done:
  ret void
}

; Stops and joins the workers (see the docstring).
define linkonce_odr void @mgrt_pool_shutdown() noinline optnone {
entry:
  %l0 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_submit)
  call void @mgrt_pool_check_fork()
  %l1 = call i32 @pthread_mutex_lock(ptr @mgrt_pool_lock)
  store i1 true, ptr @mgrt_pool_quit
  %b = call i32 @pthread_cond_broadcast(ptr @mgrt_pool_work)
  %workers = load i64, ptr @mgrt_pool_workers
  %u0 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_lock)
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %join ]
  %more = icmp ult i64 %i, %workers
  br i1 %more, label %join, label %reset

join:
  %slot = getelementptr [255 x i64], ptr @mgrt_pool_threads, i64 0, i64 %i
  %thread = load i64, ptr %slot
  %j = call i32 @pthread_join(i64 %thread, ptr null)
  %next = add i64 %i, 1
  br label %loop

reset:                                  ; no worker is left to look
  store i64 0, ptr @mgrt_pool_workers
  store i1 false, ptr @mgrt_pool_quit
  %u1 = call i32 @pthread_mutex_unlock(ptr @mgrt_pool_submit)
  ret void
}
""".replace("SPINS", str(SPINS))
