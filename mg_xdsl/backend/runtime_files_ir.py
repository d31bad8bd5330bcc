"""The run-time library's ``.npy`` files (``mg.load``, ``mg.save``), in LLVM IR on the C
library, as ``runtime_ir`` is: ``FILES_IR`` is a module of its own, linked into a program that
calls it before ``runtime_ir``'s (``jit.link``), whose failure records it uses.

What ``lower_files`` calls, for each element type ``T`` of ``NPY_DESCRS`` (a memref
``memref<*xT>`` is passed as upstream passes an unranked memref: its rank and a pointer to its
ranked descriptor):

- ``i64 mgrt_npy_load_T(memref<*xi8> path, i64 rank, memref<*xi64> sizes)``: opens the file
  (``path`` is NUL-terminated), reads its header (format versions 1.0, 2.0 and 3.0) and checks
  it against the declared type: ``.npy`` magic, C order (Fortran order is accepted below 2
  dimensions, where it is the same), ``T``'s .npy type, ``rank`` dimensions, each of the
  ``sizes`` that is not -1 (a static size; -1 is a ``?``), and enough data after the header.
  It writes the file's sizes into ``sizes`` and returns a handle, the file positioned at its
  data, for the compiled code to allocate the buffer (with its own allocator, so that the
  buffer is freed as every other);
- ``void mgrt_npy_read_T(i64 handle, memref<*xT> buffer)``: reads the data into ``buffer``
  (contiguous, of the sizes above), closes the file and frees the handle (an ``i1`` byte other
  than 0 becomes 1, as NumPy's ``bool`` reads it);
- ``void mgrt_npy_save_T(memref<*xi8> path, memref<*xT> tensor)``: writes the header as
  ``np.save`` does (format 1.0, the same dictionary and padding, byte for byte) and the data in
  C order (a strided view is gathered first) to ``PATH.tmpPID`` in the same directory, then
  renames that over ``path``: a failure leaves the old file, if any, and no partial one.

A problem is ``OP: PATH: WHAT`` (``mgrt_file_failed``), e.g. ``load: /d/x.npy: expected element
type f32 ('<f4'), found '<f8'`` or ``save: /d/w.npy: Permission denied``, with failure kind
``FILE_ERROR`` in the record: on stderr with exit status 1 (a file is not a bug in the program,
so no abort), or back to a guarded call, where the Python API raises ``MgFileError``.
"""

from mg_xdsl.backend.runtime_ir import FAILURE_TEXT_BYTES, ir_string

FILE_ERROR = 3  # the failure record's ``kind`` (after runtime_ir's CHECK_FAILED, OUT_OF_MEMORY)

# The .npy type (NumPy's ``dtype.str``) of each element type a file holds, and its size.
NPY_DESCRS: dict[str, tuple[str, int]] = {
    "f64": ("<f8", 8),
    "f32": ("<f4", 4),
    "i32": ("<i4", 4),
    "i64": ("<i8", 8),
    "i1": ("|b1", 1),
}

MAX_RANK = 32  # the most dimensions a file's shape is read with (NumPy's own limit is 64)


def _string(name: str, text: str) -> str:
    """A NUL-terminated string constant (one byte a character: the magic's 0x93 too)."""
    return ir_string(name, text, encoding="latin-1")


_STRINGS = {
    "op_load": "load",
    "op_save": "save",
    "rb": "rb",
    "wb": "wb",
    "magic": "\x93NUMPY",
    "report": "%s: %s: %s",
    "newline": "\n",
    "not_npy": "not a .npy file",
    "short_header": "not a .npy file (its header is cut short)",
    "bad_header": "not a .npy file (cannot read its header)",
    "version": "unsupported .npy format version %d.%d",
    "descr_key": "'descr'",
    "descr_value": " : '%31[^']'",
    "order_key": "'fortran_order'",
    "order_value": " : %7[A-Za-z]",
    "false": "False",
    "true": "True",
    "shape_key": "'shape'",
    "descr": "expected element type %s ('%s'), found '%s'",
    "fortran": "Fortran order is not supported",
    "rank": "expected %ld dimensions, found %ld",
    "rank1": "expected %ld dimension, found %ld",
    "size": "dimension %ld must be %ld, found %ld",
    "too_large": "the data is too large: its shape has more than 2^63 bytes",
    "short_data": "the data is cut short: expected %ld bytes, found %ld",
    "tmp": "%s.tmp%d",
    "dict": "{'descr': '%s', 'fortran_order': False, 'shape': (",
    "first_size": "%ld",
    "next_size": ", %ld",
    "end_dict": "), }",
    "too_many": "cannot save more than %ld dimensions",
}

