#include "harness/bench.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cublaslt.hpp"
#include "harness/device_data.hpp"
#include "harness/reference.hpp"
#include "harness/typed.hpp"
#include "harness/verify.hpp"

namespace tessel::harness {
namespace {

class Events {
 public:
  Events() {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Times each of `launches` (each enqueues one GEMM on the default stream)
// in turn: warm-up runs of each, then up to options.repeat rounds in which
// each runs once, after overwriting a buffer of twice the L2 size so that no
// operand starts out cached. Taking a kernel and its cuBLAS reference in
// alternation puts both under the same conditions: timed one after the
// other, the same 10 us kernel (1024^3 bf16, H100) came out 0.6 us slower
// or faster from one row to the next, rows alternating, while cuBLAS had
// been timed once for all of them.
std::vector<Summary> time_launches(const std::vector<std::function<void()>>& launches, DeviceBuffer<char>& flush,
                                   const BenchOptions& o) {
  for (int w = 0; w < o.warmup; ++w)
    for (const auto& launch : launches) launch();
  check_cuda(cudaDeviceSynchronize(), "warm-up");
  Events ev;
  std::vector<std::vector<double>> ms(launches.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < o.repeat; ++r) {
    for (size_t i = 0; i < launches.size(); ++i) {
      if (o.read_flush) {
        read_device(flush.get(), flush.size() - 16, flush.get() + flush.size() - 16);
      } else {
        check_cuda(cudaMemsetAsync(flush.get(), r & 0xff, flush.size()), "L2 flush");
      }
      check_cuda(cudaEventRecord(ev.start_), "cudaEventRecord");
      launches[i]();
      check_cuda(cudaEventRecord(ev.stop_), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(ev.stop_), "cudaEventSynchronize");
      float t = 0;
      check_cuda(cudaEventElapsedTime(&t, ev.start_, ev.stop_), "cudaEventElapsedTime");
      ms[i].push_back(t);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ms[0].size() >= 3 && wall > o.max_seconds) break;
  }
  std::vector<Summary> out;
  for (const auto& m : ms) out.push_back(summarize(m));
  return out;
}

// A device-to-device copy of 1 GiB: bytes read + written per second, median of 10 after 2 warm-ups.
double copy_bandwidth() {
  constexpr size_t kBytes = size_t(1) << 30;
  DeviceBuffer<char> src(kBytes), dst(kBytes);
  Events ev;
  std::vector<double> ms;
  for (int r = 0; r < 12; ++r) {
    check_cuda(cudaEventRecord(ev.start_), "cudaEventRecord");
    check_cuda(cudaMemcpyAsync(dst.get(), src.get(), kBytes, cudaMemcpyDeviceToDevice), "copy");
    check_cuda(cudaEventRecord(ev.stop_), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(ev.stop_), "cudaEventSynchronize");
    float t = 0;
    check_cuda(cudaEventElapsedTime(&t, ev.start_, ev.stop_), "cudaEventElapsedTime");
    if (r >= 2) ms.push_back(t);
  }
  return 2.0 * double(kBytes) / (summarize(ms).median * 1e-3) / 1e9;
}

// The bytes a call must move at the least: A and B read once, C written (and read with beta != 0).
double call_bytes(const Shape& s, const Precision& p, float beta) {
  const double ab = double(size_of(p.ab)), c = double(size_of(p.c));
  return ab * double(s.m * s.k + s.k * s.n) + c * double(s.m * s.n) * (beta != 0.0f ? 2 : 1);
}

}  // namespace

std::vector<SuiteCase> bench_calls(const BenchOptions& o) {
  if (!o.cases.empty()) return o.cases;
  std::vector<SuiteCase> calls;
  for (const Shape& shape : o.shapes) {
    for (const OpPair& ops : o.ops) calls.push_back({shape, ops});
  }
  return calls;
}

std::vector<int64_t> group_offsets(int64_t total, int64_t groups, bool skew) {
  std::vector<double> weight(size_t(groups), 1.0);
  if (skew) {
    for (int64_t g = 0; g < groups; ++g) weight[size_t(g)] = 1.0 / double(g + 1);
  }
  double sum = 0;
  for (double w : weight) sum += w;
  std::vector<int64_t> offsets{0};
  double at = 0;
  for (int64_t g = 0; g < groups; ++g) {
    at += weight[size_t(g)] / sum * double(total);
    offsets.push_back(g + 1 == groups ? total : std::min(total, int64_t(std::llround(at))));
  }
  return offsets;
}

std::vector<BenchRow> run_bench(Cublas& cublas, const BenchOptions& o, const Progress& progress,
                                const std::function<void(const BenchRow&)>& on_row) {
  const GpuInfo gpu = query_gpu();
  DeviceBuffer<char> flush(std::max<size_t>(2 * gpu.l2_bytes, size_t(64) << 20));
  const double copy_gbs = copy_bandwidth();
  const std::vector<SuiteCase> calls = bench_calls(o);
  const size_t total = calls.size() * o.kernels.size();
  std::vector<BenchRow> rows;

  for (const SuiteCase& call : calls) {
    const Shape& shape = call.shape;
    const OpPair& ops = call.ops;
    {
      // A grouped call: one A and C, a B per group; masked, groups of `capacity` rows (the largest group's),
      // each computing its first count rows.
      const bool grouped = o.groups > 0, masked = grouped && o.masked;
      const std::vector<int64_t> offsets = grouped ? group_offsets(shape.m, o.groups, o.skew) : std::vector<int64_t>{};
      std::vector<int64_t> counts;
      for (size_t g = 0; masked && g + 1 < offsets.size(); ++g) counts.push_back(offsets[g + 1] - offsets[g]);
      const int64_t capacity = masked ? std::max<int64_t>(1, *std::max_element(counts.begin(), counts.end())) : 0;
      const std::vector<GroupRows> group_rows = masked ? masked_groups(counts, capacity) : offset_groups(offsets);
      const Shape stored{masked ? o.groups * capacity : shape.m, shape.n, shape.k};  // C's rows, A's
      const SgemmArgs layout = make_layout(ops, stored, o.alpha, o.beta);
      GemmArgs a = to_gemm(layout);
      a.precision = o.precision;
      a.allow_atomics = o.allow_atomics;
      const DType ab = o.precision.ab, bt = o.precision.b_type(), ct = o.precision.c;
      // Operands made on the GPU (host-made ones took seconds a row at the suites' sizes); a batch's
      // matrices one after another.
      const int64_t batch = grouped ? 1 : o.batch;
      a.batch = grouped ? o.groups : batch;
      a.stride_a = grouped ? 0 : stored_rows_a(layout) * a.lda;
      a.stride_b = o.share_b ? 0 : stored_rows_b(layout) * a.ldb;
      a.stride_c = grouped ? 0 : shape.m * a.ldc;
      const DeviceBuffer<int64_t> dGroups(masked ? counts : offsets);
      if (grouped) (masked ? a.group_counts : a.group_offsets) = dGroups.get();
      if (masked) a.expected_group_rows = std::max<int64_t>(1, shape.m / o.groups);  // the mean count
      const size_t count_a = size_t(stored_rows_a(layout) * a.lda * batch),
                   count_b = size_t(stored_rows_b(layout) * a.ldb * (o.share_b ? 1 : a.batch)),
                   count_c = size_t(stored.m * a.ldc * batch);
      DeviceBuffer<uint8_t> dA(count_a * size_of(ab)), dB(count_b * size_of(bt)), dC0(count_c * size_of(ct)),
          dC(dC0.size()), dRef(dC0.size());
      fill_device(dA.get(), ab, count_a, o.seed);
      fill_device(dB.get(), bt, count_b, o.seed + 1);
      fill_device(dC0.get(), ct, count_c, o.seed + 2);
      dRef.copy_from(dC0);
      a.A = dA.get(), a.B = dB.get();
      // A pointer-array batch: device arrays of the same matrices' pointers, C's in dC (and in dRef).
      const auto arrays_to = [&](void* c) {
        GemmArgs into = a;
        into.C = c;
        return DeviceBuffer<uint64_t>(o.pointers ? pointer_arrays(into) : std::vector<uint64_t>{});
      };
      const DeviceBuffer<uint64_t> dPointers = arrays_to(dC.get()), dRefPointers = arrays_to(dRef.get());
      const auto use_pointers = [&](GemmArgs& call, const DeviceBuffer<uint64_t>& arrays) {
        if (!o.pointers) return;
        void* const* p = reinterpret_cast<void* const*>(arrays.get());
        call.a_array = p, call.b_array = p + batch, call.c_array = p + 2 * batch;
        call.A = call.B = call.C = nullptr, call.stride_a = call.stride_b = call.stride_c = 0;
      };

      // The epilogue's vectors (scales in [0.5, 1.5)) and second outputs; the reference applies it in a pass of its own.
      const EpilogueSpec& es = o.epilogue;
      const size_t bias_count = size_t(es.bias == EpilogueSpec::Bias::kPerRow ? shape.m : shape.n);
      DeviceBuffer<uint8_t> dBias((es.bias != EpilogueSpec::Bias::kNone ? bias_count : 0) * size_of(ct)),
          dPre(es.pre_activation ? dC0.size() : 0), dRefPre(dPre.size());
      auto scales = [&](bool wanted, int64_t count, uint64_t seed) {
        std::vector<float> v(size_t(wanted ? count : 0));
        fill_random(v, seed);
        for (float& x : v) x = 1.0f + 0.5f * x;
        return DeviceBuffer<float>(v);
      };
      const DeviceBuffer<float> dRow = scales(es.row_scale(), shape.m, o.seed + 3),
                                dCol = scales(es.col_scale(), shape.n, o.seed + 4);
      if (dBias.size()) fill_device(dBias.get(), ct, bias_count, o.seed + 5);
      Epilogue epilogue;
      epilogue.bias = dBias.size() ? dBias.get() : nullptr;
      epilogue.bias_per_row = es.bias == EpilogueSpec::Bias::kPerRow;
      epilogue.activation = es.activation;
      if (es.row_scale()) epilogue.row_scale = dRow.get();
      if (es.col_scale()) epilogue.col_scale = dCol.get();
      Epilogue ref_epilogue = epilogue;
      if (es.pre_activation) epilogue.pre_activation = dPre.get(), ref_epilogue.pre_activation = dRefPre.get();
      epilogue.ld_pre = ref_epilogue.ld_pre = es.pre_activation ? a.ldc : 0;
      a.epilogue = epilogue;

      // FP8: per-tensor scales in [0.5, 1.5) on the device, 16 bytes apart (cuBLASLt refuses closer ones).
      std::vector<float> scale_values(is_fp8(ab) ? 8 : 0);
      fill_random(scale_values, o.seed + 6);
      for (float& x : scale_values) x = 1.0f + 0.5f * x;
      const DeviceBuffer<float> dScales(scale_values);
      // Or block scales, powers of two (the widened reference then holds the scaled values exactly):
      // A's m x ceil(k / 128) (k contiguous: each thread's next slices share a line), B's ceil(n / 128) x
      // ceil(k / 128), or n x ceil(k / 128) with a scale per column (b_block_n = 1).
      const bool blocks = is_fp8(ab) && o.block_scales;
      const int64_t kb = (shape.k + 127) / 128, nb = (shape.n + o.b_block_n - 1) / o.b_block_n;
      auto powers_of_two = [&](int64_t count, uint64_t seed) {
        std::vector<float> v(size_t(blocks ? std::max<int64_t>(count, 1) : 0));
        fill_random(v, seed);
        for (float& x : v) x = std::ldexp(1.0f, int(std::floor(2.5f * x)));  // 2^-3 .. 2^2
        return DeviceBuffer<float>(v);
      };
      const DeviceBuffer<float> dBlockA = powers_of_two(shape.m * kb, o.seed + 9);
      const DeviceBuffer<float> dBlockB = powers_of_two(nb * kb, o.seed + 10);
      if (blocks) {
        a.block_scales = {dBlockA.get(), kb, 1, dBlockB.get(), kb, 1, o.b_block_n};
      } else if (is_fp8(ab)) {
        a.scale_a = dScales.get(), a.scale_b = dScales.get() + 4;
      }

      GemmArgs ref = a;
      ref.epilogue = {};
      std::unique_ptr<CublasLt> fused;  // with fused_reference or FP8: cuBLASLt, writing dC
      DeviceBuffer<uint8_t> ltA, ltB;   // FP8 with op pair other than N, T: cuBLASLt's own K-major operands
      std::optional<GemmArgs> wide;     // e5m2: cuBLAS on the operands widened to 16 bits
      std::unique_ptr<CublasGrouped> grouped_ref;  // a grouped call: cuBLAS's grouped GEMM, into ref.C
      auto reference = [&] {
        if (grouped_ref) {
          grouped_ref->run();
          return;
        }
        if (fused) {
          fused->run();
          if (is_fp8(ab) && es.any()) unfused_epilogue_device(dC.get(), shape.m, shape.n, ref.ldc, ct, ref_epilogue);
          return;
        }
        cublas.gemm(wide ? *wide : ref);
        if (es.any()) unfused_epilogue_device(ref.C, shape.m, shape.n, ref.ldc, ct, ref_epilogue);
      };
      ref.C = dRef.get();  // the reference result stays here; timed reference runs write dC
      use_pointers(ref, dRefPointers);
      if (is_fp8(ab)) {
        // The result from cuBLAS on the operands widened to 16 bits; the time from cuBLASLt's FP8 GEMM,
        // which reads op pair N, T only: for the others, on K-major operands of the same shape. (e5m2 x e5m2,
        // which cuBLASLt does not multiply: cuBLAS's 16-bit GEMM on the operands widened once.)
        reference();
        if (CublasLt::multiplies(o.precision)) {
          GemmArgs lt = ref;
          lt.C = dC.get();
          if (ops != OpPair{Op::N, Op::T}) {
            lt.opA = Op::N, lt.opB = Op::T, lt.lda = lt.ldb = shape.k;
            ltA = DeviceBuffer<uint8_t>(size_t(shape.m * shape.k)), ltB = DeviceBuffer<uint8_t>(size_t(shape.n * shape.k));
            fill_device(ltA.get(), ab, ltA.size(), o.seed + 7), fill_device(ltB.get(), bt, ltB.size(), o.seed + 8);
            lt.A = ltA.get(), lt.B = ltB.get();
          }
          fused = std::make_unique<CublasLt>(lt);
        } else {
          wide = cublas.widened(ref);
          wide->C = dC.get();
        }
      } else if (o.fused_reference) {
        GemmArgs lt = a;
        lt.C = dRef.get();
        CublasLt(lt).run();
        lt.C = dC.get();
        fused = std::make_unique<CublasLt>(lt);
      } else if (grouped) {
        grouped_ref = std::make_unique<CublasGrouped>(group_calls(ref, group_rows));
        reference();
        grouped_ref.reset();
      } else {
        reference();
      }
      check_cuda(cudaDeviceSynchronize(), "reference");
      ref.C = dC.get();
      use_pointers(ref, dPointers);
      if (grouped) grouped_ref = std::make_unique<CublasGrouped>(group_calls(ref, group_rows));
      // A grouped call as a loop of tessel calls, a group each (what a caller without grouped GEMMs runs).
      auto tessel_loop = [&] {
        for (size_t g = 0; g < group_rows.size(); ++g) {
          const GemmArgs one = group_call(ref, group_rows[g], g);
          if (one.m == 0) continue;
          if (Status s = gemm(one); !s.ok()) throw std::runtime_error(s.message());
        }
      };
      // cuBLAS timed alone, once per shape, for the rows whose kernel is not timed (refused, failed);
      // timed rows time it in alternation with their kernel.
      std::optional<Summary> alone;
      auto untimed_row = [&](BenchRow row, const char* status, std::string note) {
        if (!alone) alone = time_launches({reference}, flush, o)[0];
        row.status = status, row.note = std::move(note), row.batch = batch;
        row.ref_ms = *alone, row.ref_tflops = tflops(shape.m * batch, shape.n, shape.k, alone->median);
        rows.push_back(std::move(row));
        if (on_row) on_row(rows.back());
      };

      for (const std::string& kernel : o.kernels) {
        // A kernel for small m only has no row for larger shapes.
        if (const auto info = find_kernel(kernel); info && info->max_m > 0 && shape.m > info->max_m) continue;
        if (progress) progress(rows.size(), total, kernel + " " + to_string(ops) + " " + to_string(shape));
        BenchRow row{kernel, to_string(o.precision), ops, shape, "ok", {}, 0, {}, 0, 0, 0, "", "", o.suite,
                     to_string(es)};
        GemmArgs run = a;
        run.C = dC.get();
        use_pointers(run, dPointers);
        dC.copy_from(dC0);
        if (kernel == kAuto && !select_kernel(run, &row.ran).ok()) row.ran.clear();
        Status st = run_gemm(kernel, run);
        cudaError_t err = st.ok() ? cudaDeviceSynchronize() : cudaSuccess;
        if (!st.ok() || err != cudaSuccess) {
          untimed_row(row, "ERROR",
                      st.ok() ? std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err) : st.message());
          continue;
        }
        const Comparison cmp = compare_device(dC.get(), dRef.get(), stored.m * batch, shape.n, a.ldc, ct);
        row.rel_err = cmp.rel_err;
        row.batch = batch;
        const double tol = tolerance(o.precision, shape.k);
        if (cmp.nonfinite > 0 || !(row.rel_err <= tol)) {
          untimed_row(row, "FAILED",
                      cmp.nonfinite > 0 ? std::to_string(cmp.nonfinite) + " NaN/Inf outputs"
                                        : "relative error vs cuBLAS above tolerance " + std::to_string(tol));
          continue;
        }
        std::vector<std::function<void()>> launches = {[&] {
                                                          if (Status s = run_gemm(kernel, run); !s.ok()) {
                                                            throw std::runtime_error(s.message());
                                                          }
                                                        },
                                                        reference};
        if (grouped) launches.push_back(tessel_loop);
        // With an epilogue, the same call without it, timed in the same alternation: what fusing costs.
        GemmArgs plain = run;
        plain.epilogue = {};
        std::string plain_ran = kernel;
        if (es.any()) {
          if (kernel == kAuto && !select_kernel(plain, &plain_ran).ok()) plain_ran.clear();
          launches.push_back([&] {
            if (Status s = run_gemm(kernel, plain); !s.ok()) throw std::runtime_error(s.message());
          });
        }
        const std::vector<Summary> timed = time_launches(launches, flush, o);
        row.ms = timed[0], row.ref_ms = timed[1];
        std::vector<std::string> notes;
        if (grouped) {
          notes.push_back(fmt::format("{} groups ({}); a loop of tessel calls: {:.4f} ms, this call {:.2f}x it",
                                      o.groups, o.skew ? "skewed" : "equal", timed[2].median,
                                      timed[2].median / timed[0].median));
        }
        if (es.any()) {
          const double without = timed.back().median;
          notes.push_back(fmt::format("without the epilogue ({}): {:.4f} ms, the epilogue costs {:+.1f}%", plain_ran,
                                      without, 100.0 * (timed[0].median / without - 1.0)));
        }
        row.note = fmt::to_string(fmt::join(notes, "; "));
        if (fused && is_fp8(ab) && ltA.size() == 0 && !blocks) {  // cuBLASLt's FP8 result on the same operands, against the same check
          reference();
          check_cuda(cudaDeviceSynchronize(), "reference");
          row.ref_err = compare_device(dC.get(), dRef.get(), stored.m, shape.n, a.ldc, ct).rel_err;
        }
        row.tflops = tflops(shape.m * batch, shape.n, shape.k, row.ms.median);
        row.ref_tflops = tflops(shape.m * batch, shape.n, shape.k, row.ref_ms.median);
        row.ratio = row.ref_tflops > 0 ? row.tflops / row.ref_tflops : 0;
        row.gbs = double(batch) * call_bytes(shape, o.precision, o.beta) / (row.ms.median * 1e-3) / 1e9;
        row.copy_gbs = copy_gbs;
        rows.push_back(std::move(row));
        if (on_row) on_row(rows.back());
      }
    }
  }
  if (progress) progress(rows.size(), total, "done");
  return rows;
}

std::vector<BenchRow> run_problems_bench(const BenchOptions& o, const std::function<void(const BenchRow&)>& on_row) {
  const GpuInfo gpu = query_gpu();
  DeviceBuffer<char> flush(std::max<size_t>(2 * gpu.l2_bytes, size_t(64) << 20));
  const DType ab = o.precision.ab, bt = o.precision.b_type(), ct = o.precision.c;
  std::vector<BenchRow> rows;
  for (const OpPair& ops : o.ops) {
    // Each shape one problem with its own A, B, C (leading dimensions in 16-byte units), C's start in C0.
    Shape bounds{0, 0, 0};
    double flops = 0;
    std::vector<DeviceBuffer<uint8_t>> buffers;  // per problem: A, B, C0, C, reference
    std::vector<GemmProblem> problems;
    std::vector<GemmArgs> calls, ref_calls;  // each problem as a call of its own: into C, into the reference
    for (size_t g = 0; g < o.shapes.size(); ++g) {
      const Shape& shape = o.shapes[g];
      bounds = {std::max(bounds.m, shape.m), std::max(bounds.n, shape.n), std::max(bounds.k, shape.k)};
      flops += 2.0 * double(shape.m) * double(shape.n) * double(shape.k);
      const SgemmArgs layout = make_layout(ops, shape, o.alpha, o.beta, 16);
      GemmArgs one = to_gemm(layout);
      one.precision = o.precision;
      const size_t count_a = size_t(stored_rows_a(layout) * one.lda), count_b = size_t(stored_rows_b(layout) * one.ldb),
                   count_c = size_t(shape.m * one.ldc);
      buffers.emplace_back(count_a * size_of(ab)), buffers.emplace_back(count_b * size_of(bt));
      for (int c = 0; c < 3; ++c) buffers.emplace_back(count_c * size_of(ct));
      DeviceBuffer<uint8_t>* b = &buffers[buffers.size() - 5];
      fill_device(b[0].get(), ab, count_a, o.seed + 3 * g);
      fill_device(b[1].get(), bt, count_b, o.seed + 3 * g + 1);
      fill_device(b[2].get(), ct, count_c, o.seed + 3 * g + 2);
      b[3].copy_from(b[2]), b[4].copy_from(b[2]);
      one.A = b[0].get(), one.B = b[1].get(), one.C = b[3].get();
      problems.push_back({shape.m, shape.n, shape.k, one.A, one.lda, one.B, one.ldb, one.C, one.ldc});
      calls.push_back(one);
      one.C = b[4].get();
      ref_calls.push_back(one);
    }
    const DeviceBuffer<GemmProblem> dProblems(problems);
    GemmArgs run;
    run.opA = ops.first, run.opB = ops.second, run.m = bounds.m, run.n = bounds.n, run.k = bounds.k;
    run.alpha = o.alpha, run.beta = o.beta, run.precision = o.precision, run.batch = int64_t(problems.size());
    run.problems = dProblems.get();
    CublasGrouped(ref_calls).run();
    check_cuda(cudaDeviceSynchronize(), "reference");
    CublasGrouped reference(calls);  // timed: writes the problems' C
    const auto restore = [&] {
      for (size_t g = 0; g < problems.size(); ++g) buffers[5 * g + 3].copy_from(buffers[5 * g + 2]);
    };
    for (const std::string& kernel : o.kernels) {
      BenchRow row{kernel, to_string(o.precision), ops, bounds, "ok", {}, 0, {}, 0, 0, 0, "", "", o.suite, "none"};
      row.batch = int64_t(problems.size());
      restore();
      if (kernel == kAuto && !select_kernel(run, &row.ran).ok()) row.ran.clear();
      Status st = run_gemm(kernel, run);
      const cudaError_t err = st.ok() ? cudaDeviceSynchronize() : cudaSuccess;
      if (st.ok() && err == cudaSuccess) {
        for (size_t g = 0; g < problems.size(); ++g) {
          const GemmProblem& q = problems[g];
          const Comparison cmp = compare_device(q.C, ref_calls[g].C, q.m, q.n, q.ldc, ct);
          row.rel_err = std::max(row.rel_err, cmp.nonfinite > 0 ? INFINITY : cmp.rel_err);
        }
      }
      const double tol = tolerance(o.precision, bounds.k);
      if (!st.ok() || err != cudaSuccess || !(row.rel_err <= tol)) {
        row.status = !st.ok() || err != cudaSuccess ? "ERROR" : "FAILED";
        row.note = !st.ok()           ? st.message()
                   : err != cudaSuccess ? std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err)
                                        : "relative error vs cuBLAS above tolerance " + std::to_string(tol);
        rows.push_back(row);
        if (on_row) on_row(rows.back());
        continue;
      }
      // This call, cuBLAS's grouped GEMM and a loop of tessel calls, a problem each, in alternation.
      const std::vector<Summary> timed = time_launches(
          {[&] {
             if (Status s = run_gemm(kernel, run); !s.ok()) throw std::runtime_error(s.message());
           },
           [&] { reference.run(); },
           [&] {
             for (const GemmArgs& one : calls) {
               if (Status s = gemm(one); !s.ok()) throw std::runtime_error(s.message());
             }
           }},
          flush, o);
      row.ms = timed[0], row.ref_ms = timed[1];
      row.tflops = flops / (row.ms.median * 1e-3) / 1e12;
      row.ref_tflops = flops / (row.ref_ms.median * 1e-3) / 1e12;
      row.ratio = row.tflops / row.ref_tflops;
      row.note = fmt::format("{} problems, bounds {}; a loop of tessel calls: {:.4f} ms, this call {:.2f}x it",
                             problems.size(), to_string(bounds), timed[2].median, timed[2].median / timed[0].median);
      rows.push_back(row);
      if (on_row) on_row(rows.back());
    }
  }
  return rows;
}

std::vector<SuiteSummary> summarize_suite(const std::vector<BenchRow>& rows) {
  std::vector<SuiteSummary> out;
  std::vector<double> log_sums, small_sums, copy_sums;
  for (const BenchRow& r : rows) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const SuiteSummary& s) { return s.kernel == r.kernel && s.dtype == r.dtype; });
    if (it == out.end()) {
      SuiteSummary fresh;
      fresh.kernel = r.kernel, fresh.dtype = r.dtype;
      out.push_back(fresh);
      log_sums.push_back(0), small_sums.push_back(0), copy_sums.push_back(0);
      it = out.end() - 1;
    }
    SuiteSummary& s = *it;
    ++s.rows;
    if (r.status != "ok" || !(r.ratio > 0)) continue;
    const size_t at = size_t(it - out.begin());
    log_sums[at] += std::log(r.ratio);
    if (s.timed++ == 0 || r.ratio < s.worst) s.worst = r.ratio, s.worst_call = to_string(r.ops) + " " + to_string(r.shape);
    if (r.shape.m <= kMemoryBoundM && r.copy_gbs > 0) {
      const double share = r.gbs / r.copy_gbs;
      small_sums[at] += std::log(r.ratio), copy_sums[at] += std::log(share);
      if (s.small_m++ == 0) s.small_m_worst = r.ratio, s.small_m_copy_worst = share;
      s.small_m_worst = std::min(s.small_m_worst, r.ratio), s.small_m_copy_worst = std::min(s.small_m_copy_worst, share);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].timed > 0) out[i].geomean = std::exp(log_sums[i] / out[i].timed);
    if (out[i].small_m > 0) {
      out[i].small_m_geomean = std::exp(small_sums[i] / out[i].small_m);
      out[i].small_m_copy_geomean = std::exp(copy_sums[i] / out[i].small_m);
    }
  }
  return out;
}

}  // namespace tessel::harness
