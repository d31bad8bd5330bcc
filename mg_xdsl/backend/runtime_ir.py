"""The part of the run-time library that compiled code links against everywhere (the JIT,
executables, libraries), written in LLVM IR so that it needs no C compiler.

Failures. Compiled code stops in two ways, both reported the same way:

- ``mgrt_check_failed(message, path, line, size_a, size_b)``: a run-time check failed (see
  the pass ``lower-assert-to-stderr``). ``message`` is the check's one-line message
  (the text the examples must print exactly); ``path``/``line`` are the source of the failing
  expression (``path`` is null where unknown); ``size_a`` and ``size_b`` are the two sizes that
  differed (-1, -1 where the check compared no sizes).
- ``mgrt_range_check_failed(format, path, line, position, size)``: a position read from a
  tensor (an id) was not below ``size``; ``format`` (``mg.index: id %ld is out of range for
  %ld rows (0 to %ld)``) takes the position, the size and the last position, and the report
  starts with what it gives.
- ``mgrt_out_of_memory(bytes)``: the allocator below could not get ``bytes`` bytes.

Each fills a failure record (``%mgrt.failure``, mirrored by ``Failure`` in ``mg_xdsl/api.py``)
whose ``text`` is the whole report, e.g.::

    mg.add: operand shapes differ at runtime in dimension 0
      at prog.mg:3: sizes 2 and 1

Normally that text and a newline go to stderr and the process aborts (exit 134), as the
example programs must. When the Python API calls a compiled function, it calls it through
``mgrt_guarded_NAME`` (``guarded_wrapper``), passing a record of its own: the wrapper makes it
the calling thread's record and records a ``setjmp`` point in it; a failure then fills that
record and ``longjmp``s back, and Python raises an exception instead of the whole process
dying. The record is found through a POSIX thread-specific key (LLVM's MCJIT cannot allocate
``thread_local`` globals), so that Python threads may call compiled code at the same time
(ctypes releases the GIL during a call). The API creates the key, once per process, and
stores it in ``@mgrt_guard_key``; it stays -1 in executables and C++ programs, which have no
guards. A failure on one of the thread pool's workers finds no record there and aborts.

``_mlir_memref_to_llvm_alloc``/``_free`` are what ``finalize-memref-to-llvm
{use-generic-functions=true}`` (the optimised pipeline) calls instead of malloc/free, as
upstream does. A buffer of 32 MiB or more is aligned to 2 MiB and advised to use transparent
huge pages (``madvise(MADV_HUGEPAGE)``; Linux's default THP mode is "madvise"): writing a new
128 MiB result then costs 64 page faults instead of 32768, which otherwise take longer than
the arithmetic. Smaller ones come from malloc, which after the first free keeps buffers of
up to 32 MiB in its heap (its mmap threshold grows to that). From 4 MiB, the whole pages of
such a block are advised too, as NumPy does for its arrays: malloc gives memory back to the
system when the free space at the top of its heap passes its trim threshold (twice its mmap
threshold), which freeing two such blocks in a row can do, and the next result is then
written into pages faulted in 4 KiB at a time (``relu(a + b)`` on 1000x1000 in a process
that also runs NumPy's ``np.maximum(a + b, 0)``: 3.5 ms a call, 1.6-2.0 ms with the advice).
Either way the buffer is freed with ``free``, as the Python API and the C++ header do. An
allocation that fails is ``mgrt_out_of_memory``, never a null pointer for the compiled code to
write through.

The definitions are ``linkonce_odr``/``weak`` so that objects from several ``mgc lib``
builds can be linked into one program.

Three sections: the core (``RUNTIME_CORE_IR``: the failures, the guards, bf16 rounding),
the allocator (``ALLOCATOR_IR``) and ``println`` (``PRINTLN_IR``). A program that is one
object (``mgc run``, an executable, ``mgc lib``) links all three (``RUNTIME_IR``). The
Python API compiles many programs in one process, and the core's code, optimised and
compiled again with each, was about 14 ms of LLVM's time for every ``mg_xdsl.compile``:
there the core is compiled once per machine and loaded once per process
(``jit.process_runtime``), and a program links only the allocator (small, and inlined
where it is called) and, where it prints, the println section, its line buffer its own.
"""

from collections.abc import Sequence

CHECK_FAILED, OUT_OF_MEMORY = 1, 2  # the record's ``kind``
FAILURE_TEXT_BYTES = 1024  # the size of its ``text`` (as in %mgrt.failure below)


def ir_string(name: str, text: str, linkage: str = "linkonce_odr", encoding: str = "utf-8") -> str:
    """A NUL-terminated string constant in LLVM IR (the run-time library's texts): one byte a
    character in ``latin-1`` (a .npy file's magic, 0x93), else UTF-8."""
    data = text.encode(encoding) + b"\0"
    escaped = "".join(chr(c) if 32 <= c < 127 and c not in b'"\\' else f"\\{c:02X}" for c in data)
    return f'@{name} = {linkage} constant [{len(data)} x i8] c"{escaped}"\n'


