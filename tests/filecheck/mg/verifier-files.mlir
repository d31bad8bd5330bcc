// mg.load and mg.save: their syntax, and their verifier: an absolute path, an element type
// that a .npy file holds (f64 f32 i32 i64 i1; bf16 has none).
// RUN: mg-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = mg.load {path = "/data/x.npy"} : tensor<?x64xf32>
mg.save %x {path = "/out/w.npy"} : tensor<?x64xf32>
%b = mg.load {path = "/data/b.npy"} : tensor<i1>
mg.save %b {path = "/out/b.npy"} : tensor<i1>
// CHECK:      %x = mg.load {path = "/data/x.npy"} : tensor<?x64xf32>
// CHECK-NEXT: mg.save %x {path = "/out/w.npy"} : tensor<?x64xf32>
// CHECK-NEXT: %b = mg.load {path = "/data/b.npy"} : tensor<i1>
// CHECK-NEXT: mg.save %b {path = "/out/b.npy"} : tensor<i1>

// -----
%x = mg.load {path = "/data/x.npy"} : tensor<2xbf16>
// CHECK: mg.load: element type bf16 has no .npy type (NumPy has no bfloat16): cast the tensor to f32 and save or load that

// -----
%x = "test.op"() : () -> tensor<2xbf16>
mg.save %x {path = "/out/x.npy"} : tensor<2xbf16>
// CHECK: mg.save: element type bf16 has no .npy type

// -----
%x = mg.load {path = "/data/x.npy"} : tensor<2xi16>
// CHECK: mg.load: element type must be f64, f32, i32, i64 or i1, got i16

// -----
%x = mg.load {path = "data/x.npy"} : tensor<2xf64>
// CHECK: mg.load: the path must be absolute, got 'data/x.npy'

// -----
%x = "test.op"() : () -> tensor<2xf64>
mg.save %x {path = "w.npy"} : tensor<2xf64>
// CHECK: mg.save: the path must be absolute, got 'w.npy'
