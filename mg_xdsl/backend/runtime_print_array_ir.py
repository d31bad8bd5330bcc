"""println of a whole tensor: its text exactly as NumPy 2's ``str(array)`` prints it with the
default print options, appended to the current println line (the run-time library's println
section, ``runtime_ir``; the caller ends the line with ``mgrt_println_end``). Hand-written
LLVM IR, as the rest of the library, so that it needs no C compiler.

Entry points, one per element type T (``f64``, ``f32``, ``bf16``, ``i64``, ``i32``, ``i1``)::

    void mgrt_println_array_T(i64 rank, ptr descriptor)

``descriptor`` is upstream MLIR's ranked memref descriptor ``{ptr allocated, ptr aligned,
i64 offset, i64 sizes[rank], i64 strides[rank]}`` (strides in elements; any view: transposed,
sliced, broadcast with zero strides). Elements: ``double``, ``float``, bf16 as the high 16 bits
of a float (printed as the float it widens to, as NumPy prints ``a.astype(np.float32)``),
``i64``, ``i32``, and i1 as one byte (0 or 1). ``rank`` is 1 or more (a rank-0 value is
printed elsewhere); any rank.

What NumPy does (``numpy/_core/arrayprint.py``, options precision=8, floatmode='maxprec',
suppress=False, linewidth=75, threshold=1000, edgeitems=3, sign='-'), and how it is done here:

1. An array with a dimension 0 prints ``[]``.
2. Summarising (``_leading_trailing``): an array of more than 1000 elements shows, along each
   axis longer than 6, only its first 3 and last 3 indices, with ``...`` between them. Here
   each axis is walked with a counter ``j`` from 0 to ``m - 1``, where ``m`` is 7 on such an
   axis (``j`` = 3 is the ``...``, ``j`` > 3 is index ``size - 7 + j``) and the size
   otherwise. NumPy computes the elements' format from the shown elements only, so every
   pass below visits only those.
3. The element format (``_get_format_function``) makes every element's text the same width,
   which is why the text can be written in one stream, without recursion:

   - bool: `` True`` / ``False``.
   - integers (``IntegerFormat``): right-justified to the longer of ``str(max)`` and
     ``str(min)``.
   - floats (``FloatingFormat.fillFormat``; bf16 and f32 as float32, whose digits are the
     shortest that read back as the same float32): over the finite nonzero ``|x|``, exponent
     form if ``max >= 10**min(8, finfo.precision)`` (1e8 for f64, 1e6 for f32), ``min < 1e-4``
     or ``max / min > 1000``, compared and divided in the element type, as NumPy 2 does.
     Positional form: each element's digits are Dragon4's "unique" ones, the shortest with at
     most 8 after the point that read back as the value (else 8, rounded, trailing zeros
     dropped), with the point kept (``1.``); the integer parts (with their '-') are
     right-justified to the longest, the fractions left-justified to the longest. Exponent
     form: ``P`` = the most mantissa digits any element's unique digits need; every element
     printed with exactly ``P`` (Dragon4 with ``min_digits = P``: the value rounded to ``P``
     digits), its exponent zero-padded to the most exponent digits (at least 2). ``nan``,
     ``inf`` and ``-inf`` are right-justified to the same width (their room may widen the
     integer part: the end of ``fillFormat``).

   So floats take three passes over the shown elements: (a) the range of the finite nonzero
   magnitudes (exponent form or not) and whether there are non-finite values; (b) each
   element's digits, for the widths; (c) the text.

   Dragon4's unique digits, with libc only: for k = 0, 1, ... 8 digits after the point,
   ``snprintf("%#.*f")`` (or ``"%#.*e"``) gives the k-digit decimal nearest the value; if
   ``strtod`` (``strtof`` for a float32) reads it back as the value, it is the one. One case
   needs more: at a power of two the gap to the float below is half the gap above, and
   Dragon4 then takes the k-digit decimal *above* the value when only that one reads back,
   though the nearest is below (float32 2**87 prints ``1.5474251e+26``, not ``...250e+26``).
   So where the nearest is below the value and does not read back, its last digit is
   incremented (carrying) and that is tried too. The same rule gives Dragon4's rounding of
   the last of ``P`` digits in exponent form.
4. The layout (``_formatArray``, ``_extendLine``): a ``[`` per axis; in a row (the last
   axis) the elements separated by one space, and a row wraps before a word (an element or
   the ``...``) when the line's length plus the word's would pass ``75 - rank`` and the line
   holds more than its hanging indent (``rank`` spaces), the wrapped line's trailing spaces
   stripped. Between sub-arrays of axis ``d``, after the previous one's ``]``s:
   ``rank - d - 1`` newlines and ``d + 1`` spaces; a summarised outer axis's ``...`` is a
   line of its own, followed by the same separator. Here an odometer walks the rows: after
   each row the deepest outer axis that can advance gives the brackets and separators.

``PRINT_ARRAY_IR`` is a module of its own, linked (``jit.link``) into a program that prints a
whole tensor, before ``runtime_ir``'s library, whose println functions and C library
declarations it uses (``_USES`` declares them here).
"""

from mg_xdsl.backend.runtime_ir import ir_string

# (entry point's type, the kind the helpers switch on, bytes an element)
ARRAY_TYPES = (("f64", 0, 8), ("f32", 1, 4), ("bf16", 2, 2), ("i64", 3, 8), ("i32", 4, 4), ("i1", 5, 1))

_ENTRY = """
define linkonce_odr void @mgrt_println_array_{t}(i64 %rank, ptr %descriptor) {{
entry:
  call void @mgrt_array_print(i64 %rank, ptr %descriptor, i32 {kind}, i64 {bytes})
  ret void
}}
"""

