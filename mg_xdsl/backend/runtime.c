/* The run-time library of executables built by `mgc build`.
 *
 * printMemrefF64, printMemrefF32, printMemrefI32 and printMemrefI64 print exactly as MLIR's
 * runner library (and mg_xdsl/backend/runtime.py, its in-process twin for the JIT) does.
 * They are the printers that the element types' records name (ELEMENT_TYPES in
 * mg_xdsl/core/element_records.py: `printer`, and `ctype` for the C type each reads); a
 * record with a new printer needs its function here (tests/unit/dialects/test_element_types.py checks).
 * main() runs the program's top-level statements, compiled as mg_main, given its command-line
 * arguments (mgrt_set_args). Failed run-time checks (mgrt_check_failed) and failed allocations
 * (mgrt_out_of_memory, called by the allocator _mlir_memref_to_llvm_alloc) report on stderr
 * and abort; they are compiled into the program's object from LLVM IR
 * (mg_xdsl/backend/runtime_ir.py), as they are for the JIT and for `mgc lib` objects.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* A ranked memref descriptor of any rank: sizes[rank] then strides[rank] follow offset. */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} Descriptor;

/* Prints element i of a buffer, as C++'s std::ostream prints its type by default. */
typedef void (*ElementPrinter)(const void *data, int64_t i);

static void print_float(double x) {
  if (isnan(x))
    fputs("nan", stdout); /* the sign of a NaN means nothing; see runtime.py */
  else
    printf("%g", x);
}

static void print_f64(const void *data, int64_t i) { print_float(((const double *)data)[i]); }
static void print_f32(const void *data, int64_t i) { print_float(((const float *)data)[i]); }
static void print_i32(const void *data, int64_t i) { printf("%d", ((const int32_t *)data)[i]); }
static void print_i64(const void *data, int64_t i) { printf("%lld", (long long)((const int64_t *)data)[i]); }

static void print_data(const void *base, ElementPrinter element, int64_t dim, int64_t rank,
                       int64_t offset, const int64_t *sizes, const int64_t *strides) {
  if (dim == rank) {
    element(base, offset);
    return;
  }
  putchar('[');
  for (int64_t i = 0; i < sizes[dim]; i++) {
    if (i > 0)
      for (int64_t s = 0; s <= dim; s++) putchar(' ');
    print_data(base, element, dim + 1, rank, offset + i * strides[dim], sizes, strides);
    if (i < sizes[dim] - 1) {
      fputs(", ", stdout);
      if (dim + 1 < rank) putchar('\n');
    }
  }
  putchar(']');
}

static void print_memref(int64_t rank, const Descriptor *d, ElementPrinter element) {
  const int64_t *sizes = d->sizes_and_strides, *strides = d->sizes_and_strides + rank;
  printf("Unranked Memref base@ = 0x%lx rank = %ld offset = %ld sizes = [",
         (unsigned long)(uintptr_t)d->aligned, (long)rank, (long)d->offset);
  for (int64_t i = 0; i < rank; i++) printf(i ? ", %ld" : "%ld", (long)sizes[i]);
  fputs("] strides = [", stdout);
  for (int64_t i = 0; i < rank; i++) printf(i ? ", %ld" : "%ld", (long)strides[i]);
  fputs("] data = \n", stdout);
  int empty = 0;
  for (int64_t i = 0; i < rank; i++) empty |= sizes[i] == 0;
  if (rank == 0) {
    putchar('[');
    element(d->aligned, d->offset);
    putchar(']');
  } else if (empty) {
    fputs("[]", stdout);
  } else {
    print_data(d->aligned, element, 0, rank, d->offset, sizes, strides);
  }
  putchar('\n');
  /* A failed check may abort right after: what was printed must reach the terminal. */
  fflush(stdout);
}

void printMemrefF64(int64_t rank, Descriptor *d) { print_memref(rank, d, print_f64); }
void printMemrefF32(int64_t rank, Descriptor *d) { print_memref(rank, d, print_f32); }
void printMemrefI32(int64_t rank, Descriptor *d) { print_memref(rank, d, print_i32); }
void printMemrefI64(int64_t rank, Descriptor *d) { print_memref(rank, d, print_i64); }

void mg_main(void);

/* The program's NAME=VALUE arguments (mg.arg), kept for its lookups before it runs. A program
 * that has some links its own mgrt_set_args (mg_xdsl/backend/runtime_arguments_ir.py), which
 * replaces this one; this one, of a program that has none, refuses any argument as `mgc run`
 * does (NO_ARGUMENTS there: the same words). */
__attribute__((weak)) void mgrt_set_args(int64_t count, char **argv) {
  if (count == 0) return;
  if (strcmp(argv[0], "--help") == 0) {
    puts("this program takes no arguments");
    exit(0);
  }
  const char *equals = strchr(argv[0], '=');
  int length = equals ? (int)(equals - argv[0]) : (int)strlen(argv[0]);
  fprintf(stderr, "unknown argument '%.*s': this program takes no arguments\n", length, argv[0]);
  exit(1);
}

int main(int argc, char **argv) {
#if defined(__GLIBC__) && defined(MG_MMAP_THRESHOLD)
  /* The buffers a loop's iteration frees, kept for the next one: see
   * mg_xdsl/backend/malloc_thresholds.py, which gives the values. */
  const char *policy = getenv("MG_MALLOC");
  if (policy == NULL || strcmp(policy, "system") != 0) {
    mallopt(M_MMAP_THRESHOLD, MG_MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, MG_TRIM_THRESHOLD);
  }
#endif
  mgrt_set_args(argc - 1, argv + 1);
  mg_main();
  return 0;
}
