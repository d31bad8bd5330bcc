// bf16 is stored, never computed with: each element is widened to f32 (its 16 bits, then 16
// zeros), computed in f32, and the result rounded to bf16 to nearest even in integer
// operations (LLVM would call compiler-rt's __truncsfbf2, which the JIT's process and a GPU
// lack); a NaN becomes the quiet NaN 0x7FC0.
// RUN: mg-opt %s -p lower-mg-to-affine | filecheck %s
// RUN: %if mlir-opt %{ mg-opt %s -p lower-mg-to-affine | mlir-opt-22 > /dev/null %}

func.func @f(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = mg.add %a, %b : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  func.return %r : tensor<4xbf16>
}
// CHECK:      %[[X:.*]] = affine.load %a
// CHECK-NEXT: %[[Y:.*]] = affine.load %b
// CHECK-NEXT: %[[XB:.*]] = arith.bitcast %[[X]] : bf16 to i16
// CHECK-NEXT: %[[XE:.*]] = arith.extui %[[XB]] : i16 to i32
// CHECK-NEXT: %[[S16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[XS:.*]] = arith.shli %[[XE]], %[[S16]] : i32
// CHECK-NEXT: %[[XF:.*]] = arith.bitcast %[[XS]] : i32 to f32
// CHECK:      %[[YF:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[XF]], %[[YF]] : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
// CHECK:      %[[HIGH:.*]] = arith.shrui %[[BITS]], %{{.*}} : i32
// CHECK:      %[[LOWEST:.*]] = arith.andi %[[HIGH]], %{{.*}} : i32
// CHECK:      %[[HALF:.*]] = arith.constant 32767 : i32
// CHECK-NEXT: %[[UP:.*]] = arith.addi %[[BITS]], %[[HALF]] : i32
// CHECK-NEXT: %[[ROUNDED:.*]] = arith.addi %[[UP]], %[[LOWEST]] : i32
// CHECK:      %[[TOP:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK-NEXT: %[[QUIET:.*]] = arith.constant 32704 : i16
// CHECK-NEXT: %[[R:.*]] = arith.select %[[NAN]], %[[QUIET]], %[[TOP]] : i16
// CHECK-NEXT: %[[RB:.*]] = arith.bitcast %[[R]] : i16 to bf16
// CHECK-NEXT: affine.store %[[RB]]
