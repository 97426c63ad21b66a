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
// The matrices start `offset` elements in (guards before them).
struct Batched {
  std::vector<float> values;
  std::vector<bool> inside;
  int64_t stride, offset;
  int64_t at(int64_t i) const { return offset + i * stride; }  // where matrix i starts
  const float* matrix(int64_t i) const { return values.data() + at(i); }
};

Batched make_batched(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t count, uint64_t seed,
                     DType type, bool unwritten = false, int64_t offset = 0) {
  Batched b{{}, {}, stride, offset};
  const int64_t extent = offset + (count - 1) * stride + rows * ld;
  b.values.assign(size_t(extent + kGuard), from_bits(kGuardBits));
  b.inside.assign(b.values.size(), false);
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<float> one = make_operand(rows, cols, ld, seed + uint64_t(i), type);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t q = 0; q < cols; ++q) {
        const size_t at = size_t(b.at(i) + r * ld + q);
        b.values[at] = unwritten ? from_bits(kUnwrittenBits) : one[size_t(r * ld + q)];
        b.inside[at] = true;
      }
    }
  }
  return b;
}

int64_t changed_bytes(const std::vector<uint8_t>& now, const std::vector<uint8_t>& before) {
  int64_t d = 0;
  for (size_t i = 0; i < now.size(); ++i) d += now[i] != before[i];
  return d;
}

// Runs the call (by name, or auto-dispatch) and waits for it: its status in
// r, the bytes of A and B it changed (none may) counted as clobbered.
cudaError_t run_case(const std::string& kernel, const GemmArgs& run, const DeviceBuffer<uint8_t>& dA,
                     const std::vector<uint8_t>& bytesA, const DeviceBuffer<uint8_t>& dB,
                     const std::vector<uint8_t>& bytesB, VerifyResult* r) {
  r->status = run_gemm(kernel, run);
  const cudaError_t err = cudaDeviceSynchronize();
  r->clobbered = changed_bytes(dA.download(), bytesA) + changed_bytes(dB.download(), bytesB);
  return err;
}

int64_t in_units(int64_t elements, DType t) {
  const int64_t unit = std::max<int64_t>(1, 16 / int64_t(size_of(t)));
  return (elements + unit - 1) / unit * unit;
}

// One matrix of the result (rows x n at D[at], leading dimension ldc, host's
// sizes and operands): every element against the reference R, `most` samples
// against fp64; r keeps the worst matrix's errors.
void check_matrix(const std::vector<float>& D, const std::vector<float>& R, int64_t at, const SgemmArgs& host,
                  int64_t most, std::mt19937_64& gen, VerifyResult* r) {
  const int64_t rows = host.m, n = host.n, ldc = host.ldc;
  const std::vector<float> Di(D.begin() + at, D.begin() + at + rows * ldc);
  const std::vector<float> Ri(R.begin() + at, R.begin() + at + rows * ldc);
  const Comparison cmp = compare(Di, Ri, rows, n, ldc);
  r->nonfinite += cmp.nonfinite;
  double d2 = 0, x2 = 0, t2 = 0, c2 = 0;
  const int64_t samples = std::min(rows * n, most);
  for (int64_t s = 0; s < samples; ++s) {
    const int64_t e = rows * n <= most ? s : int64_t(gen() % uint64_t(rows * n));
    double terms2 = 0;
    const double want = reference_element(host, e / n, e % n, &terms2);
    const size_t i = size_t(e / n * ldc + e % n);
    d2 += (Di[i] - want) * (Di[i] - want), c2 += (Ri[i] - want) * (Ri[i] - want);
    x2 += want * want, t2 += terms2;
  }
  const double scale2 = std::max(x2, t2);
  r->fp64_checked += samples;
  r->err_vs_fp64 = std::max(r->err_vs_fp64, relative(d2, scale2));
  r->cublas_vs_fp64 = std::max(r->cublas_vs_fp64, relative(c2, scale2));
  r->err_vs_cublas =
      std::max(r->err_vs_cublas, relative(cmp.diff2, std::max(cmp.ref2, t2 * double(rows * n) / double(samples))));
}