# The reports' formats (``%ld`` is an i64 on the LP64 systems this targets).
_FORMATS = "".join(
    (
        ir_string("mgrt_fmt_plain", "%s"),
        ir_string("mgrt_fmt_at", "%s\n  at %s:%ld"),
        ir_string("mgrt_fmt_sizes", "%s\n  sizes %ld and %ld"),
        ir_string("mgrt_fmt_at_sizes", "%s\n  at %s:%ld: sizes %ld and %ld"),
        ir_string("mgrt_fmt_path", "\n  at %s:%ld"),
        ir_string("mgrt_fmt_memory", "mg: out of memory allocating %lu bytes"),
        ir_string("mgrt_newline", "\n"),
    )
)

RUNTIME_CORE_IR = (
    _FORMATS
    + r"""
; jump: the guard's jmp_buf; kind: 1 a run-time check failed, 2 out of memory;
; message, path, line, size_a, size_b: what mgrt_check_failed was given;
; bytes: the allocation that failed; text: the report, NUL-terminated, without a final newline.
%mgrt.failure = type { ptr, i64, ptr, ptr, i64, i64, i64, i64, [1024 x i8] }

@mgrt_guard_key = weak global i64 -1

declare i64 @strlen(ptr)
declare i64 @write(i32, ptr, i64)
declare i32 @snprintf(ptr, i64, ptr, ...)
declare void @abort() noreturn nounwind
declare void @longjmp(ptr, i32) noreturn
declare ptr @pthread_getspecific(i32)
declare i32 @pthread_setspecific(i32, ptr)

; The record of this thread's innermost guarded call, or null.
define linkonce_odr ptr @mgrt_guard() {
entry:
  %key = load i64, ptr @mgrt_guard_key
  %none = icmp slt i64 %key, 0
  br i1 %none, label %unguarded, label %lookup

unguarded:
  ret ptr null

lookup:
  %k = trunc i64 %key to i32
  %record = call ptr @pthread_getspecific(i32 %k)
  ret ptr %record
}

; Makes %record (may be null) this thread's guard; returns the one it replaces.
define linkonce_odr ptr @mgrt_set_guard(ptr %record) {
entry:
  %outer = call ptr @mgrt_guard()
  %key = load i64, ptr @mgrt_guard_key
  %k = trunc i64 %key to i32
  %rc = call i32 @pthread_setspecific(i32 %k, ptr %record)
  ret ptr %outer
}

; A filled-in record (its text written): back to the guard, else the text on stderr and abort.
define linkonce_odr void @mgrt_fail(ptr %record) noreturn {
entry:
  %guard = call ptr @mgrt_guard()
  %guarded = icmp eq ptr %guard, %record
  br i1 %guarded, label %back_to_caller, label %report

back_to_caller:
  %jb = load ptr, ptr %record
  call void @longjmp(ptr %jb, i32 1)
  unreachable

report:
  %msg = getelementptr %mgrt.failure, ptr %record, i32 0, i32 8
  %n = call i64 @strlen(ptr %msg)
  %w1 = call i64 @write(i32 2, ptr %msg, i64 %n)
  %w2 = call i64 @write(i32 2, ptr @mgrt_newline, i64 1)
  call void @abort()
  unreachable
}

; This thread's guard record if it has one, else %local.
define linkonce_odr ptr @mgrt_record(ptr %local) {
entry:
  %guard = call ptr @mgrt_guard()
  %guarded = icmp ne ptr %guard, null
  %record = select i1 %guarded, ptr %guard, ptr %local
  ret ptr %record
}

; This thread's guard record if it has one, else %local, holding a failed check's parts.
define linkonce_odr ptr @mgrt_check_record(ptr %local, ptr %message, ptr %path, i64 %line, i64 %a, i64 %b) {
entry:
  %r = call ptr @mgrt_record(ptr %local)
  %kind = getelementptr %mgrt.failure, ptr %r, i32 0, i32 1
  store i64 1, ptr %kind
  %f2 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 2
  store ptr %message, ptr %f2
  %f3 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 3
  store ptr %path, ptr %f3
  %f4 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 4
  store i64 %line, ptr %f4
  %f5 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 5
  store i64 %a, ptr %f5
  %f6 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 6
  store i64 %b, ptr %f6
  ret ptr %r
}

define linkonce_odr void @mgrt_check_failed(ptr %message, ptr %path, i64 %line, i64 %a, i64 %b) noreturn {
entry:
  %local = alloca %mgrt.failure, align 8
  %r = call ptr @mgrt_check_record(ptr %local, ptr %message, ptr %path, i64 %line, i64 %a, i64 %b)
  %text = getelementptr %mgrt.failure, ptr %r, i32 0, i32 8
  %has_path = icmp ne ptr %path, null
  %has_sizes = icmp sge i64 %a, 0
  br i1 %has_path, label %at, label %no_path

at:
  br i1 %has_sizes, label %at_sizes, label %at_only

at_sizes:
  %n1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 1024, ptr @mgrt_fmt_at_sizes, ptr %message, ptr %path, i64 %line, i64 %a, i64 %b)
  br label %done

at_only:
  %n2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 1024, ptr @mgrt_fmt_at, ptr %message, ptr %path, i64 %line)
  br label %done

no_path:
  br i1 %has_sizes, label %sizes_only, label %plain

sizes_only:
  %n3 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 1024, ptr @mgrt_fmt_sizes, ptr %message, i64 %a, i64 %b)
  br label %done

plain:
  %n4 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 1024, ptr @mgrt_fmt_plain, ptr %message)
  br label %done

done:
  call void @mgrt_fail(ptr %r)
  unreachable
}

; The message is the format filled in, written into the text; the record's message points
; at the format (the Python API reads the message from the text's first line).
define linkonce_odr void @mgrt_range_check_failed(ptr %format, ptr %path, i64 %line, i64 %position, i64 %size) noreturn {
entry:
  %local = alloca %mgrt.failure, align 8
  %r = call ptr @mgrt_check_record(ptr %local, ptr %format, ptr %path, i64 %line, i64 -1, i64 -1)
  %text = getelementptr %mgrt.failure, ptr %r, i32 0, i32 8
  %last = sub i64 %size, 1
  %n1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 1024, ptr %format, i64 %position, i64 %size, i64 %last)
  %has_path = icmp ne ptr %path, null
  br i1 %has_path, label %at, label %done

at:
  %length = call i64 @strlen(ptr %text)
  %end = getelementptr i8, ptr %text, i64 %length
  %room = sub i64 1024, %length
  %n2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %end, i64 %room, ptr @mgrt_fmt_path, ptr %path, i64 %line)
  br label %done

done:
  call void @mgrt_fail(ptr %r)
  unreachable
}

define linkonce_odr void @mgrt_out_of_memory(i64 %bytes) noreturn {
entry:
  %local = alloca %mgrt.failure, align 8
  %r = call ptr @mgrt_record(ptr %local)
  %kind = getelementptr %mgrt.failure, ptr %r, i32 0, i32 1
  store i64 2, ptr %kind
  %f7 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 7
  store i64 %bytes, ptr %f7
  %text = getelementptr %mgrt.failure, ptr %r, i32 0, i32 8
  %n = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 1024, ptr @mgrt_fmt_memory, i64 %bytes)
  call void @mgrt_fail(ptr %r)
  unreachable
}

; compiler-rt's float -> bfloat rounding (to nearest even; a NaN becomes the quiet NaN), which
; LLVM's x86 back end calls for a bfloat it loads and stores again. This project's LLVM IR has
; no bfloat (a bf16 is an i16 there: llvm_ir.BF16_BITS), but mlir-translate's has
; (--backend mlir), and neither the JIT's process nor every C compiler's libgcc defines it.
define weak bfloat @__truncsfbf2(float %x) {
entry:
  %bits = bitcast float %x to i32
  %high = lshr i32 %bits, 16
  %lowest_kept = and i32 %high, 1
  %half = add i32 %bits, 32767
  %rounded = add i32 %half, %lowest_kept
  %top32 = lshr i32 %rounded, 16
  %top = trunc i32 %top32 to i16
  %nan = fcmp uno float %x, %x
  %chosen = select i1 %nan, i16 32704, i16 %top
  %result = bitcast i16 %chosen to bfloat
  ret bfloat %result
}
"""
)

