#include "harness/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "harness/reference.hpp"
#include "harness/typed.hpp"

namespace tessel::harness {

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::vector<float> make_operand(int64_t rows, int64_t cols, int64_t ld, uint64_t seed, DType type) {
  std::vector<float> v(size_t(rows * ld + kGuard));
  fill_random(v, seed);
  round_to(v, type);
  const float guard = from_bits(kGuardBits);
  for (int64_t r = 0; r < rows; ++r) std::fill(v.begin() + r * ld + cols, v.begin() + (r + 1) * ld, guard);
  std::fill(v.begin() + rows * ld, v.end(), guard);
  return v;
}

namespace {

// The device arrays of one case, kept per host thread and only ever grown:
// a cudaFree per case would wait for the whole GPU, every thread's work.
class CaseArray {
 public:
  CaseArray() = default;
  CaseArray(const CaseArray&) = delete;
  CaseArray& operator=(const CaseArray&) = delete;
  ~CaseArray() { release(); }
  void release() {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr, bytes_ = size_ = 0;
  }
  uint8_t* upload(const std::vector<uint8_t>& host) {
    if (bytes_ < host.size()) {
      release();
      check_cuda(cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(host.size(), 1)), "cudaMalloc");
      bytes_ = host.size();
    }
    size_ = host.size();
    check_cuda(cudaMemcpy(ptr_, host.data(), size_, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    // From pageable memory the copy may still be landing: the case's own (non-blocking) stream must not
    // run ahead of it (a call with alpha == 0 launches at once).
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
    return ptr_;
  }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> host(size_);
    check_cuda(cudaMemcpy(host.data(), ptr_, size_, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return host;
  }

 private:
  uint8_t* ptr_ = nullptr;
  size_t bytes_ = 0, size_ = 0;
};

struct CaseArrays {
  CaseArray a, b, c, ref, bias, row_scale, col_scale, pre, scales, block_a, block_b;
};
CaseArrays& case_arrays() {
  thread_local CaseArrays arrays;
  return arrays;
}

}  // namespace

double relative(double diff2, double ref2) { return ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2); }

Comparison compare(const std::vector<float>& D, const std::vector<float>& R, int64_t m, int64_t n, int64_t ld) {
  Comparison c;
  double diff2 = 0, ref2 = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double d = D[size_t(i * ld + j)], r = R[size_t(i * ld + j)];
      if (!std::isfinite(d) && std::isfinite(r)) ++c.nonfinite;
      diff2 += (d - r) * (d - r);
      ref2 += r * r;
    }
  }
  c.rel_err = relative(diff2, ref2);
  c.diff2 = diff2, c.ref2 = ref2;
  return c;
}

double tolerance(const Precision& p, int64_t k) {
  // fp32 rounding grows about like sqrt(k) * 2^-24 relative; 1e-5 is
  // tens of times that at k = 4096 and still far under 1e-4.
  const double accumulate = 1e-5 * std::max(1.0, std::sqrt(double(k) / 4096.0));
  // tf32 rounds each input to 11 significant bits: ~2^-11 / sqrt(3) rms per
  // input, ~4e-4 relative in the result; 2e-3 leaves room and still fails
  // a kernel that drops or repeats a k-slice.
  if (p.compute == Compute::kTF32) return 2e-3;
  // 16-bit inputs are exact in the reference (it reads the stored values),
  // so what is left is FP32 accumulation (tensor cores align partial sums
  // with fewer guard bits: allow 10x) plus one rounding of the output:
  // f16 keeps 11 bits (~3e-4 rms), bf16 8 bits (~2.3e-3 rms).
  switch (p.c) {
    case DType::kF16: return 2e-3;
    case DType::kBF16: return 1e-2;
    default: break;
  }
  // FP8 products are exact too, but the tensor cores add them with fewer
  // bits than FP32 within each promoted 128-deep slice: allow 100x.
  if (is_fp8(p.ab)) return 100 * accumulate;
  return p.ab == DType::kF32 ? accumulate : 10 * accumulate;
}

