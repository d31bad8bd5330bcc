// Every mg op rejects tensors of an element type that its lowering does not handle (all but
// f32 and f64), in an operand or in its result, with the rule
// (mg_xdsl/element_types.py), instead of a crash in lower-mg-to-affine or arith.addf on i32.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x2xi32>
%r = mg.add %x, %x : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
// CHECK: mg.add: element type must be f32 or f64, got i32

// -----
%x = "test.op"() : () -> tensor<2x2xi32>
%r = mg.relu %x : tensor<2x2xi32> -> tensor<2x2xi32>
// CHECK: mg.relu: element type must be f32 or f64, got i32

// -----
%x = "test.op"() : () -> tensor<2x2xi16>
%r = mg.neg %x : tensor<2x2xi16> -> tensor<2x2xi16>
// CHECK: mg.neg: element type must be f32 or f64, got i16

// -----
%x = "test.op"() : () -> tensor<2x2xi32>
%r = mg.scalar %x {op = "mul", value = 2.0 : f64, reversed = false} : tensor<2x2xi32> -> tensor<2x2xi32>
// CHECK: mg.scalar: element type must be f32 or f64, got i32

// -----
%x = "test.op"() : () -> tensor<2x2xi32>
%r = mg.matmul %x, %x : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
// CHECK: mg.matmul: element type must be f32 or f64, got i32

// -----
%x = "test.op"() : () -> tensor<2x3xi64>
%r = mg.transpose %x : tensor<2x3xi64> to tensor<3x2xi64>
// CHECK: mg.transpose: element type must be f32 or f64, got i64

// -----
%x = "test.op"() : () -> tensor<2x3xi64>
%r = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<2x3xi64> -> tensor<2x1xi64>
// CHECK: mg.reduce: element type must be f32 or f64, got i64

// -----
%x = "test.op"() : () -> tensor<1x3xi1>
%r = mg.broadcast %x : tensor<1x3xi1> -> tensor<2x3xi1>
// CHECK: mg.broadcast: element type must be f32 or f64, got i1

// -----
%x = "test.op"() : () -> tensor<2x3xi8>
%r = mg.cast %x : tensor<2x3xi8> to tensor<?x?xi8>
// CHECK: mg.cast: element type must be f32 or f64, got i8

// -----
// mg.print calls printMemrefF32 or printMemrefF64.
%x = "test.op"() : () -> tensor<2x3xi32>
mg.print %x : tensor<2x3xi32>
// CHECK: mg.print: element type must be f32 or f64, got i32

// -----
%r = mg.constant dense<[[1, 2]]> : tensor<1x2xi32>
// CHECK: mg.constant: element type must be f32 or f64, got i32

// -----
// The result alone may carry the type no lowering handles.
%x = "test.op"() : () -> tensor<2x2xf64>
%r = mg.relu %x : tensor<2x2xf64> -> tensor<2x2xi32>
// CHECK: mg.relu: element type must be f32 or f64, got i32

// -----
// f16 and bf16 are not lowered yet (the matrix product's f16 kernel, the LLVM IR printer).
%x = "test.op"() : () -> tensor<2x2xf16>
%r = mg.matmul %x, %x : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf16>
// CHECK: mg.matmul: element type must be f32 or f64, got f16

// -----
%x = "test.op"() : () -> tensor<2x2xbf16>
%r = mg.add %x, %x : tensor<2x2xbf16>, tensor<2x2xbf16> -> tensor<2x2xbf16>
// CHECK: mg.add: element type must be f32 or f64, got bf16

// -----
// Nor complex numbers (no lowering builds complex arithmetic).
%x = "test.op"() : () -> tensor<2x2xcomplex<f64>>
%r = mg.sub %x, %x : tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>> -> tensor<2x2xcomplex<f64>>
// CHECK: mg.sub: element type must be f32 or f64, got complex<f64>