# The allocator: a section of its own, linked into every program that allocates even where the
# process's core serves the rest, so that LLVM inlines it: a buffer of a size known to be
# under the huge-page threshold is then plainly malloc's, which LLVM knows aliases nothing.
ALLOCATOR_IR = r"""
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @posix_memalign(ptr, i64, i64)
declare i32 @madvise(ptr, i64, i32)

define linkonce_odr ptr @_mlir_memref_to_llvm_alloc(i64 %bytes) {
entry:
  %large = icmp uge i64 %bytes, 33554432
  br i1 %large, label %huge, label %plain

plain:
  %p = call ptr @malloc(i64 %bytes)
  %null = icmp eq ptr %p, null
  %nonempty = icmp ne i64 %bytes, 0
  ; malloc(0) may return null: only a non-empty request can fail
  %failed = and i1 %null, %nonempty
  br i1 %failed, label %no_memory, label %allocated

no_memory:
  call void @mgrt_out_of_memory(i64 %bytes)
  unreachable

allocated:
  %several_pages = icmp uge i64 %bytes, 4194304
  br i1 %several_pages, label %advise_pages, label %done

advise_pages:
  ; from the block's first page boundary to its end (madvise takes whole pages)
  %address = ptrtoint ptr %p to i64
  %rounded = add i64 %address, 4095
  %first_page = and i64 %rounded, -4096
  %end = add i64 %address, %bytes
  %length = sub i64 %end, %first_page
  %pages = inttoptr i64 %first_page to ptr
  ; 14 = MADV_HUGEPAGE; only a hint, so its result does not matter
  %hinted = call i32 @madvise(ptr %pages, i64 %length, i32 14)
  br label %done

done:
  ret ptr %p

huge:
  %slot = alloca ptr, align 8
  %rc = call i32 @posix_memalign(ptr %slot, i64 2097152, i64 %bytes)
  %refused = icmp ne i32 %rc, 0
  br i1 %refused, label %plain, label %advise

advise:
  %q = load ptr, ptr %slot, align 8
  ; 14 = MADV_HUGEPAGE; only a hint, so its result does not matter
  %ignored = call i32 @madvise(ptr %q, i64 %bytes, i32 14)
  ret ptr %q
}

define linkonce_odr void @_mlir_memref_to_llvm_free(ptr %p) {
entry:
  call void @free(ptr %p)
  ret void
}
"""

