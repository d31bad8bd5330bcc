// The whole lowering from affine-level code (in generic form: see XDSL-NOTES on the custom
// affine syntax) to pure LLVM dialect, and upstream's acceptance of the result.
// RUN: mg-opt %s -p lower-affine,convert-scf-to-cf,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts | filecheck %s
// RUN: mg-opt %s -p lower-affine,convert-scf-to-cf,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts | filecheck %s --check-prefix=PURE
// RUN: %if mlir-opt %{ mg-opt %s -p lower-affine,convert-scf-to-cf,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts | mlir-opt-22 | filecheck %s --check-prefix=UPSTREAM %}

// Nothing but the LLVM dialect is left.
// PURE-NOT: {{ (arith|func|cf|memref|affine|scf)\.[a-z_]+}}
// PURE-NOT: unrealized_conversion_cast

// CHECK:       llvm.func @free(!llvm.ptr)
// CHECK-NEXT:  llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-NEXT:  llvm.func @layer(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK:         llvm.call @malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.br ^[[OUTER:.*]](%{{.*}} : i64)
// CHECK:       ^[[OUTER]](%[[I:.*]]: i64):
// CHECK:       ^{{.*}}(%[[J:.*]]: i64):
// CHECK:         %[[C3:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:    %[[I3:.*]] = llvm.mul %[[I]], %[[C3]] : i64
// CHECK-NEXT:    %[[IJ:.*]] = llvm.add %[[I3]], %[[J]] : i64
// CHECK-NEXT:    llvm.getelementptr inbounds %{{.*}}[%[[IJ]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK:         llvm.call_intrinsic "llvm.maximum.f64"
// CHECK:       llvm.func @_mlir_ciface_layer(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK:       llvm.func @printMemrefF64(i64, !llvm.ptr)
// CHECK:       llvm.func @main()
// CHECK:         llvm.mlir.constant(3735928559) : i64
// CHECK:         llvm.call @layer(
// CHECK:         llvm.call @printMemrefF64(
// CHECK:         llvm.call @free(
// CHECK:       llvm.mlir.global private constant @__constant_2x3xf64(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf64>)
// CHECK-SAME:    : !llvm.array<6 x f64>

// UPSTREAM: llvm.func @_mlir_ciface_layer
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<() -> (0)>
#map2 = affine_map<() -> (3)>
#map3 = affine_map<() -> (2)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<2x3xf64>, memref<1x3xf64>) -> memref<2x3xf64>, sym_name = "layer"}> ({
  ^bb0(%arg0: memref<2x3xf64>, %arg1: memref<1x3xf64>):
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x3xf64>
    %5 = "arith.constant"() <{value = 0.000000e+00 : f64}> : () -> f64
    "affine.for"() <{lowerBoundMap = #map1, operandSegmentSizes = array<i32: 0, 0, 0>, step = 1 : index, upperBoundMap = #map3}> ({
    ^bb0(%arg2: index):
      "affine.for"() <{lowerBoundMap = #map1, operandSegmentSizes = array<i32: 0, 0, 0>, step = 1 : index, upperBoundMap = #map2}> ({
      ^bb0(%arg3: index):
        %6 = "arith.constant"() <{value = 0 : index}> : () -> index
        %7 = "affine.load"(%arg0, %arg2, %arg3) <{map = #map}> : (memref<2x3xf64>, index, index) -> f64
        %8 = "affine.load"(%arg1, %6, %arg3) <{map = #map}> : (memref<1x3xf64>, index, index) -> f64
        %9 = "arith.addf"(%7, %8) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
        %10 = "arith.maximumf"(%9, %5) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
        "affine.store"(%10, %4, %arg2, %arg3) <{map = #map}> : (f64, memref<2x3xf64>, index, index) -> ()
        "affine.yield"() : () -> ()
      }) : () -> ()
      "affine.yield"() : () -> ()
    }) : () -> ()
    "func.return"(%4) : (memref<2x3xf64>) -> ()
  }) {llvm.emit_c_interface} : () -> ()
  "func.func"() <{function_type = (memref<*xf64>) -> (), sym_name = "printMemrefF64", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "memref.get_global"() <{name = @__constant_2x3xf64}> : () -> memref<2x3xf64>
    %1 = "memref.get_global"() <{name = @__constant_1x3xf64}> : () -> memref<1x3xf64>
    %2 = "func.call"(%0, %1) <{callee = @layer}> : (memref<2x3xf64>, memref<1x3xf64>) -> memref<2x3xf64>
    %3 = "memref.cast"(%2) : (memref<2x3xf64>) -> memref<*xf64>
    "func.call"(%3) <{callee = @printMemrefF64}> : (memref<*xf64>) -> ()
    "memref.dealloc"(%2) : (memref<2x3xf64>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "memref.global"() <{constant, initial_value = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf64>, sym_name = "__constant_2x3xf64", sym_visibility = "private", type = memref<2x3xf64>}> : () -> ()
  "memref.global"() <{constant, initial_value = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf64>, sym_name = "__constant_1x3xf64", sym_visibility = "private", type = memref<1x3xf64>}> : () -> ()
}) : () -> ()

