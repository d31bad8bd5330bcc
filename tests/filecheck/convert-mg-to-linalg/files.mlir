// As in lower-mg-to-affine (one shared pattern each): mg.load becomes the run-time library's
// checks (mgrt_npy_load_T: the path as memref<*xi8> of a constant global, the rank, the
// declared sizes with -1 for '?', overwritten with the file's), a buffer of the file's sizes
// and the read into it (mgrt_npy_read_T); mg.save a call of mgrt_npy_save_T with the buffer
// as an unranked memref. One global per path, one declaration per function.
// RUN: mg-opt %s -p convert-mg-to-linalg | filecheck %s

func.func @main() {
  %x = mg.load {path = "/data/x.npy"} : tensor<?x64xf32>
  %y = mg.load {path = "/data/x.npy"} : tensor<3x?xf32>
  mg.save %x {path = "/o/w.npy"} : tensor<?x64xf32>
  mg.save %y {path = "/o/w.npy"} : tensor<3x?xf32>
  %b = mg.load {path = "/data/b.npy"} : tensor<i1>
  mg.save %b {path = "/o/b.npy"} : tensor<i1>
  func.return
}
// CHECK:      "memref.global"() <{sym_name = "__mg_path_0", type = memref<12xi8>, initial_value = dense<[47, 100, 97, 116, 97, 47, 120, 46, 110, 112, 121, 0]> : tensor<12xi8>, sym_visibility = "private", constant}>
// CHECK-NEXT: func.func private @mgrt_npy_load_f32(memref<*xi8>, i64, memref<*xi64>) -> i64
// CHECK-NEXT: func.func private @mgrt_npy_read_f32(i64, memref<*xf32>) -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "__mg_path_1", type = memref<9xi8>, initial_value = dense<[47, 111, 47, 119, 46, 110, 112, 121, 0]> : tensor<9xi8>
// CHECK-NEXT: func.func private @mgrt_npy_save_f32(memref<*xi8>, memref<*xf32>) -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "__mg_path_2"
// CHECK-NEXT: func.func private @mgrt_npy_load_i1(memref<*xi8>, i64, memref<*xi64>) -> i64
// CHECK-NEXT: func.func private @mgrt_npy_read_i1(i64, memref<*xi1>) -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "__mg_path_3"
// CHECK-NEXT: func.func private @mgrt_npy_save_i1(memref<*xi8>, memref<*xi1>) -> ()
// CHECK-NOT:  "memref.global"
// CHECK-NOT:  func.func private

// CHECK:      func.func @main() {
// CHECK-NEXT:   %[[P:.*]] = memref.get_global @__mg_path_0 : memref<12xi8>
// CHECK-NEXT:   %[[PU:.*]] = "memref.cast"(%[[P]]) : (memref<12xi8>) -> memref<*xi8>
// CHECK-NEXT:   %[[S:.*]] = memref.alloc() : memref<2xi64>
// CHECK-NEXT:   %[[ANY:.*]] = arith.constant -1 : i64
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %[[ANY]], %[[S]][%[[C0]]] : memref<2xi64>
// CHECK-NEXT:   %[[N64:.*]] = arith.constant 64 : i64
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   memref.store %[[N64]], %[[S]][%[[C1]]] : memref<2xi64>
// CHECK-NEXT:   %[[RANK:.*]] = arith.constant 2 : i64
// CHECK-NEXT:   %[[SU:.*]] = "memref.cast"(%[[S]]) : (memref<2xi64>) -> memref<*xi64>
// CHECK-NEXT:   %[[H:.*]] = func.call @mgrt_npy_load_f32(%[[PU]], %[[RANK]], %[[SU]]) : (memref<*xi8>, i64, memref<*xi64>) -> i64
// CHECK-NEXT:   %[[D0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[N:.*]] = memref.load %[[S]][%[[D0]]] : memref<2xi64>
// CHECK-NEXT:   %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:   %[[X:.*]] = memref.alloc(%[[NI]]) : memref<?x64xf32>
// CHECK-NEXT:   %[[XU:.*]] = "memref.cast"(%[[X]]) : (memref<?x64xf32>) -> memref<*xf32>
// CHECK-NEXT:   func.call @mgrt_npy_read_f32(%[[H]], %[[XU]]) : (i64, memref<*xf32>) -> ()

// The same path's global again; the static size 3 is passed, only the '?' read back.
// CHECK-NEXT:   memref.get_global @__mg_path_0 : memref<12xi8>
// CHECK:        arith.constant 3 : i64
// CHECK:        arith.constant -1 : i64
// CHECK:        func.call @mgrt_npy_load_f32
// CHECK-NEXT:   %[[D1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   memref.load %{{.*}}[%[[D1]]] : memref<2xi64>
// CHECK-NEXT:   arith.index_cast
// CHECK-NEXT:   %[[Y:.*]] = memref.alloc(%{{.*}}) : memref<3x?xf32>

// CHECK:        %[[W:.*]] = memref.get_global @__mg_path_1 : memref<9xi8>
// CHECK-NEXT:   %[[WU:.*]] = "memref.cast"(%[[W]]) : (memref<9xi8>) -> memref<*xi8>
// CHECK-NEXT:   %[[XS:.*]] = "memref.cast"(%[[X]]) : (memref<?x64xf32>) -> memref<*xf32>
// CHECK-NEXT:   func.call @mgrt_npy_save_f32(%[[WU]], %[[XS]]) : (memref<*xi8>, memref<*xf32>) -> ()
// CHECK-NEXT:   memref.get_global @__mg_path_1 : memref<9xi8>
// CHECK-NEXT:   "memref.cast"
// CHECK-NEXT:   "memref.cast"(%[[Y]]) : (memref<3x?xf32>) -> memref<*xf32>
// CHECK-NEXT:   func.call @mgrt_npy_save_f32

// Rank 0: no sizes to pass (a one-element buffer all the same), none to read back.
// CHECK-NEXT:   memref.get_global @__mg_path_2 : memref<12xi8>
// CHECK-NEXT:   "memref.cast"
// CHECK-NEXT:   memref.alloc() : memref<1xi64>
// CHECK-NEXT:   arith.constant 0 : i64
// CHECK-NEXT:   "memref.cast"
// CHECK-NEXT:   %[[HB:.*]] = func.call @mgrt_npy_load_i1
// CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<i1>
// CHECK-NEXT:   %[[BU:.*]] = "memref.cast"(%[[B]]) : (memref<i1>) -> memref<*xi1>
// CHECK-NEXT:   func.call @mgrt_npy_read_i1(%[[HB]], %[[BU]]) : (i64, memref<*xi1>) -> ()
// CHECK-NEXT:   memref.get_global @__mg_path_3 : memref<9xi8>
// CHECK-NEXT:   "memref.cast"
// CHECK-NEXT:   "memref.cast"(%[[B]]) : (memref<i1>) -> memref<*xi1>
// CHECK-NEXT:   func.call @mgrt_npy_save_i1
// CHECK-NEXT:   func.return
