"""The run-time library's command-line arguments (``mg.arg``), in LLVM IR on the C library, as
``runtime_files_ir`` is: ``ARGUMENTS_IR`` is a module of its own, linked into a program that
uses arguments (``jit.link``).

The arguments are ``NAME=VALUE`` strings, the same for the whole process, given before the
program runs: ``void mgrt_set_args(i64 count, ptr argv)`` keeps ``argv`` (``count`` C strings,
not copied: they must outlive the program's run). An executable's ``main`` (``runtime.c``)
passes its own; ``mgc run`` those after the program's path (``jit._Loaded.run_main``).
A program without ``mg.arg`` has no ``mgrt_set_args``: whoever would call it says
``NO_ARGUMENTS`` instead when it is given any (and on ``--help``).

What ``lower_arguments`` calls (a ``memref<*xi8>`` is passed as upstream passes an unranked
memref: its rank and a pointer to its ranked descriptor; the text is NUL-terminated):

- ``void mgrt_arg_check(memref<*xi8> table)``, first in ``@main``: each given argument checked
  against the table of the program's arguments (each name, type and default as text, an
  empty name last): ``--help`` prints the table on stdout and exits with status 0; an argument
  without ``=`` or with an empty name, or of a name not in the table, or whose value does not
  parse as its type, is an error (below). So no bad argument is found after the program has
  begun;
- ``f64 mgrt_arg_f64(memref<*xi8> name, f64 default)``, ``i64 mgrt_arg_i64(memref<*xi8> name,
  i64 default)``: the value of the last ``NAME=VALUE`` given for ``name``, else ``default``.
  A value parses with ``strtod`` (``f64``) or ``strtoll`` in base 10 (``i64``; ``2.5`` and
  values out of range are errors), the whole text of it.

An error is a line on stderr and exit status 1 (a command line is not a bug in the program, so
no abort; C's buffered output flushed first), e.g. ``unknown argument 'lrr': this program takes
lr (default 0.1), steps (default 100)`` or ``argument 'steps': expected an integer (i64), got
'2.5'``. A library has no ``@main`` and nothing sets its arguments: its defs read their defaults.
"""

from mg_xdsl.backend.runtime_ir import ir_string

NO_ARGUMENTS = "this program takes no arguments"
"""What a program without arguments says when given one (``unknown argument 'NAME': ...``;
``runtime.c`` has its own copy) and on ``--help``."""


def _string(name: str, text: str) -> str:
    """A NUL-terminated string constant."""
    return ir_string(name, text, linkage="internal")


_STRINGS = {
    "help": "--help",
    "help_header": "this program takes these arguments, each given as NAME=VALUE:\n",
    "help_line": "  %s: %s, default %s\n",
    "unknown": "unknown argument '%.*s': this program takes ",
    "malformed": "malformed argument '%s' (expected NAME=VALUE): this program takes ",
    "first": "%s (default %s)",
    "next": ", %s (default %s)",
    "newline": "\n",
    "bad_value": "argument '%s': expected %s, got '%s'\n",
    "f64": "a number (f64)",
    "i64": "an integer (i64)",
}