void release_case_arrays() {
  CaseArrays& arrays = case_arrays();
  for (CaseArray* x : {&arrays.a, &arrays.b, &arrays.c, &arrays.ref, &arrays.bias, &arrays.row_scale,
                       &arrays.col_scale, &arrays.pre, &arrays.scales, &arrays.block_a, &arrays.block_b}) {
    x->release();
  }
}

double activate(double v, Activation act) {
  switch (act) {
    case Activation::kRelu: return v < 0.0 ? 0.0 : v;
    case Activation::kGelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Activation::kGeluTanh: return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
    case Activation::kSilu: return v / (1.0 + std::exp(-v));
    case Activation::kNone: break;
  }
  return v;
}

std::optional<EpilogueSpec> parse_epilogue(const std::string& text) {
  EpilogueSpec e;
  if (text == "none") return e;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('+', start), text.size());
    const std::string term = text.substr(start, end - start);
    bool activation = false;
    for (Activation act : {Activation::kRelu, Activation::kGelu, Activation::kGeluTanh, Activation::kSilu}) {
      if (term == to_string(act)) e.activation = act, activation = true;
    }
    if (activation) {
    } else if (term == "bias") {
      e.bias = EpilogueSpec::Bias::kPerColumn;
    } else if (term == "rowbias") {
      e.bias = EpilogueSpec::Bias::kPerRow;
    } else if (term == "scale") {
      e.scales = EpilogueSpec::Scales::kRowsAndColumns;
    } else if (term == "colscale") {
      e.scales = EpilogueSpec::Scales::kColumns;
    } else if (term == "pre") {
      e.pre_activation = true;
    } else {
      return std::nullopt;
    }
    start = end + 1;
  }
  return e;
}

std::string to_string(const EpilogueSpec& e) {
  std::string s;
  auto add = [&](const std::string& term) { s += (s.empty() ? "" : "+") + term; };
  if (e.bias == EpilogueSpec::Bias::kPerColumn) add("bias");
  if (e.bias == EpilogueSpec::Bias::kPerRow) add("rowbias");
  if (e.activation != Activation::kNone) add(to_string(e.activation));
  if (e.row_scale()) add("scale");
  if (e.scales == EpilogueSpec::Scales::kColumns) add("colscale");
  if (e.pre_activation) add("pre");
  return s.empty() ? "none" : s;
}