# What this module calls of runtime_ir's println section and of the C library.
_USES = """
@mgrt_println_data = external global ptr
@mgrt_println_size = external global i64
declare ptr @mgrt_println_room(i64)
declare void @mgrt_println_grew(i64)
declare void @mgrt_println_text(ptr)
declare void @mgrt_println_char(i32)
declare void @mgrt_println_long(ptr, i64)
declare i32 @snprintf(ptr, i64, ptr, ...)
declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memmove(ptr, ptr, i64)
declare ptr @memset(ptr, i32, i64)
declare i64 @strlen(ptr)
declare ptr @strchr(ptr, i32)
declare double @strtod(ptr, ptr)
declare float @strtof(ptr, ptr)
declare double @llvm.fabs.f64(double)
"""

PRINT_ARRAY_IR = _USES + (
    "".join(
        (
            ir_string("mgrt_array_fmt_e", "%#.*e"),
            ir_string("mgrt_array_fmt_f", "%#.*f"),
            ir_string("mgrt_array_fmt_ld", "%ld"),
            ir_string("mgrt_array_nan", "nan"),
            ir_string("mgrt_array_inf", "inf"),
            ir_string("mgrt_array_minus_inf", "-inf"),
            ir_string("mgrt_array_true", " True"),
            ir_string("mgrt_array_false", "False"),
            ir_string("mgrt_array_dots", "..."),
            ir_string("mgrt_array_empty", "[]"),
        )
    )
    + r"""
; println of a tensor as NumPy's str(array) (mg_xdsl/backend/runtime_print_array_ir.py says how).
; The element kinds: 0 f64, 1 f32, 2 bf16, 3 i64, 4 i32, 5 i1.
; What the passes learn, in the 8-byte slots of %stats:
;   0 any finite nonzero float seen  1 max |x| (double)  2 min |x| (double)  3 exponent form
;   4 pad_left  5 fraction digits (positional) or P (exponent form)  6 exponent digits
;   7 any nan/inf seen  8 any -inf seen  9 an element's width  10 max (integers)  11 min

; Element at %p as a double (kinds 0-2).
define linkonce_odr double @mgrt_array_float(ptr %p, i32 %kind) {
entry:
  switch i32 %kind, label %f64 [ i32 1, label %f32
                                 i32 2, label %bf16 ]

f64:
  %d = load double, ptr %p
  ret double %d

f32:
  %f = load float, ptr %p
  %fd = fpext float %f to double
  ret double %fd

bf16:
  %h = load i16, ptr %p
  %w = zext i16 %h to i32
  %high = shl i32 %w, 16
  %b = bitcast i32 %high to float
  %bd = fpext float %b to double
  ret double %bd
}

; Element at %p as an i64 (kinds 3-5).
define linkonce_odr i64 @mgrt_array_integer(ptr %p, i32 %kind) {
entry:
  switch i32 %kind, label %i64 [ i32 4, label %i32
                                 i32 5, label %i1 ]

i64:
  %l = load i64, ptr %p
  ret i64 %l

i32:
  %i = load i32, ptr %p
  %il = sext i32 %i to i64
  ret i64 %il

i1:
  %byte = load i8, ptr %p
  %set = icmp ne i8 %byte, 0
  %bl = zext i1 %set to i64
  ret i64 %bl
}

; Whether libc reads %text back as %ax: as a float (strtof) where %f32, else as a double.
define linkonce_odr i1 @mgrt_array_reads_back(ptr %text, double %ax, i32 %f32) {
entry:
  %single = icmp ne i32 %f32, 0
  br i1 %single, label %as_float, label %as_double

as_double:
  %d = call double @strtod(ptr %text, ptr null)
  %same64 = fcmp oeq double %d, %ax
  ret i1 %same64

as_float:
  %f = call float @strtof(ptr %text, ptr null)
  %x32 = fptrunc double %ax to float
  %same32 = fcmp oeq float %f, %x32
  ret i1 %same32
}

; %ax (>= 0, finite) with %k digits after the point, in exponent form ("%#.*e") where %expo,
; else positional ("%#.*f"), as Dragon4 rounds the last digit: the nearest such decimal, or
; the one above it where only that one reads back as %ax (a power of two's narrower gap
; below). Written at %buf + 1 (%buf: 64 bytes, %buf[0] the room a carry may take); returns
; 1 if the text reads back as %ax (it is unique), else 0 (the nearest).
define linkonce_odr i32 @mgrt_array_digits(double %ax, i32 %f32, i32 %expo, i32 %k, ptr %buf) {
entry:
  %is_e = icmp ne i32 %expo, 0
  %format = select i1 %is_e, ptr @mgrt_array_fmt_e, ptr @mgrt_array_fmt_f
  %text = getelementptr i8, ptr %buf, i64 1
  store i8 48, ptr %buf
  %n0 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 63, ptr %format, i32 %k, double %ax)
  %same = call i1 @mgrt_array_reads_back(ptr %text, double %ax, i32 %f32)
  br i1 %same, label %unique, label %not_nearest

not_nearest:
  %v = call double @strtod(ptr %text, ptr null)
  %below = fcmp olt double %v, %ax
  br i1 %below, label %round_up, label %nearest

round_up:
  ; the last digit of the mantissa plus one, carried left (into %buf[0]'s '0' at worst)
  %e_at = call ptr @strchr(ptr %text, i32 101)
  %has_e = icmp ne ptr %e_at, null
  %length = call i64 @strlen(ptr %text)
  %text_end = getelementptr i8, ptr %text, i64 %length
  %end = select i1 %has_e, ptr %e_at, ptr %text_end
  %last = getelementptr i8, ptr %end, i64 -1
  br label %carry

carry:
  %q = phi ptr [ %last, %round_up ], [ %q_left, %carry_left ]
  %c = load i8, ptr %q
  %is_point = icmp eq i8 %c, 46
  br i1 %is_point, label %carry_left, label %digit

digit:
  %is_nine = icmp eq i8 %c, 57
  br i1 %is_nine, label %nine, label %increment

nine:
  store i8 48, ptr %q
  br label %carry_left

carry_left:
  %q_left = getelementptr i8, ptr %q, i64 -1
  br label %carry

increment:
  %c1 = add i8 %c, 1
  store i8 %c1, ptr %q
  %first = load i8, ptr %buf
  %grew = icmp eq i8 %first, 49
  %start = select i1 %grew, ptr %buf, ptr %text
  %up_same = call i1 @mgrt_array_reads_back(ptr %start, double %ax, i32 %f32)
  br i1 %up_same, label %rewrite_up, label %restore

rewrite_up:
  ; printed again from its value: "10.00e+05" becomes "1.000e+06", and it starts at %buf + 1
  %u = call double @strtod(ptr %start, ptr null)
  store i8 48, ptr %buf
  %n1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 63, ptr %format, i32 %k, double %u)
  br label %unique

restore:
  store i8 48, ptr %buf
  %n2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %text, i64 63, ptr %format, i32 %k, double %ax)
  br label %nearest

unique:
  ret i32 1

nearest:
  ret i32 0
}

; Dragon4's unique digits of %ax (>= 0, finite) with at most 8 after the point, at %buf + 1
; (as @mgrt_array_digits); returns how many follow the point. Where 8 are not enough, the 8
; (rounded) less their trailing zeros: cut from the text in positional form, only not
; counted in exponent form (where the text is printed again with P digits).
define linkonce_odr i32 @mgrt_array_unique(double %ax, i32 %f32, i32 %expo, ptr %buf) {
entry:
  br label %try

try:
  %k = phi i32 [ 0, %entry ], [ %k1, %more_digits ]
  %ok = call i32 @mgrt_array_digits(double %ax, i32 %f32, i32 %expo, i32 %k, ptr %buf)
  %found = icmp ne i32 %ok, 0
  br i1 %found, label %done, label %more_digits

more_digits:
  %k1 = add i32 %k, 1
  %more = icmp sle i32 %k1, 8
  br i1 %more, label %try, label %trim

trim:
  %text = getelementptr i8, ptr %buf, i64 1
  %e_at = call ptr @strchr(ptr %text, i32 101)
  %has_e = icmp ne ptr %e_at, null
  %length = call i64 @strlen(ptr %text)
  %text_end = getelementptr i8, ptr %text, i64 %length
  %end = select i1 %has_e, ptr %e_at, ptr %text_end
  br label %zeros

zeros:
  %z = phi i64 [ 0, %trim ], [ %z1, %zero ]
  %back = sub i64 -1, %z
  %at = getelementptr i8, ptr %end, i64 %back
  %c = load i8, ptr %at
  %is_zero = icmp eq i8 %c, 48
  br i1 %is_zero, label %zero, label %trimmed

zero:
  %z1 = add i64 %z, 1
  br label %zeros

trimmed:
  br i1 %has_e, label %counted, label %cut

cut:
  %minus_z = sub i64 0, %z
  %new_end = getelementptr i8, ptr %end, i64 %minus_z
  store i8 0, ptr %new_end
  br label %counted

counted:
  %z32 = trunc i64 %z to i32
  %kept = sub i32 8, %z32
  ret i32 %kept

done:
  ret i32 %k
}

define linkonce_odr void @mgrt_array_max(ptr %stats, i64 %slot, i64 %v) {
entry:
  %at = getelementptr i64, ptr %stats, i64 %slot
  %old = load i64, ptr %at
  %bigger = icmp sgt i64 %v, %old
  %new = select i1 %bigger, i64 %v, i64 %old
  store i64 %new, ptr %at
  ret void
}

; Pass %phase (0: ranges, 1: widths) over one shown element, at %p.
define linkonce_odr void @mgrt_array_measure(ptr %p, i32 %kind, ptr %stats, i32 %phase) {
entry:
  %buf = alloca [64 x i8], align 1
  %is_integer = icmp uge i32 %kind, 3
  br i1 %is_integer, label %integer, label %float

integer:
  %v = call i64 @mgrt_array_integer(ptr %p, i32 %kind)
  call void @mgrt_array_max(ptr %stats, i64 10, i64 %v)
  %min_at = getelementptr i64, ptr %stats, i64 11
  %min = load i64, ptr %min_at
  %smaller = icmp slt i64 %v, %min
  %new_min = select i1 %smaller, i64 %v, i64 %min
  store i64 %new_min, ptr %min_at
  ret void

float:
  %x = call double @mgrt_array_float(ptr %p, i32 %kind)
  %ax = call double @llvm.fabs.f64(double %x)
  %finite = fcmp one double %ax, 0x7FF0000000000000
  %widths = icmp ne i32 %phase, 0
  br i1 %finite, label %finite_value, label %not_finite

not_finite:
  br i1 %widths, label %done, label %note_not_finite

note_not_finite:
  %special_at = getelementptr i64, ptr %stats, i64 7
  store i64 1, ptr %special_at
  %is_inf = fcmp oeq double %ax, 0x7FF0000000000000
  %negative_x = fcmp olt double %x, 0.0
  %minus_inf = and i1 %is_inf, %negative_x
  br i1 %minus_inf, label %note_minus_inf, label %done

note_minus_inf:
  %minus_inf_at = getelementptr i64, ptr %stats, i64 8
  store i64 1, ptr %minus_inf_at
  ret void

finite_value:
  br i1 %widths, label %width, label %range

range:
  %nonzero = fcmp one double %ax, 0.0
  br i1 %nonzero, label %note_range, label %done

note_range:
  store i64 1, ptr %stats
  %max_abs_at = getelementptr i64, ptr %stats, i64 1
  %max_abs = load double, ptr %max_abs_at
  %larger = fcmp ogt double %ax, %max_abs
  %new_max_abs = select i1 %larger, double %ax, double %max_abs
  store double %new_max_abs, ptr %max_abs_at
  %min_abs_at = getelementptr i64, ptr %stats, i64 2
  %min_abs = load double, ptr %min_abs_at
  %less = fcmp olt double %ax, %min_abs
  %new_min_abs = select i1 %less, double %ax, double %min_abs
  store double %new_min_abs, ptr %min_abs_at
  ret void

width:
  %single = icmp ne i32 %kind, 0
  %f32 = zext i1 %single to i32
  %expo_at = getelementptr i64, ptr %stats, i64 3
  %expo64 = load i64, ptr %expo_at
  %expo = trunc i64 %expo64 to i32
  %k32 = call i32 @mgrt_array_unique(double %ax, i32 %f32, i32 %expo, ptr %buf)
  %k = sext i32 %k32 to i64
  %bits = bitcast double %x to i64
  %negative = icmp slt i64 %bits, 0
  %sign = zext i1 %negative to i64
  %text = getelementptr i8, ptr %buf, i64 1
  call void @mgrt_array_max(ptr %stats, i64 5, i64 %k)
  %exponent_form = icmp ne i32 %expo, 0
  br i1 %exponent_form, label %exponent_width, label %positional_width

exponent_width:
  %whole_e = add i64 %sign, 1
  call void @mgrt_array_max(ptr %stats, i64 4, i64 %whole_e)
  %e_at = call ptr @strchr(ptr %text, i32 101)
  %e_length = call i64 @strlen(ptr %e_at)
  %e_digits = sub i64 %e_length, 2
  call void @mgrt_array_max(ptr %stats, i64 6, i64 %e_digits)
  ret void

positional_width:
  %point = call ptr @strchr(ptr %text, i32 46)
  %point_i = ptrtoint ptr %point to i64
  %text_i = ptrtoint ptr %text to i64
  %digits = sub i64 %point_i, %text_i
  %whole = add i64 %digits, %sign
  call void @mgrt_array_max(ptr %stats, i64 4, i64 %whole)
  ret void

done:
  ret void
}

; After pass 0 over floats: exponent form or not (FloatingFormat.fillFormat), compared and
; divided in the element type.
define linkonce_odr void @mgrt_array_decide(i32 %kind, ptr %stats) {
entry:
  %seen = load i64, ptr %stats
  %any = icmp ne i64 %seen, 0
  br i1 %any, label %decide, label %done

decide:
  %max_at = getelementptr i64, ptr %stats, i64 1
  %max = load double, ptr %max_at
  %min_at = getelementptr i64, ptr %stats, i64 2
  %min = load double, ptr %min_at
  %single = icmp ne i32 %kind, 0
  br i1 %single, label %as_float, label %as_double

as_double:
  %big = fcmp oge double %max, 1.0e8
  %small = fcmp olt double %min, 1.0e-4
  %ratio = fdiv double %max, %min
  %wide = fcmp ogt double %ratio, 1000.0
  %big_or_small = or i1 %big, %small
  %by_double = or i1 %big_or_small, %wide
  br label %decided

as_float:
  %max32 = fptrunc double %max to float
  %min32 = fptrunc double %min to float
  %big32 = fcmp oge float %max32, 1.0e6
  ; float32(1e-4)
  %small32 = fcmp olt float %min32, 0x3F1A36E2E0000000
  %ratio32 = fdiv float %max32, %min32
  %wide32 = fcmp ogt float %ratio32, 1000.0
  %big_or_small32 = or i1 %big32, %small32
  %by_float = or i1 %big_or_small32, %wide32
  br label %decided

decided:
  %exponent_form = phi i1 [ %by_double, %as_double ], [ %by_float, %as_float ]
  %flag = zext i1 %exponent_form to i64
  %expo_at = getelementptr i64, ptr %stats, i64 3
  store i64 %flag, ptr %expo_at
  br label %done

done:
  ret void
}

; Decimal digits of %v, with its '-'.
define linkonce_odr i64 @mgrt_array_length(i64 %v) {
entry:
  %n = call i32 (ptr, i64, ptr, ...) @snprintf(ptr null, i64 0, ptr @mgrt_array_fmt_ld, i64 %v)
  %n64 = sext i32 %n to i64
  ret i64 %n64
}

; After the last pass over the shown elements: the widths.
define linkonce_odr void @mgrt_array_finish(i32 %kind, ptr %stats) {
entry:
  %width_at = getelementptr i64, ptr %stats, i64 9
  %pad_left_at = getelementptr i64, ptr %stats, i64 4
  %is_integer = icmp uge i32 %kind, 3
  br i1 %is_integer, label %integer, label %float

integer:
  %max_at = getelementptr i64, ptr %stats, i64 10
  %max = load i64, ptr %max_at
  %min_at = getelementptr i64, ptr %stats, i64 11
  %min = load i64, ptr %min_at
  %max_length = call i64 @mgrt_array_length(i64 %max)
  %min_length = call i64 @mgrt_array_length(i64 %min)
  %longer = icmp sgt i64 %min_length, %max_length
  %int_width = select i1 %longer, i64 %min_length, i64 %max_length
  store i64 %int_width, ptr %width_at
  ret void

float:
  %expo_at = getelementptr i64, ptr %stats, i64 3
  %expo = load i64, ptr %expo_at
  %digits_at = getelementptr i64, ptr %stats, i64 5
  %digits = load i64, ptr %digits_at
  %e_digits_at = getelementptr i64, ptr %stats, i64 6
  %e_digits = load i64, ptr %e_digits_at
  %exponent_form = icmp ne i64 %expo, 0
  ; exponent form: "e", its sign and digits, and the P digits; else the fraction's digits
  %e_part = add i64 %e_digits, 2
  %e_right = add i64 %e_part, %digits
  %pad_right = select i1 %exponent_form, i64 %e_right, i64 %digits
  %pad_left0 = load i64, ptr %pad_left_at
  %special_at = getelementptr i64, ptr %stats, i64 7
  %special = load i64, ptr %special_at
  %any_special = icmp ne i64 %special, 0
  br i1 %any_special, label %room_for_special, label %widths

room_for_special:
  ; "nan"/"inf" (and "-inf" if any) must fit in pad_left + 1 + pad_right
  %minus_inf_at = getelementptr i64, ptr %stats, i64 8
  %minus_inf = load i64, ptr %minus_inf_at
  %offset = add i64 %pad_right, 1
  %needed = add i64 3, %minus_inf
  %needed_left = sub i64 %needed, %offset
  %grow = icmp sgt i64 %needed_left, %pad_left0
  %pad_left1 = select i1 %grow, i64 %needed_left, i64 %pad_left0
  br label %widths

widths:
  %pad_left = phi i64 [ %pad_left0, %float ], [ %pad_left1, %room_for_special ]
  store i64 %pad_left, ptr %pad_left_at
  %sides = add i64 %pad_left, %pad_right
  %width = add i64 %sides, 1
  store i64 %width, ptr %width_at
  ret void
}

; %n copies of the character %c appended (none if %n <= 0).
define linkonce_odr void @mgrt_array_repeat(i32 %c, i64 %n) {
entry:
  %some = icmp sgt i64 %n, 0
  br i1 %some, label %append, label %done

append:
  %at = call ptr @mgrt_println_room(i64 %n)
  %m = call ptr @memset(ptr %at, i32 %c, i64 %n)
  call void @mgrt_println_grew(i64 %n)
  br label %done

done:
  ret void
}

; The %n bytes at %text appended.
define linkonce_odr void @mgrt_array_bytes(ptr %text, i64 %n) {
entry:
  %at = call ptr @mgrt_println_room(i64 %n)
  %m = call ptr @memcpy(ptr %at, ptr %text, i64 %n)
  call void @mgrt_println_grew(i64 %n)
  ret void
}

; The text of the element at %p, %stats' width wide.
define linkonce_odr void @mgrt_array_emit(ptr %p, i32 %kind, ptr %stats) {
entry:
  %buf = alloca [64 x i8], align 1
  %text = getelementptr i8, ptr %buf, i64 1
  %width_at = getelementptr i64, ptr %stats, i64 9
  %width = load i64, ptr %width_at
  %pad_left_at = getelementptr i64, ptr %stats, i64 4
  %pad_left = load i64, ptr %pad_left_at
  %is_integer = icmp uge i32 %kind, 3
  br i1 %is_integer, label %integer, label %float

integer:
  %v = call i64 @mgrt_array_integer(ptr %p, i32 %kind)
  %is_bool = icmp eq i32 %kind, 5
  br i1 %is_bool, label %boolean, label %number

boolean:
  %true = icmp ne i64 %v, 0
  %word = select i1 %true, ptr @mgrt_array_true, ptr @mgrt_array_false
  call void @mgrt_println_text(ptr %word)
  ret void

number:
  %length = call i64 @mgrt_array_length(i64 %v)
  %spaces = sub i64 %width, %length
  call void @mgrt_array_repeat(i32 32, i64 %spaces)
  call void @mgrt_println_long(ptr @mgrt_array_fmt_ld, i64 %v)
  ret void

float:
  %x = call double @mgrt_array_float(ptr %p, i32 %kind)
  %ax = call double @llvm.fabs.f64(double %x)
  %finite = fcmp one double %ax, 0x7FF0000000000000
  %single = icmp ne i32 %kind, 0
  %f32 = zext i1 %single to i32
  %bits = bitcast double %x to i64
  %negative = icmp slt i64 %bits, 0
  %sign = zext i1 %negative to i64
  br i1 %finite, label %finite_value, label %not_finite

not_finite:
  %nan = fcmp uno double %x, %x
  %negative_x = fcmp olt double %x, 0.0
  %infinity = select i1 %negative_x, ptr @mgrt_array_minus_inf, ptr @mgrt_array_inf
  %special = select i1 %nan, ptr @mgrt_array_nan, ptr %infinity
  %special_length = call i64 @strlen(ptr %special)
  %special_spaces = sub i64 %width, %special_length
  call void @mgrt_array_repeat(i32 32, i64 %special_spaces)
  call void @mgrt_println_text(ptr %special)
  ret void

finite_value:
  %expo_at = getelementptr i64, ptr %stats, i64 3
  %expo = load i64, ptr %expo_at
  %digits_at = getelementptr i64, ptr %stats, i64 5
  %digits = load i64, ptr %digits_at
  %exponent_form = icmp ne i64 %expo, 0
  br i1 %exponent_form, label %exponent, label %positional

exponent:
  ; P digits after the point; the exponent's digits zero-padded
  %p32 = trunc i64 %digits to i32
  %unique = call i32 @mgrt_array_digits(double %ax, i32 %f32, i32 1, i32 %p32, ptr %buf)
  %left_e = sub i64 %pad_left, 1
  %spaces_e = sub i64 %left_e, %sign
  call void @mgrt_array_repeat(i32 32, i64 %spaces_e)
  %minus_e = mul i64 %sign, 45
  %dash_e = trunc i64 %minus_e to i32
  call void @mgrt_array_repeat(i32 %dash_e, i64 %sign)
  %e_at = call ptr @strchr(ptr %text, i32 101)
  %e_i = ptrtoint ptr %e_at to i64
  %text_i = ptrtoint ptr %text to i64
  %mantissa = sub i64 %e_i, %text_i
  call void @mgrt_array_bytes(ptr %text, i64 %mantissa)
  call void @mgrt_array_bytes(ptr %e_at, i64 2)
  %e_digits_text = getelementptr i8, ptr %e_at, i64 2
  %e_length = call i64 @strlen(ptr %e_digits_text)
  %e_digits_at = getelementptr i64, ptr %stats, i64 6
  %e_digits = load i64, ptr %e_digits_at
  %e_zeros = sub i64 %e_digits, %e_length
  call void @mgrt_array_repeat(i32 48, i64 %e_zeros)
  call void @mgrt_println_text(ptr %e_digits_text)
  ret void

positional:
  ; the integer part right-justified, the fraction left-justified
  %k32 = call i32 @mgrt_array_unique(double %ax, i32 %f32, i32 0, ptr %buf)
  %k = sext i32 %k32 to i64
  %point = call ptr @strchr(ptr %text, i32 46)
  %point_i = ptrtoint ptr %point to i64
  %text_i2 = ptrtoint ptr %text to i64
  %whole = sub i64 %point_i, %text_i2
  %left = sub i64 %pad_left, %whole
  %spaces_p = sub i64 %left, %sign
  call void @mgrt_array_repeat(i32 32, i64 %spaces_p)
  %minus_p = mul i64 %sign, 45
  %dash_p = trunc i64 %minus_p to i32
  call void @mgrt_array_repeat(i32 %dash_p, i64 %sign)
  call void @mgrt_println_text(ptr %text)
  %right = sub i64 %digits, %k
  call void @mgrt_array_repeat(i32 32, i64 %right)
  ret void
}

; The shown counters of axis %a: 7 (3 first, "...", 3 last) where summarised, else its size.
define linkonce_odr i64 @mgrt_array_shown(i64 %size, i1 %summarise) {
entry:
  %long = icmp sgt i64 %size, 6
  %cut = and i1 %summarise, %long
  %shown = select i1 %cut, i64 7, i64 %size
  ret i64 %shown
}

; The index of counter %j on an axis of %size (past the "..." of a summarised one: the last 3).
define linkonce_odr i64 @mgrt_array_index(i64 %size, i1 %summarise, i64 %j) {
entry:
  %long = icmp sgt i64 %size, 6
  %cut = and i1 %summarise, %long
  %late = icmp sgt i64 %j, 3
  %from_end = and i1 %cut, %late
  %back = sub i64 %size, 7
  %shifted = add i64 %back, %j
  %index = select i1 %from_end, i64 %shifted, i64 %j
  ret i64 %index
}

; The element offset of the counters %j of the first %count axes.
define linkonce_odr i64 @mgrt_array_offset(i64 %count, ptr %sizes, ptr %strides, ptr %j, i1 %summarise, i64 %offset) {
entry:
  br label %axis

axis:
  %a = phi i64 [ 0, %entry ], [ %a1, %add ]
  %sum = phi i64 [ %offset, %entry ], [ %sum1, %add ]
  %more = icmp slt i64 %a, %count
  br i1 %more, label %add, label %done

add:
  %size_at = getelementptr i64, ptr %sizes, i64 %a
  %size = load i64, ptr %size_at
  %stride_at = getelementptr i64, ptr %strides, i64 %a
  %stride = load i64, ptr %stride_at
  %j_at = getelementptr i64, ptr %j, i64 %a
  %ja = load i64, ptr %j_at
  %index = call i64 @mgrt_array_index(i64 %size, i1 %summarise, i64 %ja)
  %step = mul i64 %index, %stride
  %sum1 = add i64 %sum, %step
  %a1 = add i64 %a, 1
  br label %axis

done:
  ret i64 %sum
}

; Pass %phase over every shown element (not the "..."s), in order.
define linkonce_odr void @mgrt_array_visit(i64 %rank, ptr %sizes, ptr %strides, i1 %summarise, ptr %data, i64 %offset, i64 %bytes, i32 %kind, ptr %stats, i32 %phase) {
entry:
  %j = alloca i64, i64 %rank, align 8
  %j_bytes = mul i64 %rank, 8
  %cleared = call ptr @memset(ptr %j, i32 0, i64 %j_bytes)
  %last = sub i64 %rank, 1
  br label %element

element:
  %at = call i64 @mgrt_array_offset(i64 %rank, ptr %sizes, ptr %strides, ptr %j, i1 %summarise, i64 %offset)
  %byte_at = mul i64 %at, %bytes
  %p = getelementptr i8, ptr %data, i64 %byte_at
  call void @mgrt_array_measure(ptr %p, i32 %kind, ptr %stats, i32 %phase)
  br label %advance

advance:
  %a = phi i64 [ %last, %element ], [ %a1, %wrap ]
  %j_at = getelementptr i64, ptr %j, i64 %a
  %ja = load i64, ptr %j_at
  %ja1 = add i64 %ja, 1
  %size_at = getelementptr i64, ptr %sizes, i64 %a
  %size = load i64, ptr %size_at
  %shown = call i64 @mgrt_array_shown(i64 %size, i1 %summarise)
  %long = icmp sgt i64 %size, 6
  %summarised = and i1 %summarise, %long
  %at_dots = icmp eq i64 %ja1, 3
  %skip = and i1 %summarised, %at_dots
  %ja2 = select i1 %skip, i64 4, i64 %ja1
  %inside = icmp slt i64 %ja2, %shown
  br i1 %inside, label %step, label %wrap

step:
  store i64 %ja2, ptr %j_at
  br label %element

wrap:
  store i64 0, ptr %j_at
  %a1 = sub i64 %a, 1
  %finished = icmp slt i64 %a1, 0
  br i1 %finished, label %done, label %advance

done:
  ret void
}

; The word appended from %mark on, on a line %column long before it: moved to a new line
; (the line's trailing spaces dropped, then %rank spaces) if the line would pass %limit and
; holds more than its indent (_extendLine). Returns the line's length after the word.
define linkonce_odr i64 @mgrt_array_wrap(i64 %mark, i64 %column, i64 %rank, i64 %limit) {
entry:
  %size = load i64, ptr @mgrt_println_size
  %length = sub i64 %size, %mark
  %end = add i64 %column, %length
  %over = icmp sgt i64 %end, %limit
  %started = icmp sgt i64 %column, %rank
  %wrap = and i1 %over, %started
  br i1 %wrap, label %room, label %stay

stay:
  ret i64 %end

room:
  %extra = add i64 %rank, 1
  %r = call ptr @mgrt_println_room(i64 %extra)
  %data = load ptr, ptr @mgrt_println_data
  br label %strip

strip:
  %s = phi i64 [ %mark, %room ], [ %s_less, %space ]
  %some = icmp sgt i64 %s, 0
  br i1 %some, label %look, label %move

look:
  %before = sub i64 %s, 1
  %before_at = getelementptr i8, ptr %data, i64 %before
  %c = load i8, ptr %before_at
  %is_space = icmp eq i8 %c, 32
  br i1 %is_space, label %space, label %move

space:
  %s_less = sub i64 %s, 1
  br label %strip

move:
  %cut = phi i64 [ %s, %strip ], [ %s, %look ]
  %word_start = add i64 %cut, %extra
  %to = getelementptr i8, ptr %data, i64 %word_start
  %from = getelementptr i8, ptr %data, i64 %mark
  %m0 = call ptr @memmove(ptr %to, ptr %from, i64 %length)
  %newline_at = getelementptr i8, ptr %data, i64 %cut
  store i8 10, ptr %newline_at
  %indent_at = getelementptr i8, ptr %newline_at, i64 1
  %m1 = call ptr @memset(ptr %indent_at, i32 32, i64 %rank)
  %new_size = add i64 %word_start, %length
  store i64 %new_size, ptr @mgrt_println_size
  %new_end = add i64 %rank, %length
  ret i64 %new_end
}

; The tensor of %kind (%bytes an element) at %descriptor appended as NumPy prints it.
define linkonce_odr void @mgrt_array_print(i64 %rank, ptr %descriptor, i32 %kind, i64 %bytes) {
entry:
  %stats = alloca [16 x i64], align 8
  %j = alloca i64, i64 %rank, align 8
  %aligned_at = getelementptr i64, ptr %descriptor, i64 1
  %data = load ptr, ptr %aligned_at
  %offset_at = getelementptr i64, ptr %descriptor, i64 2
  %offset = load i64, ptr %offset_at
  %sizes = getelementptr i64, ptr %descriptor, i64 3
  %strides = getelementptr i64, ptr %sizes, i64 %rank
  %has_axes = icmp sgt i64 %rank, 0
  br i1 %has_axes, label %count, label %nothing

nothing:
  ret void

count:
  %a = phi i64 [ 0, %entry ], [ %a1, %count_next ]
  %total = phi i64 [ 1, %entry ], [ %total1, %count_next ]
  %more = icmp slt i64 %a, %rank
  br i1 %more, label %count_axis, label %counted

count_axis:
  %size_at = getelementptr i64, ptr %sizes, i64 %a
  %size = load i64, ptr %size_at
  %empty_axis = icmp eq i64 %size, 0
  %total1 = mul i64 %total, %size
  %a1 = add i64 %a, 1
  br i1 %empty_axis, label %empty, label %count_next

count_next:
  br label %count

empty:
  call void @mgrt_println_text(ptr @mgrt_array_empty)
  ret void

counted:
  %summarise = icmp sgt i64 %total, 1000
  %cleared = call ptr @memset(ptr %stats, i32 0, i64 128)
  %min_abs_at = getelementptr i64, ptr %stats, i64 2
  store double 0x7FF0000000000000, ptr %min_abs_at
  %max_at = getelementptr i64, ptr %stats, i64 10
  store i64 -9223372036854775808, ptr %max_at
  %min_at = getelementptr i64, ptr %stats, i64 11
  store i64 9223372036854775807, ptr %min_at
  call void @mgrt_array_visit(i64 %rank, ptr %sizes, ptr %strides, i1 %summarise, ptr %data, i64 %offset, i64 %bytes, i32 %kind, ptr %stats, i32 0)
  %is_float = icmp ult i32 %kind, 3
  br i1 %is_float, label %float_widths, label %widths

float_widths:
  call void @mgrt_array_decide(i32 %kind, ptr %stats)
  call void @mgrt_array_visit(i64 %rank, ptr %sizes, ptr %strides, i1 %summarise, ptr %data, i64 %offset, i64 %bytes, i32 %kind, ptr %stats, i32 1)
  br label %widths

widths:
  call void @mgrt_array_finish(i32 %kind, ptr %stats)
  ; the text: an odometer %j over the rows (the axes before the last)
  %j_bytes = mul i64 %rank, 8
  %j_cleared = call ptr @memset(ptr %j, i32 0, i64 %j_bytes)
  call void @mgrt_array_repeat(i32 91, i64 %rank)
  %limit = sub i64 75, %rank
  %outer = sub i64 %rank, 1
  %last_size_at = getelementptr i64, ptr %sizes, i64 %outer
  %last_size = load i64, ptr %last_size_at
  %last_stride_at = getelementptr i64, ptr %strides, i64 %outer
  %last_stride = load i64, ptr %last_stride_at
  %words = call i64 @mgrt_array_shown(i64 %last_size, i1 %summarise)
  %long_row = icmp sgt i64 %last_size, 6
  %row_cut = and i1 %summarise, %long_row
  br label %row

row:
  %base = call i64 @mgrt_array_offset(i64 %outer, ptr %sizes, ptr %strides, ptr %j, i1 %summarise, i64 %offset)
  br label %word

word:
  %w = phi i64 [ 0, %row ], [ %w1, %word_done ]
  %column = phi i64 [ %rank, %row ], [ %column_next, %word_done ]
  %at_dots = icmp eq i64 %w, 3
  %is_dots = and i1 %row_cut, %at_dots
  %mark = load i64, ptr @mgrt_println_size
  br i1 %is_dots, label %dots, label %element

dots:
  call void @mgrt_println_text(ptr @mgrt_array_dots)
  %column_d = call i64 @mgrt_array_wrap(i64 %mark, i64 %column, i64 %rank, i64 %limit)
  call void @mgrt_println_char(i32 32)
  %column_d1 = add i64 %column_d, 1
  br label %word_done

element:
  %index = call i64 @mgrt_array_index(i64 %last_size, i1 %summarise, i64 %w)
  %step = mul i64 %index, %last_stride
  %at = add i64 %base, %step
  %byte_at = mul i64 %at, %bytes
  %p = getelementptr i8, ptr %data, i64 %byte_at
  call void @mgrt_array_emit(ptr %p, i32 %kind, ptr %stats)
  %column_e = call i64 @mgrt_array_wrap(i64 %mark, i64 %column, i64 %rank, i64 %limit)
  %w_next = add i64 %w, 1
  %not_last = icmp slt i64 %w_next, %words
  br i1 %not_last, label %separator, label %row_end

separator:
  call void @mgrt_println_char(i32 32)
  %column_s = add i64 %column_e, 1
  br label %word_done

word_done:
  %column_next = phi i64 [ %column_d1, %dots ], [ %column_s, %separator ]
  %w1 = add i64 %w, 1
  br label %word

row_end:
  call void @mgrt_println_char(i32 93)
  %top = sub i64 %rank, 2
  br label %advance

advance:
  ; the deepest outer axis %d that can advance: the sub-arrays of the axes after it close
  %d = phi i64 [ %top, %row_end ], [ %d_up, %carry ]
  %all_done = icmp slt i64 %d, 0
  br i1 %all_done, label %close, label %bump

bump:
  %jd_at = getelementptr i64, ptr %j, i64 %d
  %jd = load i64, ptr %jd_at
  %jd1 = add i64 %jd, 1
  %d_size_at = getelementptr i64, ptr %sizes, i64 %d
  %d_size = load i64, ptr %d_size_at
  %d_shown = call i64 @mgrt_array_shown(i64 %d_size, i1 %summarise)
  %fits = icmp slt i64 %jd1, %d_shown
  br i1 %fits, label %next_row, label %carry

carry:
  store i64 0, ptr %jd_at
  %d_up = sub i64 %d, 1
  br label %advance

next_row:
  store i64 %jd1, ptr %jd_at
  %closing = sub i64 %top, %d
  call void @mgrt_array_repeat(i32 93, i64 %closing)
  %newlines = sub i64 %outer, %d
  %indent = add i64 %d, 1
  call void @mgrt_array_repeat(i32 10, i64 %newlines)
  call void @mgrt_array_repeat(i32 32, i64 %indent)
  %d_long = icmp sgt i64 %d_size, 6
  %d_cut = and i1 %summarise, %d_long
  %d_at_dots = icmp eq i64 %jd1, 3
  %d_dots = and i1 %d_cut, %d_at_dots
  br i1 %d_dots, label %outer_dots, label %open

outer_dots:
  ; a summarised outer axis's "...": a line of its own, then the same separator
  call void @mgrt_println_text(ptr @mgrt_array_dots)
  call void @mgrt_array_repeat(i32 10, i64 %newlines)
  call void @mgrt_array_repeat(i32 32, i64 %indent)
  store i64 4, ptr %jd_at
  br label %open

open:
  %opening = sub i64 %outer, %d
  call void @mgrt_array_repeat(i32 91, i64 %opening)
  br label %row

close:
  call void @mgrt_array_repeat(i32 93, i64 %outer)
  ret void
}
"""
    + "".join(_ENTRY.format(t=t, kind=kind, bytes=size) for t, kind, size in ARRAY_TYPES)
)
