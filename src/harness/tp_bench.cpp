#include "harness/tp_bench.hpp"

#include <fmt/format.h>
#include <nccl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tessel/tp.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "harness/device_data.hpp"
#include "harness/gpu.hpp"
#include "harness/stats.hpp"
#include "harness/verify.hpp"

namespace tessel::harness {
namespace {

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}
void check_status(const Status& s) {
  if (!s.ok()) throw std::runtime_error(s.message());
}

// A device array of `count` elements of `type`, random in [-1, 1) (seeded per rank).
struct Operand {
  DeviceBuffer<uint8_t> bytes;
  Operand(int64_t count, DType type, uint64_t seed) : bytes(size_t(count) * size_of(type)) {
    fill_device(bytes.get(), type, size_t(count), seed);
  }
  void* get() const { return bytes.get(); }
};

struct Row {
  std::string pattern;
  Shape shape;
  double overlapped = 0, sequential = 0, comm = 0, compute = 0, error = 0;
};

// Makes GPU `device` current (before the members that follow it are made).
struct OnGpu {
  explicit OnGpu(int device) { check_cuda(cudaSetDevice(device), "cudaSetDevice"); }
};

class Rank {
 public:
  Rank(const TpBenchOptions& o, int rank, const ncclUniqueId& id) : o_(o), rank_(rank), gpu_(rank) {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check_nccl(ncclCommInitRank(&comm_, o.ranks, id, rank), "ncclCommInitRank");
  }
  ~Rank() {
    if (comm_) ncclCommDestroy(comm_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  // Median times of the callables run in alternation (ms), on this rank's stream.
  std::vector<double> time(const std::vector<std::function<void()>>& fns) {
    std::vector<std::vector<double>> samples(fns.size());
    cudaEvent_t start, end;
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&end), "cudaEventCreate");
    for (int rep = 0; rep < o_.warmup + o_.repeat; ++rep) {
      for (size_t i = 0; i < fns.size(); ++i) {
        check_cuda(cudaEventRecord(start, stream_), "cudaEventRecord");
        fns[i]();
        check_cuda(cudaEventRecord(end, stream_), "cudaEventRecord");
        check_cuda(cudaEventSynchronize(end), "cudaEventSynchronize");
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
        if (rep >= o_.warmup) samples[i].push_back(ms);
      }
    }
    cudaEventDestroy(start), cudaEventDestroy(end);
    std::vector<double> out;
    for (auto& s : samples) out.push_back(summarize(s).median);
    return out;
  }

  // The largest of the ranks' values.
  double max_over_ranks(double value) {
    DeviceBuffer<double> d(1);
    check_cuda(cudaMemcpy(d.get(), &value, sizeof value, cudaMemcpyHostToDevice), "upload");
    check_nccl(ncclAllReduce(d.get(), d.get(), 1, ncclFloat64, ncclMax, comm_, stream_), "ncclAllReduce");
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    check_cuda(cudaMemcpy(&value, d.get(), sizeof value, cudaMemcpyDeviceToHost), "download");
    return value;
  }

  GemmArgs gemm_nt(int64_t m, int64_t n, int64_t k, const void* A, const void* B, void* C) const {
    GemmArgs g;
    g.precision = o_.precision, g.m = m, g.n = n, g.k = k, g.opA = Op::N, g.opB = Op::T;
    g.A = A, g.lda = k, g.B = B, g.ldb = k, g.C = C, g.ldc = n;
    return g;
  }

