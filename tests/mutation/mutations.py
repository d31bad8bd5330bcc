"""The curated mutations: each is one deliberate bug, as (file, exact text, replacement, what
it breaks). tests/mutation/run.py applies each to a copy of the project and runs the tests;
every one must make some test fail. The first ten are the chapter's (its front-end and
lowering mutations), the rest cover every other part of the compiler."""

from typing import NamedTuple


class Mutation(NamedTuple):
    file: str
    old: str
    new: str
    breaks: str


SH = "mg_xdsl/core/shapes.py"
# The mg dialect, a module per family of ops.
MG_BASE = "mg_xdsl/dialects/mg/base.py"
MG_SCALAR = "mg_xdsl/dialects/mg/scalar.py"
MG_ELEMENTWISE = "mg_xdsl/dialects/mg/elementwise.py"
MG_STRUCTURED = "mg_xdsl/dialects/mg/structured.py"
MG_SHAPE = "mg_xdsl/dialects/mg/shape.py"
MG_PRINTING = "mg_xdsl/dialects/mg/printing.py"
# The front end's stages (mg_xdsl/language/frontend.py drives them).
PARSE, GEN = "mg_xdsl/language/parser.py", "mg_xdsl/language/irgen.py"
# The checker (checker.py composes these): its core (statements, names, operators), the types
# it gives, how the builtins' rules read their arguments, and a module per group of families.
CHECK, CHECK_TYPES, CHECK_ARGS = (
    "mg_xdsl/language/checker_core.py",
    "mg_xdsl/language/checker_types.py",
    "mg_xdsl/language/checker_arguments.py",
)
CHECK_ELEMENTWISE, CHECK_REDUCTIONS, CHECK_SHAPES = (
    "mg_xdsl/language/checker_elementwise.py",
    "mg_xdsl/language/checker_reductions.py",
    "mg_xdsl/language/checker_shape_ops.py",
)
CHECK_INDEXING, CHECK_MATRIX = "mg_xdsl/language/checker_indexing.py", "mg_xdsl/language/checker_matrix.py"
AFF = "mg_xdsl/conversions/lower_mg_to_affine.py"
MG_COMMON = "mg_xdsl/conversions/mg_lowering_common.py"  # (what both mg lowerings share)
BUILTINS = "mg_xdsl/language/builtins.py"
BUFFERS = "mg_xdsl/support/buffers.py"  # (the building blocks of the mg lowerings)
# The optimised pipeline's linalg stage and the passes that decide on it.
TO_LINALG, FUSE, REUSE, LOOPS = (
    "mg_xdsl/conversions/convert_mg_to_linalg.py",
    "mg_xdsl/transforms/linalg/linalg_fuse_elementwise_ops.py",
    "mg_xdsl/transforms/linalg/reuse_dying_buffers.py",
    "mg_xdsl/conversions/convert_linalg_to_affine_loops.py",
)
TILE, VEC = "mg_xdsl/transforms/linalg/tile_matmul.py", "mg_xdsl/transforms/linalg/vectorize_reductions.py"
STREAM = "mg_xdsl/transforms/linalg/stream_large_results.py"
CPP = "mg_xdsl/backend/cpp_header.py"
RECORDS = "mg_xdsl/core/element_records.py"  # (one record per element type)

