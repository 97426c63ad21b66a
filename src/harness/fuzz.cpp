#include "harness/fuzz.hpp"

#include <tessel/tessel.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <random>
#include <thread>

#include "harness/gpu.hpp"
#include "harness/reference.hpp"
#include "harness/typed.hpp"
#include "harness/verify.hpp"
#include "harness/verify_batch.hpp"

namespace tessel::harness {
namespace {

using Clock = std::chrono::steady_clock;

// Sizes: mostly small (0, 1, odd, around powers of two), some up to a few thousand.
int64_t pick_dim(std::mt19937_64& g) {
  const int r = int(g() % 100);
  if (r < 10) return int64_t(g() % 3);
  if (r < 45) return 1 + int64_t(g() % 64);
  if (r < 75) return 1 + int64_t(g() % 512);
  if (r < 90) return (int64_t(1) << (4 + g() % 8)) + int64_t(g() % 3) - 1;
  return 1 + int64_t(g() % 3000);
}

Shape pick_shape(std::mt19937_64& g) {
  Shape s{pick_dim(g), pick_dim(g), pick_dim(g)};
  if (g() % 100 < 3) {  // one very large dimension, the others small
    s = {1 + int64_t(g() % 8), 1 + int64_t(g() % 8), 1 + int64_t(g() % 8)};
    switch (g() % 3) {
      case 0: s.m = 10000 + int64_t(g() % 190000); break;
      case 1: s.n = 10000 + int64_t(g() % 190000); break;
      default: s.k = (int64_t(1) << 16) + int64_t(g() % (int64_t(1) << 20)); break;
    }
  }
  return s;
}

float pick_scalar(std::mt19937_64& g, bool is_beta) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  switch (g() % 5) {
    case 0: return 0.0f;
    case 1: return 1.0f;
    case 2: return is_beta ? 0.0f : -1.0f;  // beta = 0 (C full of NaN) twice as often
    case 3: return -0.5f;
    default: return u(g);
  }
}

std::string reproducer(const VerifyCase& c, const std::string& why) {
  return fmt::format(
      "tessel verify --kernel {} --dtype {} --sizes {} --ops {} --alpha {:.9g} --beta {:.9g} --ld-pad {} --offset {} "
      "--seed {}{}{}  # {}",
      c.kernel, to_string(c.precision), to_string(c.shape), to_string(OpPair{c.opA, c.opB}), c.alpha, c.beta, c.ld_pad,
      c.offset, c.seed, c.epilogue.any() ? " --epilogue " + to_string(c.epilogue) : "",
      c.block_scales ? fmt::format(" --block-scales --b-block-n {}", c.b_block_n) : "", why);
}

struct Shared {
  Shared(const FuzzOptions& o, std::ostream& l)
      : options(o), log(l),
        end(Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds))) {}
  const FuzzOptions& options;
  std::ostream& log;
  Clock::time_point end;
  std::atomic<int64_t> started{0};
  std::mutex mutex;
  FuzzReport report;
  // Held shared by every case, alone while a graph is captured: a capture must
  // not see another thread's allocations or frees (they synchronise).
  std::shared_mutex gate;

  bool next() {
    if (Clock::now() >= end) return false;
    return options.max_cases <= 0 || started.fetch_add(1) < options.max_cases;
  }
  void record(bool passed, bool refused, const std::string& line, int64_t FuzzReport::*phase = nullptr,
              bool cublas_off = false) {
    std::lock_guard<std::mutex> lock(mutex);
    ++report.cases;
    if (phase) ++(report.*phase);
    if (passed && cublas_off) {
      ++report.cublas_off;
      if (report.cublas_off_cases.size() < 50) report.cublas_off_cases.push_back(line);
    }
    if (passed) ++report.passed;
    else if (refused) ++report.refused;
    else {
      ++report.failed;
      if (report.failures.size() < 50) report.failures.push_back(line);
      log << "FAIL " << line << '\n' << std::flush;
    }
  }
};

class Worker {
 public:
  Worker(Shared& shared, int index) : s_(shared), gen_(shared.options.seed * 1000003 + uint64_t(index)) {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    for (const KernelInfo& k : kernels()) {
      if (k.runs_on(query_gpu().compute_capability)) runnable_.push_back(k);
    }
    std::vector<Precision> runnable;  // those this GPU has a kernel for (FP8: Hopper only)
    for (const Precision& p : supported_precisions()) {
      if (std::any_of(runnable_.begin(), runnable_.end(), [&](const KernelInfo& k) { return k.takes(p); })) {
        runnable.push_back(p);
      }
    }
    families_ = precision_families(runnable);
  }
  ~Worker() { cudaStreamDestroy(stream_); }

