#include "harness/verify_batch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "harness/reference.hpp"
#include "harness/typed.hpp"

namespace tessel::harness {
namespace {

// `count` matrices of rows x cols (leading dimension ld), `stride` elements
// apart, random (values `type` holds exactly, or the unwritten NaN); every
// other element of the array, and kGuard past its end, a guard NaN. inside[e]:
// whether element e belongs to a matrix.
struct Batched {
  std::vector<float> values;
  std::vector<bool> inside;
  int64_t stride;
  const float* matrix(int64_t i) const { return values.data() + i * stride; }
};

Batched make_batched(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t count, uint64_t seed,
                     DType type, bool unwritten = false) {
  Batched b{{}, {}, stride};
  const int64_t extent = (count - 1) * stride + rows * ld;
  b.values.assign(size_t(extent + kGuard), from_bits(kGuardBits));
  b.inside.assign(b.values.size(), false);
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<float> one = make_operand(rows, cols, ld, seed + uint64_t(i), type);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t q = 0; q < cols; ++q) {
        const size_t at = size_t(i * stride + r * ld + q);
        b.values[at] = unwritten ? from_bits(kUnwrittenBits) : one[size_t(r * ld + q)];
        b.inside[at] = true;
      }
    }
  }
  return b;
}

int64_t in_units(int64_t elements, DType t) {
  const int64_t unit = std::max<int64_t>(1, 16 / int64_t(size_of(t)));
  return (elements + unit - 1) / unit * unit;
}

}  // namespace

