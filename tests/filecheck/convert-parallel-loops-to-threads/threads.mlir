// convert-parallel-loops-to-threads: a large outermost scf.parallel is outlined and run by
// the thread pool; small ones, and nested ones, become scf.for.
// RUN: mg-opt %s -p convert-parallel-loops-to-threads | filecheck %s
// RUN: mg-opt %s -p 'convert-parallel-loops-to-threads{iterations-per-thread=100000}' | filecheck %s --check-prefix=FEWER

// 1000 x 1000 iterations: outlined. The body's memrefs travel as descriptor structs in a
// stack struct; 33 rows (33 x 1000 >= 32768 innermost iterations) is the smallest chunk.
func.func @big(%a: memref<1000x1000xf64>, %out: memref<1000x1000xf64>, %x: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  "scf.parallel"(%c0, %c1000, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "scf.parallel"(%c0, %c1000, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb1(%j: index):
      %v = memref.load %a[%i, %j] : memref<1000x1000xf64>
      %w = arith.addf %v, %x : f64
      memref.store %w, %out[%i, %j] : memref<1000x1000xf64>
      scf.reduce
    }) : (index, index, index) -> ()
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK:       func.func private @mgrt_parallel_for(!llvm.ptr, !llvm.ptr, index, index, index) -> ()
// CHECK-LABEL: func.func @big(
// With 100000 innermost iterations a thread, a chunk is 100 rows.
// FEWER-LABEL: func.func @big(
// FEWER:         %[[CHUNK:.*]] = arith.constant 100 : index
// FEWER-NEXT:    func.call @mgrt_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CHUNK]])
// CHECK:         %[[A:.*]] = builtin.unrealized_conversion_cast %a : memref<1000x1000xf64> to !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:    %[[OUT:.*]] = builtin.unrealized_conversion_cast %out : memref<1000x1000xf64> to !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.struct<{{.*}}>, f64, !llvm.struct<{{.*}}>)>
// CHECK-NEXT:    %[[S0:.*]] = llvm.insertvalue %[[A]], %[[U]][0]
// CHECK-NEXT:    %[[S1:.*]] = llvm.insertvalue %x, %[[S0]][1]
// CHECK-NEXT:    %[[S2:.*]] = llvm.insertvalue %[[OUT]], %[[S1]][2]
// CHECK:         %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<{{.*}}> : (i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.store %[[S2]], %[[CTX]]
// CHECK-NEXT:    %[[F:.*]] = llvm.mlir.addressof @big_parallel_0 : !llvm.ptr
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 1000 : index
// CHECK-NEXT:    %[[MIN:.*]] = arith.constant 33 : index
// CHECK-NEXT:    func.call @mgrt_parallel_for(%[[F]], %[[CTX]], %[[ZERO]], %[[N]], %[[MIN]])
// CHECK-NOT:     scf.parallel
// CHECK:         func.return

// The outlined body: the captures loaded back, iterations [lo, hi) of the outer loop, the
// nested parallel loop now an scf.for.
// CHECK-LABEL: llvm.func internal @big_parallel_0(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64) {
// CHECK:         %[[LO:.*]] = builtin.unrealized_conversion_cast %{{.*}} : i64 to index
// CHECK-NEXT:    %[[HI:.*]] = builtin.unrealized_conversion_cast %{{.*}} : i64 to index
// CHECK:         %[[LOADED:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<
// CHECK-NEXT:    %[[E0:.*]] = llvm.extractvalue %[[LOADED]][0]
// CHECK-NEXT:    %[[MA:.*]] = builtin.unrealized_conversion_cast %[[E0]] : !llvm.struct<{{.*}}> to memref<1000x1000xf64>
// CHECK-NEXT:    %[[X:.*]] = llvm.extractvalue %[[LOADED]][1]
// CHECK:         scf.for %[[I:.*]] = %[[LO]] to %[[HI]] step %{{.*}} {
// CHECK-NEXT:      scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        memref.load %[[MA]][%[[I]], %[[J]]]
// CHECK-NEXT:        arith.addf %{{.*}}, %[[X]] : f64
// CHECK:         llvm.return

// 10 x 10 iterations: not worth a thread; plain loops.
func.func @small(%a: memref<10x10xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %c10, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    memref.store %z, %a[%i, %i] : memref<10x10xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK-LABEL: func.func @small(
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      memref.store %{{.*}}, %a[%[[I]], %[[I]]]
// CHECK-NOT:     mgrt_parallel_for
// CHECK:         func.return

// Run-time sizes: the smallest chunk is computed at run time from the inner trip count.
func.func @dynamic(%a: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.for %j = %c0 to %m step %c1 {
      memref.store %z, %a[%i, %j] : memref<?x?xf64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[INNER:.*]] = arith.muli %{{.*}}, %m : index
// CHECK-NEXT:    %[[POS:.*]] = arith.maxsi %[[INNER]], %{{.*}} : index
// CHECK-NEXT:    %[[T:.*]] = arith.constant 32768 : index
// CHECK-NEXT:    %[[MIN:.*]] = arith.ceildivsi %[[T]], %[[POS]] : index
// CHECK:         func.call @mgrt_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %n, %[[MIN]])

// 1000 x 10 iterations, each standing for 32 elements' work (mg.work_scale, as a vector
// step does): 320000 >= 65536, so outlined, in chunks of at least 103 rows (103 x 10 x 32
// >= 32768). Without the scale the same loop would stay plain (10000 < 65536).
func.func @scaled(%a: memref<1000x10xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c1000 = arith.constant 1000 : index
  %z = arith.constant 0.0 : f64
  "scf.parallel"(%c0, %c1000, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.for %j = %c0 to %c10 step %c1 {
      memref.store %z, %a[%i, %j] : memref<1000x10xf64>
    }
    scf.reduce
  }) {mg.work_scale = 32 : index} : (index, index, index) -> ()
  func.return
}
// CHECK-LABEL: func.func @scaled(
// CHECK:         %[[CHUNK:.*]] = arith.constant 103 : index
// CHECK-NEXT:    func.call @mgrt_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CHUNK]])

// A loop that captures nothing but constants (made again in the outlined body) passes a null
// context pointer.
func.func private @work(index) -> ()
func.func @nothing_captured() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    func.call @work(%i) : (index) -> ()
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK-LABEL: func.func @nothing_captured(
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[FN:.*]] = llvm.mlir.addressof @nothing_captured_parallel_0 : !llvm.ptr
// CHECK:         func.call @mgrt_parallel_for(%[[FN]], %[[NULL]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:       llvm.func internal @nothing_captured_parallel_0(
// CHECK:         scf.for
// CHECK-NEXT:      func.call @work(

// A loop marked mg.parallel_accesses (convert-linalg-to-affine-loops: its iterations are
// independent) keeps the mark on the scf.for that replaces it: the outlined function's
// loop over its chunk, or a nested loop made sequential.
func.func @marked(%a: memref<100000xf64>, %b: memref<300x300xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %c100000 = arith.constant 100000 : index
  "scf.parallel"(%c0, %c100000, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %a[%i] : memref<100000xf64>
    memref.store %v, %a[%i] : memref<100000xf64>
    scf.reduce
  }) {mg.parallel_accesses} : (index, index, index) -> ()
  "scf.parallel"(%c0, %c300, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "scf.parallel"(%c0, %c300, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb1(%j: index):
      %w = memref.load %b[%i, %j] : memref<300x300xf64>
      memref.store %w, %b[%i, %j] : memref<300x300xf64>
      scf.reduce
    }) {mg.parallel_accesses} : (index, index, index) -> ()
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// (each outlined function goes right after its function: the last one first)
// CHECK-LABEL: llvm.func internal @marked_parallel_1(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:       mg.parallel_accesses
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.store
// CHECK-NEXT:      } {mg.parallel_accesses}
// CHECK-NEXT:    }
// CHECK-LABEL: llvm.func internal @marked_parallel_0(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store
// CHECK-NEXT:    } {mg.parallel_accesses}