  void run(bool phases) {
    for (int64_t i = 0; s_.next(); ++i) {
      const int phase = phases ? int(i % 20) : -1;
      if (phase == 5) graph_case();
      else if (phase == 7) batch_case();
      else if (phase == 10) pending_error_case();
      else if (phase == 12) grouped_case();
      else if (phase == 15) bad_input_case();
      else plain_case();
    }
  }

 private:
  VerifyCase random_case(bool auto_only) {
    VerifyCase c;
    const std::vector<Precision>& family = families_[gen_() % families_.size()];
    c.precision = family[gen_() % family.size()];
    c.kernel = kAuto;
    if (!auto_only && gen_() % 2 == 0) {
      std::vector<const KernelInfo*> takers;
      for (const KernelInfo& k : runnable_) {
        if (k.takes(c.precision)) takers.push_back(&k);
      }
      if (!takers.empty()) c.kernel = takers[gen_() % takers.size()]->name;
    }
    c.opA = gen_() % 2 ? Op::T : Op::N;
    c.opB = gen_() % 2 ? Op::T : Op::N;
    c.shape = pick_shape(gen_);
    if (c.kernel != kAuto && c.kernel.find("naive") != std::string::npos) {  // 0.5 TFLOP/s: keep it small
      c.shape = {c.shape.m % 300, c.shape.n % 300, c.shape.k % 300};
    }
    c.alpha = pick_scalar(gen_, false);
    c.beta = pick_scalar(gen_, true);
    c.ld_pad = gen_() % 2 ? 0 : 1 + int64_t(gen_() % 9);
    c.offset = gen_() % 2 ? 0 : 1 + int64_t(gen_() % 7);
    c.seed = gen_() % 1000000;
    c.stream = stream_;
    if (gen_() % 4 == 0) {  // one case in four with an epilogue
      c.epilogue.bias = EpilogueSpec::Bias(gen_() % 3);
      c.epilogue.activation = Activation(gen_() % 5);
      c.epilogue.scales = EpilogueSpec::Scales(gen_() % 3);
      c.epilogue.pre_activation = gen_() % 2 || !c.epilogue.any();
    }
    if (is_fp8(c.precision.ab) && gen_() % 2 == 0) {  // FP8: block scales in half the cases, B's per column in half
      c.block_scales = true;
      c.b_block_n = gen_() % 2 ? 128 : 1;
    }
    return c;
  }

  // A named kernel may refuse a call (kNotSupported) if it writes nothing; auto-dispatch must run it.
  static bool refusal(const VerifyResult& r, const std::string& kernel) {
    return !r.passed && kernel != kAuto && r.status.code() == StatusCode::kNotSupported && r.clobbered == 0;
  }

  void check(const VerifyCase& c, int64_t FuzzReport::*phase = nullptr) {
    std::shared_lock<std::shared_mutex> lock(s_.gate);
    check_held(c, phase);
  }
  void check_held(const VerifyCase& c, int64_t FuzzReport::*phase = nullptr) {
    const VerifyResult r = verify_case(cublas_, c);
    s_.record(r.passed, refusal(r, c.kernel), (c.pending_error ? "after a pending error: " : "") + reproducer(c, r.reason), phase,
              r.cublas_off);
  }

  void plain_case() { check(random_case(false)); }

