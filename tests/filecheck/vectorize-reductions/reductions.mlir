// vectorize-reductions: the reductions of mg.reduce (linalg.generic, a parallel and a
// reduction loop, one combining op) become calls to the module's
// reduction kernels, private functions on memref<?x?xf64> added once each: vector loops
// whose independent part is an scf.parallel.
// RUN: mg-opt %s -p convert-mg-to-linalg,vectorize-reductions | filecheck %s

// A row sum: the kernel is below.
func.func @rows(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
// CHECK-LABEL: func.func @rows(
// CHECK:       %[[R:.*]] = memref.alloc(%{{.*}}) : memref<?x1xf64>
// The start values are stored by the fill, as before; the kernel does the rest.
// CHECK:       linalg.fill
// CHECK:       %[[RC:.*]] = "memref.cast"(%[[R]]) : (memref<?x1xf64>) -> memref<?x?xf64>
// CHECK-NEXT:  func.call @mg_row_sum_f64(%a, %[[RC]]) : (memref<?x?xf64>, memref<?x?xf64>) -> ()
// CHECK-NEXT:  func.return %[[R]]

// A second row sum calls the same kernel.
func.func @rows_again(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "sum"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
// CHECK-LABEL: func.func @rows_again(
// CHECK:       func.call @mg_row_sum_f64(%a, %{{.*}})

// A column maximum of static sizes: its operands cast to the kernel's types.
func.func @cols(%a: tensor<1000x12xf64>) -> tensor<1x12xf64> {
  %r = mg.reduce %a {axis = 0 : i64, kind = "max"} : tensor<1000x12xf64> -> tensor<1x12xf64>
  func.return %r : tensor<1x12xf64>
}
// CHECK-LABEL: func.func @cols(
// CHECK:       %[[C:.*]] = memref.alloc() : memref<1x12xf64>
// CHECK:       linalg.fill
// CHECK:       %[[AC:.*]] = "memref.cast"(%a) : (memref<1000x12xf64>) -> memref<?x?xf64>
// CHECK-NEXT:  %[[CC:.*]] = "memref.cast"(%[[C]]) : (memref<1x12xf64>) -> memref<?x?xf64>
// CHECK-NEXT:  func.call @mg_column_max_f64(%[[AC]], %[[CC]]) : (memref<?x?xf64>, memref<?x?xf64>) -> ()

// A row maximum: its kernel is the last below.
func.func @row_max(%a: tensor<?x?xf64>) -> tensor<?x1xf64> {
  %r = mg.reduce %a {axis = 1 : i64, kind = "max"} : tensor<?x?xf64> -> tensor<?x1xf64>
  func.return %r : tensor<?x1xf64>
}
// CHECK-LABEL: func.func @row_max(
// CHECK:         func.call @mg_row_max_f64(

// Each kernel once, after the functions, whatever number of reductions call it.
// The row sum: groups of four rows (in parallel), whose rows one loop walks side by side
// (memory serves four streams faster than one), the target's four vector<8xf64>
// accumulators shared among them (one a row, 8 elements a step); each row's sum reduced
// starting from its cell's value, then its last few elements one by one. The rows after
// the last group one by one, each with all four accumulators over 32 elements a step.
// CHECK-NOT:   func.func @
// CHECK-LABEL: func.func private @mg_row_sum_f64(%a: memref<?x?xf64>, %out: memref<?x?xf64>) {
// CHECK:       %[[ROWS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// CHECK:       %[[COLS:.*]] = memref.dim %a, %{{.*}} : memref<?x?xf64>
// Where the vector steps end, once for all rows (so that the groups' loop can be split by
// the work of a group):
// CHECK:       %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[REM:.*]] = arith.remsi %[[COLS]], %[[EIGHT]] : index
// CHECK-NEXT:  %[[VEND:.*]] = arith.subi %[[COLS]], %[[REM]] : index
// CHECK-NEXT:  %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[GROUPS:.*]] = arith.divui %[[ROWS]], %[[FOUR]] : index
// CHECK:       "scf.parallel"(%{{.*}}, %[[GROUPS]], %{{.*}})
// CHECK-NEXT:  ^bb0(%[[G:.*]]: index):
// CHECK:         %[[I0:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK:         %[[I1:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK:         %[[I2:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK:         %[[I3:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK:         %[[ZEROS:.*]] = vector.broadcast %{{.*}} : f64 to vector<8xf64>
// CHECK:         %[[R0:[0-9a-z_]+]], %[[R1:[0-9a-z_]+]], %[[R2:[0-9a-z_]+]], %[[R3:[0-9a-z_]+]] = scf.for %[[J:[0-9a-z_]+]] = %{{.*}} to %[[VEND]] step %{{.*}} iter_args(%[[A0:[0-9a-z_]+]] = %[[ZEROS]], %[[A1:[0-9a-z_]+]] = %[[ZEROS]], %[[A2:[0-9a-z_]+]] = %[[ZEROS]], %[[A3:[0-9a-z_]+]] = %[[ZEROS]])
// CHECK:           %[[V0:.*]] = vector.load %a[%[[I0]], %[[J]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:      %{{.*}} = arith.addf %[[A0]], %[[V0]] : vector<8xf64>
// CHECK:           %[[V1:.*]] = vector.load %a[%[[I1]], %[[J]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:      %{{.*}} = arith.addf %[[A1]], %[[V1]] : vector<8xf64>
// CHECK:           vector.load %a[%[[I2]], %[[J]]]
// CHECK:           vector.load %a[%[[I3]], %[[J]]]
// CHECK:           scf.yield
// The first row's sum: its lanes added as a tree (the sum is reassociated already), from
// its cell's value; the last few elements (fewer than 8) one at a time, in a loop LLVM is
// told not to vectorize or unroll again (it cannot know that the loop is short):
// CHECK:         %[[START:.*]] = memref.load %out[%[[I0]], %[[C0:.*]]] : memref<?x?xf64>
// CHECK:         %[[R:.*]] = vector.reduction <add>, %[[R0]], %[[START]] fastmath<reassoc> : vector<8xf64> into f64
// CHECK:         %[[T:.*]] = scf.for %{{.*}} = %[[VEND]] to %[[COLS]] step %{{.*}} iter_args(%{{.*}} = %[[R]]) -> (f64)
// CHECK:           memref.load %a[%[[I0]], %{{.*}}] : memref<?x?xf64>
// CHECK:         } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK:         memref.store %[[T]], %out[%[[I0]], %[[C0]]] : memref<?x?xf64>
// The same for the other three rows:
// CHECK:         vector.reduction <add>, %[[R1]]
// CHECK:         memref.store %{{.*}}, %out[%[[I1]], %{{.*}}]
// CHECK:         vector.reduction <add>, %[[R2]]
// CHECK:         vector.reduction <add>, %[[R3]]
// CHECK:         memref.store %{{.*}}, %out[%[[I3]], %{{.*}}]
// CHECK-NEXT:    scf.reduce
// CHECK-NEXT:  }) {mg.work_scale = 32 : index}
// The rows after the last group (up to three), one at a time: four accumulators over 32
// elements a step, combined pairwise; then whole vectors one at a time, to the last
// multiple of 8; the rest one by one.
// CHECK:       %[[GROUPED:.*]] = arith.muli %[[GROUPS]], %{{.*}} : index
// CHECK:       %[[REM32:.*]] = arith.remsi %[[COLS]], %{{.*}} : index
// CHECK-NEXT:  %[[VEND32:.*]] = arith.subi %[[COLS]], %[[REM32]] : index
// CHECK:       scf.for %[[I:.*]] = %[[GROUPED]] to %[[ROWS]] step %{{.*}} {
// CHECK:         %[[S0:[0-9a-z_]+]], %[[S1:[0-9a-z_]+]], %[[S2:[0-9a-z_]+]], %[[S3:[0-9a-z_]+]] = scf.for %{{.*}} = %{{.*}} to %[[VEND32]] step %{{.*}} iter_args(
// CHECK-COUNT-4:   vector.load %a[%[[I]], %{{.*}}] : memref<?x?xf64>, vector<8xf64>
// CHECK:           scf.yield
// CHECK:         %[[S01:.*]] = arith.addf %[[S0]], %[[S1]] : vector<8xf64>
// CHECK-NEXT:    %[[S23:.*]] = arith.addf %[[S2]], %[[S3]] : vector<8xf64>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[S01]], %[[S23]] : vector<8xf64>
// CHECK:         %[[LREM:.*]] = arith.remsi %[[COLS]], %{{.*}} : index
// CHECK-NEXT:    %[[LEND:.*]] = arith.subi %[[COLS]], %[[LREM]] : index
// CHECK:         %[[SV:.*]] = scf.for %[[JV:.*]] = %[[VEND32]] to %[[LEND]] step %{{.*}} iter_args(%[[AV:.*]] = %[[S]]) -> (vector<8xf64>)
// CHECK:           %[[V:.*]] = vector.load %a[%[[I]], %[[JV]]{{.*}}] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[AV]], %[[V]] : vector<8xf64>
// CHECK-NEXT:      scf.yield %[[SUM]] : vector<8xf64>
// (fewer than four steps: LLVM is told not to vectorize or unroll this loop either)
// CHECK-NEXT:    } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK:         vector.reduction <add>, %[[SV]], %{{.*}} fastmath<reassoc> : vector<8xf64> into f64
// CHECK:         scf.for %{{.*}} = %[[LEND]] to %[[COLS]]
// CHECK:         } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK:         memref.store
// CHECK-NEXT:  } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}

// The column maximum: blocks of 256 rows (in parallel) fold their rows, four at a time,
// into a partial row of their own, eight lanes at a time, ignoring the sign of zeros
// (fastmath nsz: no blends on AVX2); a zero maximum is recomputed exactly; then the partial
// rows are folded into the result, exactly.
// CHECK-NOT:   func.func private @mg_row_sum_f64
// CHECK-LABEL: func.func private @mg_column_max_f64(%a: memref<?x?xf64>, %out: memref<?x?xf64>) {
// CHECK:       %[[PART:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK:       "scf.parallel"
// CHECK-NEXT:  ^bb0(%[[K:.*]]: index):
// CHECK:         %[[NEG:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      memref.store %[[NEG]], %[[PART]][%[[K]], %[[J]]] : memref<?x?xf64>
// CHECK:         scf.for %[[I:[0-9a-z_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[I1:[0-9a-z_]+]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:           %[[I2:[0-9a-z_]+]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:           %[[I3:[0-9a-z_]+]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:           scf.for %[[JV:[0-9a-z_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[P:.*]] = vector.load %[[PART]][%[[K]], %[[JV]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:        %[[X0:.*]] = vector.load %a[%[[I]], %[[JV]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:        %[[M0:.*]] = arith.maximumf %[[P]], %[[X0]] fastmath<nsz> : vector<8xf64>
// CHECK-NEXT:        %[[X1:.*]] = vector.load %a[%[[I1]], %[[JV]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:        %[[M1:.*]] = arith.maximumf %[[M0]], %[[X1]] fastmath<nsz> : vector<8xf64>
// CHECK-NEXT:        %[[X2:.*]] = vector.load %a[%[[I2]], %[[JV]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:        %[[M2:.*]] = arith.maximumf %[[M1]], %[[X2]] fastmath<nsz> : vector<8xf64>
// CHECK-NEXT:        %[[X3:.*]] = vector.load %a[%[[I3]], %[[JV]]] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:        %[[M3:.*]] = arith.maximumf %[[M2]], %[[X3]] fastmath<nsz> : vector<8xf64>
// CHECK-NEXT:        vector.store %[[M3]], %[[PART]][%[[K]], %[[JV]]] : memref<?x?xf64>, vector<8xf64>
// The columns after the last multiple of 8, one at a time, in a loop LLVM is told not to
// vectorize or unroll again:
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK:           } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK:           scf.for
// The rows left over (1000 = 3 * 256 + 232 is a multiple of 4 here, but not in general).
// CHECK:         scf.for
// Where a block's maximum is zero, its sign may be wrong (nsz): that column again, exactly.
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         scf.for %[[JZ:[0-9a-z_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[F:.*]] = memref.load %[[PART]][%[[K]], %[[JZ]]] : memref<?x?xf64>
// CHECK-NEXT:      %[[Z:.*]] = arith.cmpf oeq, %[[F]], %[[ZERO]] : f64
// CHECK-NEXT:      scf.if %[[Z]] {
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK:         scf.reduce
// CHECK:       scf.for %[[B:[0-9a-z_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         vector.load %out[%{{.*}}, %{{.*}}] : memref<?x?xf64>, vector<8xf64>
// CHECK-NEXT:    vector.load %[[PART]][%[[B]], %{{.*}}] : memref<?x?xf64>, vector<8xf64>

// A row maximum's vectors ignore the sign of zeros (fastmath nsz); where a row's maximum
// is zero it is recomputed exactly, element by element, in a loop that runs only then:
// LLVM is told not to vectorize or unroll it.
// CHECK-LABEL: func.func private @mg_row_max_f64(%a: memref<?x?xf64>, %out: memref<?x?xf64>) {
// CHECK:         %[[MAX:.*]] = scf.for %{{.*}} iter_args(%{{.*}}) -> (f64) {
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[IS_ZERO:.*]] = arith.cmpf oeq, %[[MAX]], %[[ZERO]] : f64
// CHECK-NEXT:    %{{.*}} = scf.if %[[IS_ZERO]] -> (f64) {
// CHECK:           %[[EXACT:.*]] = scf.for %{{.*}} iter_args(%{{.*}}) -> (f64) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %a
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %{{.*}}, %[[X]] : f64
// CHECK-NEXT:        scf.yield %[[M]] : f64
// CHECK-NEXT:      } {loop_annotation = #llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>}
// CHECK-NEXT:      scf.yield %[[EXACT]] : f64
// CHECK-NEXT:    } else {
