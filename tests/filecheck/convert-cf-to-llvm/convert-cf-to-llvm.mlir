// RUN: mg-opt %s -p convert-cf-to-llvm | filecheck %s
// RUN: mg-opt %s -p convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts | filecheck %s --check-prefix=ALL

// A loop as convert-scf-to-cf leaves it: the index block argument becomes i64, cast back at
// the top of the block for the ops not converted yet; the branches pass i64.
// CHECK-LABEL: func.func @count
// CHECK:         %[[LB:.*]] = builtin.unrealized_conversion_cast %lb : index to i64
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]](%[[LB]] : i64)
// CHECK-NEXT:  ^[[HEAD]](%[[IV:.*]]: i64):
// CHECK-NEXT:    %[[I:.*]] = builtin.unrealized_conversion_cast %[[IV]] : i64 to index
// CHECK-NEXT:    %cond = arith.cmpi slt, %[[I]], %ub : index
// CHECK-NEXT:    llvm.cond_br %cond, ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %next = arith.addi %[[I]], %step : index
// CHECK-NEXT:    %[[NEXT:.*]] = builtin.unrealized_conversion_cast %next : index to i64
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]] : i64)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    func.return %[[I]] : index

// With the other passes, no cast is left.
// ALL-LABEL: llvm.func @count(%lb: i64, %ub: i64, %step: i64) -> i64 {
// ALL-NEXT:    llvm.br ^[[HEAD:.*]](%lb : i64)
// ALL-NEXT:  ^[[HEAD]](%[[I:.*]]: i64):
// ALL-NEXT:    %cond = llvm.icmp "slt" %[[I]], %ub : i64
// ALL-NEXT:    llvm.cond_br %cond, ^[[BODY:.*]], ^[[EXIT:.*]]
// ALL-NEXT:  ^[[BODY]]:
// ALL-NEXT:    %next = llvm.add %[[I]], %step : i64
// ALL-NEXT:    llvm.br ^[[HEAD]](%next : i64)
// ALL-NEXT:  ^[[EXIT]]:
// ALL-NEXT:    llvm.return %[[I]] : i64
// ALL-NOT:   unrealized_conversion_cast
func.func @count(%lb: index, %ub: index, %step: index) -> index {
  cf.br ^head(%lb : index)
^head(%i: index):
  %cond = arith.cmpi slt, %i, %ub : index
  cf.cond_br %cond, ^body, ^exit
^body:
  %next = arith.addi %i, %step : index
  cf.br ^head(%next : index)
^exit:
  return %i : index
}

// Memref block arguments become descriptors; both branches of a cond_br get their operands
// converted.
// CHECK-LABEL: func.func @choose
// CHECK:         llvm.cond_br %c, ^[[B:.*]](%{{.*}} : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>), ^[[B]](%{{.*}} : !llvm.struct<{{.*}}>)
// CHECK-NEXT:  ^[[B]](%[[D:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>):
// CHECK-NEXT:    %[[M:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<{{.*}}> to memref<?xf64>
// CHECK-NEXT:    func.return %[[M]] : memref<?xf64>
func.func @choose(%c: i1, %a: memref<?xf64>, %b: memref<?xf64>) -> memref<?xf64> {
  cf.cond_br %c, ^join(%a : memref<?xf64>), ^join(%b : memref<?xf64>)
^join(%m: memref<?xf64>):
  return %m : memref<?xf64>
}

// A block argument nobody uses keeps no cast back (the pass erases the casts it leaves
// unused, as upstream's driver does).
// CHECK-LABEL: func.func @unused_argument
// CHECK:         llvm.br ^[[B:.*]](%{{.*}} : i64)
// CHECK-NEXT:  ^[[B]](%{{.*}}: i64):
// CHECK-NEXT:    func.return
func.func @unused_argument(%n: index) {
  cf.br ^next(%n : index)
^next(%unused: index):
  return
}

// A branch keeps its attributes, as upstream's lowering keeps them: the hints of a loop
// (on its branch back) reach the LLVM dialect, which the translation writes as !llvm.loop.
// CHECK-LABEL: func.func @hinted
// CHECK:         llvm.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : i64), ^{{.*}} {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
// CHECK:         llvm.br ^{{.*}}(%{{.*}} : i64) {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
func.func @hinted(%lb: index, %ub: index) {
  cf.br ^head(%lb : index)
^head(%i: index):
  %cond = arith.cmpi slt, %i, %ub : index
  cf.br ^body
^body:
  cf.cond_br %cond, ^head(%i : index), ^exit {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
^exit:
  cf.br ^head(%i : index) {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
}