  // A strided batch, its matrices stacked or side by side in C's rows, B
  // shared or not, or the same as a pointer-array batch (its matrices an
  // element past 16 bytes or not): every matrix checked, the gaps between
  // them guarded. A pointer-array batch no kernel takes is refused untouched.
  void batch_case() {
    std::shared_lock<std::shared_mutex> lock(s_.gate);
    const VerifyCase v = random_case(false);
    BatchCase c;
    c.kernel = v.kernel, c.opA = v.opA, c.opB = v.opB, c.precision = v.precision, c.seed = v.seed;
    c.alpha = v.alpha, c.beta = v.beta;
    c.shape = {1 + v.shape.m % 300, 1 + v.shape.n % 300, 1 + v.shape.k % 700};
    c.batch = 2 + int64_t(gen_() % 7), c.share_b = gen_() % 3 == 0, c.side_by_side = gen_() % 3 == 0;
    c.pointers = gen_() % 4 == 0;
    c.offset = c.pointers && gen_() % 3 == 0 ? 1 : 0;
    const VerifyResult r = verify_batch(cublas_, c);
    const bool refused_arrays = c.pointers && r.status.code() == StatusCode::kNotSupported && r.clobbered == 0;
    s_.record(r.passed, refusal(r, c.kernel) || refused_arrays,
              fmt::format("batch phase: tessel verify --kernel {} --dtype {} --sizes {} --ops {} --batch {} --layout {} "
                          "--alpha {:.9g} --beta {:.9g} --seed {}{}  # {}",
                          c.kernel, to_string(c.precision), to_string(c.shape), to_string(OpPair{c.opA, c.opB}),
                          c.batch, c.share_b ? "shared" : c.side_by_side ? "side" : "stack", c.alpha, c.beta, c.seed,
                          c.pointers ? fmt::format(" --pointers --offset {}", c.offset) : "", r.reason),
              &FuzzReport::batch_cases);
  }

  // A grouped GEMM (where a kernel here takes one): groups of rows by
  // offsets, empty ones and rows in none among them, or masked, with counts
  // past the capacity and below 0 (clamped); the rows no group writes guarded.
  void grouped_case() {
    std::vector<const KernelInfo*> grouped;
    for (const KernelInfo& k : runnable_) {
      if (k.grouped) grouped.push_back(&k);
    }
    if (grouped.empty()) return plain_case();
    std::shared_lock<std::shared_mutex> lock(s_.gate);
    const KernelInfo& taker = *grouped[gen_() % grouped.size()];
    if (gen_() % 3 == 0) return problems_case(taker);
    GroupedCase c;
    c.precision = taker.precisions[gen_() % taker.precisions.size()];
    c.kernel = gen_() % 2 ? kAuto : taker.name;
    c.opB = gen_() % 2 ? Op::T : Op::N;
    c.n = 1 + pick_dim(gen_) % 400, c.k = 1 + pick_dim(gen_) % 700;
    c.alpha = pick_scalar(gen_, false), c.beta = pick_scalar(gen_, true), c.seed = gen_() % 1000000;
    c.share_b = gen_() % 3 == 0;
    const int groups = 1 + int(gen_() % 9);
    for (int g = 0; g < groups; ++g) c.rows.push_back(gen_() % 4 == 0 ? 0 : 1 + int64_t(gen_() % 300));
    if (gen_() % 2) {  // masked
      c.capacity = 1 + *std::max_element(c.rows.begin(), c.rows.end()) + int64_t(gen_() % 9);
      if (gen_() % 3 == 0) c.rows[gen_() % c.rows.size()] = c.capacity + 1 + int64_t(gen_() % 5);
      if (gen_() % 3 == 0) c.rows[gen_() % c.rows.size()] = -1 - int64_t(gen_() % 5);
    } else {
      c.tail = gen_() % 2 ? 0 : int64_t(gen_() % 6);
    }
    const VerifyResult r = verify_grouped(cublas_, c);
    std::string rows;
    for (int64_t x : c.rows) rows += (rows.empty() ? "" : ",") + std::to_string(x);
    s_.record(r.passed, refusal(r, c.kernel),
              fmt::format("grouped phase: tessel verify --kernel {} --dtype {} --sizes 1x{}x{} --ops N{} --groups {} "
                          "--group-rows={}{} --tail {}{} --alpha {:.9g} --beta {:.9g} --seed {}  # {}",
                          c.kernel, to_string(c.precision), c.n, c.k, c.opB == Op::N ? "N" : "T", c.rows.size(), rows,
                          c.capacity > 0 ? " --masked --capacity " + std::to_string(c.capacity) : "", c.tail,
                          c.share_b ? " --share-b" : "", c.alpha, c.beta, c.seed, r.reason),
              &FuzzReport::grouped_cases);
  }

