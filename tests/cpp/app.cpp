// Calls the functions of ops.mg through the header `mgc lib` writes, on matrices larger than
// any example, and compares every result with a plain loop written here independently.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "ops.h"

static mg::Matrix pattern(int64_t rows, int64_t cols, int seed) {
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); i++) v[i] = static_cast<double>((i * 7 + seed * 13) % 19) - 9.0 + 0.25 * seed;
  return mg::Matrix(rows, cols, v);
}

static int failures = 0;

static void check(const char *what, const mg::Matrix &got, const mg::Matrix &want) {
  bool ok = got.rows == want.rows && got.cols == want.cols;
  for (size_t i = 0; ok && i < want.data.size(); i++)
    ok = std::fabs(got.data[i] - want.data[i]) <= 1e-9 * (1 + std::fabs(want.data[i]));
  std::printf("%-40s %s\n", what, ok ? "matches" : "DIFFERS");
  failures += !ok;
}

int main() {
  mg::Matrix a = pattern(37, 23, 1), b = pattern(37, 23, 2);

  mg::Matrix r(37, 23, std::vector<double>(37 * 23));
  for (int64_t i = 0; i < 37; i++)
    for (int64_t j = 0; j < 23; j++) r(i, j) = std::max(a(i, j), 0.0);
  check("relu_m 37x23 (?x?)", mg::relu_m(a), r);

  mg::Matrix rs(37, 1, std::vector<double>(37, 0.0));
  for (int64_t i = 0; i < 37; i++)
    for (int64_t j = 0; j < 23; j++) rs(i, 0) += a(i, j);
  check("row_sums 37x23 (?x?)", mg::row_sums(a), rs);

  mg::Matrix cm(1, 23, std::vector<double>(23, -INFINITY));
  for (int64_t i = 0; i < 37; i++)
    for (int64_t j = 0; j < 23; j++) cm(0, j) = std::max(cm(0, j), a(i, j));
  check("col_maxes 37x23 (?x?)", mg::col_maxes(a), cm);

  mg::Matrix sd(37, 23, std::vector<double>(37 * 23));
  for (size_t i = 0; i < sd.data.size(); i++) sd.data[i] = 2 * a.data[i] - b.data[i] / 4;
  check("scaled_diff 37x23 (two ?x? args)", mg::scaled_diff(a, b), sd);

  mg::Matrix p = pattern(23, 41, 3), ap(37, 41, std::vector<double>(37 * 41, 0.0));
  for (int64_t i = 0; i < 37; i++)
    for (int64_t j = 0; j < 41; j++)
      for (int64_t k = 0; k < 23; k++) ap(i, j) += a(i, k) * p(k, j);
  check("product 37x23 @ 23x41 (?x?)", mg::product(a, p), ap);

  mg::Matrix x = pattern(16, 24, 4), w = pattern(24, 12, 5), bias = pattern(1, 12, 6);
  mg::Matrix l(16, 12, std::vector<double>(16 * 12));
  for (int64_t i = 0; i < 16; i++)
    for (int64_t j = 0; j < 12; j++) {
      double acc = 0;
      for (int64_t k = 0; k < 24; k++) acc += x(i, k) * w(k, j);
      l(i, j) = std::max(acc + bias(0, j), 0.0);
    }
  check("layer relu(x @ w + bias) 16x24 @ 24x12", mg::layer(x, w, bias), l);

  mg::Matrix m = pattern(20, 8, 7), c(20, 8, std::vector<double>(160));
  for (int64_t j = 0; j < 8; j++) {
    double mean = 0;
    for (int64_t i = 0; i < 20; i++) mean += m(i, j);
    mean /= 20;
    for (int64_t i = 0; i < 20; i++) c(i, j) = m(i, j) - mean;
  }
  check("center 20x8", mg::center(m), c);

  mg::Matrix n = pattern(9, 6, 8), nn(9, 6, std::vector<double>(54));
  for (int64_t i = 0; i < 9; i++) {
    double s = 0;
    for (int64_t j = 0; j < 6; j++) s += n(i, j);
    for (int64_t j = 0; j < 6; j++) nn(i, j) = n(i, j) / s;
  }
  check("normalize 9x6", mg::normalize(n), nn);

  try {
    mg::layer(w, x, bias);
    std::printf("a wrongly shaped argument was accepted\n");
    failures++;
  } catch (const std::invalid_argument &e) {
    std::printf("wrong shape rejected: %s\n", e.what());
  }
  return failures != 0;
}
