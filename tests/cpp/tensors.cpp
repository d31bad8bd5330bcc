// Calls the functions of tensors.mg through mg::Tensor of each element type and rank, and
// compares every result with plain loops written here independently.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tensors.h"

static int failures = 0;

static void report(const char *what, bool ok) {
  std::printf("%-44s %s\n", what, ok ? "matches" : "DIFFERS");
  failures += !ok;
}

template <typename T, size_t N, typename U>
static bool same(const mg::Tensor<T, N> &got, const std::array<int64_t, N> &shape, const std::vector<U> &want) {
  if (got.shape != shape || got.data.size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); i++)
    if (static_cast<U>(got.data[i]) != want[i]) return false;
  return true;
}

int main() {
  // f32, rank 3 with a `?`, each operand broadcast along one axis
  mg::Tensor<float, 3> a({2, 5, 1}), b({2, 1, 4});
  for (size_t i = 0; i < a.data.size(); i++) a.data[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < b.data.size(); i++) b.data[i] = 0.25f * static_cast<float>(i);
  std::vector<float> affine(2 * 5 * 4);
  for (int64_t i = 0; i < 2; i++)
    for (int64_t j = 0; j < 5; j++)
      for (int64_t k = 0; k < 4; k++) affine[(i * 5 + j) * 4 + k] = 2 * a(i, j, 0) + b(i, 0, k);
  report("affine3 f32 2x5x1 + 2x1x4", same(mg::affine3(a, b), {2, 5, 4}, affine));

  // i32 sums over the first axis
  mg::Tensor<int32_t, 2> m({4, 3});
  for (size_t i = 0; i < m.data.size(); i++) m.data[i] = static_cast<int32_t>(i * i) - 20;
  std::vector<int32_t> sums(3, 0);
  for (int64_t i = 0; i < 4; i++)
    for (int64_t j = 0; j < 3; j++) sums[j] += m(i, j);
  report("column_sums i32 4x3 -> 3", same(mg::column_sums(m), {3}, sums));

  // i64 beyond 32 bits, to rank 0
  mg::Tensor<int64_t, 1> v({3}, {4000000000000, -7, 9});
  report("total i64 3 -> scalar", mg::total(v)() == 4000000000002 && mg::total(v).data.size() == 1);

  // a Matrix in, i1 (uint8_t) out
  mg::Matrix x(2, 3, {1, -2, 0, 3, -0.5, 8});
  report("positive f64 matrix -> i1", same(mg::positive(x), {2, 3}, std::vector<int>{1, 0, 0, 1, 0, 1}));

  // i1 in (2 is taken as true), bf16 in and out, rounded as the compiled code rounds
  mg::Tensor<uint8_t, 1> mask({3}, {0, 2, 1});
  mg::Tensor<mg::bf16, 1> p({3}, {1.5f, 3.0f, 1.0078125f}), q({3}, {10.0f, 20.0f, 30.0f});
  std::vector<float> picked{15.0f, 9.0f, mg::bf16(1.0078125f * 1.0078125f)};
  report("pick i1, bf16 -> bf16", same(mg::pick(mask, p, q), {3}, picked));
  report("bf16 rounds to nearest even", float(mg::bf16(1.00390625f)) == 1.0f &&
                                            float(mg::bf16(1.01171875f)) == 1.015625f &&
                                            std::isnan(float(mg::bf16(NAN))));

  // a rank-0 parameter
  report("scaled scalar * 3", same(mg::scaled(mg::Tensor<double, 0>({}, {2.5}), mg::Tensor<double, 1>({3}, {1, 2, 3})),
                                   {3}, std::vector<double>{2.5, 5, 7.5}));

  // integer division truncates toward zero
  mg::Tensor<int32_t, 2> n({2, 2}, {-7, 7, 9, -9}), d({2, 2}, {2, 2, -4, -4});
  report("halves i32 truncates", same(mg::halves(n, d), {2, 2}, std::vector<int32_t>{-3, 3, -2, 2}));

  // a batched product, f32
  mg::Tensor<float, 3> l({2, 3, 4}), r({2, 4, 2});
  for (size_t i = 0; i < l.data.size(); i++) l.data[i] = static_cast<float>(i % 5) - 2.0f;
  for (size_t i = 0; i < r.data.size(); i++) r.data[i] = static_cast<float>(i % 3) + 0.5f;
  std::vector<float> prod(2 * 3 * 2, 0.0f);
  for (int64_t s = 0; s < 2; s++)
    for (int64_t i = 0; i < 3; i++)
      for (int64_t j = 0; j < 2; j++)
        for (int64_t k = 0; k < 4; k++) prod[(s * 3 + i) * 2 + j] += l(s, i, k) * r(s, k, j);
  report("batched f32 2x3x4 @ 2x4x2", same(mg::batched(l, r), {2, 3, 2}, prod));

  // rank-2 f64 stays mg::Matrix
  mg::Matrix y = mg::layer(mg::Matrix(1, 3, {1, 2, 3}), mg::Matrix(3, 2, {1, -1, 1, -1, 1, -1}));
  report("layer f64 keeps mg::Matrix", y.rows == 1 && y.cols == 2 && y(0, 0) == 6 && y(0, 1) == 0);

  // what throws before the compiled code runs
  try {
    mg::affine3(mg::Tensor<float, 3>({2, 5, 3}), b);
  } catch (const std::invalid_argument &e) {
    std::printf("%s\n", e.what());
  }
  try {
    mg::Tensor<float, 2>({2, 3}, {1.0f});
  } catch (const std::invalid_argument &e) {
    std::printf("%s\n", e.what());
  }
  std::fflush(stdout);
  // an integer division by zero stops the program with the check's message
  mg::halves(n, mg::Tensor<int32_t, 2>({2, 2}, {1, 0, 1, 1}));
  std::printf("not reached\n");
  return failures;
}
