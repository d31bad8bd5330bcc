# A run-time check inside a kernel (an integer division's divisor is not zero): a GPU
# thread cannot report on stderr, so a failed check traps, and the host reports the
# failed launch. The division itself gets divisor 1 on that path, so it is never undefined.
# RUN: mg-opt %s -p 'mg-gpu-pipeline{to=gpu}' | filecheck %s
def f(a: tensor[?xi32], b: tensor[?xi32]) = a / b
# CHECK:      llvm.func @f_kernel(
# CHECK:        %[[NONZERO:.*]] = llvm.icmp "ne" %[[B:.*]], %[[ZERO:.*]] : i32
# CHECK-NEXT:   llvm.cond_br %[[NONZERO]], ^[[REST:.*]], ^[[FAILED:.*]]
# CHECK:      ^[[FAILED]]:
# CHECK-NEXT:   llvm.call_intrinsic "llvm.trap"() : () -> ()
# CHECK-NEXT:   llvm.unreachable
# CHECK:      ^[[REST]]:
# CHECK:        llvm.sdiv
# CHECK-NOT:  cf.assert