_DECLARATIONS = r"""
%mgrt.failure = type { ptr, i64, ptr, ptr, i64, i64, i64, i64, [TEXT_BYTES x i8] }
; the handle between mgrt_npy_load_T and mgrt_npy_read_T: the open file, its path, the data's
; bytes, whether it holds i1 (bytes to make 0 or 1)
%mgrt.npy = type { ptr, ptr, i64, i1 }

declare ptr @mgrt_record(ptr)
declare ptr @mgrt_guard()

declare ptr @fopen(ptr, ptr)
declare i64 @fread(ptr, i64, i64, ptr)
declare i64 @fwrite(ptr, i64, i64, ptr)
declare i32 @fclose(ptr)
declare i32 @fseek(ptr, i64, i32)
declare i64 @ftell(ptr)
declare i32 @fflush(ptr)
declare i32 @rename(ptr, ptr)
declare i32 @unlink(ptr)
declare ptr @strstr(ptr, ptr)
declare ptr @strchr(ptr, i32)
declare i32 @strcmp(ptr, ptr)
declare i64 @strlen(ptr)
declare i32 @memcmp(ptr, ptr, i64)
declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memset(ptr, i32, i64)
declare i32 @sscanf(ptr, ptr, ...)
declare i32 @snprintf(ptr, i64, ptr, ...)
declare i64 @strtol(ptr, ptr, i32)
declare i32 @getpid()
declare ptr @__errno_location()
declare ptr @strerror(i32)
declare i64 @write(i32, ptr, i64)
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @longjmp(ptr, i32) noreturn
declare void @_exit(i32) noreturn
declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)
"""

