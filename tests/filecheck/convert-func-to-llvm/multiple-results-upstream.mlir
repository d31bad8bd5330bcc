// The UPSTREAM lines of multiple-results.mlir against upstream MLIR's convert-func-to-llvm:
// the same calling convention for functions of several results.
// REQUIRES: mlir-opt
// RUN: mlir-opt-22 %S/multiple-results.mlir --convert-func-to-llvm | filecheck %S/multiple-results.mlir --check-prefix=UPSTREAM