MUTATIONS = [
    # -- the chapter's front-end mutations --------------------------------------------------
    Mutation(
        BUILTINS,
        'Builtin(f"{side}_{kind}", "chapter", axis=1 if side == "row" else 0, kind=kind)',
        'Builtin(f"{side}_{kind}", "chapter", axis=0 if side == "row" else 1, kind=kind)',
        "row_* and col_* use the opposite axis",
    ),
    Mutation(
        GEN,
        "            count = math.prod(shape[a] or 1 for a in axes)",
        "            count = math.prod(shape[1 - a] or 1 for a in axes)",
        "mean divides by the wrong dimension's count",
    ),
    Mutation(
        GEN,
        "return self.emit(fn, mg.ReluOp(x), c.tok)",
        "return self.emit(fn, mg.NegOp(x), c.tok)",
        "relu is emitted as negation",
    ),
    Mutation(
        SH,
        "        elif a == 1:\n            out.append(b)",
        "        elif False:\n            out.append(b)",
        "a size-1 left operand is not broadcast",
    ),
    Mutation(
        SH,
        "        elif b == 1:\n            out.append(a)",
        "        elif b == 1 and 1 not in a_dims:\n            out.append(a)",
        "a 1x1 (all-ones) right operand is never broadcast",
    ),
    # -- the chapter's lowering mutations ---------------------------------------------------
    Mutation(
        MG_SCALAR,
        '"max": ("max", float("-inf")),',
        '"max": ("max", 0.0),',
        "max reduction starts at 0 instead of -infinity",
    ),
    Mutation(
        MG_ELEMENTWISE,
        'return binary_arith("max", operands[0], constants[0])',
        'return binary_arith("max", operands[0], operands[0])',
        "relu does not clamp (max of x with itself)",
    ),
    Mutation(
        AFF,
        "src = [zero if r else ivs[lead + d] for d, r in enumerate(repeated)]",
        "src = [zero if repeated[len(repeated) - 1 - d] else ivs[lead + d] for d, r in enumerate(repeated)]",
        "broadcast reads index 0 of the wrong dimension",
    ),
    Mutation(
        AFF,
        "dst = [zero if d == axis else iv for d, iv in enumerate(ivs)]",
        "dst = [zero, ivs[0]] if axis == 1 else [zero if d == axis else iv for d, iv in enumerate(ivs)]",
        "reduce over axis 1 writes into the wrong cell (the equivalent mutant)",
    ),
    Mutation(
        MG_ELEMENTWISE,
        "lhs, rhs = (number, x) if self.reversed.value.data else (x, number)",
        "lhs, rhs = (x, number)",
        "a number on the left (2 - a) is applied on the right",
    ),
    # -- front end ----------------------------------------------------------------------------
    Mutation(
        PARSE,
        "            rest.append((tok, operand()))",
        '            rest.append((tok, self.expr() if "+" in operators else operand()))',
        "+ and - associate to the right",
    ),
    Mutation(
        CHECK_TYPES,
        '    if op == "-":\n        return a - b',
        '    if op == "-":\n        return b - a',
        "folding two numbers subtracts the wrong way round",
    ),
    Mutation(
        CHECK,
        "            if not shapes.shapes_compatible(arg.shape, ptype.shape):",
        "            if False:",
        "a call accepts an argument of the wrong static shape",
    ),
    # -- shape rules and verifiers -----------------------------------------------------------
    Mutation(
        SH,
        'raise ShapeError(f"axis must be {allowed}, got {axis}")',
        'raise ShapeError(f"axis must be {allowed}")',
        "the axis verifier's message loses the value",
    ),
    Mutation(
        MG_STRUCTURED,
        "        if self.kind.data not in REDUCE_KINDS:",
        "        if False:",
        "mg.reduce accepts any kind",
    ),
    Mutation(
        SH,
        "        if a != t and (a != 1 or t is None and not grows_to_unknown):\n            return d",
        "        if False:\n            return d",
        "mg.broadcast accepts a dimension that cannot grow",
    ),
    Mutation(
        SH, "    if not dims_compatible(lhs[-1], rhs[-2]):", "    if False:", "@ accepts mismatched inner dimensions"
    ),
    # -- lowerings ----------------------------------------------------------------------------
    Mutation(
        AFF,
        'product = mg.binary_arith("mul", load(op.lhs, [*batch, i, kk]), load(op.rhs, [*batch, kk, j]))',
        'product = mg.binary_arith("mul", load(op.lhs, [*batch, i, kk]), load(op.rhs, [*batch, j, kk]))',
        "matmul reads the right operand transposed",
    ),
    Mutation(
        AFF,
        "            store(load(op.input, at), out, ivs)\n\n        nest(sizes, body)",
        "            store(load(op.input, ivs), out, ivs)\n\n        nest(sizes, body)",
        "transpose copies",
    ),
    Mutation(
        MG_ELEMENTWISE,
        '    name = "mg.sub"\n    OPERATOR: ClassVar[str] = "sub"',
        '    name = "mg.sub"\n    OPERATOR: ClassVar[str] = "add"',
        "subtraction lowers to addition",
    ),
    Mutation(
        "mg_xdsl/conversions/lower_affine.py",
        "    dims, symbols = operands[: map.num_dims], operands[map.num_dims :]",
        "    dims, symbols = operands[: map.num_dims], operands[: map.num_dims]",
        "lower-affine reads symbols from the dimension operands",
    ),
    # -- LLVM-dialect conversions -----------------------------------------------------------
    Mutation(
        "mg_xdsl/conversions/to_llvm/convert_arith_to_llvm.py",
        'arith.MaximumfOp: "llvm.maximum",',
        'arith.MaximumfOp: "llvm.maxnum",',
        "maximumf becomes the NaN-ignoring maxnum",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/finalize_memref_to_llvm.py",
        "            term = _mul(rewriter, index, const(stride))",
        "            term = _mul(rewriter, index, const(stride - 1))",
        "a static stride is off by one in address arithmetic",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/finalize_memref_to_llvm.py",
        "            nbytes = _mul(rewriter, count, const(element_bytes))",
        "            nbytes = _mul(rewriter, count, const(element_bytes // 2))",
        "a dynamic malloc is half the size it needs",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/convert_cf_to_llvm.py",
        "llvm_cond_br(op.cond, op.then_block, then_args, op.else_block, else_args)",
        "llvm_cond_br(op.cond, op.else_block, else_args, op.then_block, then_args)",
        "a conditional branch goes the wrong way",
    ),
    # -- the run-time printer ---------------------------------------------------------------
    Mutation(
        "mg_xdsl/backend/runtime.py",
        '                out.append(", ")',
        '                out.append(",")',
        "the printer drops the space after a comma",
    ),
    Mutation(
        "mg_xdsl/backend/runtime.py", '    return "%g" % x', '    return "%.5g" % x', "the printer shows 5 digits"
    ),
    Mutation(
        "mg_xdsl/backend/runtime.c", '    printf("%g", x);', '    printf("%.5g", x);', "executables print 5 digits"
    ),
    # -- run-time checks ------------------------------------------------------------------------
    Mutation(
        MG_COMMON,
        "check_same_size(a, b, mg.operands_differ(op_name, d))",
        "check_same_size(a, b, mg.operands_differ(op_name, d + 1))",
        "the run-time check names the wrong dimension",
    ),
    Mutation(
        BUFFERS,
        '    same = arith.CmpiOp(as_index(a), as_index(b), "eq")',
        '    same = arith.CmpiOp(as_index(a), as_index(b), "sle")',
        "the run-time check lets a smaller size through",
    ),
    Mutation(
        "mg_xdsl/conversions/lower_assert_to_stderr.py",
        "cf.ConditionalBranchOp(op.arg, rest, [], failed, [])",
        "cf.ConditionalBranchOp(op.arg, failed, [], rest, [])",
        "a check fails when the sizes agree",
    ),
    Mutation(
        "mg_xdsl/backend/runtime_ir.py",
        "%w1 = call i64 @write(i32 2, ptr %msg, i64 %n)",
        "%w1 = call i64 @write(i32 1, ptr %msg, i64 %n)",
        "a failed check reports on stdout",
    ),
    # -- deallocation ---------------------------------------------------------------------------
    Mutation(
        "mg_xdsl/transforms/memref/buffer_deallocation.py",
        "        Rewriter.insert_op(memref_dealloc(buffer), InsertPoint.after(last))",
        "        pass",
        "no buffer is ever freed",
    ),
    Mutation(
        "mg_xdsl/transforms/memref/buffer_deallocation.py",
        "last = max(users, key=position.__getitem__)",
        "last = min(users, key=position.__getitem__)",
        "a buffer is freed after its first use, not its last",
    ),
    Mutation(
        "mg_xdsl/transforms/memref/buffer_deallocation.py",
        "            if isinstance(value.type, MemRefType) and base(value) not in owned:",
        "            if False:",
        "a function returns its parameter, which the caller then frees",
    ),
    # -- GPU mapping ------------------------------------------------------------------------------
    Mutation(
        "mg_xdsl/transforms/affine/affine_parallelize.py",
        "            if idx is None or iv not in idx:\n                return False",
        "            if idx is None:\n                return False",
        "a reduction's accumulation loop is made parallel",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/convert_parallel_loops_to_gpu.py",
        "THREADS_PER_BLOCK = 256",
        "THREADS_PER_BLOCK = 1",
        "one thread per block",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/convert_gpu_to_nvvm.py",
        '_SREG = {gpu.ThreadIdOp: "tid", gpu.BlockIdOp: "ctaid"',
        '_SREG = {gpu.ThreadIdOp: "ctaid", gpu.BlockIdOp: "tid"',
        "thread and block ids are swapped",
    ),
    # -- GPU launching --------------------------------------------------------------------------
    Mutation(
        "mg_xdsl/backend/gpu_runtime.py",
        "                if written and device_ptr[host]:",
        "                if False and device_ptr[host]:",
        "results never come back from the device",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/gpu_kernel_outlining.py",
        "    written = [k for k, a in enumerate(entry.args) if a in stored]",
        "    written = [k for k, a in enumerate(entry.args) if a not in stored]",
        "the buffers a kernel only reads are copied back instead of those it writes",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/gpu_to_runtime_calls.py",
        'ok = b.insert(arith.CmpiOp(call.results[0], zero.result, "eq"))',
        'ok = b.insert(arith.CmpiOp(call.results[0], zero.result, "ne"))',
        "a successful launch counts as a failure",
    ),
    Mutation(
        "mg_xdsl/transforms/affine/affine_parallelize.py",
        "DenseArrayBase.from_list(i32, [len(lbo), len(ubo), 0])",
        "DenseArrayBase.from_list(i32, [len(lbo), len(ubo) * 0, 0])",
        "an interchanged loop loses its bound operand's group size",
    ),
    # -- the optimised pipeline -------------------------------------------------------------------
    Mutation(
        SH,
        "    return tuple(a == 1 and target[lead + d] != 1 for d, a in enumerate(shape))",
        "    return tuple(a == 1 and target[lead + d] != 1 and d == 0 for d, a in enumerate(shape))",
        "a broadcast of a column reads past it instead of index 0",
    ),
    Mutation(
        REUSE,
        "        if user is None or (user is not op and not user.is_before_in_block(op)):\n            return False",
        "        if user is None:\n            return False",
        "an elementwise result overwrites an input buffer that is used again later",
    ),
    Mutation(
        FUSE,
        "        size = alloc.dynamic_sizes[sum(1 for s in shape[:d] if s < 0)]",
        "        size = alloc.dynamic_sizes[0]",
        "a check of a buffer fused away reads its first ? size for every dimension (a false abort)",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "(total,) = for_loop(b, lanes_end, cols, index(b, 1), one, [reduced],",
        "(total,) = for_loop(b, cols, cols, index(b, 1), one, [reduced],",
        "a row reduction skips the last elements",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "for_loop(b, index(b, 0), blocks, index(b, 1), total)",
        "for_loop(b, index(b, 0), index(b, 1), index(b, 1), total)",
        "a column reduction keeps only its first row block",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "full = b.insert(arith.AndIOp(full_rows, full_cols)).result",
        "full = b.insert(arith.OrIOp(full_rows, full_cols)).result",
        "a matmul's edge block is written whole, past C's edge",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "out.append(self.multiply_add(b, splat, col, acc[r * len(columns) + q]))",
        "out.append(self.multiply_add(b, splat, col, acc[q * MR + r]))",
        "the micro-kernel mixes up its sums",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "kc = minimum(b, index(b, KC), sub(b, self.k, pc))",
        "kc = index(b, KC)",
        "the last block of products runs past K",
    ),
    Mutation(
        "mg_xdsl/conversions/convert_parallel_loops_to_threads.py",
        "    b.insert(keep_parallel_accesses(par, scf.ForOp(lo, hi, one, [], body)))",
        "    b.insert(keep_parallel_accesses(par, scf.ForOp(lo, hi, hi, [], body)))",
        "a thread runs only the first iteration of its chunk",
    ),
    Mutation(
        "mg_xdsl/backend/threads_ir.py",
        "%min = call i64 @llvm.smax.i64(i64 %min_chunk, i64 1)",
        "%min = call i64 @llvm.smax.i64(i64 %min_chunk, i64 1000000000)",
        "the thread pool never splits a loop",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/convert_vector_to_llvm.py",
        "mask = DenseArrayBase.from_list(i32, [0] * t.get_shape()[0])",
        "mask = DenseArrayBase.from_list(i32, list(range(t.get_shape()[0])))",
        "a vector broadcast fills only lane 0",
    ),
    # -- robustness ---------------------------------------------------------------------------------
    Mutation(
        LOOPS,
        "                indices.append(self.constants[expr.value])",
        "                indices.append(ivs[0])",
        "a broadcast input is read along a loop instead of at index 0",
    ),
    Mutation(
        "mg_xdsl/support/xdsl_compat.py",
        "    parent.insert_block_after(b, self)",
        "    parent.insert_block_before(b, self)",
        "splitting a block puts the second half before the first",
    ),
    Mutation(
        "mg_xdsl/support/xdsl_compat.py",
        "    _verifying.counts = {} if outer[0] is None else outer[0]",
        "    _verifying.counts = outer[0]",
        "verification walks the blocks of a region for every block again",
    ),
    Mutation(
        "mg_xdsl/backend/runtime_ir.py",
        "  br i1 %failed, label %no_memory, label %allocated",
        "  br i1 false, label %no_memory, label %allocated",
        "a failed allocation hands the compiled code a null pointer",
    ),
    Mutation(
        "mg_xdsl/tools/mgc.py",
        '        "path": args.file,\n',
        "",
        "a cached program reports a failed check at the path of another copy",
    ),
    # -- compile time -------------------------------------------------------------------------------
    Mutation(
        "mg_xdsl/transforms/func/outline_loop_nests.py",
        "returned: list[SSAValue] = [\n        r for op in ops for r in op.results if any(use.operation not in moved for use in r.uses)\n    ]",
        "returned: list[SSAValue] = []",
        "an outlined run of loop nests does not return the buffers used after it",
    ),
    Mutation(
        VEC,
        "    if found.axis == 1 and cols >= 0 and cols < vectors.step:",
        "    if False:",
        "a row reduction with rows shorter than one vector step is vectorised",
    ),
    Mutation(
        "mg_xdsl/driver.py",
        "verify_result=self.verify_each or (verify and s is stages[-1]),",
        "verify_result=self.verify_each,",
        "the IR that mgc mlir prints is not verified unless asked to verify every stage",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "for v, d in ((a, zero), (a, one), (b_, one)))",
        "for v, d in ((a, zero), (a, one), (a, one)))",
        "the shared matmul kernel takes C's columns from A's",
    ),
    Mutation(
        "mg_xdsl/transforms/affine/affine_parallelize.py",
        "if (n := static_iterations(loop)) is not None and n < self.min_iterations}",
        "if (n := static_iterations(loop)) is not None and n < 0}",
        "affine-parallelize ignores min-iterations",
    ),
    # -- kernels for the target --------------------------------------------------------------------
    Mutation(
        "mg_xdsl/core/target.py",
        "    (256, 16): (6, 2),",
        "    (256, 16): (8, 2),",
        "the AVX2 micro-kernel takes AVX-512's register block, which spills",
    ),
    Mutation(
        "mg_xdsl/core/target.py",
        "    if unit.datapath and (unit.bits, unit.registers) in HALF_DATAPATH_BLOCKS:",
        "    if False and (unit.bits, unit.registers) in HALF_DATAPATH_BLOCKS:",
        "Zen 4 takes full-width AVX-512's register block, not the one measured on it",
    ),
    Mutation(
        "mg_xdsl/kernels/shared.py",
        '        name += "_" + hashlib.sha256(f"{name}\\0{depends_on}\\0{apart.data}".encode()).hexdigest()[:16]',
        '        name += "_" + hashlib.sha256(f"{name}".encode()).hexdigest()[:16]',
        "a kernel compiled apart is named for its element type only: another CPU's kernel is taken for it",
    ),
    Mutation(
        "mg_xdsl/core/target.py",
        '    if "%ymm" in asm:\n        return VectorUnit(256, 16, fma)',
        '    if "%ymm" in asm:\n        return VectorUnit(512, 32, fma)',
        "AVX2 CPUs are taken for AVX-512 ones",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "    if combine is arith.MaximumfOp:\n        # Of a zero maximum",
        "    if False:\n        # Of a zero maximum",
        "a row maximum of zero keeps the sign the nsz vectors gave it",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/finalize_memref_to_llvm.py",
        "hints = [int(bool(op.isWrite.value.data)), op.localityHint.value.data,",
        "hints = [int(not op.isWrite.value.data), op.localityHint.value.data,",
        "a prefetch for writing is lowered as one for reading",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "(acc,) = for_loop(b, vector_end, lanes_end, index(b, lanes), whole_vector, accs, as_written=True)",
        "(acc,) = for_loop(b, vector_end, vector_end, index(b, lanes), whole_vector, accs, as_written=True)",
        "a row reduction skips the whole vectors after its last full step",
    ),
    Mutation(
        "mg_xdsl/core/target.py",
        "kc = max(8, min(KC_MAX, caches.l1 // (nr * element_bytes) // 8 * 8))",
        "kc = KC_MAX",
        "the matrix product's KC panel overflows a small L1",
    ),
    Mutation(
        "mg_xdsl/transforms/affine/affine_loop_normalize.py",
        "if self.promote_single_iter and lower < upper <= lower + step:",
        "if self.promote_single_iter and lower < upper:",
        "loops of several iterations are taken for loops of one",
    ),
    # -- every pipeline in one place ----------------------------------------------------------------
    Mutation(
        "mg_xdsl/pipeline/stages.py",
        "self.stages[1 : names.index(to) + 1]",
        "self.stages[1 : names.index(to)]",
        "a named pipeline stops a stage early",
    ),
    Mutation(
        VEC,
        "vectors, self.row_block, self.rows_at_once\n",
        "vectors\n",
        "vectorize-reductions ignores its row-block and rows-at-once options",
    ),
    Mutation(
        "mg_xdsl/core/target.py",
        "            sizes[level] = size // max(1, sharing)",
        "            sizes[level] = size",
        "a shared L3 is taken for one core's own",
    ),
    # -- compile time ------------------------------------------------------------------------------
    Mutation(
        "mg_xdsl/transforms/func/optnone_small_functions.py",
        "        count *= max(0, -(-(hi - lo) // st))",
        "        count *= 1",
        "loops are counted as one iteration: large functions reach LLVM as optnone",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/type_conversion.py",
        "        return new\n    target = convert_type(value.type)",
        "        return value\n    target = convert_type(value.type)",
        "convert-to-llvm hands a pattern the unconverted operand, and a cast is left behind",
    ),
    Mutation(
        "mg_xdsl/transforms/cse.py",
        "        if kind == OTHER:\n            reads.clear()",
        "        if kind == OTHER:\n            pass",
        "cse merges two loads with a store between them",
    ),
    Mutation(
        "mg_xdsl/transforms/cse.py",
        "    for key in added:\n        del known[key]",
        "    for key in added:\n        pass",
        "cse uses an op from a loop's body after the loop",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        '    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]',
        "    return repr(value)",
        "the LLVM IR printer writes a double in decimal (LLVM reads 0.1 as inexact)",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        "                start += count\n",
        "",
        "the LLVM IR printer gives a cond_br's second successor the first one's operands",
    ),
    Mutation(
        "mg_xdsl/support/op_builders.py",
        'properties = {"overflowFlags": overflow} if issubclass(kind, llvm.ArithmeticBinOpOverflow) else {}',
        'properties = {"overflowFlags": _NO_OVERFLOW} if issubclass(kind, llvm.ArithmeticBinOpOverflow) else {}',
        "llvm_binary drops the overflow flags it is given",
    ),
    Mutation(
        "mg_xdsl/support/xdsl_compat.py",
        "    for name, value in properties_by_default:\n        op.properties.setdefault(name, value)\n",
        "",
        "create_op leaves out the properties an op has by default",
    ),
    Mutation(
        "mg_xdsl/support/xdsl_compat.py",
        "    Operation.__post_init__(op)\n    return op\n",
        "    return op\n",
        "create_op ignores the ImplicitBuilder it is made in: the op is never inserted",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "short=combine is not arith.MaximumfOp)",
        "short=False)",
        "a row reduction's scalar tail reaches LLVM without its hint: vectorized and unrolled again",
    ),
    Mutation(
        "mg_xdsl/support/loop_builders.py",
        "    if as_written or (short and (constant_value(lb) is None or constant_value(ub) is None)):",
        "    if as_written or short:",
        "a short loop of constant bounds is kept from LLVM's full unrolling",
    ),
    Mutation(
        "mg_xdsl/conversions/convert_scf_to_cf.py",
        "        back.attributes.update(llvm_attributes(op))\n",
        "",
        "convert-scf-to-cf drops a loop's hints to LLVM",
    ),
    Mutation(
        "mg_xdsl/conversions/convert_scf_to_cf.py",
        'if name == PARALLEL_ACCESSES or value.name.startswith("llvm.")\n    }',
        "\n    }",
        "convert-scf-to-cf puts every attribute of a loop on its branch back, not only LLVM's",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/convert_cf_to_llvm.py",
        "    lowered.attributes.update(branch.attributes)\n",
        "",
        "convert-cf-to-llvm drops a branch's attributes (a loop's hints)",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        '        return f", !llvm.loop {node}" if node else ""',
        '        return ""',
        "the LLVM IR printer leaves out a loop's metadata",
    ),
    Mutation(
        "mg_xdsl/support/xdsl_lazy_formats.py",
        "        sys.meta_path.insert(0, _PatchWhenImported())",
        "        pass",
        "import mg_xdsl no longer defers xDSL's assembly formats",
    ),
    Mutation(
        "mg_xdsl/kernels/shared.py",
        "        if isinstance(op, func.FuncOp) and op.sym_name.data == name:",
        "        if False:",
        "every reduction or product gets a kernel function of its own",
    ),
    Mutation(
        "mg_xdsl/conversions/convert_parallel_loops_to_threads.py",
        "        inner = scale\n",
        "        inner = 1\n",
        "a loop's work scale is ignored where its sizes are static",
    ),
    # -- kernels from the target's features (a CPU's datapath) ----------------------------------
    Mutation(
        "mg_xdsl/core/target.py",
        '    "znver4": 256,\n}',
        '    "znver4": 512,\n}',
        "Zen 4's half-width datapath is forgotten: its reductions stream 512-bit vectors",
    ),
    Mutation(
        "mg_xdsl/core/target.py",
        "    bits = unit.stream_bits\n",
        "    bits = unit.bits\n",
        "reductions take the register width where the datapath is narrower",
    ),
    Mutation(
        "mg_xdsl/backend/jit.py",
        "llvm_tuning(cpu or host_cpu)) if f)",
        '"") if f)',
        "LLVM's vectorisers are not told of Zen 4's 256-bit datapath",
    ),
    # -- results' pages, the API's call -------------------------------------------------------------
    Mutation(
        "mg_xdsl/backend/runtime_ir.py",
        "  %several_pages = icmp uge i64 %bytes, 4194304",
        "  %several_pages = icmp uge i64 %bytes, 33554432",
        "results of 4 to 32 MiB are no longer advised huge pages (faulted in 4 KiB at a time)",
    ),
    Mutation(
        "mg_xdsl/backend/runtime_ir.py",
        'code.append(f"  {strides[d]} = mul i64 {strides[d + 1]}, %s{i}_{d + 1}\\n")',
        'code.append(f"  {strides[d]} = mul i64 {strides[d + 1]}, %s{i}_{d}\\n")',
        "the API describes its arguments with the wrong strides",
    ),
    # -- element types as a concept ------------------------------------------------------------
    Mutation(
        "mg_xdsl/core/element_types.py",
        "    if element_type in lowered:",
        "    if True:",
        "the verifiers accept tensors of any element type (an i32 relu reaches the lowering)",
    ),
    Mutation(
        MG_BASE,
        "        for value in (*op.operands, *op.results):",
        "        for value in op.operands:",
        "a result's element type is not checked",
    ),
    Mutation(
        MG_PRINTING,
        "traits_def(LoweredElementTypes(element_types.PRINTABLE))",
        "traits_def(LoweredElementTypes())",
        "mg.print takes f32 tensors, which printMemrefF64 misreads",
    ),
    Mutation(
        MG_STRUCTURED,
        "shapes.matmul_shape, shape_of(lhs.type), shape_of(rhs.type))",
        "shapes.matmul_shape, shape_of(rhs.type), shape_of(lhs.type))",
        "a matrix product infers its result from its operands swapped",
    ),
    Mutation(
        MG_ELEMENTWISE,
        "shapes.broadcast_shapes, shape_of(lhs.type), shape_of(rhs.type))\n        super().__init__(operands=[lhs, rhs], result_types=[result_type])\n\n    def verify_(self) -> None:\n        self.check_elementwise(",
        "shapes.broadcast_shapes, shape_of(lhs.type), shape_of(lhs.type))\n        super().__init__(operands=[lhs, rhs], result_types=[result_type])\n\n    def verify_(self) -> None:\n        self.check_elementwise(",
        "an elementwise result keeps the left operand's '?' where the right one has a size",
    ),
    Mutation(
        "mg_xdsl/api.py",
        "guarded_wrapper(name, [len(shape) for _, shape in sig.params]) for",
        "guarded_wrapper(name, [len(shape) for _, shape in sig.params] + [0]) for",
        "each guard declares and passes one matrix more than its function takes",
    ),
    Mutation(
        AFF,
        "        element = element_type_of(op.input)\n        constants = ",
        "        element = mg.tensor_type((1,)).element_type\n        constants = ",
        "relu's and mg.scalar's constants are f64 whatever the element type",
    ),
    # -- the linalg stage ---------------------------------------------------------------------
    Mutation(
        LOOPS,
        "                order = [first, *(d for d in order if d != first)]",
        "                order = [*(d for d in order if d != first), first]",
        "parallelised, a reduction loop stays outside the parallel one",
    ),
    Mutation(
        LOOPS,
        "    return min_work >= 0 and not (len(static) == len(sizes) and prod(static) < min_work)",
        "    return min_work >= 0",
        "every parallel loop becomes affine.parallel, however little work it has",
    ),
    Mutation(
        TILE,
        "            lhs = transposed_copy(builder, lhs) if matched.transposed[0] else lhs",
        "            lhs = lhs",
        "a left operand read transposed is multiplied as it is",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "and isinstance(total, arith.AddfOp)\n",
        "and isinstance(total, arith.AddfOp | arith.SubfOp)\n",
        "a multiply-subtract is taken for a matrix product",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "FOLDS = {(PARALLEL, REDUCTION, ROW_CELLS): 1, (REDUCTION, PARALLEL, COLUMN_CELLS): 0}",
        "FOLDS = {(PARALLEL, REDUCTION, ROW_CELLS): 1, (REDUCTION, PARALLEL, COLUMN_CELLS): 1}",
        "a column reduction calls the row kernel",
    ),
    Mutation(
        FUSE,
        "    return m == identity(m.num_dims)",
        "    return True",
        "fusion computes a producer the consumer reads broadcast again for every repetition",
    ),
    Mutation(
        TO_LINALG,
        "lambda args: reduction.combine(args[1], args[0]).results[0],",
        "lambda args: reduction.combine(args[0], args[0]).results[0],",
        "a reduction's body folds each element with itself, not with the running value",
    ),
    # -- large results written with streaming stores ---------------------------------------------
    Mutation(
        "mg_xdsl/core/target.py",
        " and result_bytes < max_result_bytes\n",
        "\n",
        "results of 32 MiB or more, fresh pages already in the cache, are streamed past it too",
    ),
    Mutation(
        STREAM,
        "nontemporal=BoolAttr.from_bool(True)",
        "nontemporal=BoolAttr.from_bool(False)",
        "the vector loop stores through the cache, reading every line it writes",
    ),
    Mutation(
        STREAM,
        "        b.insert(llvm.CallIntrinsicOp(SFENCE, [], []))\n",
        "",
        "a thread's streaming stores may not be visible when it reports its block done",
    ),
    Mutation(
        STREAM,
        "        for_loop(b, end, hi, 1, elements, short=True)\n",
        "",
        "the elements after the last whole vector of a block are never written",
    ),
    Mutation(
        STREAM,
        "            align(found.alloc, max(CACHE_LINE, lanes * element_bits // 8))\n",
        "",
        "the result is not aligned: an aligned streaming store to it faults",
    ),
    Mutation(
        STREAM,
        "    if any(m.data != identity for m in op.indexing_maps) or len(op.outputs) != 1:",
        "    if len(op.outputs) != 1:",
        "a broadcast input is read at the flat index, past its end",
    ),
    Mutation(
        STREAM,
        "block, work_scale=BLOCK)",
        "block, work_scale=lanes)",
        "a block counts as one vector's work: the streamed loops stay on one thread",
    ),
    Mutation(
        "mg_xdsl/core/target.py",
        "    return max(STREAMING_MIN_BYTES, caches.l3)",
        "    return caches.l3",
        "a named CPU's typical 4 MiB L3 share streams loops that one thread keeps in its L3",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/convert_vector_to_llvm.py",
        "alignment = stated.value.data if isinstance(stated, IntegerAttr) else _element_bytes(op.vector.type)",
        "alignment = _element_bytes(op.vector.type)",
        "the stated alignment is lost: LLVM stores the vectors through the cache",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        "streaming = f\", !nontemporal {p.module.node('!{i32 1}')}\" if",
        'streaming = "" if',
        "the LLVM IR printer drops the non-temporal hint",
    ),
    # -- printing each element type -----------------------------------------------------------
    Mutation(
        "mg_xdsl/backend/runtime.c",
        'printf("%lld", (long long)((const int64_t *)data)[i]);',
        'printf("%d", (int)((const int64_t *)data)[i]);',
        "an executable prints i64 elements cut to 32 bits",
    ),
    Mutation(RECORDS, 'ctype="c_float"', 'ctype="c_double"', "the JIT's printMemrefF32 reads its floats as doubles"),
    Mutation(
        RECORDS,
        'printer="printMemrefF32"',
        'printer="printMemrefF64"',
        "mg.print of an f32 tensor calls the f64 printer",
    ),
    # -- tensors of any rank --------------------------------------------------------------------
    Mutation(
        PARSE,
        "            return (count, *inner)",
        "            return (*inner, count)",
        "a nested literal's axes come out reversed",
    ),
    Mutation(
        CHECK_MATRIX,
        '        if len(arg.shape) != 2:\n            raise self.error(name, "E-DIM-001", f"{name.text} needs a matrix (rank 2)',
        '        if False:\n            raise self.error(name, "E-DIM-001", f"{name.text} needs a matrix (rank 2)',
        "row_sum of a rank-3 tensor compiles (and computes nothing sensible)",
    ),
    Mutation(
        CPP,
        "    return len(t.shape) == 2 and t.element == element_types.F64",
        "    return t.element == element_types.F64",
        "mgc lib declares a rank-3 parameter as an mg::Matrix",
    ),
    Mutation(
        "mg_xdsl/backend/runtime.py",
        "    except BrokenPipeError:\n        # The reader has gone",
        "    except ZeroDivisionError:\n        # The reader has gone",
        "mgc run | head -1 prints a traceback for every print left",
    ),
    Mutation(
        CHECK,
        "                if ptype.shape == ():  # a number is a rank-0 tensor",
        "                if False:  # a number is a rank-0 tensor",
        "a number is refused for a tensor[] parameter",
    ),
    Mutation(
        CHECK,
        'RESERVED = {"main", "malloc", "free", "abort", *element_types.PRINTERS.values()}',
        'RESERVED = {"main", "malloc", "free", "abort", "printMemrefF64"}',
        "a def named printMemrefI64 compiles, and its executable fails to link",
    ),
    # -- element types in the language ---------------------------------------------------------
    Mutation(
        CPP,
        "    return len(t.shape) == 2 and t.element == element_types.F64",
        "    return len(t.shape) == 2",
        "mgc lib declares an i32 parameter as an mg::Matrix of doubles",
    ),
    Mutation(
        CPP,
        "  for (uint8_t &x : b.data) x = x != 0;",
        "  for (uint8_t &x : b.data) x = x;",
        "an i1 argument of 2 reaches the compiled code, which reads it as false",
    ),
    Mutation(
        CPP,
        "      d.sizes[a] = t.shape[a];",
        "      d.sizes[a] = t.shape[N - 1 - a];",
        "a tensor argument's sizes reach the compiled code reversed",
    ),
    Mutation(
        CPP,
        "      bits = static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);",
        "      bits = static_cast<uint16_t>(u >> 16);",
        "mg::bf16 from a float truncates instead of rounding to nearest even",
    ),
    Mutation(RECORDS, 'cpp="uint8_t"', 'cpp="bool"', "an i1 tensor is declared of C++ bool"),
    Mutation(
        MG_SCALAR,
        "    kind: Reduction(_integer_form(op), identity) for kind, (op, identity) in _REDUCTION_KINDS.items()",
        "    kind: Reduction(_integer_form(op), 0.0) for kind, (op, identity) in _REDUCTION_KINDS.items()",
        "every integer reduction starts from 0 (a wrong identity value: the maximum of negatives)",
    ),
    Mutation(
        MG_SCALAR,
        '    cf.AssertOp(arith.CmpiOp(rhs, zero, "ne").result, DIVISION_BY_ZERO)\n',
        "\n",
        "an integer division by zero goes on silently",
    ),
    Mutation(
        MG_SCALAR,
        "    quotient = arith.DivSIOp(lhs, arith.SelectOp(unsafe, one, rhs).result).result",
        "    quotient = arith.FloorDivSIOp(lhs, arith.SelectOp(unsafe, one, rhs).result).result",
        "integer division floors (NumPy's //) instead of truncating toward zero",
    ),
    Mutation(
        MG_SCALAR,
        "        return arith.SIToFPOp(x, to).result",
        "        return arith.UIToFPOp(x, to).result",
        "a cast of a negative integer to a float reads it as unsigned",
    ),
    Mutation(
        MG_ELEMENTWISE,
        "            return arith.SubiOp(constants[0], operands[0]).result",
        "            return arith.SubiOp(operands[0], constants[0]).result",
        "the negation of an integer tensor is x - 0",
    ),
    Mutation(
        MG_SCALAR,
        '"max": (arith.MaximumfOp, arith.MaxSIOp),',
        '"max": (arith.MaximumfOp, arith.MinSIOp),',
        "relu (and maximum) of integers keeps the negative values",
    ),
    Mutation(
        CHECK_ELEMENTWISE,
        "        return TensorType(t.shape, element_types.NAMES[target.tok.text])",
        "        return TensorType(t.shape, t.element)",
        "cast keeps the element type (a dtype in a cast)",
    ),
    Mutation(
        CHECK_TYPES,
        "    if not is_whole(value):",
        "    if False:",
        "2.5 combines with an integer tensor (and is truncated)",
    ),
    Mutation(
        CHECK,
        "        if left.element != right.element:",
        "        if False:",
        "tensors of two element types combine (the IR is then invalid)",
    ),
    Mutation(CHECK, "        if t != declared:", "        if False:", "a declared type that differs is accepted"),
    Mutation(
        "mg_xdsl/api.py",
        "        problem = _conversion_problem(value, a, dtype)",
        "        problem = None",
        "the API rounds float64 arrays to an f32 parameter silently",
    ),
    Mutation(
        "mg_xdsl/conversions/lower_assert_to_stderr.py",
        "        if not isinstance(block.parent.parent_op(), func.FuncOp):",
        "        if False:",
        "a check in a loop's body splits the body's block (affine.for must keep one)",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/convert_gpu_to_nvvm.py",
        "                    _trap_failed_checks(inner)",
        "                    pass",
        "a check in a kernel is left as cf.assert",
    ),
    # -- comparisons, where, '?' growth ----------------------------------------------------------
    Mutation(
        MG_SCALAR,
        '"lt": ("olt", "slt", "ult"),',
        '"lt": ("ult", "slt", "ult"),',
        "x < y is true where either is NaN (an unordered predicate)",
    ),
    Mutation(
        MG_SCALAR,
        '"ne": ("une", "ne", "ne"),',
        '"ne": ("one", "ne", "ne"),',
        "NaN != NaN is false",
    ),
    Mutation(
        GEN,
        "v if isinstance(v, SSAValue) else self.emit(fn, mg.FullLikeOp(mask, v, t.element), tok)",
        "v if isinstance(v, SSAValue) else self.emit(fn, mg.FullLikeOp(mask, 0.0, t.element), tok)",
        "a number in where is always 0",
    ),
    Mutation(
        "mg_xdsl/dialects/mg/structured.py",
        "            if out_shape[d] is None and grows(self, d) and size_source(self, d) is None:",
        "            if False:",
        "mg.broadcast lets a static 1 grow to a '?' that no like operand gives (its size unknown when lowering)",
    ),
    Mutation(
        GEN,
        "        if claimed == have:\n            return v\n",
        "        if True:\n            return v\n",
        "a '?' against a static size is broadcast without claiming that size first",
    ),
    # -- builtins ----------------------------------------------------------------------------------
    Mutation(
        CHECK_REDUCTIONS,
        "            if keepdims\n            else tuple(s for d, s in enumerate(arg.shape) if d not in axes)",
        "            if not keepdims\n            else tuple(s for d, s in enumerate(arg.shape) if d not in axes)",
        "keepdims=true drops the axes and false keeps them (a keepdims shape)",
    ),
    Mutation(
        CHECK_ARGS,
        "            normalised.append(axis % rank)",
        "            normalised.append(abs(axis) % rank)",
        "a negative axis counts from the front",
    ),
    Mutation(
        MG_SCALAR, '"prod": ("mul", 1.0),', '"prod": ("mul", 0.0),', "a product starts from 0 (an identity value)"
    ),
    Mutation(
        MG_SCALAR,
        '"min": ("min", float("inf")),',
        '"min": ("min", 0.0),',
        "the minimum of positive numbers starts from 0",
    ),
    Mutation(
        GEN,
        "            count = math.prod(shape[a] or 1 for a in axes)",
        "            count = 1",
        "mean divides by 1 (a sum)",
    ),
    Mutation(
        MG_SCALAR,
        '"max": (arith.MaximumfOp, arith.MaxSIOp),',
        '"max": (arith.MaxnumfOp, arith.MaxSIOp),',
        "maximum(nan, 1) is 1 (NumPy's is NaN)",
    ),
    Mutation(
        MG_ELEMENTWISE,
        'ExpOp = _math_unary("exp", math.ExpOp,',
        'ExpOp = _math_unary("exp", math.Exp2Op,',
        "exp is 2 to the x",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/convert_math_to_llvm.py",
        '    math.AsinOp: "llvm.asin",',
        '    math.AsinOp: "llvm.acos",',
        "asin calls acos",
    ),
    Mutation(
        MG_COMMON,
        "        return filled(op.result.type, lambda ivs: arith.IndexCastOp(ivs[axis], element).result)",
        "        return filled(op.result.type, lambda ivs: arith.IndexCastOp(ivs[0], element).result)",
        "iota counts along the first axis whatever its axis (a broadcast axis)",
    ),
    Mutation(
        "mg_xdsl/backend/ptx.py",
        "    if not called:\n        return\n",
        "    if True:\n        return\n",
        "mgc ptx of exp leaves libdevice out: the PTX calls __nv_expf, which ptxas cannot find",
    ),
    # -- batched matrix products --------------------------------------------------------------------
    Mutation(
        TO_LINALG,
        "        maps = [AffineMap(rank + 1, 0, (*batch, i, k)), AffineMap(rank + 1, 0, (*batch, k, j))]",
        "        maps = [AffineMap(rank + 1, 0, (*batch, i, k)), AffineMap(rank + 1, 0, (*batch, j, k))]",
        "a batched product reads the right operand transposed",
    ),
    Mutation(
        SH,
        '    batch = broadcast_shapes(lhs[:-2], rhs[:-2], "matrix-multiply")',
        "    batch = tuple(lhs[:-2])",
        "the batch axes of @ do not broadcast (the left operand's are taken)",
    ),
    # -- bf16 ----------------------------------------------------------------------------------------
    Mutation(
        MG_SCALAR,
        "    rounded = arith.AddiOp(arith.AddiOp(bits, _constant(0x7FFF, i32)).result, lowest_kept).result",
        "    rounded = bits",
        "f32 to bf16 truncates instead of rounding to nearest even",
    ),
    Mutation(
        MG_SCALAR,
        "    return arith.BitcastOp(arith.ShLIOp(bits, _constant(16, i32)).result, element_types.F32).result",
        "    return arith.BitcastOp(arith.ShLIOp(bits, _constant(15, i32)).result, element_types.F32).result",
        "a bf16 is widened to the wrong f32",
    ),
    Mutation(
        GEN,
        "        if wide == element:",
        "        if True:",
        "a bf16 product accumulates in bf16 (mg.matmul refuses it)",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        "        return str(bfloat16_bits(value))",
        "        return str(bfloat16_bits(value) ^ 1)",
        "bf16 constants lose their last bit",
    ),
    # -- batched products through the tiled kernel; GPU math through libdevice ----------------------
    Mutation(
        TILE,
        "memref.SubviewOp(\n            v, at, sizes, [],",
        "memref.SubviewOp(\n            v, [at[0]] * len(at), sizes, [],",
        "the matrix at batch index (i, j) is taken from (i, i)",
    ),
    Mutation(
        TILE,
        "        for_loop(b, index(b, 0), size, 1, lambda b, iv, _: nest(b, [*at, iv]) or [])",
        "        for_loop(b, index(b, 1), size, 1, lambda b, iv, _: nest(b, [*at, iv]) or [])",
        "a batched product skips its first matrix",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/finalize_memref_to_llvm.py",
        "            [_as_value(const, sizes[k]) for k in kept],",
        "            [_as_value(const, sizes[k]) for k in range(len(kept))],",
        "a rank-reducing subview keeps the sizes of the dimensions it drops",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/convert_gpu_to_nvvm.py",
        'math.SinOp: "__nv_sin",\n    math.CosOp: "__nv_cos",',
        'math.SinOp: "__nv_cos",\n    math.CosOp: "__nv_sin",',
        "sin on the GPU calls libdevice's cos",
    ),
    Mutation(
        "mg_xdsl/conversions/gpu/convert_gpu_to_nvvm.py",
        '        name += "f" if t == f32 else ""',
        "",
        "an f32 exp on the GPU calls libdevice's f64 __nv_exp",
    ),
    Mutation(
        "mg_xdsl/backend/ptx.py",
        "            if f.sym_name.data in declared:\n                continue",
        "            if False:\n                continue",
        "two kernel modules that call the same libdevice function give PTX that does not parse",
    ),
    # -- element access, rank-0 and lower-rank tensors against '?', compile-time values -------------
    Mutation(
        MG_COMMON,
        "                at.append(index_constant(index % size))",
        "                at.append(index_constant(index))",
        "a negative index into a static dimension is not counted from the end",
    ),
    Mutation(
        MG_COMMON,
        '            inside = arith.CmpiOp(position, size, "ult")',
        '            inside = arith.CmpiOp(position, size, "slt")',
        "a negative position into a '?' dimension passes the run-time check",
    ),
    Mutation(
        CHECK,
        "            if size is not None and not -size <= value < size:",
        "            if size is not None and not -size <= value <= size:",
        "an index one past a static size compiles (and reads past the end)",
    ),
    Mutation(
        GEN,
        "        like = [o for o in others if isinstance(o, SSAValue)] if None in target[:lead] else []",
        "        like = []",
        "a scalar against '?' sizes broadcasts with no size for them",
    ),
    Mutation(
        CHECK_SHAPES,
        "            return math.prod(static)",
        "            return sum(static)",
        "numel adds the sizes",
    ),
    # -- var and updates in place --------------------------------------------------------------
    Mutation(
        GEN,
        "and value not in self.named\n        )",
        "and True\n        )",
        "a let bound to a var's value sees the var's later updates",
    ),
    Mutation(
        FUSE,
        "    if any(_updated_between(base(v), writer, root or consumer) for v in writer.operands[:-1] if base(v) in updated):",
        "    if False:",
        "a value computed from a var before its update is fused after it (reads the new values)",
    ),
    Mutation(
        REUSE,
        "            if written_before(out, generic):",
        "            if False:",
        "a var's buffer, updated in place, is replaced by a dying buffer allocated after it",
    ),
    Mutation(
        BUFFERS,
        "    return op.operands[0] if mg.IN_PLACE in op.attributes else alloc(op.results[0].type, sizes)",
        "    return alloc(op.results[0].type, sizes)",
        "an update in place allocates a new buffer every time",
    ),
    Mutation(CHECK, "        if name not in owner.variables:\n", "        if False:\n", "a let binding can be updated"),
    # -- random numbers (Philox 4x32-10) ----------------------------------------------------------
    Mutation(
        "mg_xdsl/dialects/philox.py",
        "        if r < ROUNDS - 1:",
        "        if False:",
        "Philox never bumps its key between rounds",
    ),
    Mutation(
        "mg_xdsl/dialects/philox.py",
        "    high = arith.ShLIOp(arith.ExtUIOp(w[0], i64).result, _int(21, i64)).result",
        "    high = arith.ShLIOp(arith.ExtUIOp(w[0], i64).result, _int(20, i64)).result",
        "an f64 uniform number overlaps its two words' bits",
    ),
    Mutation(
        "mg_xdsl/dialects/philox.py",
        "    return arith.MulfOp(radius, math.CosOp(angle).result).result",
        "    return arith.MulfOp(radius, math.SinOp(angle).result).result",
        "Box-Muller takes the sine",
    ),
    Mutation(GEN, "        if spread == 0:", "        if False:", "a zero spread still makes a random op"),
    # -- scans ------------------------------------------------------------------------------------
    Mutation(
        MG_STRUCTURED,
        '        return binary_arith("add", binary_arith("mul", a, h), b)',
        '        return binary_arith("add", binary_arith("mul", a, b), h)',
        "a scan multiplies a by b",
    ),
    Mutation(
        MG_COMMON,
        "                t = arith.SubiOp(last, k).result if reverse else k",
        "                t = k",
        "a reversed scan runs forward",
    ),
    Mutation(
        MG_COMMON,
        "        carried = element_types.computed_in(element)",
        "        carried = element",
        "a bf16 scan is carried in bf16",
    ),
    # -- shape operations -------------------------------------------------------------------------
    Mutation(
        AFF,
        "                at[a] = ivs[i]",
        "                at[i] = ivs[a]",
        "a transpose applies the inverse permutation",
    ),
    Mutation(
        MG_COMMON,
        "        at[axis] = arith.AddiOp(ivs[axis], index_constant(start)).result",
        "        at[axis] = ivs[axis]",
        "a slice ignores its start",
    ),
    Mutation(
        SH,
        "    target = [count // known if d == -1 else d for d in written]",
        "    target = [count // known + 1 if d == -1 else d for d in written]",
        "reshape infers the wrong size for -1",
    ),
    Mutation(
        MG_COMMON,
        "            at.append(arith.RemUIOp(position, index_constant(size)).result)",
        "            at.append(arith.DivUIOp(position, index_constant(size)).result)",
        "a reshape reads the wrong digit of the position",
    ),
    Mutation(
        MG_COMMON,
        "                at[axis] = arith.AddiOp(ivs[axis], as_index(offset)).result",
        "                at[axis] = ivs[axis]",
        "concat writes every input at the start of the axis",
    ),
    # -- diagnostics --------------------------------------------------------------------------------
    Mutation(
        "mg_xdsl/language/diagnostics.py",
        "        return f\"{pad}{red}{'^' * max(end - start, 1)}{reset}\"",
        "        return f\"{pad}{red}{'^' * max(end - start - 1, 1)}{reset}\"",
        "the carets stop one short",
    ),
    Mutation(
        CHECK,
        "            at = span if span.line == at.line else at.span",
        "            at = at.span",
        "an error points at its token, not at the expression it names",
    ),
    Mutation(
        CHECK,
        "                self.operands[tok] = [((e.first.start_token, last), t), (extent(right), r)]",
        "                self.operands[tok] = [((e.first.start_token, right), t), (extent(right), r)]",
        "a note quotes the whole chain as the left operand",
    ),
    Mutation(
        "mg_xdsl/tools/mgc.py",
        '    return stream.isatty() and not os.environ.get("NO_COLOR")',
        "    return stream.isatty()",
        "NO_COLOR is ignored",
    ),
    # -- indexing ---------------------------------------------------------------------------------
    Mutation(
        MG_COMMON,
        "    total = op.add(op_builders.memref_load(out, at).res, value)",
        "    total = value",
        "index_add and scatter_add overwrite instead of accumulating",
    ),
    Mutation(
        MG_COMMON,
        '    inside = arith.CmpiOp(position, as_index(size), "ult")',
        '    inside = arith.CmpiOp(position, as_index(size), "ule")',
        "an id equal to the size passes the check",
    ),
    Mutation(
        SH, "    return (*ids, *table[1:])", "    return (*table[1:], *ids)", "index puts a row's axes before the ids'"
    ),
    Mutation(
        "mg_xdsl/backend/runtime_ir.py",
        "  %last = sub i64 %size, 1",
        "  %last = sub i64 %size, 0",
        "a range check's report gives the size as the last id",
    ),
    Mutation(
        CHECK_INDEXING,
        "axis = self.keyword_axis(c, scope, len(x.shape), default=-1)",
        "axis = self.keyword_axis(c, scope, len(x.shape), default=0)",
        "gather and scatter_add default to axis 0",
    ),
    # -- views (slice, transpose, reshape read in place) ----------------------------------------
    Mutation(
        "mg_xdsl/transforms/memref/memref_views.py",
        "        if isinstance(use.operation, VIEW_OPS):\n",
        "        if isinstance(use.operation, memref.CastOp):\n",
        "a buffer is freed before the reads through its views",
    ),
    Mutation(
        REUSE, "    if has_view(buffer):", "    if False:", "a dying buffer that is read through a view is written over"
    ),
    Mutation(
        TO_LINALG,
        "and any(v in updated for v in (op.results[0], *_read_buffers(op)))\n        }",
        "and False\n        }",
        "a view of a var's buffer sees the var's later updates",
    ),
    Mutation(
        TO_LINALG,
        "    return match_product(user) is None or unit_rows(t)",
        "    return True",
        "a transposed view is handed to the matrix-product kernel as it is",
    ),
    Mutation(
        "mg_xdsl/transforms/memref/memref_views.py",
        "            running = arith.MuliOp(as_index(running), as_index(size)).result",
        "            running = as_index(size)",
        "a '?'-sized transpose's strides miss a factor",
    ),
    Mutation(
        TO_LINALG,
        "    if match_reduction(user) is not None:  # (the reduction kernels take memref<?x?xT>)",
        "    if False:",
        "a view is handed to the reduction kernels as it is",
    ),
    # -- messages and the Python API's conversions ------------------------------------------------
    Mutation(
        "mg_xdsl/api.py",
        '        return source.itemsize * 8 - (source.kind == "i") <= _mantissa_bits(target)',
        "        return True",
        "the API converts int64 to f64 with loss (as NumPy's safe casting would)",
    ),
    Mutation(
        MG_SHAPE,
        "        if isinstance(message, StringAttr) and message.data:",
        "        if False:",
        "a '?' passed for a def's static size is reported as mg.cast's check",
    ),
    # -- trust: wrong results and crashes found in review and by the random programs ----------------
    Mutation(
        GEN,
        "        if isinstance(value, SSAValue):\n            self.named.add(value)",
        "        if False:\n            pass",
        "a var made from a let's value shares its buffer, and updating the var changes the let",
    ),
    Mutation(
        TO_LINALG,
        "            if block is None:  # (the walker's dead-code elimination erased it: its reader was dead)",
        "            if False:",
        "a view whose reader is dead is an internal compiler error",
    ),
    Mutation(
        "mg_xdsl/transforms/func/outline_loop_nests.py",
        "    for v in [v for v in returned if isinstance(v.type, UnrankedMemRefType)]:",
        "    for v in []:",
        "a print after 32 loop nests reads a descriptor in a returned function's frame",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        "        return BF16_BITS\n",
        '        return "bfloat"\n',
        "bf16 reaches LLVM as bfloat, whose stores call compiler-rt's __truncsfbf2",
    ),
    Mutation(
        "mg_xdsl/backend/jit.py",
        "    if missing:\n        engine.close()",
        "    if False:\n        engine.close()",
        "code that calls a function nothing provides is loaded, the call going to address 0",
    ),
    Mutation(
        PARSE,
        "        return int(tok.text) if tok.text.isdigit() else value",
        "        return value",
        "integer literals are read as f64 and lose digits beyond 2^53",
    ),
    Mutation(
        FUSE,
        "_updated_between(base(v), writer, root or consumer)",
        "_updated_between(base(v), writer, consumer)",
        "fusion moves an op past an in-place update of its input (found by the random programs)",
    ),
    Mutation(
        GEN,
        "        if len(tensors) == 2:\n            values = shapes.broadcast_shapes(",
        "        if False:\n            values = shapes.broadcast_shapes(",
        "where compares a '?' value with the mask's size, not with the other value's 1 (found by the random programs)",
    ),
    # -- the program features (tests/e2e/test_program_features.py, tests/filecheck/frontend) ------
    Mutation(
        MG_COMMON,
        "            starts = index_constant(max(dim - size + 1, 0))",
        "            starts = index_constant(max(dim - size + 2, 0))",
        "a run-time slice start one past the last that fits a static size passes the range check (reads past the end)",
    ),
    Mutation(
        MG_COMMON,
        "            fitting = arith.SubiOp(dim, index_constant(size - 1)).result",
        "            fitting = arith.SubiOp(dim, index_constant(size - 2)).result",
        "a run-time slice start one past the last that fits a '?' size passes the range check",
    ),
    Mutation(
        MG_SCALAR,
        "        return arith.SelectOp(move, arith.AddiOp(r, rhs).result, r).result",
        "        return r",
        "integer % is C's remainder (the sign of the dividend), not NumPy's (the divisor's)",
    ),
    Mutation(
        MG_SCALAR,
        "    return arith.SelectOp(is_zero, zero_signed_as(rhs), moved).result",
        "    return moved",
        "a float % whose result is zero keeps fmod's sign (4.0 % -2.0 is 0.0, NumPy's -0.0)",
    ),
    Mutation(
        MG_SCALAR,
        "        quotient = arith.SelectOp(down, arith.SubiOp(truncated, one).result, truncated).result",
        "        quotient = truncated",
        "integer // truncates toward zero (-7 // 2 is -3) instead of flooring",
    ),
    Mutation(
        MG_SCALAR,
        "    div = arith.SelectOp(adjust, arith.SubfOp(div, one).result, div).result",
        "    div = div",
        "float // is not adjusted down where the signs differ (-7.5 // 2.0 is -3.0)",
    ),
    Mutation(
        MG_COMMON,
        'arith.CmpfOp(x, x, "uno").result, arith.CmpfOp(best, best, "ord").result',
        'arith.CmpfOp(x, x, "uno").result, arith.CmpfOp(x, x, "uno").result',
        "argmax/argmin take the last NaN, not the first (NumPy's rule)",
    ),
    Mutation(
        MG_COMMON,
        'better = mg.compare("gt" if largest else "lt", x, best)',
        'better = mg.compare("ge" if largest else "le", x, best)',
        "argmax/argmin of tied elements take the last, not the first",
    ),
    Mutation(
        "mg_xdsl/transforms/memref/buffer_deallocation.py",
        "        owned.extend(a for a in block.args[1:] if isinstance(a.type, MemRefType))",
        "        pass",
        "a loop body does not own its iteration arguments: every iteration copies the buffers it "
        "carries (an allocation per iteration, and a leak)",
    ),
    Mutation(
        MG_COMMON,
        "        values = [*op.results, *(op.body.block.args[1:] if isinstance(op, scf.ForOp) else ())]",
        "        values = [*op.results]",
        "a loop's iteration arguments keep their tensor types while its results and yields carry memrefs",
    ),
    Mutation(
        "mg_xdsl/language/checker_blocks.py",
        "        self.carried[s] = list(body.assigned)",
        "        self.carried[s] = list(body.assigned)[:1]",
        "a loop carries only the first var it assigns: the others' new values are lost after it",
    ),
    Mutation(
        MG_COMMON,
        "    to_like = mg.LIKE_SHAPE in op.attributes or any(",
        "    to_like = False and any(",
        "broadcast_to(m, shape(x)) does not check a '?' of m it keeps against x's",
    ),
    # println of a whole tensor (the run-time library's array printer)
    Mutation(
        "mg_xdsl/backend/runtime_print_array_ir.py",
        "  %limit = sub i64 75, %rank",
        "  %limit = sub i64 76, %rank",
        "rows wrap one column later than NumPy's",
    ),
    Mutation(
        "mg_xdsl/backend/runtime_print_array_ir.py",
        "  %summarise = icmp sgt i64 %total, 1000",
        "  %summarise = icmp sgt i64 %total, 2000",
        "arrays of 1001 to 2000 elements print whole, where NumPy summarises them",
    ),
    Mutation(
        "mg_xdsl/backend/runtime_print_array_ir.py",
        "  %wide = fcmp ogt double %ratio, 1000.0",
        "  %wide = fcmp ogt double %ratio, 10000.0",
        "f64 arrays spanning more than 1000 times stay positional where NumPy switches to exponents",
    ),
    # gradients: the chain rule and the ops' rules
    Mutation(
        "mg_xdsl/dialects/mg/reverse_mode.py",
        "adjoints[operand] = d.add(adjoints[operand], adjoint) if operand in adjoints else adjoint",
        "adjoints[operand] = adjoint",
        "a value used twice gets the adjoint of its last use only, not the sum",
    ),
    Mutation(
        "mg_xdsl/dialects/mg/reverse_mode.py",
        "            inputs.extend(v for v in inner.operands if not _inside(op, v))",
        "            pass",
        "a loop that reads a variable only in its body gives a silent zero gradient",
    ),
    Mutation(
        MG_ELEMENTWISE,
        "        share = d.where(tie, d.full_like(g, 0.5), d.full_like(g, 1.0))",
        "        share = d.where(tie, d.full_like(g, 1.0), d.full_like(g, 1.0))",
        "maximum/minimum at a tie give g to both operands, not half to each",
    ),
    Mutation(
        MG_ELEMENTWISE,
        "lambda d, x, y, g: d.mul(g, d.plus(d.neg(d.square(y)), 1.0))",
        "lambda d, x, y, g: d.mul(g, d.plus(d.neg(y), 1.0))",
        "tanh's derivative is 1 - tanh, not 1 - tanh^2",
    ),
    Mutation(
        MG_STRUCTURED,
        "            d.matmul(d.swap_last_two(a), g) if d.active(b) else None,",
        "            d.matmul(d.swap_last_two(a), d.swap_last_two(g)) if d.active(b) else None,",
        "the gradient of B in A @ B is A^T @ g^T (wrong for non-square products)",
    ),
    Mutation(
        MG_STRUCTURED,
        "        return [d.only_where(chosen, d.broadcast_like(d.div(g, count), x))]",
        "        return [d.only_where(chosen, d.broadcast_like(g, x))]",
        "a max/min reduction gives g to every tied element, not an equal share",
    ),
    Mutation(
        "mg_xdsl/dialects/mg/adjoint_builder.py",
        "        axes = [axis for axis in range(len(out)) if axis < added or into[axis - added] == 1 and out[axis] != 1]",
        "        axes = [axis for axis in range(len(out)) if axis < added]",
        "broadcasting's adjoint does not sum over the axes grown from 1",
    ),
    Mutation(
        "mg_xdsl/language/checker_gradients.py",
        "            if item.tok.text not in mentioned:",
        "            if False:",
        "a gradient with respect to a name the expression does not use compiles (to zeros)",
    ),
    Mutation(
        "mg_xdsl/transforms/mg/mg_cse.py",
        "                or (updated and any(r in updated for r in o.results))",
        "                or False",
        "mg-cse merges a value whose buffer a var then updates in place with an equal let",
    ),
    Mutation(
        "mg_xdsl/transforms/mg/mg_cse.py",
        "        return op.has_trait(Pure) or isinstance(op, _VALUE_OPS)",
        "        return True",
        "mg-cse merges ops with effects (two prints, two loads of a file) into one",
    ),
    Mutation(
        "mg_xdsl/transforms/linalg/linalg_fuse_elementwise_ops.py",
        "MATH_COST = 16  # every other math op",
        "MATH_COST = 1  # every other math op",
        "fusion recomputes an exp read by two trees in each of them instead of writing it once",
    ),
    Mutation(
        "mg_xdsl/transforms/math/approximations.py",
        "        r = e.mul_add(n, e.c(-ln2_lo), r)",
        "        r = r",
        "exp's range reduction leaves out ln 2's low part (errors of thousands of ULPs for large x)",
    ),
    Mutation(
        "mg_xdsl/transforms/math/approximations.py",
        '    clamped = e.select(e.cmp("olt", clamped, e.c(lo)), e.c(lo), clamped)',
        "    clamped = clamped",
        "exp of a large negative number is not clamped (garbage instead of 0)",
    ),
    Mutation(
        "mg_xdsl/transforms/linalg/linalg_fuse_rows.py",
        "            if base(operand) in self.written and not by_value:",
        "            if False:",
        "linalg-fuse-rows fuses an op that reads a written result broadcast (row 0 for every row)",
    ),
    Mutation(
        "mg_xdsl/transforms/linalg/vectorize_reductions.py",
        "    return found.axis == 1 and _shape(found.input)[0] == 1 and not isinstance(found.op.parent_op(), func.FuncOp)",
        "    return False",
        "a row reduction in the loop over rows calls the kernel (on a strided view) instead of folding in place",
    ),
    Mutation(
        "mg_xdsl/conversions/convert_linalg_to_affine_loops.py",
        "        min_work = -1 if in_parallel_loop(op) else self.min_parallel_work",
        "        min_work = self.min_parallel_work",
        "an op inside a parallel loop over rows gets parallel loops of its own",
    ),
    Mutation(
        "mg_xdsl/transforms/math/emitter.py",
        "            return self.emit(math.FmaOp(a, b, c))",
        "            return self.add(c, self.mul(a, b))",
        "exp's polynomial is two roundings a step on a CPU with FMA (a chain twice as long)",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "    for_loop(b, grouped, rows, index(b, 1), one_row, short=True)",
        "    for_loop(b, rows, rows, index(b, 1), one_row, short=True)",
        "a row reduction leaves out the rows after its last group of four",
    ),
    Mutation(
        "mg_xdsl/kernels/reductions.py",
        "        members = [add(b, first, index(b, r)) for r in range(rows_at_once)]",
        "        members = [add(b, first, index(b, 0)) for r in range(rows_at_once)]",
        "a row reduction's group folds its first row into every row's cell",
    ),
    Mutation(
        "mg_xdsl/api.py",
        "        malloc_thresholds.settle()\n",
        "",
        "the Python API leaves glibc's malloc to give a call's buffers back to the system",
    ),
    Mutation(
        "mg_xdsl/backend/malloc_thresholds.py",
        "    libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)\n",
        "",
        "malloc's mmap threshold fixed but its trim threshold left at its default",
    ),
    Mutation(
        "mg_xdsl/transforms/linalg/linalg_fuse_rows.py",
        "and all(u.operation in inside for u in out.uses)",
        "and True",
        "linalg-fuse-rows makes a row of scratch of a buffer that is read after the loop",
    ),
    Mutation(
        "mg_xdsl/backend/runtime.c",
        "    mallopt(M_TRIM_THRESHOLD, MG_TRIM_THRESHOLD);\n",
        "",
        "an executable fixes malloc's mmap threshold but leaves its trim threshold at the default",
    ),
    Mutation(
        "mg_xdsl/backend/jit.py",
        "        malloc_thresholds.settle()  # (as an executable's main does: see there)\n",
        "",
        "mgc run leaves glibc's malloc to give a loop's buffers back to the system",
    ),
    Mutation(
        "mg_xdsl/transforms/math/emitter.py",
        "        return self.mul(self.mul_add(q, first, first), second)",
        "        return self.mul(self.float(self.iadd(self.bits(self.add(self.c(1.0), q)), half)), second)",
        "exp scales 1 + q by adding to its exponent field, which makes a NaN with payload bits a number",
    ),
    Mutation(
        "mg_xdsl/transforms/math/emitter.py",
        "        half = self.shl(self.shr(shifted_n, self.i(self.mantissa + 1)), self.i(self.mantissa))",
        "        half = self.i(0)",
        "exp scales by 2^n in one factor (a subnormal result rounds twice; 2^n below the normals is garbage)",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "            if_else(b, full, lambda b: if_else(b, first, lambda b: whole(b, add_old=False), whole), edge)",
        "            if_else(b, full, lambda b: whole(b, add_old=False), edge)",
        "the kernel that stores C stores every block of K products, not only the first (C holds the last block's sums)",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "        if self.overwrite:  # (no block of K products when K is 0: C = 0 then)",
        "        if False:  # (no block of K products when K is 0: C = 0 then)",
        "a product with K = 0 leaves C as malloc gave it instead of zeros",
    ),
    Mutation(
        "mg_xdsl/transforms/linalg/tile_matmul.py",
        "    own_buffer = isinstance(out.owner, memref.AllocOp) and all(",
        "    own_buffer = isinstance(out.owner, memref.AllocOp) or all(",
        "tile-matmul drops C's zero fill though an op between reads C, or writes it through a view",
    ),
    Mutation(
        "mg_xdsl/transforms/func/inline.py",
        '            if name == "main" or len(calls.get(name, ())) != 1:',
        '            if name == "main" or not calls.get(name):',
        "inline copies a def called from several places into the first of them (each copy compiled again)",
    ),
    Mutation(
        "mg_xdsl/dialects/mg/inlining.py",
        "    for arg, value in zip(block.args, call.arguments, strict=True):",
        "    for arg, value in zip(block.args, [*call.arguments[1:], *call.arguments[:1]], strict=True):",
        "an inlined def reads its arguments in the wrong parameters",
    ),
    Mutation(
        "mg_xdsl/backend/kernel_library.py",
        "    obj = store.load(key)[0] if store else None\n    if obj is None:\n        # Plain external",
        "    obj = None\n    if obj is None:\n        # Plain external",
        "the run-time library's core and the thread pool are compiled in every process, never loaded from the disk cache",
    ),
    Mutation(
        "mg_xdsl/api.py",
        '            ctypes.c_int64.from_address(runtime_global("mgrt_guard_key")).value = _guard_key()',
        '            ctypes.c_int64.from_address(runtime_global("mgrt_guard_key")).value = -1',
        "a library's failed check finds no failure record and aborts the process instead of raising",
    ),
    Mutation(
        "mg_xdsl/conversions/to_llvm/finalize_memref_to_llvm.py",
        "            known += value * stride",
        "            known += value",
        "a constant index's term leaves out its stride (x[1, j] reads x[0, j + 1])",
    ),
    Mutation(
        "mg_xdsl/backend/jit.py",
        "            if exports is not None:\n                for function in module.functions:",
        "            if False:\n                for function in module.functions:",
        "a library exports every function, so LLVM compiles a def's body alone, in its C interface and in its guard",
    ),
    Mutation(
        "mg_xdsl/transforms/func/inline.py",
        '            if program or defs[name].sym_visibility == StringAttr("private"):',
        "            if program:",
        "inline keeps a private def it has inlined, so the Python API compiles the attention's softmax twice",
    ),
    Mutation(
        "mg_xdsl/api.py",
        "            rest = [name for name in self._functions if not self._address(name)]",
        "            rest = [name for name in self._functions if not self._address(name)][:1]",
        "a called def's first call compiles only itself, not the others of its kind: a compile for each",
    ),
    Mutation(
        "mg_xdsl/driver.py",
        "        elif name not in exports:\n            f.sym_visibility",
        "        elif False:\n            f.sym_visibility",
        "a library's called defs stay public: the Python API compiles each one again beside its inlined copy",
    ),
    Mutation(
        "mg_xdsl/support/loop_builders.py",
        "    if as_written or (short and (constant_value(lb) is None or constant_value(ub) is None)):",
        "    if short and (constant_value(lb) is None or constant_value(ub) is None):",
        "a row maximum's exact second pass and a sum's last whole vectors lose their hint: LLVM vectorizes and unrolls them",
    ),
    Mutation(
        "mg_xdsl/backend/cache.py",
        "            if count + 1 <= MAX_ENTRIES and total + added <= MAX_BYTES:",
        "            if True:",
        "a process that stores many entries never looks at the cache again: it grows past its limits",
    ),
    Mutation(
        "mg_xdsl/api.py",
        "    comp.timed(LLVM_STEP, time.perf_counter() - start)",
        "    pass",
        "the Python API's compile does not say how long LLVM took: compile_vs_jax.py cannot split mg's time",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "if_else(b, deep, lambda b: self.prefetch_c(b, row0, col0), lambda b: None)",
        "self.prefetch_c(b, row0, col0)",
        "the matrix product prefetches C before a micro-kernel however short its block of products",
    ),
    Mutation(
        LOOPS,
        "                if base(value) == base(out) and (value != out or m != out_map):",
        "                if value == out and m != out_map:",
        "a loop that reads a view of the buffer it writes is marked mg.parallel_accesses: LLVM may"
        " vectorise it as if the two never overlapped (a silent wrong answer)",
    ),
    Mutation(
        LOOPS,
        "    if not all(any(isinstance(e, AffineDimExpr) and e.position == loop for e in m.results) for _, m in outputs):",
        "    if False:",
        "a loop whose iterations all write one cell is marked mg.parallel_accesses",
    ),
    Mutation(
        "mg_xdsl/dialects/llvm_loop_annotation.py",
        "        lowered.attributes[PARALLEL_ACCESSES] = loop.attributes[PARALLEL_ACCESSES]",
        "        pass",
        "lower-affine and convert-parallel-loops-to-threads drop a loop's mg.parallel_accesses:"
        " LLVM checks its pointers for overlap at run time again",
    ),
    Mutation(
        REUSE,
        "    for reader in aliases(buffer):",
        "    for reader in (use.operation for use in buffer.uses):",
        "a buffer read later only through a cast made before is written over: the later read sees"
        " the new values (a silent wrong answer)",
    ),
    Mutation(
        "mg_xdsl/backend/llvm_ir.py",
        """                elif group and kind in (llvm.LoadOp, llvm.StoreOp):""",
        """                elif group and kind is llvm.StoreOp:""",
        "a parallel loop's loads are left out of its access group: LLVM ignores the loop's mark",
    ),
    Mutation(
        "mg_xdsl/backend/jit.py",
        "    return target_machine(cpu, opt)\n",
        "    return target_machine(cpu, opt if opt == 0 else 1)\n",
        "the shared code generator makes code at another optimisation level than the one asked for",
    ),
    Mutation(
        "mg_xdsl/support/collector.py",
        "        if was_enabled:\n            gc.enable()",
        "        gc.enable()",
        "a caller that had turned the garbage collector off finds it on again after a compilation",
    ),
    Mutation(
        "mg_xdsl/backend/parallel_codegen.py",
        """        rest.append(f"declare void @{starts[at]}(ptr, i64, i64)")""",
        """        pass""",
        "the thread-pool bodies cut out of a library's module are not declared in what is left",
    ),
    Mutation(
        "mg_xdsl/backend/parallel_codegen.py",
        "            if not function.is_declaration and function.name not in names:",
        "            if not function.is_declaration:",
        "the bodies compiled on the second thread are internal to their object: the entry cannot call them",
    ),
    Mutation(
        "mg_xdsl/backend/parallel_codegen.py",
        "    if any(not re.match(",
        "    if False and any(not re.match(",
        "a body that writes a global is cut out with a copy of it: the two halves see two variables",
    ),
    Mutation(
        "mg_xdsl/api.py",
        "        with _COMPILING:\n",
        "        if True:\n",
        "two Python threads compile at once: the passes' shared state breaks both",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "        high = [x for i in range(half, S) for x in (i, S + i)]",
        "        high = [x for i in range(half) for x in (i, S + i)]",
        "A's panels are packed with the first half of each step's k in place of the second",
    ),
    Mutation(
        "mg_xdsl/kernels/matmul.py",
        "                for_loop(b, whole_k, kc, 1, column, short=step is not None)",
        "                for_loop(b, whole_k, whole_k, 1, column, short=step is not None)",
        "the k after A's last whole step are left out of its packed panels",
    ),
]