// A case's device buffers and the bytes they started with (C's also the reference's start).
struct CaseBuffers {
  const DeviceBuffer<uint8_t>& a;
  const std::vector<uint8_t>& bytes_a;
  const DeviceBuffer<uint8_t>& b;
  const std::vector<uint8_t>& bytes_b;
  const DeviceBuffer<uint8_t>& c;
  const std::vector<uint8_t>& bytes_c;
  const DeviceBuffer<uint8_t>& ref;
};

// Runs the call; where it ran, *D and *R are its result and the reference's (C's type ct), and every
// element of C outside `inside` that changed counts as clobbered. False where it was refused (then it
// must have written nothing) or failed; r says why.
bool run_and_read(const std::string& kernel, const GemmArgs& run, const CaseBuffers& b, const std::vector<bool>& inside,
                  DType ct, VerifyResult* r, std::vector<float>* D, std::vector<float>* R) {
  const cudaError_t err = run_case(kernel, run, b.a, b.bytes_a, b.b, b.bytes_b, r);
  const std::vector<uint8_t> bytesD = b.c.download();
  if (!r->status.ok()) r->clobbered += changed_bytes(bytesD, b.bytes_c);  // a refused call writes nothing
  if (!r->status.ok() || err != cudaSuccess) {
    r->reason = !r->status.ok() ? r->status.message()
                                : std::string("kernel failed while running: ") + cudaGetErrorName(err) + ": " +
                                      cudaGetErrorString(err);
    return false;
  }
  *D = decode(bytesD, ct), *R = decode(b.ref.download(), ct);
  const size_t size = size_of(ct);
  for (size_t e = 0; e < D->size(); ++e) {
    if (!inside[e] && std::memcmp(&bytesD[e * size], &b.bytes_c[e * size], size) != 0) ++r->clobbered;
  }
  return true;
}

// The verdict from r's counts and errors; `outside`: what a clobbered element lay outside of.
void verdict(const char* outside, VerifyResult* r) {
  std::string why;
  if (r->nonfinite > 0) why = std::to_string(r->nonfinite) + " NaN/Inf outputs where the reference is finite";
  else if (r->clobbered > 0) why = std::to_string(r->clobbered) + " elements outside " + outside + " (or of A, B) were overwritten";
  else if (!(r->err_vs_cublas <= r->tolerance) || !(r->err_vs_fp64 <= r->tolerance)) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "error vs fp64 %.2e, vs cuBLAS %.2e; cuBLAS vs fp64 %.2e; tolerance %.1e",
                  r->err_vs_fp64, r->err_vs_cublas, r->cublas_vs_fp64, r->tolerance);
    why = std::string("above tolerance: ") + numbers;
  }
  r->reason = why;
  r->passed = why.empty();
}

}  // namespace

VerifyResult verify_batch(Cublas& cublas, const BatchCase& c) {
  VerifyResult r;
  const int64_t m = c.shape.m, n = c.shape.n, k = c.shape.k, count = c.batch;
  const DType ab = c.precision.ab, bt = c.precision.b_type(), ct = c.precision.c;
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

  const Batched hA = make_batched(rows_a, cols_a, lda, stride_a, count, c.seed * 11 + 1, ab, false, c.offset);
  const Batched hB =
      make_batched(rows_b, cols_b, ldb, stride_b, c.share_b ? 1 : count, c.seed * 11 + 2, bt, false, c.offset);
  const Batched hC = make_batched(m, n, ldc, stride_c, count, c.seed * 11 + 3, ct, c.beta == 0.0f, c.offset);
  const std::vector<uint8_t> bytesA = encode(hA.values, ab), bytesB = encode(hB.values, bt),
                             bytesC = encode(hC.values, ct);
  DeviceBuffer<uint8_t> dA(bytesA.size()), dB(bytesB.size()), dC(bytesC.size()), dRef(bytesC.size());
  dA.upload(bytesA), dB.upload(bytesB), dC.upload(bytesC), dRef.upload(bytesC);
  const size_t ab_bytes = size_of(ab), c_bytes = size_of(ct);

  GemmArgs run;
  run.opA = c.opA, run.opB = c.opB, run.m = m, run.n = n, run.k = k, run.alpha = c.alpha, run.beta = c.beta;
  run.A = dA.get() + c.offset * ab_bytes, run.lda = lda, run.B = dB.get() + c.offset * ab_bytes, run.ldb = ldb;
  run.C = dC.get() + c.offset * c_bytes, run.ldc = ldc;
  run.precision = c.precision;
  run.batch = count, run.stride_a = stride_a, run.stride_b = stride_b, run.stride_c = stride_c;
  GemmArgs ref = run;
  ref.C = dRef.get() + c.offset * c_bytes;
  cublas.gemm(ref);
  // The pointer-array form: matrix i of the call is matrix count - 1 - i of the strided one.
  const DeviceBuffer<uint64_t> dPointers(c.pointers ? pointer_arrays(run, true) : std::vector<uint64_t>{});
  if (c.pointers) {
    const auto* arrays = reinterpret_cast<void* const*>(dPointers.get());
    run.a_array = arrays, run.b_array = arrays + count, run.c_array = arrays + 2 * count;
    run.A = run.B = run.C = nullptr, run.stride_a = run.stride_b = run.stride_c = 0;
  }
  check_cuda(cudaDeviceSynchronize(), "reference");
  const cudaError_t err = run_case(c.kernel, run, dA, bytesA, dB, bytesB, &r);
  const std::vector<uint8_t> bytesD = dC.download();
  if (!r.status.ok()) {
    r.clobbered += changed_bytes(bytesD, bytesC);
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
    const SgemmArgs host{c.opA, c.opB, m, n, k, c.alpha, hA.matrix(i), lda, hB.matrix(c.share_b ? 0 : i), ldb,
                         c.beta, const_cast<float*>(hC.matrix(i)), ldc};
    check_matrix(D, R, hC.at(i), host, 64, gen, &r);
  }
  verdict("the C matrices", &r);
  return r;
}

