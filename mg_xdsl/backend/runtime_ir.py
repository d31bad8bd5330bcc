"""The part of the run-time library that compiled code links against everywhere (the JIT,
executables, libraries), written in LLVM IR so that it needs no C compiler.

``mgrt_check_failed(msg)`` is what a failed run-time check calls (see the pass
``lower-assert-to-stderr``). Normally it writes the message and a newline on stderr and
aborts, as the chapter's programs do. When the Python API calls a compiled function, it
calls it through ``mgrt_guarded_NAME``, which records a ``setjmp`` point first; a failed
check then ``longjmp``s back there with the message kept in ``@mgrt_failure``, and Python
raises an exception instead of the whole process dying.

``_mlir_memref_to_llvm_alloc``/``_free`` are what ``finalize-memref-to-llvm
{use-generic-functions=true}`` (the optimised pipeline) calls instead of malloc/free, as
upstream does. A buffer of 32 MiB or more is aligned to 2 MiB and advised to use transparent
huge pages (``madvise(MADV_HUGEPAGE)``; Linux's default THP mode is "madvise"): writing a new
128 MiB result then costs 64 page faults instead of 32768, which otherwise take longer than
the arithmetic. Smaller ones come from malloc, which after the first free keeps buffers of
up to 32 MiB in its heap (its mmap threshold grows to that), already paged in. Either way the buffer is freed with ``free``, as the Python API and the C++
header do.

The definitions are ``linkonce_odr``/``weak`` so that objects from several ``mgc lib``
builds can be linked into one program.
"""

RUNTIME_IR = r"""
@mgrt_jmp = weak global ptr null
@mgrt_failure = weak global ptr null
@mgrt_newline = linkonce_odr constant [1 x i8] c"\0A"

declare i64 @strlen(ptr)
declare i64 @write(i32, ptr, i64)
declare void @abort() noreturn nounwind
declare void @longjmp(ptr, i32) noreturn

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
  ret ptr %p

huge:
  %slot = alloca ptr, align 8
  %rc = call i32 @posix_memalign(ptr %slot, i64 2097152, i64 %bytes)
  %failed = icmp ne i32 %rc, 0
  br i1 %failed, label %plain, label %advise

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

define linkonce_odr void @mgrt_check_failed(ptr %msg) noreturn {
entry:
  %jb = load ptr, ptr @mgrt_jmp
  %guarded = icmp ne ptr %jb, null
  br i1 %guarded, label %back_to_caller, label %report

back_to_caller:
  store ptr %msg, ptr @mgrt_failure
  call void @longjmp(ptr %jb, i32 1)
  unreachable

report:
  %n = call i64 @strlen(ptr %msg)
  %w1 = call i64 @write(i32 2, ptr %msg, i64 %n)
  %w2 = call i64 @write(i32 2, ptr @mgrt_newline, i64 1)
  call void @abort()
  unreachable
}
"""

# glibc's jmp_buf is 200 bytes on x86-64 and 312 on aarch64; 512 leaves room.
_GUARD = r"""
@mgrt_jmp = external global ptr
declare i32 @_setjmp(ptr) returns_twice
declare void @_mlir_ciface_{name}({params})

define i32 @mgrt_guarded_{name}({params_named}) {{
entry:
  %buf = alloca [64 x i64], align 16
  %outer = load ptr, ptr @mgrt_jmp
  store ptr %buf, ptr @mgrt_jmp
  %jumped = call i32 @_setjmp(ptr %buf) returns_twice
  %failed = icmp ne i32 %jumped, 0
  br i1 %failed, label %fail, label %run

run:
  call void @_mlir_ciface_{name}({args})
  store ptr %outer, ptr @mgrt_jmp
  ret i32 0

fail:
  store ptr %outer, ptr @mgrt_jmp
  ret i32 1
}}
"""


def guarded_wrapper(name: str, pointer_args: int) -> str:
    """An LLVM IR module defining ``i32 mgrt_guarded_NAME(ptr...)``: it calls
    ``_mlir_ciface_NAME`` with the same pointers and returns 0, or 1 if a run-time check
    failed inside it (the message is then in ``@mgrt_failure``)."""
    named = ", ".join(f"ptr %a{i}" for i in range(pointer_args))
    return _GUARD.format(name=name, params=", ".join(["ptr"] * pointer_args),
                         params_named=named, args=named)
