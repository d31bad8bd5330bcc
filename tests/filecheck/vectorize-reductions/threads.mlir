// The reduction kernels' parallel loops are split among threads by their work in elements:
// a row's vector steps (counted from bounds computed before the rows' loop; once they were
// computed inside it, every row counted as one iteration and no row reduction under 65536
// rows got a thread), each 32 elements (mg.work_scale); a column block's fill loop (cols),
// times its 256 rows.
// RUN: mg-opt %s -p convert-mg-to-linalg,vectorize-reductions,convert-linalg-to-affine-loops,lower-affine,convert-parallel-loops-to-threads | filecheck %s

func.func @rows(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
func.func @cols(%a: tensor<?x?xf64>) -> tensor<1x?xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<1x?xf64>
  func.return %r : tensor<1x?xf64>
}
// CHECK-LABEL: func.func private @mg_row_sum_f64(
// CHECK:         memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[COLS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[REM:.*]] = arith.remsi %[[COLS]], %{{.*}} : index
// CHECK-NEXT:    %[[VEND:.*]] = arith.subi %[[COLS]], %[[REM]] : index
// CHECK:         %[[SCALE:.*]] = arith.constant 32 : index
// CHECK:         %[[STEPS:.*]] = arith.ceildivsi %[[VEND]], %{{.*}} : index
// CHECK-NEXT:    %[[WORK:.*]] = arith.muli %[[SCALE]], %[[STEPS]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.maxsi %[[WORK]], %{{.*}} : index
// CHECK-NEXT:    %[[PER:.*]] = arith.constant 32768 : index
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.ceildivsi %[[PER]], %[[ROW]] : index
// CHECK:         func.call @mgrt_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CHUNK]])

// CHECK-LABEL: func.func private @mg_column_sum_f64(
// CHECK:         memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[CCOLS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         memref.alloc
// CHECK:         %[[ROWS:.*]] = arith.constant 256 : index
// CHECK:         %[[BWORK:.*]] = arith.muli %[[ROWS]], %[[CCOLS]] : index
// CHECK-NEXT:    %[[BLOCK:.*]] = arith.maxsi %[[BWORK]], %{{.*}} : index
// CHECK-NEXT:    %[[BPER:.*]] = arith.constant 32768 : index
// CHECK-NEXT:    %[[BCHUNK:.*]] = arith.ceildivsi %[[BPER]], %[[BLOCK]] : index
// CHECK:         func.call @mgrt_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BCHUNK]])