VerifyResult verify_grouped(Cublas& cublas, const GroupedCase& c) {
  VerifyResult r;
  const int64_t groups = int64_t(c.rows.size()), n = c.n, k = c.k;
  const DType ab = c.precision.ab, bt = c.precision.b_type(), ct = c.precision.c;
  r.tolerance = tolerance(c.precision, k);
  const bool masked = c.capacity > 0;
  std::vector<int64_t> offsets{0};
  for (int64_t rows : c.rows) offsets.push_back(offsets.back() + rows);
  const std::vector<GroupRows> group_rows = masked ? masked_groups(c.rows, c.capacity) : offset_groups(offsets);
  const int64_t m = masked ? groups * c.capacity : offsets.back() + c.tail;
  const bool bn = c.opB == Op::N;
  const int64_t rows_b = bn ? k : n, cols_b = bn ? n : k;
  const int64_t lda = in_units(std::max<int64_t>(k, 1), ab), ldb = in_units(std::max<int64_t>(cols_b, 1), ab);
  const int64_t ldc = in_units(std::max<int64_t>(n, 1), ct);
  const int64_t stride_b = c.share_b ? 0 : in_units(rows_b * ldb + kBatchGap, ab);
  const Batched hA = make_batched(m, k, lda, 0, 1, c.seed * 13 + 1, ab);
  const Batched hB = make_batched(rows_b, cols_b, ldb, stride_b, c.share_b ? 1 : groups, c.seed * 13 + 2, bt);
  Batched hC = make_batched(m, n, ldc, 0, 1, c.seed * 13 + 3, ct, c.beta == 0.0f);
  std::vector<bool> written(size_t(m), false);  // the rows some group covers: the others must not change
  for (const GroupRows& rows : group_rows) std::fill_n(written.begin() + rows.begin, rows.count, true);
  for (int64_t i = 0; i < m; ++i) {
    if (!written[size_t(i)]) std::fill_n(hC.inside.begin() + i * ldc, ldc, false);
  }
  const std::vector<uint8_t> bytesA = encode(hA.values, ab), bytesB = encode(hB.values, bt),
                             bytesC = encode(hC.values, ct);
  DeviceBuffer<uint8_t> dA(bytesA.size()), dB(bytesB.size()), dC(bytesC.size()), dRef(bytesC.size());
  dA.upload(bytesA), dB.upload(bytesB), dC.upload(bytesC), dRef.upload(bytesC);
  const DeviceBuffer<int64_t> dGroups(masked ? c.rows : offsets);

  GemmArgs run;
  run.opA = Op::N, run.opB = c.opB, run.m = m, run.n = n, run.k = k, run.alpha = c.alpha, run.beta = c.beta;
  run.A = dA.get(), run.lda = lda, run.B = dB.get(), run.ldb = ldb, run.C = dC.get(), run.ldc = ldc;
  run.precision = c.precision;
  run.batch = groups, run.stride_b = stride_b;
  (masked ? run.group_counts : run.group_offsets) = dGroups.get();
  GemmArgs ref = run;
  ref.C = dRef.get();
  for (size_t g = 0; g < size_t(groups); ++g) {  // the reference, group by group
    if (group_rows[g].count > 0) cublas.gemm(group_call(ref, group_rows[g], g));
  }
  check_cuda(cudaDeviceSynchronize(), "reference");
  std::vector<float> D, R;
  if (!run_and_read(c.kernel, run, {dA, bytesA, dB, bytesB, dC, bytesC, dRef}, hC.inside, ct, &r, &D, &R)) return r;
  std::mt19937_64 gen(c.seed);
  for (int64_t g = 0; g < groups; ++g) {
    const GroupRows& rows = group_rows[size_t(g)];
    const int64_t at0 = rows.begin * ldc;
    if (rows.count == 0) continue;
    const SgemmArgs host{Op::N, c.opB, rows.count, n, k, c.alpha, hA.values.data() + rows.begin * lda, lda,
                         hB.matrix(c.share_b ? 0 : g), ldb, c.beta, hC.values.data() + at0, ldc};
    check_matrix(D, R, at0, host, 32, gen, &r);
  }
  verdict("the groups' rows", &r);
  return r;
}

