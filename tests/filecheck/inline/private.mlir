// inline in a library whose helpers are private (what the Python API compiles first: the
// defs that no def calls, public, and the defs they call, private): a private def whose one
// call is inlined is erased, as upstream's inliner discards a private callable it has
// inlined everywhere; a private def called twice keeps its calls and stays; a public def
// stays after its call is inlined.
// RUN: mg-opt %s -p inline | filecheck %s

// CHECK-LABEL: func.func @attention(
// CHECK-NEXT:    %[[E:.*]] = mg.exp %s
// CHECK-NEXT:    %[[T1:.*]] = func.call @twice(%[[E]])
// CHECK-NEXT:    %[[T2:.*]] = func.call @twice(%[[T1]])
// CHECK-NEXT:    %[[P:.*]] = mg.neg %[[T2]]
// CHECK-NEXT:    func.return %[[P]]
func.func @attention(%s: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @softmax(%s) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = func.call @twice(%0) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = func.call @twice(%1) : (tensor<?xf32>) -> tensor<?xf32>
  %3 = func.call @public(%2) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %3 : tensor<?xf32>
}

func.func private @softmax(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mg.exp %a : tensor<?xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// CHECK-NOT:     @softmax
// CHECK-LABEL: func.func private @twice(
// CHECK-NEXT:    mg.abs %b
func.func private @twice(%b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mg.abs %b : tensor<?xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// CHECK-LABEL: func.func @public(
// CHECK-NEXT:    mg.neg %c
func.func @public(%c: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mg.neg %c : tensor<?xf32> -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK-NOT:     @softmax