# glibc's jmp_buf is 200 bytes on x86-64 and 312 on aarch64; 512 leaves room.
_GUARD = r"""
declare i32 @_setjmp(ptr) returns_twice
declare ptr @mgrt_set_guard(ptr)
declare void @_mlir_ciface_{name}({params})

define i32 @{guard}(ptr %record, ptr %result{matrices}) {{
entry:
  %buf = alloca [64 x i64], align 16
{descriptors}  store ptr %buf, ptr %record
  %outer = call ptr @mgrt_set_guard(ptr %record)
  %jumped = call i32 @_setjmp(ptr %buf) returns_twice
  %failed = icmp ne i32 %jumped, 0
  br i1 %failed, label %fail, label %run

run:
  call void @_mlir_ciface_{name}({args})
  %ignored = call ptr @mgrt_set_guard(ptr %outer)
  ret i32 0

fail:
  %ignored2 = call ptr @mgrt_set_guard(ptr %outer)
  ret i32 1
}}
"""

# The descriptor of a C-ordered array at %pI of sizes %sI_0 ... %sI_{r-1}: upstream's
# { ptr allocated, ptr aligned, i64 offset, [r x i64] sizes, [r x i64] strides }, 3 + 2r
# 8-byte words on LP64; the strides row-major, each the product of the sizes after it.
_WORD = """  %d{i}.{k} = getelementptr inbounds i64, ptr %d{i}, i64 {k}
  store {value}, ptr %d{i}.{k}
"""


def _descriptor(i: int, rank: int) -> str:
    code = [f"  %d{i} = alloca [{3 + 2 * rank} x i64], align 8\n"]
    strides = ["1"] * rank  # from the last axis back: each the one after it times its size
    for d in reversed(range(rank - 1)):
        strides[d] = f"%t{i}_{d}"
        code.append(f"  {strides[d]} = mul i64 {strides[d + 1]}, %s{i}_{d + 1}\n")
    words = [
        f"ptr %p{i}",
        f"ptr %p{i}",
        "i64 0",
        *(f"i64 %s{i}_{d}" for d in range(rank)),
        *(f"i64 {t}" for t in strides),
    ]
    code += [_WORD.format(i=i, k=k, value=value) for k, value in enumerate(words)]
    return "".join(code)


def guard_name(name: str) -> str:
    """The name of def ``name``'s guard (``guarded_wrapper``), which the Python API calls."""
    return f"mgrt_guarded_{name}"


def guarded_wrapper(name: str, ranks: Sequence[int]) -> str:
    """An LLVM IR module defining ``i32 mgrt_guarded_NAME(ptr record, ptr result, ptr p0,
    i64 size0_0, ..., ptr p1, ...)``, one pointer and ``ranks[i]`` sizes for each parameter:
    it describes each C-ordered array as a memref, calls ``_mlir_ciface_NAME`` with the
    result's descriptor and theirs, and returns 0, or 1 if the call failed (a run-time check
    or an allocation); ``record`` (``%mgrt.failure``) then says how. Passing the data and the
    sizes, not a descriptor built in Python, halves what a call costs the Python API.
    ``result`` is what the C interface stores its results in, for any number of them: one
    result's descriptor, or the struct of several results' descriptors, in order."""
    return _GUARD.format(
        name=name,
        guard=guard_name(name),
        params=", ".join(["ptr"] * (len(ranks) + 1)),
        matrices="".join(f", ptr %p{i}" + "".join(f", i64 %s{i}_{d}" for d in range(r)) for i, r in enumerate(ranks)),
        descriptors="".join(_descriptor(i, r) for i, r in enumerate(ranks)),
        args=", ".join(["ptr %result"] + [f"ptr %d{i}" for i in range(len(ranks))]),
    )


