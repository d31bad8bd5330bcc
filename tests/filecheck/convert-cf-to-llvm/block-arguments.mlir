// RUN: mg-opt %s -p convert-cf-to-llvm | filecheck %s

// Blocks whose arguments flow back into branches. Every block a branch reaches gets its new
// signature before any branch is rewritten, so a branch that passes a block argument names
// the converted argument, never the erased one. tests/e2e/test_upstream.py has mlir-opt-22 verify
// the output: it checks that every value is defined; xDSL's verifier does not.

// A block that branches to itself with its own argument (unreachable, as upstream's test).
// CHECK-LABEL: func.func @self_loop
// CHECK:       ^[[B:.*]](%[[A:.*]]: i64):
// CHECK-NEXT:    llvm.br ^[[B]](%[[A]] : i64)
// CHECK-NOT:   unrealized_conversion_cast
func.func @self_loop() {
  return
^bb1(%arg0: index):
  cf.br ^bb1(%arg0 : index)
}

// Several arguments passed back in swapped order: each is the converted argument itself.
// CHECK-LABEL: func.func @swap
// CHECK:         llvm.br ^[[LOOP:.*]](%{{.*}}, %{{.*}}, %{{.*}} : i64, i64, i64)
// CHECK-NEXT:  ^[[LOOP]](%[[X:.*]]: i64, %[[Y:.*]]: i64, %[[K:.*]]: i64):
// CHECK:         llvm.cond_br %{{.*}}, ^[[BODY:.*]], ^[[EXIT:.*]](%[[X]] : i64)
// CHECK:       ^[[BODY]]:
// CHECK:         llvm.br ^[[LOOP]](%[[Y]], %[[X]], %{{.*}} : i64, i64, i64)
func.func @swap(%a: index, %b: index, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^loop(%a, %b, %n : index, index, index)
^loop(%x: index, %y: index, %k: index):
  %more = arith.cmpi sgt, %k, %c0 : index
  cf.cond_br %more, ^body, ^exit(%x : index)
^body:
  %k1 = arith.subi %k, %c1 : index
  cf.br ^loop(%y, %x, %k1 : index, index, index)
^exit(%r: index):
  return %r : index
}

// A branch in a block that comes first in the text passes the argument of a block that
// comes later, and the other way round.
// CHECK-LABEL: func.func @out_of_order
// CHECK:       ^[[FIRST:.*]](%[[U:.*]]: i64):
// CHECK-NEXT:    %[[UI:.*]] = builtin.unrealized_conversion_cast %[[U]] : i64 to index
// CHECK-NEXT:    func.return %[[UI]] : index
// CHECK:       ^[[THIRD:.*]](%[[V:.*]]: i64):
// CHECK-NEXT:    llvm.br ^[[FIRST]](%[[V]] : i64)
func.func @out_of_order(%a: index) -> index {
  cf.br ^second
^first(%u: index):
  return %u : index
^second:
  cf.br ^third(%a : index)
^third(%v: index):
  cf.br ^first(%v : index)
}

// A cond_br whose two successors are the same block, fed by that block's own arguments.
// CHECK-LABEL: func.func @both_ways
// CHECK:       ^[[B:.*]](%[[P:.*]]: i64, %[[Q:.*]]: i64):
// CHECK:         llvm.cond_br %{{.*}}, ^[[B]](%[[Q]], %[[P]] : i64, i64), ^[[B]](%[[P]], %[[Q]] : i64, i64)
func.func @both_ways(%c: i1, %a: index) {
  cf.br ^b(%a, %a : index, index)
^b(%p: index, %q: index):
  cf.cond_br %c, ^b(%q, %p : index, index), ^b(%p, %q : index, index)
}

// A memref block argument that loops back: the descriptor itself is passed.
// CHECK-LABEL: func.func @memref_loop
// CHECK:       ^[[B:.*]](%[[D:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>):
// CHECK:         llvm.cond_br %{{.*}}, ^[[B]](%[[D]] : !llvm.struct<{{.*}}>), ^{{.*}}
func.func @memref_loop(%c: i1, %m: memref<?xf64>) {
  cf.br ^b(%m : memref<?xf64>)
^b(%d: memref<?xf64>):
  cf.cond_br %c, ^b(%d : memref<?xf64>), ^exit
^exit:
  return
}
