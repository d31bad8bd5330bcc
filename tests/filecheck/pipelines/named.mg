# The pipelines of mg_xdsl/pipeline/stages.py by name, each as one pass (options to=STAGE, cpu=NAME).
# RUN: mg-opt %s -p 'mg-reference-pipeline{to=affine}' | filecheck %s --check-prefix=AFFINE
# RUN: mg-opt %s -p 'mg-reference-pipeline{to=scf}' | filecheck %s --check-prefix=SCF
# RUN: mg-opt %s -p 'mg-cpu-pipeline{cpu=x86-64-v3}' | filecheck %s --check-prefix=AVX2
# RUN: mg-opt %s -p mg-cpu-pipeline -t llvm | filecheck %s --check-prefix=LLVM
# RUN: not mg-opt %s -p 'mg-cpu-pipeline{to=ptx}' 2>&1 | filecheck %s --check-prefix=BAD

def f(a: tensor[?x40], b: tensor[40x?]) = row_sum(relu(a @ b))
print f([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], transpose([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]))

# The chapter's affine stage: one nest per op, loops of one iteration as they are.
# AFFINE-LABEL: func.func @f(
# AFFINE:         affine.for %{{.*}} = 0 to 1 {
# AFFINE-NOT:     scf.for
# The scf stage: that loop is gone (affine-loop-normalize), and so is affine.
# SCF-LABEL:    func.func @f(
# SCF-NOT:        affine.
# SCF:            scf.for
# SCF-NOT:        affine.
# The optimised pipeline for an AVX2 CPU: the matrix product's kernel in vector<4xf64>.
# AVX2:         llvm.func @mg_matmul_set_f64(
# AVX2:           llvm.intr.fma({{.*}}) : (vector<4xf64>, vector<4xf64>, vector<4xf64>) -> vector<4xf64>
# As LLVM IR, the lanes of the row sums added with reassoc, as mgc compiles them (in
# @main's code: the optimised pipeline inlines f, called once).
# LLVM-NOT:     define {{.*}} @f(
# LLVM:         define {{.*}} @main
# LLVM:         call reassoc double @llvm.vector.reduce.fadd.v{{[0-9]+}}f64(
# BAD:          mg-opt: error: mg-cpu-pipeline: no stage 'ptx' (choose from linalg, affine, scf, cf, llvm)