# ---------------------------------------------------------------------------------------
# println: a line of text with values formatted in it, as Python's ``format`` formats them
# ---------------------------------------------------------------------------------------

PRINTLN_IR = (
    "".join(
        (
            ir_string("mgrt_println_fmt_e", "%.*e"),
            ir_string("mgrt_println_fmt_f", "%.*f"),
            ir_string("mgrt_println_dot0", ".0"),
            ir_string("mgrt_println_true", "True"),
            ir_string("mgrt_println_false", "False"),
        )
    )
    + r"""
; What mg.println's lowering (mg_xdsl/conversions/lower_println.py) calls, one line at a time:
; the pieces of text and the values are appended to a line buffer of this module
; (mgrt_println_text, _bool, _long, _double, _python; mgrt_println_mark and _field around a value
; whose spec pads it or has 'z'), and mgrt_println_end adds the newline and writes the line
; at once, through mgrt_write_output where the process provides it (the JIT: Python's
; sys.stdout, where print's printMemref* write too, so capture() and the order of output
; hold), else with fwrite on C's stdout (executables, whose printMemref* write there too),
; flushed either way, as print flushes. Lines are printed by one thread (the program's top
; level), so one buffer serves.
@mgrt_println_data = linkonce_odr global ptr null
@mgrt_println_size = linkonce_odr global i64 0
@mgrt_println_capacity = linkonce_odr global i64 0
@stdout = external global ptr

declare extern_weak void @mgrt_write_output(ptr, i64)
declare ptr @realloc(ptr, i64)
declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memmove(ptr, ptr, i64)
declare ptr @memset(ptr, i32, i64)
declare ptr @strchr(ptr, i32)
declare i64 @strtol(ptr, ptr, i32)
declare double @strtod(ptr, ptr)
declare float @strtof(ptr, ptr)
declare i64 @fwrite(ptr, i64, i64, ptr)
declare i32 @fflush(ptr)
declare double @llvm.fabs.f64(double)

; Room for %n more bytes and a NUL at the end of the line: where they go.
define linkonce_odr ptr @mgrt_println_room(i64 %n) {
entry:
  %size = load i64, ptr @mgrt_println_size
  %capacity = load i64, ptr @mgrt_println_capacity
  %used = add i64 %size, %n
  %need = add i64 %used, 1
  %fits = icmp ule i64 %need, %capacity
  br i1 %fits, label %done, label %grow

grow:
  %twice = mul i64 %need, 2
  %bigger = add i64 %twice, 256
  %old = load ptr, ptr @mgrt_println_data
  %new = call ptr @realloc(ptr %old, i64 %bigger)
  %failed = icmp eq ptr %new, null
  br i1 %failed, label %no_memory, label %grown

no_memory:
  call void @mgrt_out_of_memory(i64 %bigger)
  unreachable

grown:
  store ptr %new, ptr @mgrt_println_data
  store i64 %bigger, ptr @mgrt_println_capacity
  br label %done

done:
  %data = load ptr, ptr @mgrt_println_data
  %end = getelementptr i8, ptr %data, i64 %size
  ret ptr %end
}

define linkonce_odr void @mgrt_println_grew(i64 %n) {
entry:
  %size = load i64, ptr @mgrt_println_size
  %new = add i64 %size, %n
  store i64 %new, ptr @mgrt_println_size
  ret void
}

define linkonce_odr void @mgrt_println_text(ptr %text) {
entry:
  %n = call i64 @strlen(ptr %text)
  %at = call ptr @mgrt_println_room(i64 %n)
  %c = call ptr @memcpy(ptr %at, ptr %text, i64 %n)
  call void @mgrt_println_grew(i64 %n)
  ret void
}

define linkonce_odr void @mgrt_println_bool(i32 %b) {
entry:
  %true = icmp ne i32 %b, 0
  %text = select i1 %true, ptr @mgrt_println_true, ptr @mgrt_println_false
  call void @mgrt_println_text(ptr %text)
  ret void
}

; snprintf(%format, %x) appended (%format takes one long).
define linkonce_odr void @mgrt_println_long(ptr %format, i64 %x) {
entry:
  %n32 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr null, i64 0, ptr %format, i64 %x)
  %n = sext i32 %n32 to i64
  %at = call ptr @mgrt_println_room(i64 %n)
  %room = add i64 %n, 1
  %w = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %at, i64 %room, ptr %format, i64 %x)
  call void @mgrt_println_grew(i64 %n)
  ret void
}

; snprintf(%format, %x) appended (%format takes one double), %x times 100 if %percent; a NaN
; without its sign (Python never prints -nan).
define linkonce_odr void @mgrt_println_double(ptr %format, double %x, i32 %percent) {
entry:
  %times100 = fmul double %x, 100.0
  %scale = icmp ne i32 %percent, 0
  %scaled = select i1 %scale, double %times100, double %x
  %nan = fcmp uno double %scaled, %scaled
  %abs = call double @llvm.fabs.f64(double %scaled)
  %y = select i1 %nan, double %abs, double %scaled
  %n32 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr null, i64 0, ptr %format, double %y)
  %n = sext i32 %n32 to i64
  %at = call ptr @mgrt_println_room(i64 %n)
  %room = add i64 %n, 1
  %w = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %at, i64 %room, ptr %format, double %y)
  call void @mgrt_println_grew(i64 %n)
  ret void
}

; snprintf(%format, %precision, %x) appended (%format is "%.*e" or "%.*f").
define linkonce_odr void @mgrt_println_star(ptr %format, i32 %precision, double %x) {
entry:
  %n32 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr null, i64 0, ptr %format, i32 %precision, double %x)
  %n = sext i32 %n32 to i64
  %at = call ptr @mgrt_println_room(i64 %n)
  %room = add i64 %n, 1
  %w = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %at, i64 %room, ptr %format, i32 %precision, double %x)
  call void @mgrt_println_grew(i64 %n)
  ret void
}

; A float as Python's str() (%mode 0: an f64, shortest repr, exponent form below 1e-4 or from
; 1e16), as NumPy's str(np.float32) (%mode 1: an f32 as a double, shortest float32 digits,
; exponent form below 1e-4 or from 1e6), or as format(x, ".{p}") (%mode 2: 'g's %precision
; digits without trailing zeros, exponent form below 1e-4 or from 1e{p-1}); fixed notation has
; a digit after the point. %sign ('+', ' ' or 0) goes before a number without a minus.
; The digits are those of "%.*e" (the shortest that strtod/strtof reads back as %x for
; modes 0 and 1, found by trying 1, 2, ... 17 digits); fixed notation prints them with
; "%.*f", which rounds %x at the same decimal place and so gives the same digits.
define linkonce_odr void @mgrt_println_python(double %x, i32 %mode, i32 %precision, i32 %sign) {
entry:
  %tmp = alloca [160 x i8], align 8
  %nan = fcmp uno double %x, %x
  %ax = call double @llvm.fabs.f64(double %x)
  %bits = bitcast double %x to i64
  %signbit = icmp slt i64 %bits, 0
  %not_nan = xor i1 %nan, true
  %negative = and i1 %signbit, %not_nan
  br i1 %negative, label %minus, label %maybe_sign

minus:
  call void @mgrt_println_char(i32 45)
  br label %body

maybe_sign:
  %has_sign = icmp ne i32 %sign, 0
  br i1 %has_sign, label %plus, label %body

plus:
  call void @mgrt_println_char(i32 %sign)
  br label %body

body:
  %finite = fcmp one double %ax, 0x7FF0000000000000
  br i1 %finite, label %digits, label %special

special:
  ; inf or nan
  call void @mgrt_println_star(ptr @mgrt_println_fmt_f, i32 0, double %ax)
  ret void

digits:
  %general = icmp eq i32 %mode, 2
  br i1 %general, label %general_digits, label %shortest

shortest:
  %k = phi i32 [ 0, %digits ], [ %k_next, %try_more ]
  %w1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %tmp, i64 160, ptr @mgrt_println_fmt_e, i32 %k, double %ax)
  %is_f32 = icmp eq i32 %mode, 1
  br i1 %is_f32, label %back32, label %back64

back64:
  %read64 = call double @strtod(ptr %tmp, ptr null)
  %same64 = fcmp oeq double %read64, %ax
  br label %tried

back32:
  %read32 = call float @strtof(ptr %tmp, ptr null)
  %ax32 = fptrunc double %ax to float
  %same32 = fcmp oeq float %read32, %ax32
  br label %tried

tried:
  %same = phi i1 [ %same64, %back64 ], [ %same32, %back32 ]
  %enough = icmp sge i32 %k, 16
  %stop = or i1 %same, %enough
  br i1 %stop, label %layout, label %try_more

try_more:
  %k_next = add i32 %k, 1
  br label %shortest

general_digits:
  %p1 = sub i32 %precision, 1
  %w2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %tmp, i64 160, ptr @mgrt_println_fmt_e, i32 %p1, double %ax)
  %e0 = call ptr @strchr(ptr %tmp, i32 101)
  %last0 = getelementptr i8, ptr %e0, i64 -1
  br label %strip

strip:
  ; drop the mantissa's trailing zeros (as 'g' does)
  %kg = phi i32 [ %p1, %general_digits ], [ %kg_less, %stripped ]
  %q = phi ptr [ %last0, %general_digits ], [ %q_less, %stripped ]
  %has_decimals = icmp sgt i32 %kg, 0
  br i1 %has_decimals, label %look, label %layout

look:
  %c = load i8, ptr %q
  %zero = icmp eq i8 %c, 48
  br i1 %zero, label %stripped, label %layout

stripped:
  %kg_less = sub i32 %kg, 1
  %q_less = getelementptr i8, ptr %q, i64 -1
  br label %strip

layout:
  ; %decimals: the digits after the point in exponent form
  %decimals = phi i32 [ %k, %tried ], [ %kg, %strip ], [ %kg, %look ]
  %e = call ptr @strchr(ptr %tmp, i32 101)
  %after_e = getelementptr i8, ptr %e, i64 1
  %exp64 = call i64 @strtol(ptr %after_e, ptr null, i32 10)
  %exp = trunc i64 %exp64 to i32
  %tiny = icmp slt i32 %exp, -4
  %p_minus_1 = sub i32 %precision, 1
  %high = select i1 %general, i32 %p_minus_1, i32 16
  %huge = icmp sge i32 %exp, %high
  %by_exponent = or i1 %tiny, %huge
  %small32 = fcmp olt double %ax, 1.0e-4
  %large32 = fcmp oge double %ax, 1.0e6
  %nonzero = fcmp one double %ax, 0.0
  %outside32 = or i1 %small32, %large32
  %by_value = and i1 %outside32, %nonzero
  %f32_mode = icmp eq i32 %mode, 1
  %scientific = select i1 %f32_mode, i1 %by_value, i1 %by_exponent
  br i1 %scientific, label %exponent_form, label %fixed

exponent_form:
  call void @mgrt_println_star(ptr @mgrt_println_fmt_e, i32 %decimals, double %ax)
  ret void

fixed:
  %places = sub i32 %decimals, %exp
  %fraction = icmp sgt i32 %places, 0
  br i1 %fraction, label %with_fraction, label %whole

with_fraction:
  call void @mgrt_println_star(ptr @mgrt_println_fmt_f, i32 %places, double %ax)
  ret void

whole:
  call void @mgrt_println_star(ptr @mgrt_println_fmt_f, i32 0, double %ax)
  call void @mgrt_println_text(ptr @mgrt_println_dot0)
  ret void
}

define linkonce_odr void @mgrt_println_char(i32 %c) {
entry:
  %at = call ptr @mgrt_println_room(i64 1)
  %byte = trunc i32 %c to i8
  store i8 %byte, ptr %at
  call void @mgrt_println_grew(i64 1)
  ret void
}

; Where the next value's text starts.
define linkonce_odr i64 @mgrt_println_mark() {
entry:
  %size = load i64, ptr @mgrt_println_size
  ret i64 %size
}

; The text of a value from %start on, finished as Python does after formatting the number:
; with 'z' (%z_sign >= 0), a negative zero (a '-' followed only by '0', '.' and '%' up to
; an exponent) loses its '-', which becomes the sign flag %z_sign if it is '+' or ' ';
; then padded with %fill up to %width characters, aligned by %align ('<', '>', '^', or '=':
; the padding after a sign).
define linkonce_odr void @mgrt_println_field(i64 %start, i32 %z_sign, i64 %width, i32 %fill, i32 %align) {
entry:
  %with_z = icmp sge i32 %z_sign, 0
  br i1 %with_z, label %z_check, label %pad

z_check:
  %data0 = load ptr, ptr @mgrt_println_data
  %size0 = load i64, ptr @mgrt_println_size
  %first_at = getelementptr i8, ptr %data0, i64 %start
  %first = load i8, ptr %first_at
  %is_minus = icmp eq i8 %first, 45
  %after = add i64 %start, 1
  br i1 %is_minus, label %z_scan, label %pad

z_scan:
  %i = phi i64 [ %after, %z_check ], [ %i_next, %z_zero_char ]
  %at_end = icmp uge i64 %i, %size0
  br i1 %at_end, label %z_fix, label %z_char

z_char:
  %char_at = getelementptr i8, ptr %data0, i64 %i
  %ch = load i8, ptr %char_at
  %is_e = icmp eq i8 %ch, 101
  %is_big_e = icmp eq i8 %ch, 69
  %exponent = or i1 %is_e, %is_big_e
  br i1 %exponent, label %z_fix, label %z_digit

z_digit:
  %is_0 = icmp eq i8 %ch, 48
  %is_dot = icmp eq i8 %ch, 46
  %is_pct = icmp eq i8 %ch, 37
  %zero_or_dot = or i1 %is_0, %is_dot
  %harmless = or i1 %zero_or_dot, %is_pct
  br i1 %harmless, label %z_zero_char, label %pad

z_zero_char:
  %i_next = add i64 %i, 1
  br label %z_scan

z_fix:
  %keep_sign = icmp ne i32 %z_sign, 0
  br i1 %keep_sign, label %z_replace, label %z_remove

z_replace:
  %sign_byte = trunc i32 %z_sign to i8
  store i8 %sign_byte, ptr %first_at
  br label %pad

z_remove:
  %rest = sub i64 %size0, %after
  %from = getelementptr i8, ptr %data0, i64 %after
  %m0 = call ptr @memmove(ptr %first_at, ptr %from, i64 %rest)
  %size1 = sub i64 %size0, 1
  store i64 %size1, ptr @mgrt_println_size
  br label %pad

pad:
  %size = load i64, ptr @mgrt_println_size
  %length = sub i64 %size, %start
  %short = icmp slt i64 %length, %width
  br i1 %short, label %padding, label %done

padding:
  %count = sub i64 %width, %length
  %r = call ptr @mgrt_println_room(i64 %count)
  %data = load ptr, ptr @mgrt_println_data
  %is_left = icmp eq i32 %align, 60
  %is_centre = icmp eq i32 %align, 94
  %is_sign_aware = icmp eq i32 %align, 61
  %half = udiv i64 %count, 2
  %left_if_not_left = select i1 %is_centre, i64 %half, i64 %count
  %left = select i1 %is_left, i64 0, i64 %left_if_not_left
  %right = sub i64 %count, %left
  %first_byte_at = getelementptr i8, ptr %data, i64 %start
  %first_byte = load i8, ptr %first_byte_at
  %plus_sign = icmp eq i8 %first_byte, 43
  %minus_sign = icmp eq i8 %first_byte, 45
  %space_sign = icmp eq i8 %first_byte, 32
  %pm = or i1 %plus_sign, %minus_sign
  %signed = or i1 %pm, %space_sign
  %nonempty = icmp sgt i64 %length, 0
  %signed_text = and i1 %signed, %nonempty
  %skip_sign = and i1 %is_sign_aware, %signed_text
  %skip = zext i1 %skip_sign to i64
  %body_start = add i64 %start, %skip
  %body_length = sub i64 %length, %skip
  %body_at = getelementptr i8, ptr %data, i64 %body_start
  %moved_start = add i64 %body_start, %left
  %moved_at = getelementptr i8, ptr %data, i64 %moved_start
  %m1 = call ptr @memmove(ptr %moved_at, ptr %body_at, i64 %body_length)
  %fill_byte = and i32 %fill, 255
  %m2 = call ptr @memset(ptr %body_at, i32 %fill_byte, i64 %left)
  %right_start = add i64 %moved_start, %body_length
  %right_at = getelementptr i8, ptr %data, i64 %right_start
  %m3 = call ptr @memset(ptr %right_at, i32 %fill_byte, i64 %right)
  call void @mgrt_println_grew(i64 %count)
  br label %done

done:
  ret void
}

; The newline, then the line written and flushed; the buffer empty again.
define linkonce_odr void @mgrt_println_end() {
entry:
  call void @mgrt_println_char(i32 10)
  %data = load ptr, ptr @mgrt_println_data
  %size = load i64, ptr @mgrt_println_size
  store i64 0, ptr @mgrt_println_size
  %hooked = icmp ne ptr @mgrt_write_output, null
  br i1 %hooked, label %hook, label %c_stdout

hook:
  call void @mgrt_write_output(ptr %data, i64 %size)
  ret void

c_stdout:
  %stream = load ptr, ptr @stdout
  %written = call i64 @fwrite(ptr %data, i64 1, i64 %size, ptr %stream)
  %flushed = call i32 @fflush(ptr %stream)
  ret void
}
"""
)

# The whole library, for a program that is one object (``mgc run``, executables, ``mgc lib``).
RUNTIME_IR = RUNTIME_CORE_IR + ALLOCATOR_IR + PRINTLN_IR

# The allocator and the println section as modules of their own, for a program that calls
# the process's core (``jit.process_runtime``): each declares what it uses of the core.
ALLOCATOR_ALONE_IR = "declare void @mgrt_out_of_memory(i64) noreturn\n" + ALLOCATOR_IR
PRINTLN_ALONE_IR = (
    "declare i64 @strlen(ptr)\ndeclare i32 @snprintf(ptr, i64, ptr, ...)\n"
    "declare void @mgrt_out_of_memory(i64) noreturn\n" + PRINTLN_IR
)
