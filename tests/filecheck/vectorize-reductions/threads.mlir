// The row kernel's rows are split among threads by the work of a row: its vector steps,
// counted from bounds computed before the rows' loop (once they were computed inside it,
// every row counted as one iteration and no row reduction under 65536 rows got a thread).
// RUN: mg-opt %s -p lower-mg-to-affine,vectorize-reductions,lower-affine,convert-parallel-loops-to-threads | filecheck %s

func.func @rows(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
// CHECK-LABEL: func.func private @mg_row_sum_f64(
// CHECK:         memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[COLS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:         %[[REM:.*]] = arith.remsi %[[COLS]], %{{.*}} : index
// CHECK-NEXT:    %[[VEND:.*]] = arith.subi %[[COLS]], %[[REM]] : index
// CHECK:         %[[STEPS:.*]] = arith.ceildivsi %[[VEND]], %{{.*}} : index
// CHECK-NEXT:    %[[WORK:.*]] = arith.muli %{{.*}}, %[[STEPS]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.maxsi %[[WORK]], %{{.*}} : index
// CHECK-NEXT:    %[[PER:.*]] = arith.constant 32768 : index
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.ceildivsi %[[PER]], %[[ROW]] : index
// CHECK:         func.call @mgrt_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CHUNK]])