_IR = r"""
@mgrt_arg_count = internal global i64 0
@mgrt_arg_values = internal global ptr null

declare i64 @strlen(ptr)
declare i32 @strcmp(ptr, ptr)
declare i32 @strncmp(ptr, ptr, i64)
declare i32 @memcmp(ptr, ptr, i64)
declare ptr @strchr(ptr, i32)
declare double @strtod(ptr, ptr)
declare i64 @strtoll(ptr, ptr, i32)
declare ptr @__errno_location()
declare i32 @dprintf(i32, ptr, ...)
declare i32 @fflush(ptr)
declare void @_exit(i32) noreturn

define void @mgrt_set_args(i64 %count, ptr %argv) {
entry:
  store i64 %count, ptr @mgrt_arg_count
  store ptr %argv, ptr @mgrt_arg_values
  ret void
}

; The text after the NUL that ends %s: the next field of the table.
define internal ptr @mgrt_arg_skip(ptr %s) {
entry:
  %n = call i64 @strlen(ptr %s)
  %after = add i64 %n, 1
  %next = getelementptr i8, ptr %s, i64 %after
  ret ptr %next
}

; The value of the last NAME=VALUE given for %name, or null.
define internal ptr @mgrt_arg_find(ptr %name) {
entry:
  %count = load i64, ptr @mgrt_arg_count
  %argv = load ptr, ptr @mgrt_arg_values
  %length = call i64 @strlen(ptr %name)
  %value_at = add i64 %length, 1
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i_next, %next ]
  %found = phi ptr [ null, %entry ], [ %found_next, %next ]
  %done = icmp sge i64 %i, %count
  br i1 %done, label %exit, label %body

body:
  %slot = getelementptr ptr, ptr %argv, i64 %i
  %arg = load ptr, ptr %slot
  %c = call i32 @strncmp(ptr %arg, ptr %name, i64 %length)
  %prefix = icmp eq i32 %c, 0
  br i1 %prefix, label %after_prefix, label %next

after_prefix:
  %equals_at = getelementptr i8, ptr %arg, i64 %length
  %equals = load i8, ptr %equals_at
  %is_equals = icmp eq i8 %equals, 61
  %value = getelementptr i8, ptr %arg, i64 %value_at
  %picked = select i1 %is_equals, ptr %value, ptr %found
  br label %next

next:
  %found_next = phi ptr [ %found, %body ], [ %picked, %after_prefix ]
  %i_next = add i64 %i, 1
  br label %loop

exit:
  ret ptr %found
}

; Whether %value (all of it) parses as an i64 (%integer) or an f64, written to %out.
define internal i1 @mgrt_arg_parse(ptr %value, i1 %integer, ptr %out) {
entry:
  %end = alloca ptr, align 8
  %first = load i8, ptr %value
  %empty = icmp eq i8 %first, 0
  br i1 %empty, label %bad, label %kind

kind:
  br i1 %integer, label %parse_integer, label %parse_float

parse_integer:
  %errno = call ptr @__errno_location()
  store i32 0, ptr %errno
  %i = call i64 @strtoll(ptr %value, ptr %end, i32 10)
  store i64 %i, ptr %out
  %e = load i32, ptr %errno
  %out_of_range = icmp ne i32 %e, 0
  br i1 %out_of_range, label %bad, label %whole

parse_float:
  %d = call double @strtod(ptr %value, ptr %end)
  store double %d, ptr %out
  br label %whole

whole:
  %end_at = load ptr, ptr %end
  %rest = load i8, ptr %end_at
  %ok = icmp eq i8 %rest, 0
  ret i1 %ok

bad:
  ret i1 false
}

define internal void @mgrt_arg_bad_value(ptr %name, i1 %integer, ptr %value) noreturn {
entry:
  %what = select i1 %integer, ptr @mgrt_arg_i64_text, ptr @mgrt_arg_f64_text
  %flushed = call i32 @fflush(ptr null)
  %w = call i32 (i32, ptr, ...) @dprintf(i32 2, ptr @mgrt_arg_bad_value_text, ptr %name, ptr %what, ptr %value)
  call void @_exit(i32 1)
  unreachable
}

define internal double @mgrt_arg_value(ptr %name_descriptor, i1 %integer, double %default) {
entry:
  %out = alloca double, align 8
  %name_at = getelementptr i64, ptr %name_descriptor, i64 1
  %name = load ptr, ptr %name_at
  %value = call ptr @mgrt_arg_find(ptr %name)
  %given = icmp ne ptr %value, null
  br i1 %given, label %parse, label %not_given

parse:
  %ok = call i1 @mgrt_arg_parse(ptr %value, i1 %integer, ptr %out)
  br i1 %ok, label %parsed, label %bad

bad:
  call void @mgrt_arg_bad_value(ptr %name, i1 %integer, ptr %value)
  unreachable

parsed:
  %v = load double, ptr %out
  ret double %v

not_given:
  ret double %default
}

define double @mgrt_arg_f64(i64 %rank, ptr %name, double %default) {
entry:
  %v = call double @mgrt_arg_value(ptr %name, i1 false, double %default)
  ret double %v
}

; (the i64 travels through @mgrt_arg_value as the bits of a double)
define i64 @mgrt_arg_i64(i64 %rank, ptr %name, i64 %default) {
entry:
  %default_bits = bitcast i64 %default to double
  %v = call double @mgrt_arg_value(ptr %name, i1 true, double %default_bits)
  %i = bitcast double %v to i64
  ret i64 %i
}

; The table's entry (its name) of the name %name of %length bytes, or null.
define internal ptr @mgrt_arg_entry(ptr %table, ptr %name, i64 %length) {
entry:
  br label %loop

loop:
  %e = phi ptr [ %table, %entry ], [ %next, %differs ]
  %first = load i8, ptr %e
  %end = icmp eq i8 %first, 0
  br i1 %end, label %none, label %compare

compare:
  %entry_length = call i64 @strlen(ptr %e)
  %same_length = icmp eq i64 %entry_length, %length
  br i1 %same_length, label %compare_bytes, label %differs

compare_bytes:
  %c = call i32 @memcmp(ptr %e, ptr %name, i64 %length)
  %same = icmp eq i32 %c, 0
  br i1 %same, label %found, label %differs

differs:
  %type = call ptr @mgrt_arg_skip(ptr %e)
  %default = call ptr @mgrt_arg_skip(ptr %type)
  %next = call ptr @mgrt_arg_skip(ptr %default)
  br label %loop

found:
  ret ptr %e

none:
  ret ptr null
}

; "NAME (default D), ..." of every entry of the table, and a newline, on stderr; exit status 1.
define internal void @mgrt_arg_list_and_exit(ptr %table) noreturn {
entry:
  br label %loop

loop:
  %e = phi ptr [ %table, %entry ], [ %next, %body ]
  %format = phi ptr [ @mgrt_arg_first_text, %entry ], [ @mgrt_arg_next_text, %body ]
  %first = load i8, ptr %e
  %end = icmp eq i8 %first, 0
  br i1 %end, label %done, label %body

body:
  %type = call ptr @mgrt_arg_skip(ptr %e)
  %default = call ptr @mgrt_arg_skip(ptr %type)
  %next = call ptr @mgrt_arg_skip(ptr %default)
  %w = call i32 (i32, ptr, ...) @dprintf(i32 2, ptr %format, ptr %e, ptr %default)
  br label %loop

done:
  %w2 = call i32 (i32, ptr, ...) @dprintf(i32 2, ptr @mgrt_arg_newline_text)
  call void @_exit(i32 1)
  unreachable
}

; --help: the table on stdout; exit status 0.
define internal void @mgrt_arg_help(ptr %table) noreturn {
entry:
  %flushed = call i32 @fflush(ptr null)
  %w0 = call i32 (i32, ptr, ...) @dprintf(i32 1, ptr @mgrt_arg_help_header_text)
  br label %loop

loop:
  %e = phi ptr [ %table, %entry ], [ %next, %body ]
  %first = load i8, ptr %e
  %end = icmp eq i8 %first, 0
  br i1 %end, label %done, label %body

body:
  %type = call ptr @mgrt_arg_skip(ptr %e)
  %default = call ptr @mgrt_arg_skip(ptr %type)
  %next = call ptr @mgrt_arg_skip(ptr %default)
  %w = call i32 (i32, ptr, ...) @dprintf(i32 1, ptr @mgrt_arg_help_line_text, ptr %e, ptr %type, ptr %default)
  br label %loop

done:
  call void @_exit(i32 0)
  unreachable
}

; Every given argument checked against the table, before the program runs.
define void @mgrt_arg_check(i64 %rank, ptr %table_descriptor) {
entry:
  %parsed = alloca double, align 8
  %table_at = getelementptr i64, ptr %table_descriptor, i64 1
  %table = load ptr, ptr %table_at
  %count = load i64, ptr @mgrt_arg_count
  %argv = load ptr, ptr @mgrt_arg_values
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i_next, %good ]
  %done = icmp sge i64 %i, %count
  br i1 %done, label %exit, label %body

body:
  %slot = getelementptr ptr, ptr %argv, i64 %i
  %arg = load ptr, ptr %slot
  %h = call i32 @strcmp(ptr %arg, ptr @mgrt_arg_help_text)
  %is_help = icmp eq i32 %h, 0
  br i1 %is_help, label %help, label %split

help:
  call void @mgrt_arg_help(ptr %table)
  unreachable

split:
  %equals = call ptr @strchr(ptr %arg, i32 61)
  %no_equals = icmp eq ptr %equals, null
  br i1 %no_equals, label %malformed, label %named

named:
  %equals_int = ptrtoint ptr %equals to i64
  %arg_int = ptrtoint ptr %arg to i64
  %length = sub i64 %equals_int, %arg_int
  %empty = icmp eq i64 %length, 0
  br i1 %empty, label %malformed, label %look_up

malformed:
  %flushed0 = call i32 @fflush(ptr null)
  %w0 = call i32 (i32, ptr, ...) @dprintf(i32 2, ptr @mgrt_arg_malformed_text, ptr %arg)
  call void @mgrt_arg_list_and_exit(ptr %table)
  unreachable

look_up:
  %e = call ptr @mgrt_arg_entry(ptr %table, ptr %arg, i64 %length)
  %unknown = icmp eq ptr %e, null
  br i1 %unknown, label %report_unknown, label %known

report_unknown:
  %flushed1 = call i32 @fflush(ptr null)
  %length32 = trunc i64 %length to i32
  %w1 = call i32 (i32, ptr, ...) @dprintf(i32 2, ptr @mgrt_arg_unknown_text, i32 %length32, ptr %arg)
  call void @mgrt_arg_list_and_exit(ptr %table)
  unreachable

known:
  %type = call ptr @mgrt_arg_skip(ptr %e)
  %type_letter = load i8, ptr %type
  %integer = icmp eq i8 %type_letter, 105
  %value = getelementptr i8, ptr %equals, i64 1
  %ok = call i1 @mgrt_arg_parse(ptr %value, i1 %integer, ptr %parsed)
  br i1 %ok, label %good, label %bad

bad:
  call void @mgrt_arg_bad_value(ptr %e, i1 %integer, ptr %value)
  unreachable

good:
  %i_next = add i64 %i, 1
  br label %loop

exit:
  ret void
}
"""

ARGUMENTS_IR = "".join(_string(f"mgrt_arg_{name}_text", text) for name, text in _STRINGS.items()) + _IR
"""The LLVM IR module of the argument functions (linked where a program calls them)."""

C_FUNCTIONS = tuple(line.split("@")[1].split("(")[0] for line in _IR.splitlines() if line.startswith("declare"))
"""The C library's functions that ``ARGUMENTS_IR`` calls: ``strlen``, ... ``strtod``,
``strtoll``, ``dprintf``, ``__errno_location`` (glibc's ``errno``)."""
