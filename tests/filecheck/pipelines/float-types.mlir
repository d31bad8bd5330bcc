// Every element type the mg dialect accepts for arithmetic (mg_xdsl/core/element_types.py:
// f32, f64) goes through the whole CPU pipeline to the LLVM dialect, every op, the matrix
// product's kernel and the reductions' included, and mlir-opt-22 accepts the result.
// (tests/unit/dialects/test_element_types.py runs the f32 code against NumPy.)
// RUN: mg-opt %s -p mg-cpu-pipeline | filecheck %s
// RUN: mg-opt %s -p mg-reference-pipeline | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p mg-cpu-pipeline | mlir-opt-22 | filecheck %s %}

func.func @f_f32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %s: tensor<3x4xf32>, %r: tensor<1x4xf32>) -> tensor<?x?xf32> {
  %0 = mg.add %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = mg.sub %0, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %2 = mg.mul %1, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %3 = mg.div %2, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %4 = mg.neg %3 : tensor<?x?xf32> -> tensor<?x?xf32>
  %5 = mg.relu %4 : tensor<?x?xf32> -> tensor<?x?xf32>
  %6 = mg.scalar %5 {op = "mul", value = 2.0 : f32, reversed = false} : tensor<?x?xf32> -> tensor<?x?xf32>
  %7 = mg.matmul %6, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %8 = mg.transpose %7 : tensor<?x?xf32> to tensor<?x?xf32>
  %9 = mg.reduce %8 {axis = 1 : i64, kind = "sum"} : tensor<?x?xf32> -> tensor<?x1xf32>
  %10 = mg.reduce %8 {axis = 0 : i64, kind = "max"} : tensor<?x?xf32> -> tensor<1x?xf32>
  %11 = mg.broadcast %r : tensor<1x4xf32> -> tensor<3x4xf32>
  %12 = mg.add %11, %s : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %c = mg.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %13 = mg.cast %12 : tensor<3x4xf32> to tensor<?x?xf32>
  %14 = mg.add %13, %8 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %15 = mg.reduce %14 {axis = 1 : i64, kind = "max"} : tensor<?x?xf32> -> tensor<?x1xf32>
  %16 = mg.cast %9 : tensor<?x1xf32> to tensor<?x?xf32>
  func.return %16 : tensor<?x?xf32>
}
// CHECK-LABEL: llvm.func @f_f32(

func.func @f_f64(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %s: tensor<3x4xf64>, %r: tensor<1x4xf64>) -> tensor<?x?xf64> {
  %0 = mg.add %a, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %1 = mg.sub %0, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %2 = mg.mul %1, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %3 = mg.div %2, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %4 = mg.neg %3 : tensor<?x?xf64> -> tensor<?x?xf64>
  %5 = mg.relu %4 : tensor<?x?xf64> -> tensor<?x?xf64>
  %6 = mg.scalar %5 {op = "mul", value = 2.0 : f64, reversed = false} : tensor<?x?xf64> -> tensor<?x?xf64>
  %7 = mg.matmul %6, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %8 = mg.transpose %7 : tensor<?x?xf64> to tensor<?x?xf64>
  %9 = mg.reduce %8 {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  %10 = mg.reduce %8 {axis = 0 : i64, kind = "max"} : tensor<?x?xf64> -> tensor<1x?xf64>
  %11 = mg.broadcast %r : tensor<1x4xf64> -> tensor<3x4xf64>
  %12 = mg.add %11, %s : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x4xf64>
  %c = mg.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf64>
  %13 = mg.cast %12 : tensor<3x4xf64> to tensor<?x?xf64>
  %14 = mg.add %13, %8 : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64>
  %15 = mg.reduce %14 {axis = 1 : i64, kind = "max"} : tensor<?x?xf64> -> tensor<?x1xf64>
  %16 = mg.cast %9 : tensor<?x1xf64> to tensor<?x?xf64>
  func.return %16 : tensor<?x?xf64>
}
// CHECK-LABEL: llvm.func @f_f64(

