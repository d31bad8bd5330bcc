// convert-to-llvm: the five conversions in one walk give what they give one after another
// (the same ops; only the names of a few values differ), with no cast left once
// reconcile-unrealized-casts has run, and upstream accepts it.
// RUN: mg-opt %s -p 'convert-to-llvm,reconcile-unrealized-casts' > %t.one
// RUN: mg-opt %s -p 'convert-vector-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts' > %t.each
// RUN: sed -E 's/%[A-Za-z0-9_]+/%v/g' %t.one > %t.one.unnamed
// RUN: sed -E 's/%[A-Za-z0-9_]+/%v/g' %t.each > %t.each.unnamed
// RUN: diff %t.one.unnamed %t.each.unnamed
// RUN: filecheck %s < %t.one
// RUN: mg-opt %s -p 'convert-to-llvm{use-generic-functions=true}' | filecheck %s --check-prefix=GENERIC
// RUN: %if mlir-opt %{ mlir-opt-22 %t.one | filecheck %s %}

// CHECK-NOT: {{ (vector|arith|func|cf|memref|scf)\.[a-z_]+}}
// CHECK-NOT: unrealized_conversion_cast
// GENERIC: llvm.call @_mlir_memref_to_llvm_alloc

// A loop over a memref argument, with a vector load and store, a call and a buffer.
// CHECK-LABEL: llvm.func @scale
func.func @scale(%m: memref<?x8xf64>, %n: index, %s: f64) -> memref<2xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = vector.broadcast %s : f64 to vector<8xf64>
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit
^body:
  %x = vector.load %m[%i, %c0] : memref<?x8xf64>, vector<8xf64>
  %y = arith.mulf %x, %v : vector<8xf64>
  vector.store %y, %m[%i, %c0] : memref<?x8xf64>, vector<8xf64>
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^exit:
  %b = memref.alloc() : memref<2xf64>
  %t = func.call @twice(%s) : (f64) -> f64
  memref.store %t, %b[%c1] : memref<2xf64>
  func.return %b : memref<2xf64>
}

// CHECK-LABEL: llvm.func @twice
func.func @twice(%x: f64) -> f64 {
  %y = arith.addf %x, %x : f64
  func.return %y : f64
}

// A block listed before the block that defines a value it uses (which dominates it): the
// use is converted first, through a cast that the pair of casts cancels.
// CHECK-LABEL: llvm.func @late
// CHECK:       ^{{.*}}(%[[X:.*]]: i64):
// CHECK-NEXT:    %[[Y:.*]] = llvm.add %[[X]], %[[C:.*]] : i64
// CHECK-NEXT:    llvm.return %[[Y]] : i64
// CHECK:         %[[C]] = llvm.mlir.constant(1{{.*}}) : i64
func.func @late() -> index {
  cf.br ^def
^use(%x: index):
  %y = arith.addi %x, %c : index
  func.return %y : index
^def:
  %c = arith.constant 1 : index
  cf.br ^use(%c : index)
}