VerifyResult verify_batch(Cublas& cublas, const BatchCase& c) {
  VerifyResult r;
  const int64_t m = c.shape.m, n = c.shape.n, k = c.shape.k, count = c.batch;
  const DType ab = c.precision.ab, ct = c.precision.c;
  r.tolerance = tolerance(c.precision, k);
  const bool an = c.opA == Op::N, bn = c.opB == Op::N;
  const int64_t rows_a = an ? m : k, cols_a = an ? k : m, rows_b = bn ? k : n, cols_b = bn ? n : k;
  const int64_t lda = in_units(std::max<int64_t>(cols_a, 1), ab), ldb = in_units(std::max<int64_t>(cols_b, 1), ab);
  const int64_t stride_a = in_units(rows_a * lda + kBatchGap, ab);
  const int64_t stride_b = c.share_b ? 0 : in_units(rows_b * ldb + kBatchGap, ab);
  // C: stacked with a gap, or side by side with a gap in every row.
  const int64_t pitch = in_units(n + kBatchGap, ct);
  const int64_t ldc = c.side_by_side ? count * pitch : in_units(std::max<int64_t>(n, 1), ct);
  const int64_t stride_c = c.side_by_side ? pitch : in_units(m * ldc + kBatchGap, ct);

  const Batched hA = make_batched(rows_a, cols_a, lda, stride_a, count, c.seed * 11 + 1, ab);
  const Batched hB = make_batched(rows_b, cols_b, ldb, stride_b, c.share_b ? 1 : count, c.seed * 11 + 2, ab);
  const Batched hC = make_batched(m, n, ldc, stride_c, count, c.seed * 11 + 3, ct, c.beta == 0.0f);
  const std::vector<uint8_t> bytesA = encode(hA.values, ab), bytesB = encode(hB.values, ab),
                             bytesC = encode(hC.values, ct);
  DeviceBuffer<uint8_t> dA(bytesA.size()), dB(bytesB.size()), dC(bytesC.size()), dRef(bytesC.size());
  dA.upload(bytesA), dB.upload(bytesB), dC.upload(bytesC), dRef.upload(bytesC);

  GemmArgs run;
  run.opA = c.opA, run.opB = c.opB, run.m = m, run.n = n, run.k = k, run.alpha = c.alpha, run.beta = c.beta;
  run.A = dA.get(), run.lda = lda, run.B = dB.get(), run.ldb = ldb, run.C = dC.get(), run.ldc = ldc;
  run.precision = c.precision;
  run.batch = count, run.stride_a = stride_a, run.stride_b = stride_b, run.stride_c = stride_c;
  GemmArgs ref = run;
  ref.C = dRef.get();
  if (is_fp8(ab)) {  // no strided-batched FP8 in cuBLAS: a call per matrix on the widened operands
    const size_t bytes = size_of(ab), c_bytes = size_of(ct);
    for (int64_t i = 0; i < count; ++i) {
      GemmArgs one = ref;
      one.batch = 1;
      one.A = dA.get() + i * stride_a * int64_t(bytes), one.B = dB.get() + i * stride_b * int64_t(bytes);
      one.C = dRef.get() + i * stride_c * int64_t(c_bytes);
      cublas.gemm(one);
    }
  } else {
    cublas.gemm(ref);
  }
  check_cuda(cudaDeviceSynchronize(), "reference");
  r.status = run_gemm(c.kernel, run);
  const cudaError_t err = cudaDeviceSynchronize();
  auto changed = [](const std::vector<uint8_t>& now, const std::vector<uint8_t>& before) {
    int64_t d = 0;
    for (size_t i = 0; i < now.size(); ++i) d += now[i] != before[i];
    return d;
  };
  r.clobbered = changed(dA.download(), bytesA) + changed(dB.download(), bytesB);
  const std::vector<uint8_t> bytesD = dC.download();
  if (!r.status.ok()) {
    r.clobbered += changed(bytesD, bytesC);
    r.reason = r.status.message() + (r.clobbered ? " (and it changed " + std::to_string(r.clobbered) + " bytes)" : "");
    return r;
  }
  if (err != cudaSuccess) {
    r.reason = std::string("kernel failed while running: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
    return r;
  }
  const std::vector<float> D = decode(bytesD, ct), R = decode(dRef.download(), ct);
  const size_t size = size_of(ct);
  for (size_t e = 0; e < D.size(); ++e) {
    if (!hC.inside[e] && std::memcmp(&bytesD[e * size], &bytesC[e * size], size) != 0) ++r.clobbered;
  }
  // Each matrix: every element against cuBLAS, a sample against fp64.
  std::mt19937_64 gen(c.seed);
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<float> Di(D.begin() + i * stride_c, D.begin() + i * stride_c + m * ldc);
    const std::vector<float> Ri(R.begin() + i * stride_c, R.begin() + i * stride_c + m * ldc);
    const Comparison cmp = compare(Di, Ri, m, n, ldc);
    r.nonfinite += cmp.nonfinite;
    SgemmArgs host{c.opA, c.opB, m, n, k, c.alpha, hA.matrix(i), lda, hB.matrix(c.share_b ? 0 : i), ldb, c.beta,
                   const_cast<float*>(hC.matrix(i)), ldc};
    double d2 = 0, x2 = 0, t2 = 0, c2 = 0;
    const int64_t samples = std::min<int64_t>(m * n, 64);
    for (int64_t s = 0; s < samples; ++s) {
      const int64_t e = m * n <= 64 ? s : int64_t(gen() % uint64_t(m * n));
      const int64_t row = e / n, col = e % n;
      double terms2 = 0;
      const double want = reference_element(host, row, col, &terms2);
      const size_t at = size_t(row * ldc + col);
      d2 += (Di[at] - want) * (Di[at] - want), c2 += (Ri[at] - want) * (Ri[at] - want);
      x2 += want * want, t2 += terms2;
    }
    const double scale2 = std::max(x2, t2);
    r.fp64_checked += samples;
    r.err_vs_fp64 = std::max(r.err_vs_fp64, relative(d2, scale2));
    r.cublas_vs_fp64 = std::max(r.cublas_vs_fp64, relative(c2, scale2));
    r.err_vs_cublas = std::max(r.err_vs_cublas, relative(cmp.diff2, std::max(cmp.ref2, t2 * double(m * n) / double(samples))));
  }
  std::string why;
  if (r.nonfinite > 0) why = std::to_string(r.nonfinite) + " NaN/Inf outputs where the reference is finite";
  else if (r.clobbered > 0) why = std::to_string(r.clobbered) + " elements outside the C matrices (or of A, B) were overwritten";
  else if (!(r.err_vs_cublas <= r.tolerance) || !(r.err_vs_fp64 <= r.tolerance)) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "error vs fp64 %.2e, vs cuBLAS %.2e; cuBLAS vs fp64 %.2e; tolerance %.1e",
                  r.err_vs_fp64, r.err_vs_cublas, r.cublas_vs_fp64, r.tolerance);
    why = std::string("above tolerance: ") + numbers;
  }
  r.reason = why;
  r.passed = why.empty();
  return r;
}

}  // namespace tessel::harness
