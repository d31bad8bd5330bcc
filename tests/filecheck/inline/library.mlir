// inline in a library (no @main): each def's one call is inlined, and every def stays,
// callable on its own. The defs may come in any order (here each caller before its
// callee): callees are inlined first, so @outer's copy of @middle holds @inner's body.
// A def called twice keeps both calls.
// RUN: mg-opt %s -p inline | filecheck %s

// CHECK-LABEL: func.func @outer(
// CHECK-NEXT:    %[[E:.*]] = mg.exp %a
// CHECK-NEXT:    %[[N:.*]] = mg.neg %[[E]]
// CHECK-NEXT:    %[[T1:.*]] = func.call @shared(%[[N]])
// CHECK-NEXT:    %[[T2:.*]] = func.call @shared(%[[T1]])
// CHECK-NEXT:    func.return %[[T2]]
func.func @outer(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @middle(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = func.call @shared(%0) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = func.call @shared(%1) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %2 : tensor<?xf32>
}

// CHECK-LABEL: func.func @middle(
// CHECK-NEXT:    %[[E:.*]] = mg.exp %m
// CHECK-NEXT:    %[[N:.*]] = mg.neg %[[E]]
// CHECK-NEXT:    func.return %[[N]]
func.func @middle(%m: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @inner(%m) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = mg.neg %0 : tensor<?xf32> -> tensor<?xf32>
  func.return %1 : tensor<?xf32>
}

// CHECK-LABEL: func.func @inner(
// CHECK-NEXT:    mg.exp %i
func.func @inner(%i: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mg.exp %i : tensor<?xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// CHECK-LABEL: func.func @shared(
func.func @shared(%s: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mg.abs %s : tensor<?xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