  // Problems with sizes of their own (GemmArgs::problems): 1-6 random sizes
  // (0 among them), any op pair for 16-bit inputs (N, T for tf32 and FP8), in
  // one case in two with with_edges' empty problems, odd rows and bounds.
  void problems_case(const KernelInfo& taker) {
    ProblemsCase c;
    c.precision = taker.precisions[gen_() % taker.precisions.size()];
    c.kernel = gen_() % 2 ? kAuto : taker.name;
    if (size_of(c.precision.ab) == 2) c.opA = gen_() % 2 ? Op::T : Op::N, c.opB = gen_() % 2 ? Op::T : Op::N;
    const int count = 1 + int(gen_() % 6);
    for (int g = 0; g < count; ++g) {
      c.sizes.push_back({int64_t(gen_() % 300), int64_t(gen_() % 400), int64_t(gen_() % 700)});
    }
    c.alpha = pick_scalar(gen_, false), c.beta = pick_scalar(gen_, true), c.seed = gen_() % 1000000;
    const bool edges = gen_() % 2;
    ProblemsCase run = edges ? with_edges(c) : c;
    run.alpha = c.alpha, run.beta = c.beta;
    const VerifyResult r = verify_problems(cublas_, run);
    std::string sizes;
    for (const Shape& s : c.sizes) sizes += (sizes.empty() ? "" : ",") + to_string(s);
    s_.record(r.passed, refusal(r, c.kernel),
              fmt::format("grouped phase: tessel verify --kernel {} --dtype {} --problems --sizes {} --ops {} "
                          "--alpha {:.9g} --beta {:.9g} --seed {}  # {}{}",
                          c.kernel, to_string(c.precision), sizes, to_string(OpPair{c.opA, c.opB}), c.alpha, c.beta,
                          c.seed, edges ? "the edge case: " : "", r.reason),
              &FuzzReport::grouped_cases);
  }

  // An error left pending by the caller is not the call's.
  void pending_error_case() {
    VerifyCase c = random_case(true);
    c.pending_error = true;
    check(c, &FuzzReport::pending_cases);
  }