VerifyResult verify_problems(Cublas& cublas, const ProblemsCase& c) {
  VerifyResult r;
  const DType ab = c.precision.ab, bt = c.precision.b_type(), ct = c.precision.c;
  const size_t ab_bytes = size_of(ab), c_bytes = size_of(ct);
  Shape bounds{0, 0, 0};
  for (const Shape& s : c.sizes) bounds = {std::max(bounds.m, s.m), std::max(bounds.n, s.n), std::max(bounds.k, s.k)};
  bounds = c.bounds.value_or(bounds);
  r.tolerance = tolerance(c.precision, bounds.k);
  const bool an = c.opA == Op::N, bn = c.opB == Op::N;
  const auto named = [](const std::vector<int64_t>& list, size_t g) {
    return std::find(list.begin(), list.end(), int64_t(g)) != list.end();
  };
  // Each problem's place in the three buffers (rows x cols of each operand as stored), guards between.
  struct Placed {
    int64_t rows, cols, ld, at;
  };
  std::vector<Placed> pa, pb, pc;
  int64_t end_a = kBatchGap, end_b = kBatchGap, end_c = kBatchGap;
  const auto place = [](std::vector<Placed>& list, int64_t& end, int64_t rows, int64_t cols, int64_t ld, DType t) {
    list.push_back({rows, cols, ld, end});
    end = in_units(end + rows * ld + kBatchGap, t);
  };
  for (size_t g = 0; g < c.sizes.size(); ++g) {
    const Shape& s = c.sizes[g];
    const int64_t ra = an ? s.m : s.k, ca = an ? s.k : s.m, rb = bn ? s.k : s.n, cb = bn ? s.n : s.k;
    place(pa, end_a, ra, ca, in_units(std::max<int64_t>(ca, 1), ab) + (named(c.odd_a, g) ? 1 : 0), ab);
    place(pb, end_b, rb, cb, in_units(std::max<int64_t>(cb, 1), ab), ab);
    place(pc, end_c, s.m, s.n, in_units(std::max<int64_t>(s.n, 1), ct) + (named(c.odd_c, g) ? 1 : 0), ct);
  }
  // One buffer of guard NaNs with each problem's matrix in it; C's elements within the bounds are `inside`.
  const auto fill = [&](const std::vector<Placed>& list, int64_t end, uint64_t seed, DType t, bool unwritten,
                        std::vector<bool>* inside, bool is_c) {
    std::vector<float> v(size_t(end + kGuard), from_bits(kGuardBits));
    if (inside) inside->assign(v.size(), false);
    for (size_t g = 0; g < list.size(); ++g) {
      const Placed& p = list[g];
      const std::vector<float> one = make_operand(p.rows, p.cols, p.ld, seed + g, t);
      for (int64_t i = 0; i < p.rows; ++i) {
        for (int64_t j = 0; j < p.cols; ++j) {
          const size_t e = size_t(p.at + i * p.ld + j);
          v[e] = unwritten ? from_bits(kUnwrittenBits) : one[size_t(i * p.ld + j)];
          if (inside && (!is_c || (i < bounds.m && j < bounds.n))) (*inside)[e] = true;
        }
      }
    }
    return v;
  };
  std::vector<bool> inside_c;
  const std::vector<float> hA = fill(pa, end_a, c.seed * 17 + 1, ab, false, nullptr, false);
  const std::vector<float> hB = fill(pb, end_b, c.seed * 17 + 2, bt, false, nullptr, false);
  const std::vector<float> hC = fill(pc, end_c, c.seed * 17 + 3, ct, c.beta == 0.0f, &inside_c, true);
  const std::vector<uint8_t> bytesA = encode(hA, ab), bytesB = encode(hB, bt), bytesC = encode(hC, ct);
  DeviceBuffer<uint8_t> dA(bytesA.size()), dB(bytesB.size()), dC(bytesC.size()), dRef(bytesC.size());
  dA.upload(bytesA), dB.upload(bytesB), dC.upload(bytesC), dRef.upload(bytesC);

  GemmArgs run;
  run.opA = c.opA, run.opB = c.opB, run.m = bounds.m, run.n = bounds.n, run.k = bounds.k;
  run.alpha = c.alpha, run.beta = c.beta, run.precision = c.precision, run.batch = int64_t(c.sizes.size());
  std::vector<GemmProblem> problems;
  std::vector<GemmArgs> calls;  // each problem as a call of its own, clamped to the bounds, into dRef
  for (size_t g = 0; g < c.sizes.size(); ++g) {
    const Shape& s = c.sizes[g];
    GemmProblem q{s.m, s.n, s.k, dA.get() + pa[g].at * int64_t(ab_bytes), pa[g].ld,
                  dB.get() + pb[g].at * int64_t(ab_bytes), pb[g].ld, dC.get() + pc[g].at * int64_t(c_bytes), pc[g].ld};
    problems.push_back(q);
    GemmArgs one = run;
    one.m = std::min(s.m, bounds.m), one.n = std::min(s.n, bounds.n), one.k = std::min(s.k, bounds.k);
    one.batch = 1, one.A = q.A, one.lda = q.lda, one.B = q.B, one.ldb = q.ldb;
    one.C = dRef.get() + pc[g].at * int64_t(c_bytes), one.ldc = q.ldc;
    calls.push_back(one);
  }
  const DeviceBuffer<GemmProblem> dProblems(problems);
  run.problems = dProblems.get();
  for (const GemmArgs& one : calls) {
    if (one.m > 0 && one.n > 0) cublas.gemm(one);
  }
  check_cuda(cudaDeviceSynchronize(), "reference");
  std::vector<float> D, R;
  if (!run_and_read(c.kernel, run, {dA, bytesA, dB, bytesB, dC, bytesC, dRef}, inside_c, ct, &r, &D, &R)) return r;
  std::mt19937_64 gen(c.seed);
  for (size_t g = 0; g < calls.size(); ++g) {
    const GemmArgs& one = calls[g];
    if (one.m == 0 || one.n == 0) continue;
    const SgemmArgs host{c.opA, c.opB, one.m, one.n, one.k, c.alpha, hA.data() + pa[g].at, pa[g].ld,
                         hB.data() + pb[g].at, pb[g].ld, c.beta, const_cast<float*>(hC.data() + pc[g].at), pc[g].ld};
    check_matrix(D, R, pc[g].at, host, 32, gen, &r);
  }
  verdict("the problems' C within the bounds", &r);
  return r;
}

ProblemsCase with_edges(ProblemsCase c) {
  Shape most{1, 1, 1};
  for (const Shape& s : c.sizes) most = {std::max(most.m, s.m), std::max(most.n, s.n), std::max(most.k, s.k)};
  for (const Shape& empty : {Shape{0, most.n, most.k}, Shape{most.m, 0, most.k}, Shape{most.m, most.n, 0}}) {
    c.sizes.push_back(empty);
  }
  c.odd_a = {0}, c.odd_c = {c.sizes.size() > 4 ? 1 : 0};
  c.bounds = Shape{std::max<int64_t>(1, most.m - 3), std::max<int64_t>(1, most.n - 3), most.k};
  c.alpha = -0.75f, c.beta = 1.25f, c.seed += 1;
  return c;
}

}  // namespace tessel::harness