VerifyResult verify_case(Cublas& cublas, const VerifyCase& c) {
  VerifyResult r;
  const int64_t m = c.shape.m, n = c.shape.n, k = c.shape.k;
  const DType ab = c.precision.ab, bt = c.precision.b_type(), ct = c.precision.c;
  SgemmArgs a = make_layout({c.opA, c.opB}, c.shape, c.alpha, c.beta, c.ld_align, c.ld_pad);
  r.tolerance = tolerance(c.precision, k);

  const std::vector<float> hA = make_operand(stored_rows_a(a), stored_cols_a(a), a.lda, c.seed * 3 + 1, ab);
  const std::vector<float> hB = make_operand(stored_rows_b(a), stored_cols_b(a), a.ldb, c.seed * 3 + 2, bt);
  std::vector<float> hC = make_operand(m, n, a.ldc, c.seed * 3 + 3, ct);
  if (c.beta == 0.0f) {
    for (int64_t i = 0; i < m; ++i) std::fill_n(hC.begin() + i * a.ldc, n, from_bits(kUnwrittenBits));
  }
  // The epilogue's vectors (scales in [0.5, 1.5)) and its second output, poisoned as C is.
  const EpilogueSpec& es = c.epilogue;
  const bool epi = es.any();
  std::vector<float> hBias, hRow, hCol, hPre;
  if (es.bias != EpilogueSpec::Bias::kNone) {
    hBias.resize(size_t(es.bias == EpilogueSpec::Bias::kPerRow ? m : n));
    fill_random(hBias, c.seed * 5 + 1);
    round_to(hBias, ct);
  }
  auto output_scales = [](std::vector<float>& v, int64_t count, uint64_t seed) {
    v.resize(size_t(count));
    fill_random(v, seed);
    for (float& x : v) x = 1.0f + 0.5f * x;
  };
  if (es.col_scale()) output_scales(hCol, n, c.seed * 5 + 3);
  if (es.row_scale()) output_scales(hRow, m, c.seed * 5 + 2);
  else if (es.col_scale()) hRow.assign(size_t(m), 1.0f);  // scale_at multiplies by the row's 1
  if (es.pre_activation) {
    hPre.assign(size_t(m * a.ldc + kGuard), from_bits(kGuardBits));
    for (int64_t i = 0; i < m; ++i) std::fill_n(hPre.begin() + i * a.ldc, n, from_bits(kUnwrittenBits));
  }
  auto scale_at = [&](int64_t i, int64_t j) {
    return es.col_scale() ? double(hRow[size_t(i)]) * hCol[size_t(j)] : 1.0;
  };
  auto bias_at = [&](int64_t i, int64_t j) {
    return hBias.empty() ? 0.0 : double(hBias[size_t(es.bias == EpilogueSpec::Bias::kPerRow ? i : j)]);
  };
  // Each array starts c.offset elements into its allocation, after guard elements.
  auto guarded = [&](const std::vector<float>& v, DType t) {
    std::vector<float> all(size_t(c.offset), from_bits(kGuardBits));
    all.insert(all.end(), v.begin(), v.end());
    return encode(all, t);
  };
  const std::vector<uint8_t> bytesA = guarded(hA, ab), bytesB = guarded(hB, bt), bytesC = guarded(hC, ct);
  CaseArrays& arrays = case_arrays();
  // FP8: per-tensor scales in [0.5, 1.5), on the device; the references fold them into alpha. Or block
  // scales, powers of two (so that the widened reference holds the scaled values exactly), row- or
  // column-major by seed; the references multiply them into the operands.
  std::vector<float> scales, block_a, block_b;
  const bool blocks = is_fp8(ab) && c.block_scales;
  const int64_t kb = std::max<int64_t>(1, (k + 127) / 128);
  const int64_t nb = std::max<int64_t>(1, (n + c.b_block_n - 1) / c.b_block_n);  // B's scale columns
  Fp8BlockScales bs;
  if (blocks) {
    block_a.resize(size_t(std::max<int64_t>(m, 1) * kb)), block_b.resize(size_t(nb * kb));
    std::mt19937_64 gen(c.seed * 7 + 1);
    for (std::vector<float>* v : {&block_a, &block_b}) {
      for (float& x : *v) x = std::ldexp(1.0f, int(gen() % 5) - 2);
    }
    const bool row_major = c.seed % 2 == 0;
    bs.a_stride_m = row_major ? kb : 1, bs.a_stride_k = row_major ? 1 : std::max<int64_t>(m, 1);
    bs.b_stride_n = row_major ? 1 : kb, bs.b_stride_k = row_major ? nb : 1;
    bs.b_block_n = c.b_block_n;
  } else if (is_fp8(ab)) {
    scales.resize(2);
    fill_random(scales, c.seed * 5 + 4);
    for (float& x : scales) x = 1.0f + 0.5f * x;
  }
  CaseArray &dA = arrays.a, &dB = arrays.b, &dC = arrays.c, &dRef = arrays.ref;
  uint8_t* const pA = dA.upload(bytesA);
  uint8_t* const pB = dB.upload(bytesB);
  uint8_t* const pC = dC.upload(bytesC);
  const size_t skip_ab = size_t(c.offset) * size_of(ab), skip_c = size_t(c.offset) * size_of(ct);
  // With an epilogue, cuBLAS makes the FP32 product alone and the host applies the epilogue to it.
  uint8_t* const pRef = epi ? dRef.upload(std::vector<uint8_t>(size_t(m * a.ldc) * sizeof(float))) : dRef.upload(bytesC);
  GemmArgs ref = to_gemm(a);
  ref.precision = c.precision;
  if (!scales.empty()) {
    const float* d = reinterpret_cast<const float*>(arrays.scales.upload(encode(scales, DType::kF32)));
    ref.scale_a = d, ref.scale_b = d + 1;
  }
  if (blocks) {
    bs.a = reinterpret_cast<const float*>(arrays.block_a.upload(encode(block_a, DType::kF32)));
    bs.b = reinterpret_cast<const float*>(arrays.block_b.upload(encode(block_b, DType::kF32)));
    ref.block_scales = bs;
  }
  ref.A = pA + skip_ab, ref.B = pB + skip_ab, ref.C = epi ? pRef : pRef + skip_c;
  if (epi) ref.precision.c = DType::kF32, ref.beta = 0.0f;
  // A call with alpha == 0 or k == 0 reads neither A nor B: its product is the zeros uploaded
  // (cuBLAS's tf32 path was seen to write non-zeros there).
  if (!epi || (a.k > 0 && a.alpha != 0.0f)) cublas.gemm(ref, c.stream);
  GemmArgs run = to_gemm(a);
  run.precision = c.precision;
  run.A = ref.A, run.B = ref.B, run.C = pC + skip_c;
  run.scale_a = ref.scale_a, run.scale_b = ref.scale_b, run.block_scales = ref.block_scales;
  const std::vector<uint8_t> bytesPre = es.pre_activation ? guarded(hPre, ct) : std::vector<uint8_t>{};
  if (epi) {
    Epilogue& e = run.epilogue;
    if (!hBias.empty()) e.bias = arrays.bias.upload(encode(hBias, ct));
    e.bias_per_row = es.bias == EpilogueSpec::Bias::kPerRow;
    e.activation = es.activation;
    auto upload = [](CaseArray& array, const std::vector<float>& v) {
      return reinterpret_cast<const float*>(array.upload(encode(v, DType::kF32)));
    };
    if (es.row_scale()) e.row_scale = upload(arrays.row_scale, hRow);
    if (es.col_scale()) e.col_scale = upload(arrays.col_scale, hCol);
    if (es.pre_activation) e.pre_activation = arrays.pre.upload(bytesPre) + skip_c, e.ld_pre = a.ldc;
  }
  if (c.pending_error) {
    void* p = nullptr;
    if (cudaMalloc(&p, size_t(1) << 50) == cudaSuccess) cudaFree(p);  // fails: cudaErrorMemoryAllocation pending
  }
  r.status = run_gemm(c.kernel, run, c.stream);
  if (c.pending_error) cudaGetLastError();
  const cudaError_t err = cudaStreamSynchronize(c.stream);
  auto changed = [](const std::vector<uint8_t>& now, const std::vector<uint8_t>& before) {
    int64_t n = 0;
    for (size_t i = 0; i < now.size(); ++i) n += now[i] != before[i];
    return n;
  };
  r.clobbered = changed(dA.download(), bytesA) + changed(dB.download(), bytesB);
  if (!r.status.ok()) {
    r.clobbered += changed(dC.download(), bytesC);
    if (es.pre_activation) r.clobbered += changed(arrays.pre.download(), bytesPre);
    r.reason = r.status.message() + (r.clobbered ? " (and it changed " + std::to_string(r.clobbered) + " bytes)" : "");
    return r;
  }
  if (err != cudaSuccess) {
    r.reason = std::string("kernel failed while running: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
    return r;
  }
  const std::vector<uint8_t> bytesD_all = dC.download();
  for (size_t i = 0; i < skip_c; ++i) r.clobbered += bytesD_all[i] != bytesC[i];
  const std::vector<uint8_t> bytesD(bytesD_all.begin() + std::ptrdiff_t(skip_c), bytesD_all.end());
  const std::vector<uint8_t> bytesC0(bytesC.begin() + std::ptrdiff_t(skip_c), bytesC.end());
  const std::vector<uint8_t> bytesR_all = dRef.download();
  const std::vector<float> D = decode(bytesD, ct);
  std::vector<float> R, Rpre;
  if (!epi) {
    R = decode(std::vector<uint8_t>(bytesR_all.begin() + std::ptrdiff_t(skip_c), bytesR_all.end()), ct);
  } else {  // the epilogue on cuBLAS's FP32 product, in fp64, rounded once to C's type
    const std::vector<float> X = decode(bytesR_all, DType::kF32);
    R.assign(D.size(), 0.0f), Rpre.assign(D.size(), 0.0f);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const size_t e = size_t(i * a.ldc + j);
        const double v = scale_at(i, j) * X[e] + (c.beta != 0.0f ? double(c.beta) * hC[e] : 0.0) + bias_at(i, j);
        Rpre[e] = float(v), R[e] = float(activate(v, es.activation));
      }
    }
    round_to(R, ct), round_to(Rpre, ct);
  }

  const Comparison cmp = compare(D, R, m, n, a.ldc);
  r.nonfinite = cmp.nonfinite;
  // The second output: against its reference, and nothing outside its m x n written.
  double pre_err = 0;
  if (es.pre_activation) {
    const std::vector<uint8_t> all = arrays.pre.download();
    for (size_t i = 0; i < skip_c; ++i) r.clobbered += all[i] != bytesPre[i];
    const std::vector<float> P = decode(std::vector<uint8_t>(all.begin() + std::ptrdiff_t(skip_c), all.end()), ct);
    const std::vector<float> P0 = decode(std::vector<uint8_t>(bytesPre.begin() + std::ptrdiff_t(skip_c), bytesPre.end()), ct);
    pre_err = compare(P, Rpre, m, n, a.ldc).rel_err;
    for (size_t e = 0; e < P.size(); ++e) {
      const bool inside = int64_t(e) < m * a.ldc && int64_t(e) % a.ldc < n;
      if (!inside && std::memcmp(&P[e], &P0[e], sizeof(float)) != 0) ++r.clobbered;
    }
  }
  const size_t size = size_of(ct);
  for (size_t e = 0; e < D.size(); ++e) {
    const bool inside = int64_t(e) < m * a.ldc && int64_t(e) % a.ldc < n;
    if (!inside && std::memcmp(&bytesD[e * size], &bytesC0[e * size], size) != 0) ++r.clobbered;
  }

  // fp64 reference: every element of small cases, a fixed sample plus the corners of large ones
  // (fewer samples where k is very deep: at most 4 kFullFp64Macs multiply-adds, at least 16 points).
  std::vector<std::pair<int64_t, int64_t>> points;
  auto every_element = [&] {
    points.clear();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) points.emplace_back(i, j);
  };
  if (m * n * std::max<int64_t>(k, 1) <= kFullFp64Macs) {
    every_element();
  } else {
    points = {{0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
    std::mt19937_64 gen(c.seed);
    const int64_t samples = std::clamp<int64_t>(4 * kFullFp64Macs / std::max<int64_t>(k, 1), 16, kFp64Samples);
    for (int64_t s = 0; s < samples; ++s) points.emplace_back(int64_t(gen() % uint64_t(m)), int64_t(gen() % uint64_t(n)));
  }
  SgemmArgs host = a;
  host.A = hA.data(), host.B = hB.data(), host.C = hC.data();
  for (float s : scales) host.alpha *= s;
  // Block scales multiplied into copies of the operands (powers of two: exact in FP32).
  std::vector<float> hAs, hBs;
  if (blocks) {
    hAs = hA, hBs = hB;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t q = 0; q < k; ++q) {
        const float scale = block_a[size_t(i * bs.a_stride_m + q / 128 * bs.a_stride_k)];
        hAs[size_t(a.opA == Op::N ? i * a.lda + q : q * a.lda + i)] *= scale;
      }
    }
    for (int64_t q = 0; q < k; ++q) {
      for (int64_t j = 0; j < n; ++j) {
        const float scale = block_b[size_t(j / bs.b_block_n * bs.b_stride_n + q / 128 * bs.b_stride_k)];
        hBs[size_t(a.opB == Op::N ? q * a.ldb + j : j * a.ldb + q)] *= scale;
      }
    }
    host.A = hAs.data(), host.B = hBs.data();
  }
  // Against fp64 on `points`. p2: ||alpha op(A) op(B)||^2 there; t2: the squares of
  // its k terms, a scale for rounding errors that does not vanish where a sum cancels.
  double p2 = 0, t2 = 0;
  auto check = [&](const std::vector<std::pair<int64_t, int64_t>>& at) {
    double d2 = 0, c2 = 0, x2 = 0;
    p2 = t2 = 0;
    for (auto [i, j] : at) {
      double terms2 = 0.0;
      double want = reference_element(host, i, j, &terms2);
      const size_t e = size_t(i * a.ldc + j);
      const double bc = c.beta != 0.0f ? double(c.beta) * hC[e] : 0.0;
      double product = want - bc;
      if (epi) {  // the epilogue on the fp64 result; the rounding scales grow with the output scale
        const double scale = scale_at(i, j);
        product *= scale, terms2 *= scale * scale;
        want = activate(product + bc + bias_at(i, j), es.activation);
      }
      t2 += terms2;
      d2 += (D[e] - want) * (D[e] - want);
      c2 += (R[e] - want) * (R[e] - want);
      x2 += want * want;
      p2 += product * product;
    }
    const double scale2 = std::max({x2, p2, t2});
    r.fp64_checked = int64_t(at.size());
    r.err_vs_fp64 = relative(d2, scale2);
    r.cublas_vs_fp64 = relative(c2, scale2);
  };
  check(points);
  // Where cuBLAS is off the fp64 reference and tessel is not, cuBLAS cannot
  // vouch for the elements not sampled: every element is checked against fp64.
  r.cublas_off = !(r.cublas_vs_fp64 <= r.tolerance) && r.err_vs_fp64 <= r.tolerance;
  if (r.cublas_off && int64_t(points.size()) < m * n && m * n * k <= kRecheckFp64Macs) {
    every_element();
    check(points);
  }
  // Over all m x n elements, the scale as estimated from the points.
  r.err_vs_cublas = relative(cmp.diff2, std::max(cmp.ref2, std::max(p2, t2) * double(m * n) / double(points.size())));
  const bool fp64_everywhere = r.fp64_checked == m * n;

  std::string why;
  if (r.nonfinite > 0) why = std::to_string(r.nonfinite) + " NaN/Inf outputs where the reference is finite";
  else if (r.clobbered > 0) why = std::to_string(r.clobbered) + " elements outside C's m x n (or of A, B) were overwritten";
  else if (!(pre_err <= r.tolerance)) why = "pre_activation off its reference by " + std::to_string(pre_err);
  else if (r.cublas_off && fp64_everywhere && r.err_vs_fp64 <= r.tolerance) why.clear();  // tessel right, cuBLAS not
  else if (!(r.err_vs_cublas <= r.tolerance) || !(r.err_vs_fp64 <= r.tolerance) || !(r.cublas_vs_fp64 <= r.tolerance)) {
    // Which of the three disagree, with the numbers: the fp64 reference decides who is off.
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "error vs fp64 %.2e, vs cuBLAS %.2e; cuBLAS vs fp64 %.2e; tolerance %.1e",
                  r.err_vs_fp64, r.err_vs_cublas, r.cublas_vs_fp64, r.tolerance);
    why = std::string(r.err_vs_fp64 <= r.tolerance ? "cuBLAS off the fp64 reference: " : "above tolerance: ") + numbers;
  }
  r.reason = why;
  r.passed = why.empty();
  return r;
}

}  // namespace tessel::harness
