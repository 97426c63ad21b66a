#include "harness/reference.hpp"

#include <algorithm>

namespace tessel::harness {

namespace {
uint64_t mix(uint64_t z) {  // splitmix64's output function
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

void fill_random(std::vector<float>& v, uint64_t seed) {
  // splitmix64 from a mixed seed: the sequences of seeds s and s + 1 are
  // unrelated (unmixed, one would be the other shifted by one element, and
  // A and B of one case would share their values).
  uint64_t state = mix(seed + 0x2545F4914F6CDD1Dull);
  for (float& x : v) {
    const uint64_t z = mix(state += 0x9E3779B97F4A7C15ull);  // top 24 bits -> [0, 1) -> [-1, 1)
    x = float(double(z >> 40) * (1.0 / 16777216.0) * 2.0 - 1.0);
  }
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
