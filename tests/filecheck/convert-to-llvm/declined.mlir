// Inputs the LLVM-layer passes cannot convert are declined with one line naming the pass,
// the op, the type and the reason, and the module is left as it was.

// RUN: not mg-opt %s -p finalize-memref-to-llvm 2>&1 | filecheck %s --check-prefix=MEMREF
// MEMREF: mg-opt: error: finalize-memref-to-llvm: memref.alloc on memref<4000000000x4000000000xf64> is not supported: its size in bytes does not fit in i64
// MEMREF-NOT: Traceback

// RUN: not mg-opt %s -p convert-arith-to-llvm 2>&1 | filecheck %s --check-prefix=ARITH
// ARITH: mg-opt: error: convert-arith-to-llvm: arith.cmpf on f4E2M1FN is not supported: LLVM has no f4E2M1FN type
// ARITH-NOT: Traceback

// RUN: not mg-opt %s -p convert-func-to-llvm 2>&1 | filecheck %s --check-prefix=FUNC
// FUNC: mg-opt: error: convert-func-to-llvm: func.func on memref<32xf32, 5 : i64> is not supported: memory spaces (LLVM address spaces) are not supported
// FUNC-NOT: Traceback

func.func private @in_space_5(memref<32xf32, 5>)

func.func @huge() {
  %a = memref.alloc() : memref<4000000000x4000000000xf64>
  return
}

func.func @tiny_float(%a: f4E2M1FN, %b: f4E2M1FN) -> i1 {
  %c = arith.cmpf oeq, %a, %b : f4E2M1FN
  return %c : i1
}
