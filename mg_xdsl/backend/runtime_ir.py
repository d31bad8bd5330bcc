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
"""

from collections.abc import Sequence

CHECK_FAILED, OUT_OF_MEMORY = 1, 2  # the record's ``kind``
FAILURE_TEXT_BYTES = 1024  # the size of its ``text`` (as in %mgrt.failure below)


def _string(name: str, text: str) -> str:
    """A NUL-terminated string constant in LLVM IR."""
    data = text.encode() + b"\0"
    escaped = "".join(chr(c) if 32 <= c < 127 and c not in b'"\\' else f"\\{c:02X}" for c in data)
    return f'@{name} = linkonce_odr constant [{len(data)} x i8] c"{escaped}"\n'


# The reports' formats (``%ld`` is an i64 on the LP64 systems this targets).
_FORMATS = "".join(
    (
        _string("mgrt_fmt_plain", "%s"),
        _string("mgrt_fmt_at", "%s\n  at %s:%ld"),
        _string("mgrt_fmt_sizes", "%s\n  sizes %ld and %ld"),
        _string("mgrt_fmt_at_sizes", "%s\n  at %s:%ld: sizes %ld and %ld"),
        _string("mgrt_fmt_path", "\n  at %s:%ld"),
        _string("mgrt_fmt_memory", "mg: out of memory allocating %lu bytes"),
        _string("mgrt_newline", "\n"),
    )
)

RUNTIME_IR = (
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

# glibc's jmp_buf is 200 bytes on x86-64 and 312 on aarch64; 512 leaves room.
_GUARD = r"""
declare i32 @_setjmp(ptr) returns_twice
declare ptr @mgrt_set_guard(ptr)
declare void @_mlir_ciface_{name}({params})

define i32 @mgrt_guarded_{name}(ptr %record, ptr %result{matrices}) {{
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


def guarded_wrapper(name: str, ranks: Sequence[int]) -> str:
    """An LLVM IR module defining ``i32 mgrt_guarded_NAME(ptr record, ptr result, ptr p0,
    i64 size0_0, ..., ptr p1, ...)``, one pointer and ``ranks[i]`` sizes for each parameter:
    it describes each C-ordered array as a memref, calls ``_mlir_ciface_NAME`` with the
    result's descriptor and theirs, and returns 0, or 1 if the call failed (a run-time check
    or an allocation); ``record`` (``%mgrt.failure``) then says how. Passing the data and the
    sizes, not a descriptor built in Python, halves what a call costs the Python API."""
    return _GUARD.format(
        name=name,
        params=", ".join(["ptr"] * (len(ranks) + 1)),
        matrices="".join(f", ptr %p{i}" + "".join(f", i64 %s{i}_{d}" for d in range(r)) for i, r in enumerate(ranks)),
        descriptors="".join(_descriptor(i, r) for i, r in enumerate(ranks)),
        args=", ".join(["ptr %result"] + [f"ptr %d{i}" for i in range(len(ranks))]),
    )
