#include "harness/reference.hpp"

#include <algorithm>

#include "harness/random.hpp"

namespace tessel::harness {

void fill_random(std::vector<float>& v, uint64_t seed) {
  const uint64_t base = random_base(seed);
  for (size_t i = 0; i < v.size(); ++i) v[i] = random_element(base, i);
}

double reference_element(const SgemmArgs& h, int64_t i, int64_t j, double* terms2) {
  double acc = 0.0, squares = 0.0;
  for (int64_t q = 0; q < h.k; ++q) {
    const double a = h.opA == Op::N ? h.A[i * h.lda + q] : h.A[q * h.lda + i];
    const double b = h.opB == Op::N ? h.B[q * h.ldb + j] : h.B[j * h.ldb + q];
    acc += a * b;
    squares += (a * b) * (a * b);
  }
  if (terms2) *terms2 = double(h.alpha) * double(h.alpha) * squares;
  double out = double(h.alpha) * acc;
  if (h.beta != 0.0f) out += double(h.beta) * h.C[i * h.ldc + j];
  return out;
}

std::vector<double> reference_gemm(const SgemmArgs& h) {
  std::vector<double> out(size_t(h.m * h.n));
  for (int64_t i = 0; i < h.m; ++i)
    for (int64_t j = 0; j < h.n; ++j) out[size_t(i * h.n + j)] = reference_element(h, i, j);
  return out;
}

int64_t stored_rows_a(const SgemmArgs& a) { return a.opA == Op::N ? a.m : a.k; }
int64_t stored_cols_a(const SgemmArgs& a) { return a.opA == Op::N ? a.k : a.m; }
int64_t stored_rows_b(const SgemmArgs& a) { return a.opB == Op::N ? a.k : a.n; }
int64_t stored_cols_b(const SgemmArgs& a) { return a.opB == Op::N ? a.n : a.k; }

SgemmArgs make_layout(OpPair ops, const Shape& shape, float alpha, float beta, int64_t ld_align, int64_t ld_pad) {
  SgemmArgs a{ops.first, ops.second, shape.m, shape.n, shape.k, alpha, nullptr, 0, nullptr, 0, beta, nullptr, 0};
  auto ld = [&](int64_t cols) { return (std::max<int64_t>(1, cols) + ld_align - 1) / ld_align * ld_align + ld_pad; };
  a.lda = ld(stored_cols_a(a));
  a.ldb = ld(stored_cols_b(a));
  a.ldc = ld(shape.n);
  return a;
}

}  // namespace tessel::harness
