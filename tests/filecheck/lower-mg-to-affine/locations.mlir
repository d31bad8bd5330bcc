// Every op a lowering creates keeps the source location of the mg op it came from, so a
// loop nest can be traced back to the line of the program.
// RUN: mg-opt %s -p lower-mg-to-affine --print-debuginfo | filecheck %s

func.func @f(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %r = mg.relu %x : tensor<2x2xf64> -> tensor<2x2xf64> loc("prog.mg":3:9)
  func.return %r : tensor<2x2xf64>
}
// CHECK: memref.alloc() : memref<2x2xf64> loc("prog.mg":3:9)
// CHECK: arith.maximumf {{.*}} loc("prog.mg":3:9)
// CHECK: affine.store {{.*}} loc("prog.mg":3:9)
// CHECK: } loc("prog.mg":3:9)
