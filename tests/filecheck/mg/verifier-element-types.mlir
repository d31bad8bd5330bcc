// Every mg op rejects tensors of an element type that its lowering does not handle (all but
// f32, f64, i32 and i64; the ops that move, compare or convert elements take i1 too), in an
// operand or in its result, with the rule
// (mg_xdsl/core/element_types.py), instead of a crash in lower-mg-to-affine or arith.addi on i16.
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> tensor<2x2xi16>
%r = mg.add %x, %x : tensor<2x2xi16>, tensor<2x2xi16> -> tensor<2x2xi16>
// CHECK: mg.add: element type must be f32, f64, bf16, i32 or i64, got i16

// -----
%x = "test.op"() : () -> tensor<2x2xi16>
%r = mg.relu %x : tensor<2x2xi16> -> tensor<2x2xi16>
// CHECK: mg.relu: element type must be f32, f64, bf16, i32 or i64, got i16

// -----
%x = "test.op"() : () -> tensor<2x2xi16>
%r = mg.neg %x : tensor<2x2xi16> -> tensor<2x2xi16>
// CHECK: mg.neg: element type must be f32, f64, bf16, i32 or i64, got i16

// -----
%x = "test.op"() : () -> tensor<2x2xi16>
%r = mg.scalar %x {op = "mul", value = 2 : i16, reversed = false} : tensor<2x2xi16> -> tensor<2x2xi16>
// CHECK: mg.scalar: element type must be f32, f64, bf16, i32, i64 or i1, got i16

// -----
%x = "test.op"() : () -> tensor<2x2xi16>
%r = mg.matmul %x, %x : tensor<2x2xi16>, tensor<2x2xi16> -> tensor<2x2xi16>
// CHECK: mg.matmul: element type must be f32, f64, i32 or i64, got i16

// -----
%x = "test.op"() : () -> tensor<2x3xi8>
%r = mg.transpose %x : tensor<2x3xi8> to tensor<3x2xi8>
// CHECK: mg.transpose: element type must be f32, f64, bf16, i32, i64 or i1, got i8

// -----
%x = "test.op"() : () -> tensor<2x3xi8>
%r = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<2x3xi8> -> tensor<2x1xi8>
// CHECK: mg.reduce: element type must be f32, f64, i32 or i64, got i8

// -----
%x = "test.op"() : () -> tensor<1x3xi8>
%r = mg.broadcast %x : tensor<1x3xi8> -> tensor<2x3xi8>
// CHECK: mg.broadcast: element type must be f32, f64, bf16, i32, i64 or i1, got i8

// -----
%x = "test.op"() : () -> tensor<2x3xi8>
%r = mg.cast %x : tensor<2x3xi8> to tensor<?x?xi8>
// CHECK: mg.cast: element type must be f32, f64, bf16, i32, i64 or i1, got i8

// -----
// mg.print calls printMemrefF32, printMemrefF64, printMemrefI32 or printMemrefI64.
%x = "test.op"() : () -> tensor<2x3xi16>
mg.print %x : tensor<2x3xi16>
// CHECK: mg.print: element type must be f32, f64, i32 or i64, got i16

// -----
%r = mg.constant dense<[[1, 2]]> : tensor<1x2xi16>
// CHECK: mg.constant: element type must be f32, f64, bf16, i32, i64 or i1, got i16

// -----
// The result alone may carry the type no lowering handles.
%x = "test.op"() : () -> tensor<2x2xf64>
%r = mg.relu %x : tensor<2x2xf64> -> tensor<2x2xi16>
// CHECK: mg.relu: element type must be f32, f64, bf16, i32 or i64, got i16

// -----
// f16 is not lowered (the matrix product's f16 kernel crashes); a product or a reduction of
// bf16 is written on f32 by the front end (it accumulates in f32), and bf16 prints as f32.
%x = "test.op"() : () -> tensor<2x2xf16>
%r = mg.matmul %x, %x : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf16>
// CHECK: mg.matmul: element type must be f32, f64, i32 or i64, got f16

// -----
%x = "test.op"() : () -> tensor<2x2xbf16>
%r = mg.matmul %x, %x : tensor<2x2xbf16>, tensor<2x2xbf16> -> tensor<2x2xbf16>
// CHECK: mg.matmul: element type must be f32, f64, i32 or i64, got bf16

// -----
%x = "test.op"() : () -> tensor<2x2xbf16>
%r = mg.reduce %x {axis = 1 : i64, kind = "sum"} : tensor<2x2xbf16> -> tensor<2x1xbf16>
// CHECK: mg.reduce: element type must be f32, f64, i32 or i64, got bf16

// -----
%x = "test.op"() : () -> tensor<2x2xbf16>
mg.print %x : tensor<2x2xbf16>
// CHECK: mg.print: element type must be f32, f64, i32 or i64, got bf16

// -----
// Nor complex numbers (no lowering builds complex arithmetic).
%x = "test.op"() : () -> tensor<2x2xcomplex<f64>>
%r = mg.sub %x, %x : tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>> -> tensor<2x2xcomplex<f64>>
// CHECK: mg.sub: element type must be f32, f64, bf16, i32 or i64, got complex<f64>

// -----
// mg.scalar's number is of the tensor's element type.
%x = "test.op"() : () -> tensor<2x2xi32>
%r = mg.scalar %x {op = "mul", value = 2.0 : f64, reversed = false} : tensor<2x2xi32> -> tensor<2x2xi32>
// CHECK: mg.scalar: the number must be of the tensor's element type i32, got f64

// -----
// mg.convert changes the element type, never the shape.
%x = "test.op"() : () -> tensor<2x3xi32>
%r = mg.convert %x : tensor<2x3xi32> to tensor<3x2xf32>
// CHECK: mg.convert: operand and result shapes must agree (a '?' dimension matches any size), got 2x3, 3x2

// -----
%x = "test.op"() : () -> tensor<2x3xi32>
%r = mg.convert %x : tensor<2x3xi32> to tensor<2x3xi16>
// CHECK: mg.convert: element type must be f32, f64, bf16, i32, i64 or i1, got i16