  // Column-parallel: each rank has m / ranks rows of A and n / ranks columns of the weight.
  Row all_gather(const Shape& s) {
    const int64_t m_local = s.m / o_.ranks, n_local = s.n / o_.ranks, k = s.k;
    const DType ab = o_.precision.ab, ct = o_.precision.c;
    Operand A(m_local * k, ab, 100 + rank_), B(n_local * k, o_.precision.b_type(), 200 + rank_);
    DeviceBuffer<uint8_t> gathered(size_t(s.m * k) * size_of(ab)), over(size_t(s.m * n_local) * size_of(ct)),
        seq(over.size());
    tp::AllGatherGemm call;
    call.precision = o_.precision, call.m_local = m_local, call.n = n_local, call.k = k;
    call.A = A.get(), call.lda = k, call.B = B.get(), call.ldb = k, call.opB = Op::T;
    call.C = over.get(), call.ldc = n_local, call.chunks = o_.chunks;
    DeviceBuffer<uint8_t> ws(std::max<size_t>(1, tp::workspace_size(call, o_.ranks)));
    call.workspace = ws.get(), call.workspace_bytes = ws.size();
    auto gather = [&] {
      check_nccl(ncclAllGather(A.get(), gathered.get(), size_t(m_local * k), tp::nccl_type(ab), comm_, stream_),
                 "ncclAllGather");
    };
    const GemmArgs whole = gemm_nt(s.m, n_local, k, gathered.get(), B.get(), seq.get());
    const std::vector<double> t = time({
        [&] { check_status(tp::all_gather_gemm(call, comm_, stream_)); },
        [&] { gather(), cublas_.gemm(whole, stream_); },
        gather,
        [&] { check_status(gemm(whole, stream_)); },
    });
    gather(), cublas_.gemm(whole, stream_);
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    const double error = compare_device(over.get(), seq.get(), 1, s.m * n_local, s.m * n_local, ct).rel_err;
    return {"all-gather + GEMM", s, t[0], t[1], t[2], t[3], max_over_ranks(error)};
  }

  // Row-parallel: each rank has k / ranks columns of A and rows of the weight; C reduce-scattered by rows.
  Row reduce_scatter(const Shape& s) {
    const int64_t k_local = s.k / o_.ranks, m_part = s.m / o_.ranks;
    const DType ab = o_.precision.ab, ct = o_.precision.c;
    Operand A(s.m * k_local, ab, 300 + rank_), B(s.n * k_local, o_.precision.b_type(), 400 + rank_);
    DeviceBuffer<uint8_t> partial(size_t(s.m * s.n) * size_of(ct)), over(size_t(m_part * s.n) * size_of(ct)),
        seq(over.size());
    tp::GemmReduceScatter call;
    call.precision = o_.precision, call.m = s.m, call.n = s.n, call.k_local = k_local;
    call.A = A.get(), call.lda = k_local, call.B = B.get(), call.ldb = k_local, call.opB = Op::T;
    call.C = over.get(), call.ldc = s.n, call.chunks = o_.chunks;
    DeviceBuffer<uint8_t> ws(std::max<size_t>(1, tp::workspace_size(call, o_.ranks)));
    call.workspace = ws.get(), call.workspace_bytes = ws.size();
    const GemmArgs local = gemm_nt(s.m, s.n, k_local, A.get(), B.get(), partial.get());
    auto scatter = [&] {
      check_nccl(ncclReduceScatter(partial.get(), seq.get(), size_t(m_part * s.n), tp::nccl_type(ct), ncclSum, comm_,
                                   stream_),
                 "ncclReduceScatter");
    };
    const std::vector<double> t = time({
        [&] { check_status(tp::gemm_reduce_scatter(call, comm_, stream_)); },
        [&] { cublas_.gemm(local, stream_), scatter(); },
        scatter,
        [&] { check_status(gemm(local, stream_)); },
    });
    cublas_.gemm(local, stream_), scatter();
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    const double error = compare_device(over.get(), seq.get(), 1, m_part * s.n, m_part * s.n, ct).rel_err;
    return {"GEMM + reduce-scatter", s, t[0], t[1], t[2], t[3], max_over_ranks(error)};
  }

