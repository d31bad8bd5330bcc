// mg-cse: an mg op that repeats an earlier one in scope (same name, operands, properties,
// attributes, result types) is replaced by it; ops with effects, values from outside and
// the buffers of vars updated in place stay as they are.
// RUN: mg-opt %s -p mg-cse | filecheck %s

// A softmax that writes exp(s - max(s)) twice: one maximum, one broadcast, one exp.
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %[[M:.*]] = mg.reduce %s {axis = 1 : i64, kind = "max"}
// CHECK-NEXT:    %[[B:.*]] = mg.broadcast %[[M]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[D:.*]] = mg.sub %s, %[[B]]
// CHECK-NEXT:    %[[E:.*]] = mg.exp %[[D]]
// CHECK-NEXT:    %[[T:.*]] = mg.reduce %[[E]] {axis = 1 : i64, kind = "sum"}
// CHECK-NEXT:    %[[BT:.*]] = mg.broadcast %[[T]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = mg.div %[[E]], %[[BT]]
// CHECK-NEXT:    func.return %[[R]]
func.func @softmax(%s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = mg.reduce %s {axis = 1 : i64, kind = "max"} : tensor<4x8xf32> -> tensor<4x1xf32>
  %b = mg.broadcast %m : tensor<4x1xf32> -> tensor<4x8xf32>
  %d = mg.sub %s, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %e = mg.exp %d : tensor<4x8xf32> -> tensor<4x8xf32>
  %m2 = mg.reduce %s {axis = 1 : i64, kind = "max"} : tensor<4x8xf32> -> tensor<4x1xf32>
  %b2 = mg.broadcast %m2 : tensor<4x1xf32> -> tensor<4x8xf32>
  %d2 = mg.sub %s, %b2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %e2 = mg.exp %d2 : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = mg.reduce %e2 {axis = 1 : i64, kind = "sum"} : tensor<4x8xf32> -> tensor<4x1xf32>
  %bt = mg.broadcast %t : tensor<4x1xf32> -> tensor<4x8xf32>
  %r = mg.div %e, %bt : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// Different properties, attributes or operands: different values. The scale of a matrix
// product written three times is one product and one scaling.
// CHECK-LABEL: func.func @differ(
// CHECK-NEXT:    %[[P:.*]] = mg.matmul %a, %b
// CHECK-NEXT:    %[[S:.*]] = mg.scalar %[[P]] {op = "mul", value = 1.250000e-01 : f64, reversed = false}
// CHECK-NEXT:    %[[S2:.*]] = mg.scalar %[[P]] {op = "mul", value = 5.000000e-01 : f64, reversed = false}
// CHECK-NEXT:    %[[S3:.*]] = mg.scalar %[[P]] {op = "sub", value = 1.250000e-01 : f64, reversed = true}
// CHECK-NEXT:    %[[MX:.*]] = mg.reduce %[[S]] {axis = 1 : i64, kind = "max"}
// CHECK-NEXT:    %[[SM:.*]] = mg.reduce %[[S]] {axis = 1 : i64, kind = "sum"}
// CHECK-NEXT:    %[[C1:.*]] = mg.cast %[[MX]] {mg.check_messages = ["first", ""]}
// CHECK-NEXT:    %[[C2:.*]] = mg.cast %[[MX]] {mg.check_messages = ["second", ""]}
// CHECK-NEXT:    %[[C3:.*]] = mg.cast %[[SM]] {mg.check_messages = ["first", ""]}
// CHECK-NEXT:    func.return %[[S]], %[[S2]], %[[S3]], %[[C1]], %[[C2]], %[[C3]]
func.func @differ(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<?x1xf64>, tensor<?x1xf64>, tensor<?x1xf64>) {
  %p = mg.matmul %a, %b : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
  %s = mg.scalar %p {op = "mul", value = 0.125 : f64, reversed = false} : tensor<2x2xf64> -> tensor<2x2xf64>
  %p2 = mg.matmul %a, %b : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
  %s2 = mg.scalar %p2 {op = "mul", value = 0.5 : f64, reversed = false} : tensor<2x2xf64> -> tensor<2x2xf64>
  %s3 = mg.scalar %p2 {op = "sub", value = 0.125 : f64, reversed = true} : tensor<2x2xf64> -> tensor<2x2xf64>
  %p3 = mg.matmul %a, %b : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
  %s4 = mg.scalar %p3 {op = "mul", value = 0.125 : f64, reversed = false} : tensor<2x2xf64> -> tensor<2x2xf64>
  %mx = mg.reduce %s4 {axis = 1 : i64, kind = "max"} : tensor<2x2xf64> -> tensor<2x1xf64>
  %sm = mg.reduce %s {axis = 1 : i64, kind = "sum"} : tensor<2x2xf64> -> tensor<2x1xf64>
  %c1 = mg.cast %mx {mg.check_messages = ["first", ""]} : tensor<2x1xf64> to tensor<?x1xf64>
  %c2 = mg.cast %mx {mg.check_messages = ["second", ""]} : tensor<2x1xf64> to tensor<?x1xf64>
  %c3 = mg.cast %sm {mg.check_messages = ["first", ""]} : tensor<2x1xf64> to tensor<?x1xf64>
  %c4 = mg.cast %mx {mg.check_messages = ["first", ""]} : tensor<2x1xf64> to tensor<?x1xf64>
  func.return %s, %s2, %s3, %c1, %c2, %c3 : tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<?x1xf64>, tensor<?x1xf64>, tensor<?x1xf64>
}

// A loop's body sees the ops before the loop: its exp(x) is the one computed once before
// it. An op in the body is not seen after the loop, nor one in a branch after the branch.
// Ops nobody uses stay (a check of an index or a cast is made where the program wrote it).
// CHECK-LABEL: func.func @scopes(
// CHECK-NEXT:    %[[E:.*]] = mg.exp %x
// CHECK:         scf.for
// CHECK-NEXT:      %[[S:.*]] = mg.add %acc, %[[E]]
// CHECK-NEXT:      %[[N:.*]] = mg.neg %x
// CHECK-NEXT:      scf.yield %[[S]]
// CHECK:         %[[N2:.*]] = mg.neg %x
// CHECK-NEXT:    %{{.*}} = mg.index %x, %i
// CHECK-NEXT:    func.return %{{.*}}, %[[N2]]
func.func @scopes(%x: tensor<4xf64>, %i: tensor<2xi64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %e = mg.exp %x : tensor<4xf64> -> tensor<4xf64>
  %lo = arith.constant 0 : index
  %hi = arith.constant 3 : index
  %one = arith.constant 1 : index
  %r = scf.for %k = %lo to %hi step %one iter_args(%acc = %e) -> (tensor<4xf64>) {
    %e2 = mg.exp %x : tensor<4xf64> -> tensor<4xf64>
    %s = mg.add %acc, %e2 : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %n = mg.neg %x : tensor<4xf64> -> tensor<4xf64>
    scf.yield %s : tensor<4xf64>
  }
  %n2 = mg.neg %x : tensor<4xf64> -> tensor<4xf64>
  %unused = mg.index %x, %i : tensor<4xf64>, tensor<2xi64> -> tensor<2xf64>
  func.return %r, %n2 : tensor<4xf64>, tensor<4xf64>
}

// Effects and values from outside stay, each: prints, loads of a file (it may change),
// arguments. Two draws of one seed are one tensor (each element a function of the seed and
// its position).
// CHECK-LABEL: func.func @effects(
// CHECK-NEXT:    %[[L1:.*]] = mg.load {path = "/tmp/x.npy"}
// CHECK-NEXT:    mg.print %[[L1]]
// CHECK-NEXT:    mg.print %[[L1]]
// CHECK-NEXT:    %[[L2:.*]] = mg.load {path = "/tmp/x.npy"}
// CHECK-NEXT:    %[[A1:.*]] = mg.arg {name = "lr", default = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[A2:.*]] = mg.arg {name = "lr", default = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[R:.*]] = mg.random
// CHECK-NEXT:    func.return %[[L1]], %[[L2]], %[[A1]], %[[A2]], %[[R]], %[[R]]
func.func @effects() -> (tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>) {
  %l1 = mg.load {path = "/tmp/x.npy"} : tensor<3xf64>
  mg.print %l1 : tensor<3xf64>
  mg.print %l1 : tensor<3xf64>
  %l2 = mg.load {path = "/tmp/x.npy"} : tensor<3xf64>
  %a1 = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  %a2 = mg.arg {name = "lr", default = 1.000000e-01 : f64} : tensor<f64>
  %r1 = mg.random {distribution = "normal", seed = 1 : i64, a = 0.000000e+00 : f64, b = 1.000000e+00 : f64} : tensor<3xf64>
  %r2 = mg.random {distribution = "normal", seed = 1 : i64, a = 0.000000e+00 : f64, b = 1.000000e+00 : f64} : tensor<3xf64>
  func.return %l1, %l2, %a1, %a2, %r1, %r2 : tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>
}

// Vars: `var w = x * 2; let y = x * 2; w += 1`: the front end lets w take the product's
// new buffer, so y's product (equal to it) stays, or the update would change y. Two copies
// for two vars (`var v = x; var u = x`) stay two buffers when either is updated, through a
// loop too; updates in place are never merged. A product nobody updates is merged.
// CHECK-LABEL: func.func @vars(
// CHECK-NEXT:    %[[W:.*]] = mg.scalar %x {op = "mul"
// CHECK-NEXT:    %[[Y:.*]] = mg.scalar %x {op = "mul"
// CHECK-NEXT:    %[[W1:.*]] = mg.scalar %[[W]] {mg.in_place, op = "add"
// CHECK-NEXT:    %[[W2:.*]] = mg.scalar %[[W1]] {mg.in_place, op = "add"
// CHECK-NEXT:    %[[V:.*]] = mg.convert %x
// CHECK-NEXT:    %[[U:.*]] = mg.convert %x
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[V]])
// CHECK-NEXT:      mg.scalar %[[ACC]] {mg.in_place, op = "add"
// CHECK:         %[[N:.*]] = mg.neg %x
// CHECK-NEXT:    func.return %[[Y]], %[[W2]], %{{.*}}, %[[U]], %[[N]], %[[N]]
func.func @vars(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %w = mg.scalar %x {op = "mul", value = 2.0 : f64, reversed = false} : tensor<2xf64> -> tensor<2xf64>
  %y = mg.scalar %x {op = "mul", value = 2.0 : f64, reversed = false} : tensor<2xf64> -> tensor<2xf64>
  %w1 = mg.scalar %w {mg.in_place, op = "add", value = 1.0 : f64, reversed = false} : tensor<2xf64> -> tensor<2xf64>
  %w2 = mg.scalar %w1 {mg.in_place, op = "add", value = 1.0 : f64, reversed = false} : tensor<2xf64> -> tensor<2xf64>
  %v = mg.convert %x : tensor<2xf64> to tensor<2xf64>
  %u = mg.convert %x : tensor<2xf64> to tensor<2xf64>
  %lo = arith.constant 0 : index
  %hi = arith.constant 3 : index
  %one = arith.constant 1 : index
  %vr = scf.for %k = %lo to %hi step %one iter_args(%acc = %v) -> (tensor<2xf64>) {
    %next = mg.scalar %acc {mg.in_place, op = "add", value = 1.0 : f64, reversed = false} : tensor<2xf64> -> tensor<2xf64>
    scf.yield %next : tensor<2xf64>
  }
  %n = mg.neg %x : tensor<2xf64> -> tensor<2xf64>
  %n2 = mg.neg %x : tensor<2xf64> -> tensor<2xf64>
  func.return %y, %w2, %vr, %u, %n, %n2 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}

// Each function is a scope of its own.
// CHECK-LABEL: func.func @other(
// CHECK-NEXT:    mg.exp %x
func.func @other(%x: tensor<4xf64>) -> tensor<4xf64> {
  %e = mg.exp %x : tensor<4xf64> -> tensor<4xf64>
  func.return %e : tensor<4xf64>
}
