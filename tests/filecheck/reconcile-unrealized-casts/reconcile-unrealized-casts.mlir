// reconcile-unrealized-casts: a chain of casts that leads back to the type it started from
// disappears, its users taking the value it started from; a cast whose result is used as
// the type it makes stays.
// RUN: mg-opt %s -p reconcile-unrealized-casts | filecheck %s

func.func @chain(%x: i64) -> i64 {
  %a = builtin.unrealized_conversion_cast %x : i64 to index
  %b = builtin.unrealized_conversion_cast %a : index to i64
  %c = arith.addi %b, %b : i64
  func.return %c : i64
}
// CHECK-LABEL: func.func @chain(%x: i64) -> i64 {
// CHECK-NEXT:    %c = arith.addi %x, %x : i64
// CHECK-NEXT:    func.return %c : i64

func.func @unused(%x: i64) {
  %a = builtin.unrealized_conversion_cast %x : i64 to index
  func.return
}
// CHECK-LABEL: func.func @unused(%x: i64) {
// CHECK-NEXT:    func.return

func.func @live(%x: i64) -> index {
  %a = builtin.unrealized_conversion_cast %x : i64 to index
  func.return %a : index
}
// CHECK-LABEL: func.func @live(%x: i64) -> index {
// CHECK-NEXT:    %a = builtin.unrealized_conversion_cast %x : i64 to index
// CHECK-NEXT:    func.return %a : index