 private:
  const TpBenchOptions& o_;
  int rank_;
  OnGpu gpu_;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
  Cublas cublas_;
};

int run_rank(const TpBenchOptions& o, int rank, const ncclUniqueId& id, std::ostream& out) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < o.ranks) {
    if (rank != 0) return 0;  // the same on every rank: rank 0 says it
    out << fmt::format("error: --tp {} needs {} GPUs; this machine has {}\n", o.ranks, o.ranks, devices);
    return 2;
  }
  Rank r(o, rank, id);
  std::vector<Row> rows;
  for (const Shape& s : o.shapes) {
    if (s.m % o.ranks != 0 || s.n % o.ranks != 0 || s.k % o.ranks != 0) {
      if (rank == 0) out << fmt::format("skipped {}: m, n and k must be multiples of {}\n", to_string(s), o.ranks);
      continue;
    }
    rows.push_back(r.all_gather(s));
    rows.push_back(r.reduce_scatter(s));
  }
  if (rank != 0) return 0;
  out << fmt::format("{:<22} {:>20} {:>10} {:>10} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9}\n", "pattern", "m x n x k",
                     "overlap ms", "seq ms", "comm ms", "gemm ms", "ideal ms", "ovl/seq", "ovl/ideal", "error");
  int failed = 0;
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    csv << "pattern,ranks,m,n,k,precision,overlapped_ms,sequential_ms,comm_ms,gemm_ms,ideal_ms,error\n";
  }
  for (const Row& w : rows) {
    const double ideal = std::max(w.comm, w.compute);
    const bool bad = !(w.error <= tolerance(o.precision, w.shape.k));  // tessel's GEMMs against cuBLAS
    failed += bad;
    out << fmt::format("{:<22} {:>20} {:>10.3f} {:>10.3f} {:>8.3f} {:>8.3f} {:>8.3f} {:>9.3f} {:>8.3f} {:>9.2e}{}\n",
                       w.pattern, to_string(w.shape), w.overlapped, w.sequential, w.comm, w.compute, ideal,
                       w.overlapped / w.sequential, w.overlapped / ideal, w.error, bad ? "  FAIL" : "");
    if (csv) {
      csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", w.pattern, o.ranks, w.shape.m, w.shape.n, w.shape.k,
                         to_string(o.precision), w.overlapped, w.sequential, w.comm, w.compute, ideal, w.error);
    }
  }
  return failed ? 1 : 0;
}

}  // namespace

int run_tp_bench(const TpBenchOptions& o, std::ostream& out, std::ostream& err) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // NVLink multicast stays off (shared machines)
  // Fork before any CUDA call: ranks 1..N-1 are children, rank 0 this process
  // (output flushed first, so that no child writes the parent's buffered text again).
  out.flush(), err.flush(), std::fflush(nullptr);
  int rank = 0, from_parent = -1;
  std::vector<int> to_children;
  std::vector<pid_t> children;
  for (int r = 1; r < o.ranks; ++r) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // a rank never outlives rank 0 (it would wait in a collective forever)
      if (getppid() == 1) _exit(3);
      close(fds[1]);
      for (int fd : to_children) close(fd);
      rank = r, from_parent = fds[0], to_children.clear(), children.clear();
      break;
    }
    close(fds[0]);
    to_children.push_back(fds[1]), children.push_back(pid);
  }
  ncclUniqueId id{};
  if (rank == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    for (int fd : to_children) {
      if (write(fd, &id, sizeof id) != ssize_t(sizeof id)) err << "error: could not hand the NCCL id to a rank\n";
      close(fd);
    }
  } else {
    const bool got = read(from_parent, &id, sizeof id) == ssize_t(sizeof id);
    close(from_parent);
    if (!got) _exit(3);
  }
  // Rank 0 watches the others: one that fails while the run goes on would
  // leave every collective waiting for it, so the run stops instead.
  std::atomic<bool> finished{false};
  std::vector<int> statuses(children.size(), -1);
  std::thread watchdog;
  if (rank == 0) {
    watchdog = std::thread([&] {
      for (size_t left = children.size(); left > 0;) {
        for (size_t i = 0; i < children.size(); ++i) {
          int st = 0;
          if (statuses[i] >= 0 || waitpid(children[i], &st, WNOHANG) != children[i]) continue;
          statuses[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
          --left;
          if (statuses[i] != 0 && !finished) {
            std::fprintf(stderr, "error: rank %zu failed (status %d): stopping every rank\n", i + 1, statuses[i]);
            for (pid_t pid : children) kill(pid, SIGKILL);
            _exit(1);
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  int status = 0;
  std::ostringstream quiet;
  try {
    status = run_rank(o, rank, id, rank == 0 ? out : quiet);
  } catch (const std::exception& e) {
    err << fmt::format("error: rank {}: {}\n", rank, e.what());
    status = 1;
  }
  if (rank != 0) {
    err.flush();
    _exit(status);
  }
  finished = true;
  if (status != 0) {
    for (pid_t pid : children) kill(pid, SIGKILL);  // they may be waiting for rank 0 in a collective
  }
  watchdog.join();
  for (int s : statuses) {
    if (s != 0 && status == 0) status = 1;
  }
  return status;
}

}  // namespace tessel::harness