_FUNCTIONS = r"""
; "OP: PATH: DETAIL" in the record (kind FILE_ERROR, path PATH): back to the guarded call, or
; on stderr and exit status 1 (C's buffered output flushed first: what the program printed).
define linkonce_odr void @mgrt_file_failed(ptr %op, ptr %path, ptr %detail) noreturn {
entry:
  %local = alloca %mgrt.failure, align 8
  %r = call ptr @mgrt_record(ptr %local)
  %kind = getelementptr %mgrt.failure, ptr %r, i32 0, i32 1
  store i64 FILE_ERROR, ptr %kind
  %f2 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 2
  store ptr null, ptr %f2
  %f3 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 3
  store ptr %path, ptr %f3
  %f4 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 4
  store i64 0, ptr %f4
  %f5 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 5
  store i64 -1, ptr %f5
  %f6 = getelementptr %mgrt.failure, ptr %r, i32 0, i32 6
  store i64 -1, ptr %f6
  %text = getelementptr %mgrt.failure, ptr %r, i32 0, i32 8
  %n = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 TEXT_BYTES, ptr @mgrt_npy_report, ptr %op, ptr %path, ptr %detail)
  %guard = call ptr @mgrt_guard()
  %guarded = icmp eq ptr %guard, %r
  br i1 %guarded, label %back_to_caller, label %report

back_to_caller:
  %jb = load ptr, ptr %r
  call void @longjmp(ptr %jb, i32 1)
  unreachable

report:
  %flushed = call i32 @fflush(ptr null)
  %length = call i64 @strlen(ptr %text)
  %w1 = call i64 @write(i32 2, ptr %text, i64 %length)
  %w2 = call i64 @write(i32 2, ptr @mgrt_npy_newline, i64 1)
  call void @_exit(i32 1)
  unreachable
}

; What errno says, for OP on PATH.
define linkonce_odr void @mgrt_file_errno_failed(ptr %op, ptr %path, i32 %errno) noreturn {
entry:
  %why = call ptr @strerror(i32 %errno)
  call void @mgrt_file_failed(ptr %op, ptr %path, ptr %why)
  unreachable
}

define linkonce_odr i32 @mgrt_errno() {
entry:
  %p = call ptr @__errno_location()
  %e = load i32, ptr %p
  ret i32 %e
}

; mg.load's first half: the file at %path opened and its header checked against the declared
; type (%descr, %name), %rank and %sizes (-1: any), which it overwrites with the file's sizes;
; returns the handle for @mgrt_npy_read.
define linkonce_odr i64 @mgrt_npy_open(ptr %path, ptr %descr, ptr %name, i64 %element_bytes, i1 %boolean, i64 %rank, ptr %sizes) {
entry:
  %detail = alloca [512 x i8], align 1
  %prefix = alloca [12 x i8], align 4
  %found_descr = alloca [32 x i8], align 1
  %word = alloca [8 x i8], align 1
  %end = alloca ptr, align 8
  %found = alloca [MAX_RANK x i64], align 8
  %f = call ptr @fopen(ptr %path, ptr @mgrt_npy_rb)
  %missing = icmp eq ptr %f, null
  br i1 %missing, label %open_failed, label %opened

open_failed:
  %e0 = call i32 @mgrt_errno()
  call void @mgrt_file_errno_failed(ptr @mgrt_npy_op_load, ptr %path, i32 %e0)
  unreachable

opened:
  %n0 = call i64 @fread(ptr %prefix, i64 1, i64 10, ptr %f)
  %short0 = icmp ult i64 %n0, 10
  br i1 %short0, label %not_npy, label %check_magic

check_magic:
  %other = call i32 @memcmp(ptr %prefix, ptr @mgrt_npy_magic, i64 6)
  %is_other = icmp ne i32 %other, 0
  br i1 %is_other, label %not_npy, label %check_version

not_npy:
  %c0 = call i32 @fclose(ptr %f)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr @mgrt_npy_not_npy)
  unreachable

check_version:
  %major_at = getelementptr i8, ptr %prefix, i64 6
  %major = load i8, ptr %major_at
  %minor_at = getelementptr i8, ptr %prefix, i64 7
  %minor = load i8, ptr %minor_at
  %length_at = getelementptr i8, ptr %prefix, i64 8
  switch i8 %major, label %bad_version [ i8 1, label %version1
                                         i8 2, label %version2
                                         i8 3, label %version2 ]

bad_version:
  %c1 = call i32 @fclose(ptr %f)
  %major32 = zext i8 %major to i32
  %minor32 = zext i8 %minor to i32
  %s0 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr @mgrt_npy_version, i32 %major32, i32 %minor32)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr %detail)
  unreachable

version1:
  ; a little-endian u16 (this library runs on little-endian hosts only, as .npy's '<' types)
  %length16 = load i16, ptr %length_at, align 1
  %length1 = zext i16 %length16 to i64
  br label %header

version2:
  %rest_at = getelementptr i8, ptr %prefix, i64 10
  %n1 = call i64 @fread(ptr %rest_at, i64 1, i64 2, ptr %f)
  %short1 = icmp ult i64 %n1, 2
  br i1 %short1, label %not_npy, label %version2_length

version2_length:
  %length32 = load i32, ptr %length_at, align 1
  %length2 = zext i32 %length32 to i64
  br label %header

header:
  %header_length = phi i64 [ %length1, %version1 ], [ %length2, %version2_length ]
  %data_start0 = phi i64 [ 10, %version1 ], [ 12, %version2_length ]
  %data_start = add i64 %data_start0, %header_length
  %text_bytes = add i64 %header_length, 1
  %h = call ptr @malloc(i64 %text_bytes)
  %n2 = call i64 @fread(ptr %h, i64 1, i64 %header_length, ptr %f)
  %short2 = icmp ult i64 %n2, %header_length
  br i1 %short2, label %short_header, label %read_descr

short_header:
  %c2 = call i32 @fclose(ptr %f)
  call void @free(ptr %h)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr @mgrt_npy_short_header)
  unreachable

bad_header:
  %c3 = call i32 @fclose(ptr %f)
  call void @free(ptr %h)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr @mgrt_npy_bad_header)
  unreachable

read_descr:
  %terminator = getelementptr i8, ptr %h, i64 %header_length
  store i8 0, ptr %terminator
  %descr_key = call ptr @strstr(ptr %h, ptr @mgrt_npy_descr_key)
  %no_descr = icmp eq ptr %descr_key, null
  br i1 %no_descr, label %bad_header, label %descr_value

descr_value:
  %descr_after = getelementptr i8, ptr %descr_key, i64 7
  %k0 = call i32 (ptr, ptr, ...) @sscanf(ptr %descr_after, ptr @mgrt_npy_descr_value, ptr %found_descr)
  %no_descr_value = icmp ne i32 %k0, 1
  br i1 %no_descr_value, label %bad_header, label %compare_descr

compare_descr:
  %descr_differs = call i32 @strcmp(ptr %found_descr, ptr %descr)
  %wrong_type = icmp ne i32 %descr_differs, 0
  br i1 %wrong_type, label %wrong_descr, label %read_order

wrong_descr:
  %c4 = call i32 @fclose(ptr %f)
  call void @free(ptr %h)
  %s1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr @mgrt_npy_descr, ptr %name, ptr %descr, ptr %found_descr)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr %detail)
  unreachable

read_order:
  %order_key = call ptr @strstr(ptr %h, ptr @mgrt_npy_order_key)
  %no_order = icmp eq ptr %order_key, null
  br i1 %no_order, label %bad_header, label %order_value

order_value:
  %order_after = getelementptr i8, ptr %order_key, i64 15
  %k1 = call i32 (ptr, ptr, ...) @sscanf(ptr %order_after, ptr @mgrt_npy_order_value, ptr %word)
  %no_order_value = icmp ne i32 %k1, 1
  br i1 %no_order_value, label %bad_header, label %order_false

order_false:
  %not_false = call i32 @strcmp(ptr %word, ptr @mgrt_npy_false)
  %is_false = icmp eq i32 %not_false, 0
  br i1 %is_false, label %read_shape, label %order_true

order_true:
  %not_true = call i32 @strcmp(ptr %word, ptr @mgrt_npy_true)
  %is_true = icmp eq i32 %not_true, 0
  br i1 %is_true, label %read_shape, label %bad_header

read_shape:
  %fortran_flag = phi i1 [ false, %order_false ], [ true, %order_true ]
  %shape_key = call ptr @strstr(ptr %h, ptr @mgrt_npy_shape_key)
  %no_shape = icmp eq ptr %shape_key, null
  br i1 %no_shape, label %bad_header, label %shape_open

shape_open:
  %open = call ptr @strchr(ptr %shape_key, i32 40)
  %no_open = icmp eq ptr %open, null
  br i1 %no_open, label %bad_header, label %shape_first

shape_first:
  %first = getelementptr i8, ptr %open, i64 1
  br label %shape_loop

; the sizes, separated by commas and spaces, up to ')'
shape_loop:
  %at = phi ptr [ %first, %shape_first ], [ %next_char, %shape_skip ], [ %after_size, %shape_stored ]
  %count = phi i64 [ 0, %shape_first ], [ %count, %shape_skip ], [ %count1, %shape_stored ]
  %c = load i8, ptr %at
  %next_char = getelementptr i8, ptr %at, i64 1
  switch i8 %c, label %shape_size [ i8 32, label %shape_skip
                                    i8 44, label %shape_skip
                                    i8 41, label %shape_done
                                    i8 0, label %bad_header ]

shape_skip:
  br label %shape_loop

shape_size:
  %size = call i64 @strtol(ptr %at, ptr %end, i32 10)
  %after_size = load ptr, ptr %end
  %no_number = icmp eq ptr %after_size, %at
  %negative = icmp slt i64 %size, 0
  %bad_size = or i1 %no_number, %negative
  br i1 %bad_size, label %bad_header, label %shape_store

shape_store:
  %room = icmp ult i64 %count, MAX_RANK
  br i1 %room, label %shape_keep, label %shape_stored

shape_keep:
  %slot = getelementptr [MAX_RANK x i64], ptr %found, i64 0, i64 %count
  store i64 %size, ptr %slot
  br label %shape_stored

shape_stored:
  %count1 = add i64 %count, 1
  br label %shape_loop

shape_done:
  call void @free(ptr %h)
  %several = icmp uge i64 %count, 2
  %fortran = and i1 %fortran_flag, %several
  br i1 %fortran, label %fortran_order, label %check_rank

fortran_order:
  %c5 = call i32 @fclose(ptr %f)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr @mgrt_npy_fortran)
  unreachable

check_rank:
  %same_rank = icmp eq i64 %count, %rank
  br i1 %same_rank, label %sizes_loop, label %wrong_rank

wrong_rank:
  %c6 = call i32 @fclose(ptr %f)
  %one_dimension = icmp eq i64 %rank, 1
  %rank_format = select i1 %one_dimension, ptr @mgrt_npy_rank1, ptr @mgrt_npy_rank
  %s2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr %rank_format, i64 %rank, i64 %count)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr %detail)
  unreachable

; each size checked against the declared one, stored, and multiplied into the element count
sizes_loop:
  %d = phi i64 [ 0, %check_rank ], [ %d1, %size_ok ]
  %elements = phi i64 [ 1, %check_rank ], [ %elements1, %size_ok ]
  %more = icmp ult i64 %d, %rank
  br i1 %more, label %size_check, label %sizes_done

size_check:
  %found_at = getelementptr [MAX_RANK x i64], ptr %found, i64 0, i64 %d
  %actual = load i64, ptr %found_at
  %declared_at = getelementptr i64, ptr %sizes, i64 %d
  %declared = load i64, ptr %declared_at
  %dynamic = icmp slt i64 %declared, 0
  %equal = icmp eq i64 %declared, %actual
  %fits = or i1 %dynamic, %equal
  br i1 %fits, label %size_product, label %wrong_size

wrong_size:
  %c7 = call i32 @fclose(ptr %f)
  %s3 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr @mgrt_npy_size, i64 %d, i64 %declared, i64 %actual)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr %detail)
  unreachable

size_product:
  store i64 %actual, ptr %declared_at
  %product = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %elements, i64 %actual)
  %elements1 = extractvalue { i64, i1 } %product, 0
  %overflow = extractvalue { i64, i1 } %product, 1
  br i1 %overflow, label %too_large, label %size_ok

size_ok:
  %d1 = add i64 %d, 1
  br label %sizes_loop

too_large:
  %c8 = call i32 @fclose(ptr %f)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr @mgrt_npy_too_large)
  unreachable

sizes_done:
  %bytes_product = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %elements, i64 %element_bytes)
  %bytes = extractvalue { i64, i1 } %bytes_product, 0
  %bytes_overflow = extractvalue { i64, i1 } %bytes_product, 1
  ; (a count whose bytes do not fit in a signed i64 cannot be allocated either)
  %negative_bytes = icmp slt i64 %bytes, 0
  %huge = or i1 %bytes_overflow, %negative_bytes
  br i1 %huge, label %too_many_bytes, label %file_size

too_many_bytes:
  %c9 = call i32 @fclose(ptr %f)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr @mgrt_npy_too_large)
  unreachable

; the data after the header must be there: the bytes left in the file, measured
file_size:
  %q0 = call i32 @fseek(ptr %f, i64 0, i32 2)
  %total = call i64 @ftell(ptr %f)
  %q1 = call i32 @fseek(ptr %f, i64 %data_start, i32 0)
  %left = sub i64 %total, %data_start
  %cut_short = icmp slt i64 %left, %bytes
  br i1 %cut_short, label %short_data, label %opened_ok

short_data:
  %c10 = call i32 @fclose(ptr %f)
  %s6 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr @mgrt_npy_short_data, i64 %bytes, i64 %left)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr %detail)
  unreachable

opened_ok:
  %handle = call ptr @malloc(i64 32)
  %h0 = getelementptr %mgrt.npy, ptr %handle, i32 0, i32 0
  store ptr %f, ptr %h0
  %h1 = getelementptr %mgrt.npy, ptr %handle, i32 0, i32 1
  store ptr %path, ptr %h1
  %h2 = getelementptr %mgrt.npy, ptr %handle, i32 0, i32 2
  store i64 %bytes, ptr %h2
  %h3 = getelementptr %mgrt.npy, ptr %handle, i32 0, i32 3
  store i1 %boolean, ptr %h3
  %result = ptrtoint ptr %handle to i64
  ret i64 %result
}

; mg.load's second half: the data into %data (as many bytes as the header said), the file
; closed, the handle freed.
define linkonce_odr void @mgrt_npy_read(i64 %handle, ptr %data) {
entry:
  %detail = alloca [512 x i8], align 1
  %h = inttoptr i64 %handle to ptr
  %h0 = getelementptr %mgrt.npy, ptr %h, i32 0, i32 0
  %f = load ptr, ptr %h0
  %h1 = getelementptr %mgrt.npy, ptr %h, i32 0, i32 1
  %path = load ptr, ptr %h1
  %h2 = getelementptr %mgrt.npy, ptr %h, i32 0, i32 2
  %bytes = load i64, ptr %h2
  %h3 = getelementptr %mgrt.npy, ptr %h, i32 0, i32 3
  %boolean = load i1, ptr %h3
  call void @free(ptr %h)
  %got = call i64 @fread(ptr %data, i64 1, i64 %bytes, ptr %f)
  %c0 = call i32 @fclose(ptr %f)
  %short = icmp ult i64 %got, %bytes
  br i1 %short, label %short_data, label %read

short_data:
  %s0 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr @mgrt_npy_short_data, i64 %bytes, i64 %got)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_load, ptr %path, ptr %detail)
  unreachable

read:
  br i1 %boolean, label %booleans, label %done

; NumPy reads any byte but 0 as true; the compiled code's i1 is 0 or 1
booleans:
  %i = phi i64 [ 0, %read ], [ %i1, %boolean_one ]
  %more = icmp ult i64 %i, %bytes
  br i1 %more, label %boolean_one, label %done

boolean_one:
  %at = getelementptr i8, ptr %data, i64 %i
  %byte = load i8, ptr %at
  %set = icmp ne i8 %byte, 0
  %normal = zext i1 %set to i8
  store i8 %normal, ptr %at
  %i1 = add i64 %i, 1
  br label %booleans

done:
  ret void
}

; mg.save: the memref at %descriptor ({allocated, aligned, offset, sizes[rank], strides[rank]})
; written as a .npy file of type %descr through a temporary file renamed over %path.
define linkonce_odr void @mgrt_npy_save(ptr %path, ptr %descr, i64 %element_bytes, i64 %rank, ptr %descriptor) {
entry:
  %detail = alloca [512 x i8], align 1
  %header = alloca [HEADER_BYTES x i8], align 1
  %digits_text = alloca [32 x i8], align 1
  %too_many = icmp ugt i64 %rank, MAX_RANK
  br i1 %too_many, label %too_many_dimensions, label %describe

too_many_dimensions:
  %s0 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %detail, i64 512, ptr @mgrt_npy_too_many, i64 MAX_RANK)
  call void @mgrt_file_failed(ptr @mgrt_npy_op_save, ptr %path, ptr %detail)
  unreachable

describe:
  %aligned_at = getelementptr i64, ptr %descriptor, i64 1
  %aligned = load ptr, ptr %aligned_at
  %offset_at = getelementptr i64, ptr %descriptor, i64 2
  %offset = load i64, ptr %offset_at
  %sizes = getelementptr i64, ptr %descriptor, i64 3
  %strides = getelementptr i64, ptr %sizes, i64 %rank
  ; the dictionary after the 10 bytes of magic, version and length, as np.save writes it
  %dict = getelementptr i8, ptr %header, i64 10
  %n0 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %dict, i64 DICT_BYTES, ptr @mgrt_npy_dict, ptr %descr)
  %length0 = sext i32 %n0 to i64
  br label %shape_loop

; "(2, 3)", "(3,)", "()"; with the element count, and whether the strides are C order's
shape_loop:
  %d = phi i64 [ 0, %describe ], [ %d1, %shape_next ]
  %length = phi i64 [ %length0, %describe ], [ %length1, %shape_next ]
  %more = icmp ult i64 %d, %rank
  br i1 %more, label %shape_size, label %shape_done

shape_size:
  %size_at = getelementptr i64, ptr %sizes, i64 %d
  %size = load i64, ptr %size_at
  %is_first = icmp eq i64 %d, 0
  %format = select i1 %is_first, ptr @mgrt_npy_first_size, ptr @mgrt_npy_next_size
  %end = getelementptr i8, ptr %dict, i64 %length
  %n1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %end, i64 32, ptr %format, i64 %size)
  %n1_64 = sext i32 %n1 to i64
  %length1 = add i64 %length, %n1_64
  br label %shape_next

shape_next:
  %d1 = add i64 %d, 1
  br label %shape_loop

shape_done:
  %one = icmp eq i64 %rank, 1
  %comma_at = getelementptr i8, ptr %dict, i64 %length
  %length3 = add i64 %length, 1
  br i1 %one, label %one_comma, label %close_shape

one_comma:
  store i8 44, ptr %comma_at
  br label %close_shape

close_shape:
  %length4 = phi i64 [ %length, %shape_done ], [ %length3, %one_comma ]
  %close_at = getelementptr i8, ptr %dict, i64 %length4
  %n2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %close_at, i64 8, ptr @mgrt_npy_end_dict)
  %length5 = add i64 %length4, 4
  ; NumPy leaves room for the first size to grow to 21 digits (GROWTH_AXIS_MAX_DIGITS)
  %has_sizes = icmp ugt i64 %rank, 0
  br i1 %has_sizes, label %growth, label %pad

growth:
  %first_size = load i64, ptr %sizes
  %digits32 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %digits_text, i64 32, ptr @mgrt_npy_first_size, i64 %first_size)
  %digits = sext i32 %digits32 to i64
  %spare = sub i64 21, %digits
  %spare_at = getelementptr i8, ptr %dict, i64 %length5
  %s1 = call ptr @memset(ptr %spare_at, i32 32, i64 %spare)
  %length6 = add i64 %length5, %spare
  br label %pad

; spaces and a newline up to a multiple of 64 bytes from the file's start (1 to 64 of them)
pad:
  %length7 = phi i64 [ %length5, %close_shape ], [ %length6, %growth ]
  %with_newline = add i64 %length7, 1
  %so_far = add i64 %with_newline, 10
  %rest = urem i64 %so_far, 64
  %padding = sub i64 64, %rest
  %pad_at = getelementptr i8, ptr %dict, i64 %length7
  %s2 = call ptr @memset(ptr %pad_at, i32 32, i64 %padding)
  %header_length = add i64 %with_newline, %padding
  %newline_index = sub i64 %header_length, 1
  %newline_at = getelementptr i8, ptr %dict, i64 %newline_index
  store i8 10, ptr %newline_at
  %s3 = call ptr @memcpy(ptr %header, ptr @mgrt_npy_magic, i64 6)
  %version_at = getelementptr i8, ptr %header, i64 6
  store i8 1, ptr %version_at
  %minor_at = getelementptr i8, ptr %header, i64 7
  store i8 0, ptr %minor_at
  %length_at = getelementptr i8, ptr %header, i64 8
  %length16 = trunc i64 %header_length to i16
  store i16 %length16, ptr %length_at, align 1
  %file_header = add i64 %header_length, 10
  br label %contiguous_loop

; C order: each stride the product of the sizes after it (a dimension of size 1 may have any)
contiguous_loop:
  %e = phi i64 [ %rank, %pad ], [ %e1, %contiguous_next ]
  %expected = phi i64 [ 1, %pad ], [ %expected1, %contiguous_next ]
  %c_order = phi i1 [ true, %pad ], [ %c_order1, %contiguous_next ]
  %left = icmp ugt i64 %e, 0
  br i1 %left, label %contiguous_next, label %data

contiguous_next:
  %e1 = sub i64 %e, 1
  %csize_at = getelementptr i64, ptr %sizes, i64 %e1
  %csize = load i64, ptr %csize_at
  %cstride_at = getelementptr i64, ptr %strides, i64 %e1
  %cstride = load i64, ptr %cstride_at
  %same_stride = icmp eq i64 %cstride, %expected
  %single = icmp eq i64 %csize, 1
  %fine = or i1 %same_stride, %single
  %c_order1 = and i1 %c_order, %fine
  %expected1 = mul i64 %expected, %csize
  br label %contiguous_loop

data:
  %elements = phi i64 [ %expected, %contiguous_loop ]
  %bytes = mul i64 %elements, %element_bytes
  %offset_bytes = mul i64 %offset, %element_bytes
  %first_element = getelementptr i8, ptr %aligned, i64 %offset_bytes
  %empty = icmp eq i64 %elements, 0
  %as_is = or i1 %c_order, %empty
  br i1 %as_is, label %write, label %gather

; a strided view: its elements copied in C order into a buffer of their own
gather:
  %copy = call ptr @malloc(i64 %bytes)
  br label %gather_loop

gather_loop:
  %i = phi i64 [ 0, %gather ], [ %i1, %gather_copy ]
  %more_elements = icmp ult i64 %i, %elements
  br i1 %more_elements, label %position, label %write

position:
  br label %position_loop

; element %i's position in the view: its index along each dimension, from the last, times its stride
position_loop:
  %p = phi i64 [ %rank, %position ], [ %p1, %position_step ]
  %remaining = phi i64 [ %i, %position ], [ %quotient, %position_step ]
  %at = phi i64 [ 0, %position ], [ %at1, %position_step ]
  %dims_left = icmp ugt i64 %p, 0
  br i1 %dims_left, label %position_step, label %gather_copy

position_step:
  %p1 = sub i64 %p, 1
  %psize_at = getelementptr i64, ptr %sizes, i64 %p1
  %psize = load i64, ptr %psize_at
  %pstride_at = getelementptr i64, ptr %strides, i64 %p1
  %pstride = load i64, ptr %pstride_at
  %index = urem i64 %remaining, %psize
  %quotient = udiv i64 %remaining, %psize
  %step = mul i64 %index, %pstride
  %at1 = add i64 %at, %step
  br label %position_loop

gather_copy:
  %source_bytes = mul i64 %at, %element_bytes
  %source = getelementptr i8, ptr %first_element, i64 %source_bytes
  %target_bytes = mul i64 %i, %element_bytes
  %target = getelementptr i8, ptr %copy, i64 %target_bytes
  %s4 = call ptr @memcpy(ptr %target, ptr %source, i64 %element_bytes)
  %i1 = add i64 %i, 1
  br label %gather_loop

write:
  %gathered = phi i1 [ false, %data ], [ true, %gather_loop ]
  %source_data = phi ptr [ %first_element, %data ], [ %copy, %gather_loop ]
  %path_length = call i64 @strlen(ptr %path)
  %temporary_bytes = add i64 %path_length, 32
  %temporary = call ptr @malloc(i64 %temporary_bytes)
  %pid = call i32 @getpid()
  %s5 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %temporary, i64 %temporary_bytes, ptr @mgrt_npy_tmp, ptr %path, i32 %pid)
  %f = call ptr @fopen(ptr %temporary, ptr @mgrt_npy_wb)
  %not_created = icmp eq ptr %f, null
  br i1 %not_created, label %create_failed, label %write_data

create_failed:
  %e0 = call i32 @mgrt_errno()
  call void @mgrt_file_errno_failed(ptr @mgrt_npy_op_save, ptr %path, i32 %e0)
  unreachable

write_data:
  %w0 = call i64 @fwrite(ptr %header, i64 1, i64 %file_header, ptr %f)
  %w1 = call i64 @fwrite(ptr %source_data, i64 1, i64 %bytes, ptr %f)
  %errno_written = call i32 @mgrt_errno()
  %closed = call i32 @fclose(ptr %f)
  %errno_closed = call i32 @mgrt_errno()
  %short_header = icmp ult i64 %w0, %file_header
  %short_data = icmp ult i64 %w1, %bytes
  %not_closed = icmp ne i32 %closed, 0
  %short = or i1 %short_header, %short_data
  %failed = or i1 %short, %not_closed
  br i1 %failed, label %write_failed, label %replace

write_failed:
  ; errno as the failing call left it: fwrite's, else fclose's (which writes what is buffered)
  %why = select i1 %short, i32 %errno_written, i32 %errno_closed
  %u0 = call i32 @unlink(ptr %temporary)
  call void @mgrt_file_errno_failed(ptr @mgrt_npy_op_save, ptr %path, i32 %why)
  unreachable

replace:
  %renamed = call i32 @rename(ptr %temporary, ptr %path)
  %not_renamed = icmp ne i32 %renamed, 0
  br i1 %not_renamed, label %rename_failed, label %done

rename_failed:
  %e3 = call i32 @mgrt_errno()
  %u1 = call i32 @unlink(ptr %temporary)
  call void @mgrt_file_errno_failed(ptr @mgrt_npy_op_save, ptr %path, i32 %e3)
  unreachable

done:
  call void @free(ptr %temporary)
  br i1 %gathered, label %free_copy, label %return

free_copy:
  call void @free(ptr %source_data)
  br label %return

return:
  ret void
}
"""

