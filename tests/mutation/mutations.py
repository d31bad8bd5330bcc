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


FE, SH, MG = "mg_xdsl/frontend.py", "mg_xdsl/shapes.py", "mg_xdsl/dialects/mg.py"
AFF = "mg_xdsl/transforms/lower_mg_to_affine.py"

MUTATIONS = [
    # -- the chapter's front-end mutations --------------------------------------------------
    Mutation(FE, 'f"{side}_{kind}": (1 if side == "row" else 0, kind)',
             'f"{side}_{kind}": (0 if side == "row" else 1, kind)',
             "row_* and col_* use the opposite axis"),
    Mutation(FE, "count = float(arg.shape[axis])", "count = float(arg.shape[1 - axis])",
             "mean divides by the wrong dimension's count"),
    Mutation(FE, "return Tensor(self.emit(mg.ReluOp(arg.value), name), arg.shape)",
             "return Tensor(self.emit(mg.NegOp(arg.value), name), arg.shape)",
             "relu is emitted as negation"),
    Mutation(SH, "        elif a == 1:\n            out.append(b)", "        elif False:\n            out.append(b)",
             "a size-1 left operand is not broadcast"),
    Mutation(SH, "        elif b == 1:\n            out.append(a)", "        elif b == 1 and 1 not in a_dims:\n            out.append(a)",
             "a 1x1 (all-ones) right operand is never broadcast"),
    # -- the chapter's lowering mutations ---------------------------------------------------
    Mutation(AFF, 'START = {"sum": 0.0, "max": float("-inf")}', 'START = {"sum": 0.0, "max": 0.0}',
             "max reduction starts at 0 instead of -infinity"),
    Mutation(AFF, "return arith.MaximumfOp(x, zero).result", "return arith.MaximumfOp(x, x).result",
             "relu does not clamp (max of x with itself)"),
    Mutation(AFF, "src = [zero if size == 1 and out_shape[lead + d] != 1 else ivs[lead + d]",
             "src = [zero if in_shape[len(in_shape) - 1 - d] == 1 and out_shape[lead + d] != 1 else ivs[lead + d]",
             "broadcast reads index 0 of the wrong dimension"),
    Mutation(AFF, "dst = [zero if d == axis else iv for d, iv in enumerate(ivs)]",
             "dst = [zero, ivs[0]] if axis == 1 else [zero if d == axis else iv for d, iv in enumerate(ivs)]",
             "reduce over axis 1 writes into the wrong cell (the equivalent mutant)"),
    Mutation(AFF, "lhs, rhs = (number, x) if op.reversed.value.data else (x, number)", "lhs, rhs = (x, number)",
             "a number on the left (2 - a) is applied on the right"),
    # -- front end ----------------------------------------------------------------------------
    Mutation(FE, "            left = self.binary(tok, left, self.term())",
             "            left = self.binary(tok, left, self.expr())",
             "+ and - associate to the right"),
    Mutation(FE, '    if op == "-":\n        return a - b', '    if op == "-":\n        return b - a',
             "folding two numbers subtracts the wrong way round"),
    Mutation(FE, "            if not shapes.shapes_compatible(arg.shape, pshape):",
             "            if False:", "a call accepts an argument of the wrong static shape"),
    # -- shape rules and verifiers -----------------------------------------------------------
    Mutation(SH, 'raise ShapeError(f"axis must be {allowed}, got {axis}")',
             'raise ShapeError(f"axis must be {allowed}")', "the axis verifier's message loses the value"),
    Mutation(MG, "        if self.kind.data not in REDUCE_KINDS:", "        if False:",
             "mg.reduce accepts any kind"),
    Mutation(SH, "        if not dims_compatible(a, t) and a != 1:\n            return d",
             "        if not dims_compatible(a, t) and a != 1 and False:\n            return d",
             "mg.broadcast accepts a dimension that cannot grow"),
    Mutation(SH, "    if not dims_compatible(lhs[1], rhs[0]):", "    if False:",
             "@ accepts mismatched inner dimensions"),
    # -- lowerings ----------------------------------------------------------------------------
    Mutation(AFF, "product = arith.MulfOp(load(op.lhs, [i, kk]), load(op.rhs, [kk, j]))",
             "product = arith.MulfOp(load(op.lhs, [i, kk]), load(op.rhs, [j, kk]))",
             "matmul reads the right operand transposed"),
    Mutation(AFF, "nest(sizes, lambda ivs: store(load(op.input, list(reversed(ivs))), out, ivs))",
             "nest(sizes, lambda ivs: store(load(op.input, ivs), out, ivs))", "transpose copies"),
    Mutation(AFF, 'ARITH = {mg.AddOp: "add", mg.SubOp: "sub"', 'ARITH = {mg.AddOp: "add", mg.SubOp: "add"',
             "subtraction lowers to addition"),
    Mutation("mg_xdsl/transforms/lower_affine.py", "    dims, symbols = operands[: map.num_dims], operands[map.num_dims :]",
             "    dims, symbols = operands[: map.num_dims], operands[: map.num_dims]",
             "lower-affine reads symbols from the dimension operands"),
    # -- LLVM-dialect conversions -----------------------------------------------------------
    Mutation("mg_xdsl/transforms/convert_arith_to_llvm.py", 'arith.MaximumfOp: "llvm.maximum",',
             'arith.MaximumfOp: "llvm.maxnum",', "maximumf becomes the NaN-ignoring maxnum"),
    Mutation("mg_xdsl/transforms/finalize_memref_to_llvm.py", "            term = _mul(rewriter, index, const(stride))",
             "            term = _mul(rewriter, index, const(stride - 1))", "a static stride is off by one in address arithmetic"),
    Mutation("mg_xdsl/transforms/finalize_memref_to_llvm.py", "            nbytes = _mul(rewriter, count, const(element_bytes))",
             "            nbytes = _mul(rewriter, count, const(element_bytes // 2))", "a dynamic malloc is half the size it needs"),
    Mutation("mg_xdsl/transforms/convert_cf_to_llvm.py",
             "llvm.CondBrOp(op.cond, op.then_block, then_args, op.else_block, else_args)",
             "llvm.CondBrOp(op.cond, op.else_block, else_args, op.then_block, then_args)",
             "a conditional branch goes the wrong way"),
    # -- the run-time printer ---------------------------------------------------------------
    Mutation("mg_xdsl/backend/runtime.py", '                out.append(", ")', '                out.append(",")',
             "the printer drops the space after a comma"),
    Mutation("mg_xdsl/backend/runtime.py", '    return "%g" % x', '    return "%.5g" % x', "the printer shows 5 digits"),
    Mutation("mg_xdsl/backend/runtime.c", '    printf("%g", x);', '    printf("%.5g", x);',
             "executables print 5 digits"),
    # -- run-time checks ------------------------------------------------------------------------
    Mutation(AFF, 'check_same_size(a, b, f"{op_name}: operand shapes differ at runtime in dimension {d}")',
             'check_same_size(a, b, f"{op_name}: operand shapes differ at runtime in dimension {d + 1}")',
             "the run-time check names the wrong dimension"),
    Mutation(AFF, '    same = arith.CmpiOp(as_index(a), as_index(b), "eq")', '    same = arith.CmpiOp(as_index(a), as_index(b), "sle")',
             "the run-time check lets a smaller size through"),
    Mutation("mg_xdsl/transforms/lower_assert_to_stderr.py", "cf.ConditionalBranchOp(op.arg, rest, [], failed, [])",
             "cf.ConditionalBranchOp(op.arg, failed, [], rest, [])", "a check fails when the sizes agree"),
    Mutation("mg_xdsl/backend/runtime_ir.py", "%w1 = call i64 @write(i32 2, ptr %msg, i64 %n)",
             "%w1 = call i64 @write(i32 1, ptr %msg, i64 %n)", "a failed check reports on stdout"),
    # -- deallocation ---------------------------------------------------------------------------
    Mutation("mg_xdsl/transforms/buffer_deallocation.py",
             "        Rewriter.insert_op(memref.DeallocOp.get(buffer), InsertPoint.after(last))", "        pass",
             "no buffer is ever freed"),
    Mutation("mg_xdsl/transforms/buffer_deallocation.py", "last = max(users, key=position.__getitem__)",
             "last = min(users, key=position.__getitem__)", "a buffer is freed after its first use, not its last"),
    Mutation("mg_xdsl/transforms/buffer_deallocation.py", "            if isinstance(value.type, MemRefType) and root(value) not in owned:",
             "            if False:", "a function returns its parameter, which the caller then frees"),
    # -- GPU mapping ------------------------------------------------------------------------------
    Mutation("mg_xdsl/transforms/affine_parallelize.py", "            if idx is None or iv not in idx:\n                return False",
             "            if idx is None:\n                return False", "a reduction's accumulation loop is made parallel"),
    Mutation("mg_xdsl/transforms/convert_parallel_loops_to_gpu.py", "THREADS_PER_BLOCK = 256", "THREADS_PER_BLOCK = 1",
             "one thread per block"),
    Mutation("mg_xdsl/transforms/convert_gpu_to_nvvm.py", '_SREG = {gpu.ThreadIdOp: "tid", gpu.BlockIdOp: "ctaid"',
             '_SREG = {gpu.ThreadIdOp: "ctaid", gpu.BlockIdOp: "tid"', "thread and block ids are swapped"),
    # -- GPU launching --------------------------------------------------------------------------
    Mutation("mg_xdsl/backend/gpu_runtime.py", "                if written and device_ptr[host]:",
             "                if False and device_ptr[host]:", "results never come back from the device"),
    Mutation("mg_xdsl/transforms/gpu_kernel_outlining.py", "    written = [k for k, a in enumerate(entry.args) if a in stored]",
             "    written = [k for k, a in enumerate(entry.args) if a not in stored]",
             "the buffers a kernel only reads are copied back instead of those it writes"),
    Mutation("mg_xdsl/transforms/gpu_to_runtime_calls.py", 'ok = b.insert(arith.CmpiOp(call.results[0], zero.result, "eq"))',
             'ok = b.insert(arith.CmpiOp(call.results[0], zero.result, "ne"))', "a successful launch counts as a failure"),
    Mutation("mg_xdsl/transforms/affine_parallelize.py", "DenseArrayBase.from_list(i32, [len(lbo), len(ubo), 0])",
             "DenseArrayBase.from_list(i32, [len(lbo), len(ubo) * 0, 0])", "an interchanged loop loses its bound operand's group size"),
    # -- the optimised pipeline -------------------------------------------------------------------
    Mutation(SH, "    return tuple(a == 1 and target[lead + d] != 1 for d, a in enumerate(shape))",
             "    return tuple(a == 1 and target[lead + d] != 1 and d == 0 for d, a in enumerate(shape))",
             "a fused broadcast of a column reads past it instead of index 0"),
    Mutation(AFF, "        if user is None or (user is not op and not user.is_before_in_block(op)):\n            return False",
             "        if user is None:\n            return False",
             "a fused op overwrites a buffer that is used again later"),
    Mutation("mg_xdsl/transforms/mg_fuse_elementwise_ops.py", "            if lhs is rhs and op.lhs.type == op.rhs.type:\n                continue",
             "            if True:\n                continue", "fusion drops the run-time size checks"),
    Mutation("mg_xdsl/transforms/vectorize_reductions.py", "(total,) = for_loop(b, vector_end, cols, index(b, 1), one, [reduced])",
             "(total,) = for_loop(b, cols, cols, index(b, 1), one, [reduced])", "a row reduction skips the last elements"),
    Mutation("mg_xdsl/transforms/vectorize_reductions.py", "for_loop(b, index(b, 0), blocks, index(b, 1), total)",
             "for_loop(b, index(b, 0), index(b, 1), index(b, 1), total)", "a column reduction keeps only its first row block"),
    Mutation("mg_xdsl/transforms/tile_matmul.py", "full = b.insert(arith.AndIOp(full_rows, full_cols)).result",
             "full = b.insert(arith.OrIOp(full_rows, full_cols)).result", "a matmul's edge block is written whole, past C's edge"),
    Mutation("mg_xdsl/transforms/tile_matmul.py", "out.append(b.insert(vector.FMAOp(splat, col, acc[r * len(columns) + q])).res)",
             "out.append(b.insert(vector.FMAOp(splat, col, acc[q * MR + r])).res)", "the micro-kernel mixes up its sums"),
    Mutation("mg_xdsl/transforms/tile_matmul.py", "kc = minimum(b, index(b, KC), sub(b, self.k, pc))",
             "kc = index(b, KC)", "the last block of products runs past K"),
    Mutation("mg_xdsl/transforms/convert_parallel_loops_to_threads.py", "    b.insert(scf.ForOp(lo, hi, one, [], body))",
             "    b.insert(scf.ForOp(lo, hi, hi, [], body))", "a thread runs only the first iteration of its chunk"),
    Mutation("mg_xdsl/backend/threads_ir.py", "%min = call i64 @llvm.smax.i64(i64 %min_chunk, i64 1)",
             "%min = call i64 @llvm.smax.i64(i64 %min_chunk, i64 1000000000)", "the thread pool never splits a loop"),
    Mutation("mg_xdsl/transforms/convert_vector_to_llvm.py", "mask = DenseArrayBase.from_list(i32, [0] * t.get_shape()[0])",
             "mask = DenseArrayBase.from_list(i32, list(range(t.get_shape()[0])))", "a vector broadcast fills only lane 0"),
    # -- issue 12: robustness -----------------------------------------------------------------------
    Mutation(AFF, "    lhs_sizes = extents(lhs, shape_of(lhs_type or lhs.type))\n    rhs_sizes = extents(rhs, shape_of(rhs_type or rhs.type))",
             "    lhs_sizes = extents(lhs, shape_of(lhs.type))\n    rhs_sizes = extents(rhs, shape_of(rhs.type))",
             "a fused check reads a broadcast leaf's sizes instead of its operand's (a false abort)"),
    Mutation("mg_xdsl/xdsl_compat.py", "    parent.insert_block_after(b, self)", "    parent.insert_block_before(b, self)",
             "splitting a block puts the second half before the first"),
    Mutation("mg_xdsl/xdsl_compat.py", "    _verifying.counts = {} if outer[0] is None else outer[0]",
             "    _verifying.counts = outer[0]", "verification walks the blocks of a region for every block again"),
    Mutation("mg_xdsl/backend/runtime_ir.py", "  br i1 %failed, label %no_memory, label %done",
             "  br i1 false, label %no_memory, label %done", "a failed allocation hands the compiled code a null pointer"),
    Mutation("mg_xdsl/cli.py", '"backend": args.backend, "path": args.file}', '"backend": args.backend}',
             "a cached program reports a failed check at the path of another copy"),
    # -- issue 13: compile time ---------------------------------------------------------------------
    Mutation("mg_xdsl/transforms/outline_loop_nests.py", "    returned = [r for op in ops for r in op.results\n                if any(use.operation not in moved for use in r.uses)]",
             "    returned: list[SSAValue] = []", "an outlined run of loop nests does not return the buffers used after it"),
    Mutation("mg_xdsl/transforms/vectorize_reductions.py", "    if nest.axis == 1 and isinstance(cols, int) and cols < LANES * ACCUMULATORS:",
             "    if False:", "a row reduction with rows shorter than one vector step is vectorised"),
    Mutation("mg_xdsl/driver.py", "verify_result=self.verify_each or (verify and s is stages[-1]))",
             "verify_result=self.verify_each)", "the IR that mgc mlir prints is not verified unless asked to verify every stage"),
    Mutation("mg_xdsl/transforms/tile_matmul.py", "for v, d in ((a, zero), (a, one), (b_, one)))",
             "for v, d in ((a, zero), (a, one), (a, one)))", "the shared matmul kernel takes C's columns from A's"),
]