  // Captured with a workspace of its own into a graph, replayed on another
  // stream after other calls: bit for bit the direct call's result.
  void graph_case() {
    std::shared_lock<std::shared_mutex> held(s_.gate);  // first: released last, after every free below
    VerifyCase c = random_case(true);
    c.shape = {1 + c.shape.m % 700, 1 + c.shape.n % 700, 1 + c.shape.k % 4000};
    c.epilogue = {};  // the call below is made from the layout alone
    const SgemmArgs layout = make_layout({c.opA, c.opB}, c.shape, c.alpha, c.beta);
    std::vector<float> hA(size_t(stored_rows_a(layout) * layout.lda)), hB(size_t(stored_rows_b(layout) * layout.ldb)),
        hC(size_t(c.shape.m * layout.ldc));
    fill_random(hA, c.seed), fill_random(hB, c.seed + 1), fill_random(hC, c.seed + 2);
    DeviceBuffer<uint8_t> A(encode(hA, c.precision.ab)), B(encode(hB, c.precision.b_type()));
    const std::vector<uint8_t> c0 = encode(hC, c.precision.c);
    DeviceBuffer<uint8_t> C(c0);
    GemmArgs a = to_gemm(layout);
    a.precision = c.precision, a.A = A.get(), a.B = B.get(), a.C = C.get();
    std::string why;
    size_t bytes = 0;
    Status s = workspace_size(a, &bytes);
    DeviceBuffer<uint8_t> ws(bytes + 1);
    a.workspace = bytes ? ws.get() + 1 : nullptr, a.workspace_bytes = bytes;  // one byte in: any alignment
    std::vector<uint8_t> direct;
    cudaStream_t other = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (s.ok()) s = gemm(a, stream_);
    if (s.ok() && cudaStreamSynchronize(stream_) == cudaSuccess) direct = C.download();
    if (s.ok()) {
      C.upload(c0);
      check_cuda(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");
      cudaError_t end = cudaSuccess;
      held.unlock();
      {
        std::unique_lock<std::shared_mutex> alone(s_.gate);
        check_cuda(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
        s = gemm(a, stream_);
        end = cudaStreamEndCapture(stream_, &graph);
      }
      held.lock();
      if (s.ok() && end != cudaSuccess) why = std::string("capture failed: ") + cudaGetErrorName(end);
      if (s.ok() && why.empty()) {
        check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
        check_held(random_case(true));  // other work first, on the worker's stream and tessel's own buffers
        check_cuda(cudaGraphLaunch(exec, other), "cudaGraphLaunch");
        check_cuda(cudaStreamSynchronize(other), "replay");
        if (C.download() != direct) why = "the graph's replay differs from the direct call";
      }
    }
    if (!s.ok()) why = s.message();
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (other) cudaStreamDestroy(other);
    c.kernel = kAuto;
    s_.record(why.empty(), false, "graph phase: " + reproducer(c, why), &FuzzReport::graph_cases);
  }

  // Hostile arguments: the status names the problem, and C is untouched.
  void bad_input_case() {
    std::shared_lock<std::shared_mutex> lock(s_.gate);
    const int64_t m = 1 + int64_t(gen_() % 64), n = 1 + int64_t(gen_() % 64), k = 1 + int64_t(gen_() % 64);
    const std::vector<Precision>& all = supported_precisions();
    const Precision p = all[gen_() % all.size()];
    DeviceBuffer<uint8_t> A(size_t(m * k * 4 + 16)), B(size_t(k * n * 4 + 16));
    std::vector<float> hc(size_t(m * n));
    fill_random(hc, gen_());
    const std::vector<uint8_t> c0 = encode(hc, p.c);
    DeviceBuffer<uint8_t> C(c0);
    GemmArgs a{Op::N, Op::N, m, n, k, 1.0f, A.get(), k, B.get(), n, 0.5f, C.get(), n, p};
    const int which = int(gen_() % 7);
    std::string what;
    switch (which) {
      case 0: a.m = -1 - int64_t(gen_() % 5), what = "negative m"; break;
      case 1: a.lda = k - 1, what = "lda below k"; break;
      case 2: a.ldc = n - 1, what = "ldc below n"; break;
      case 3: a.B = nullptr, what = "B null"; break;
      case 4: a.A = A.get() + 1, what = "A not element-aligned"; break;
      case 5: a.workspace_bytes = 1 + gen_() % 4096, what = "workspace size without a pointer"; break;
      default: a.opA = Op(2 + int(gen_() % 5)), what = "opA neither N nor T"; break;
    }
    if (which == 4 && size_of(p.ab) == 1) a.A = nullptr, what = "A null";  // (FP8: no pointer is misaligned)
    const bool named = gen_() % 2 == 0;
    const Status s = named ? run_kernel(runnable_[gen_() % runnable_.size()].name, a, stream_) : gemm(a, stream_);
    cudaStreamSynchronize(stream_);
    std::string why;
    if (s.code() != StatusCode::kInvalidArgument) why = "expected kInvalidArgument, got " + std::string(to_string(s.code()));
    else if (C.download() != c0) why = "C changed";
    s_.record(why.empty(), false,
              fmt::format("bad input: {} ({}, {}x{}x{}, {}): {} {}", what, to_string(p), m, n, k,
                          named ? "by name" : "auto", why, s.message()),
              &FuzzReport::bad_input_cases);
  }

  Shared& s_;
  std::mt19937_64 gen_;
  cudaStream_t stream_ = nullptr;
  Cublas cublas_;
  std::vector<KernelInfo> runnable_;
  std::vector<std::vector<Precision>> families_;  // the precisions runnable_ takes (precision_families)
};

}  // namespace

std::vector<std::vector<Precision>> precision_families(const std::vector<Precision>& precisions) {
  std::vector<std::vector<Precision>> families;
  const auto same_inputs = [](const Precision& a, const Precision& b) {
    return is_fp8(a.ab) ? is_fp8(b.ab) : a.ab == b.ab && a.compute == b.compute;
  };
  for (const Precision& p : precisions) {
    const auto it = std::find_if(families.begin(), families.end(),
                                 [&](const std::vector<Precision>& f) { return same_inputs(f.front(), p); });
    if (it == families.end()) families.push_back({p});
    else it->push_back(p);
  }
  return families;
}

FuzzReport run_fuzz(const FuzzOptions& options, std::ostream& log) {
  Shared shared(options, log);
  std::vector<std::thread> threads;
  std::mutex errors;
  std::vector<std::string> crashed;
  for (int t = 0; t < std::max(1, options.threads); ++t) {
    threads.emplace_back([&, t] {
      try {  // created and destroyed (a stream, a cuBLAS handle) outside any other thread's capture
        std::optional<Worker> w;
        {
          std::shared_lock<std::shared_mutex> lock(shared.gate);
          w.emplace(shared, t);
        }
        w->run(true);
        std::shared_lock<std::shared_mutex> lock(shared.gate);
        w.reset();
        release_case_arrays();
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(errors);
        crashed.push_back(fmt::format("worker {}: {}", t, e.what()));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& c : crashed) shared.record(false, false, "harness error: " + c);
  return shared.report;
}

}  // namespace tessel::harness