# One entry point of each kind per element type (the lowering's calls differ in their
# memref<*xT> types): each passes its type's facts to the functions above.
_PER_TYPE = r"""
@mgrt_npy_descr_{t} = linkonce_odr constant [4 x i8] c"{descr}\00"
@mgrt_npy_name_{t} = linkonce_odr constant [{name_bytes} x i8] c"{t}\00"

define linkonce_odr i64 @mgrt_npy_load_{t}(i64 %path_rank, ptr %path, i64 %rank, i64 %sizes_rank, ptr %sizes) {{
entry:
  %path_at = getelementptr i64, ptr %path, i64 1
  %path_data = load ptr, ptr %path_at
  %sizes_at = getelementptr i64, ptr %sizes, i64 1
  %sizes_data = load ptr, ptr %sizes_at
  %handle = call i64 @mgrt_npy_open(ptr %path_data, ptr @mgrt_npy_descr_{t}, ptr @mgrt_npy_name_{t}, i64 {bytes}, i1 {boolean}, i64 %rank, ptr %sizes_data)
  ret i64 %handle
}}

define linkonce_odr void @mgrt_npy_read_{t}(i64 %handle, i64 %rank, ptr %buffer) {{
entry:
  %aligned_at = getelementptr i64, ptr %buffer, i64 1
  %aligned = load ptr, ptr %aligned_at
  %offset_at = getelementptr i64, ptr %buffer, i64 2
  %offset = load i64, ptr %offset_at
  %data = getelementptr {element}, ptr %aligned, i64 %offset
  call void @mgrt_npy_read(i64 %handle, ptr %data)
  ret void
}}

define linkonce_odr void @mgrt_npy_save_{t}(i64 %path_rank, ptr %path, i64 %rank, ptr %tensor) {{
entry:
  %path_at = getelementptr i64, ptr %path, i64 1
  %path_data = load ptr, ptr %path_at
  call void @mgrt_npy_save(ptr %path_data, ptr @mgrt_npy_descr_{t}, i64 {bytes}, i64 %rank, ptr %tensor)
  ret void
}}
"""

_HEADER_BYTES = 64 * 64  # the header's room: the dictionary of MAX_RANK sizes of 20 digits is < 1024
_SUBSTITUTIONS = {
    "TEXT_BYTES": str(FAILURE_TEXT_BYTES),
    "FILE_ERROR": str(FILE_ERROR),
    "MAX_RANK": str(MAX_RANK),
    "HEADER_BYTES": str(_HEADER_BYTES),
    "DICT_BYTES": str(_HEADER_BYTES - 10),
}


def _substituted(text: str) -> str:
    for name, value in _SUBSTITUTIONS.items():
        text = text.replace(name, value)
    return text


FILES_IR = (
    "".join(_string(f"mgrt_npy_{name}", text) for name, text in _STRINGS.items())
    + _substituted(_DECLARATIONS + _FUNCTIONS)
    + "".join(
        _PER_TYPE.format(
            t=t,
            descr=descr,
            bytes=size,
            boolean="true" if t == "i1" else "false",
            name_bytes=len(t) + 1,
            element=f"i{size * 8}",
        )
        for t, (descr, size) in NPY_DESCRS.items()
    )
)
"""The LLVM IR module of the .npy functions (``linkonce_odr``: linked where a program calls them)."""

C_FUNCTIONS = tuple(
    line.split("@")[1].split("(")[0]
    for line in _DECLARATIONS.splitlines()
    if line.startswith("declare") and "@mgrt_" not in line and "@llvm." not in line
)
"""The C library's functions that ``FILES_IR`` calls (what a program that loads or saves needs
besides ``runtime_ir``'s): ``fopen``, ``fread``, ... ``__errno_location`` (glibc's ``errno``)."""
