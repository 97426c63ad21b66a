// Tensor-parallel GEMMs over NCCL (include/tessel/tp.hpp). Each rank's
// block of rows is cut into chunks (tp/chunks.hpp). All-gather + GEMM: the
// GEMM of this rank's own rows starts at once, while the communicator's
// stream gathers the other ranks' rows chunk by chunk; the GEMM of a chunk
// waits only for that chunk's all-gather. GEMM + reduce-scatter: the partial
// sums of chunk c (every rank's rows of it) are multiplied, then
// reduce-scattered while chunk c + 1 is multiplied.
#include <tessel/tp.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/context.hpp"
#include "tp/chunks.hpp"

namespace tessel::tp {
namespace {

Status invalid(const std::string& what) { return {StatusCode::kInvalidArgument, "tessel::tp: " + what}; }
Status cuda_failed(cudaError_t err, const char* where) {
  return {StatusCode::kCudaError, std::string("tessel::tp: ") + where + ": " + cudaGetErrorName(err)};
}
Status nccl_failed(ncclResult_t r, const char* where) {
  return {StatusCode::kCudaError, std::string("tessel::tp: ") + where + ": " + ncclGetErrorString(r)};
}

#define TESSEL_TP_CUDA(call)                                    \
  do {                                                          \
    if (cudaError_t err_ = (call); err_ != cudaSuccess) {       \
      return cuda_failed(err_, #call);                          \
    }                                                           \
  } while (0)
#define TESSEL_TP_NCCL(call)                                    \
  do {                                                          \
    if (ncclResult_t r_ = (call); r_ != ncclSuccess) {          \
      return nccl_failed(r_, #call);                            \
    }                                                           \
  } while (0)

// The communicator's stream of this host thread in the current context
// (kept for the context's life: a context that cudaDeviceReset() destroyed
// has a new id, so its streams are never reused).
Status comm_stream(cudaStream_t* out) {
  static std::mutex mutex;
  static std::map<std::pair<uint64_t, std::thread::id>, cudaStream_t> streams;
  TESSEL_TP_CUDA(cudaFree(nullptr));  // the context exists
  uint64_t context = 0;
  TESSEL_TP_CUDA(impl::current_context(&context));
  std::lock_guard<std::mutex> lock(mutex);
  cudaStream_t& s = streams[{context, std::this_thread::get_id()}];
  if (s == nullptr) TESSEL_TP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  *out = s;
  return {};
}

// Events of one call: destroyed when it returns (the GPU finishes with them on its own).
struct Events {
  std::vector<cudaEvent_t> events;
  ~Events() {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
  }
  Status make(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      cudaEvent_t e = nullptr;
      TESSEL_TP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      events.push_back(e);
    }
    return {};
  }
  cudaEvent_t operator[](size_t i) const { return events[i]; }
};

// The scratch memory: the caller's, or allocated now and freed after the
// call's last work on `stream` (stream-ordered).
struct Scratch {
  void* ptr = nullptr;
  bool own = false;
  cudaStream_t stream = nullptr;
  Status get(void* given, size_t given_bytes, size_t need, cudaStream_t s) {
    if (need == 0) return {};
    if (given != nullptr) {
      if (given_bytes < need) {
        return invalid("workspace_bytes is " + std::to_string(given_bytes) + ", the call needs " +
                       std::to_string(need) + " (tp::workspace_size)");
      }
      ptr = given;
      return {};
    }
    TESSEL_TP_CUDA(cudaMallocAsync(&ptr, need, s));
    own = true, stream = s;
    return {};
  }
  ~Scratch() {
    if (own) cudaFreeAsync(ptr, stream);
  }
};

// Makes `stream` wait for everything enqueued on the communicator's stream
// so far when the call returns, on every path: scratch memory freed on
// `stream` afterwards (Scratch, declared before) is then no longer in use.
struct Join {
  cudaStream_t comm = nullptr, stream = nullptr;
  cudaEvent_t done = nullptr;
  ~Join() {
    if (comm == nullptr || cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess) return;
    if (cudaEventRecord(done, comm) == cudaSuccess) cudaStreamWaitEvent(stream, done, 0);
    cudaEventDestroy(done);
  }
};

Status ranks_of(ncclComm_t comm, int* ranks, int* rank) {
  if (comm == nullptr) return invalid("comm is null");
  TESSEL_TP_NCCL(ncclCommCount(comm, ranks));
  TESSEL_TP_NCCL(ncclCommUserRank(comm, rank));
  return {};
}

char* at(const void* base, int64_t elements, DType t) {
  return static_cast<char*>(const_cast<void*>(base)) + elements * int64_t(size_of(t));
}

// The GEMM of `rows` rows of A (row-major, lda) into C's rows (ldc).
GemmArgs gemm_of(Precision p, int64_t rows, int64_t n, int64_t k, float alpha, float beta, const void* A, int64_t lda,
                 const void* B, int64_t ldb, Op opB, void* C, int64_t ldc) {
  GemmArgs g;
  g.precision = p, g.m = rows, g.n = n, g.k = k, g.alpha = alpha, g.beta = beta;
  g.A = A, g.lda = lda, g.opA = Op::N, g.B = B, g.ldb = ldb, g.opB = opB, g.C = C, g.ldc = ldc;
  return g;
}

Status check_common(int64_t rows, int64_t n, int64_t k, const void* A, int64_t lda, const void* B,
                    int64_t ldb, Op opB, const void* C, int64_t ldc) {
  if (rows < 0 || n < 0 || k < 0) return invalid("sizes must not be negative");
  if (lda < std::max<int64_t>(k, 1)) return invalid("lda must be at least k");
  if (ldb < std::max<int64_t>(opB == Op::N ? n : k, 1)) return invalid("ldb is smaller than op(B)'s stored rows");
  if (ldc < std::max<int64_t>(n, 1)) return invalid("ldc must be at least n");
  if (rows > 0 && n > 0 && (C == nullptr || (k > 0 && (A == nullptr || B == nullptr)))) {
    return invalid("A, B and C must not be null");
  }
  return {};
}

}  // namespace

ncclDataType_t nccl_type(DType type) {
  switch (type) {
    case DType::kF16: return ncclFloat16;
    case DType::kBF16: return ncclBfloat16;
    case DType::kE4M3: case DType::kE5M2: return ncclUint8;  // moved as bytes
    case DType::kF32: break;
  }
  return ncclFloat32;
}

size_t workspace_size(const AllGatherGemm& c, int ranks) {
  if (ranks <= 1) return 0;
  return size_t(ranks) * size_t(c.m_local) * size_t(c.k) * size_of(c.precision.ab);
}

size_t workspace_size(const GemmReduceScatter& c, int ranks) {
  if (ranks <= 1) return 0;
  return size_t(c.m) * size_t(c.n) * size_of(c.precision.c);
}

Status all_gather_gemm(const AllGatherGemm& c, ncclComm_t comm, cudaStream_t stream) {
  int ranks = 0, rank = 0;
  if (Status s = ranks_of(comm, &ranks, &rank); !s.ok()) return s;
  if (Status s = check_common(c.m_local, c.n, c.k, c.A, c.lda, c.B, c.ldb, c.opB, c.C, c.ldc); !s.ok()) {
    return s;
  }
  const ncclDataType_t type = nccl_type(c.precision.ab);
  const DType ab = c.precision.ab, ct = c.precision.c;
  auto rows_gemm = [&](int64_t rows, const void* A, int64_t lda, int64_t c_row) {
    return gemm(gemm_of(c.precision, rows, c.n, c.k, c.alpha, c.beta, A, lda, c.B, c.ldb, c.opB,
                        at(c.C, c_row * c.ldc, ct), c.ldc),
                stream);
  };
  if (ranks == 1 || c.m_local == 0) return rows_gemm(c.m_local, c.A, c.lda, int64_t(rank) * c.m_local);

  const Chunks chunks(c.m_local, c.chunks);
  Scratch gathered;
  if (Status s = gathered.get(c.workspace, c.workspace_bytes, workspace_size(c, ranks), stream); !s.ok()) return s;
  cudaStream_t comm_s = nullptr;
  if (Status s = comm_stream(&comm_s); !s.ok()) return s;
  Join join{comm_s, stream};
  Events ev;  // 0: the inputs are ready; 1 + i: chunk i gathered
  if (Status s = ev.make(1 + size_t(chunks.count)); !s.ok()) return s;
  TESSEL_TP_CUDA(cudaEventRecord(ev[0], stream));
  TESSEL_TP_CUDA(cudaStreamWaitEvent(comm_s, ev[0], 0));

  // Chunk i of every rank, rank by rank: ranks * size(i) rows of k, from row ranks * begin(i).
  auto chunk_rows = [&](int i, int r) { return at(gathered.ptr, (int64_t(ranks) * chunks.begin(i) + r * chunks.size(i)) * c.k, ab); };
  for (int i = 0; i < chunks.count; ++i) {
    const int64_t count = chunks.size(i) * c.k;
    const void* send = at(c.A, chunks.begin(i) * c.lda, ab);
    if (c.lda != c.k) {  // rows not contiguous: into this rank's place first, then gathered in place
      TESSEL_TP_CUDA(cudaMemcpy2DAsync(chunk_rows(i, rank), size_t(c.k) * size_of(ab), send,
                                       size_t(c.lda) * size_of(ab), size_t(c.k) * size_of(ab),
                                       size_t(chunks.size(i)), cudaMemcpyDeviceToDevice, comm_s));
      send = chunk_rows(i, rank);
    }
    TESSEL_TP_NCCL(ncclAllGather(send, chunk_rows(i, 0), size_t(count), type, comm, comm_s));
    TESSEL_TP_CUDA(cudaEventRecord(ev[1 + size_t(i)], comm_s));
  }
  // This rank's rows need nothing from the others.
  if (Status s = rows_gemm(c.m_local, c.A, c.lda, int64_t(rank) * c.m_local); !s.ok()) return s;
  for (int i = 0; i < chunks.count; ++i) {
    TESSEL_TP_CUDA(cudaStreamWaitEvent(stream, ev[1 + size_t(i)], 0));
    for (int r = 0; r < ranks; ++r) {
      if (r == rank) continue;
      if (Status s = rows_gemm(chunks.size(i), chunk_rows(i, r), c.k, int64_t(r) * c.m_local + chunks.begin(i));
          !s.ok()) {
        return s;
      }
    }
  }
  return {};
}

Status gemm_reduce_scatter(const GemmReduceScatter& c, ncclComm_t comm, cudaStream_t stream) {
  int ranks = 0, rank = 0;
  if (Status s = ranks_of(comm, &ranks, &rank); !s.ok()) return s;
  if (Status s = check_common(c.m, c.n, c.k_local, c.A, c.lda, c.B, c.ldb, c.opB, c.C, c.ldc); !s.ok()) {
    return s;
  }
  if (c.m % ranks != 0) return invalid("m must be a multiple of the ranks (" + std::to_string(ranks) + ")");
  const ncclDataType_t type = nccl_type(c.precision.c);
  const DType ab = c.precision.ab, ct = c.precision.c;
  const int64_t part = c.m / ranks;  // rows of C per rank
  auto rows_gemm = [&](int64_t rows, int64_t a_row, void* C, int64_t ldc) {
    return gemm(gemm_of(c.precision, rows, c.n, c.k_local, c.alpha, 0.0f, at(c.A, a_row * c.lda, ab), c.lda, c.B,
                        c.ldb, c.opB, C, ldc),
                stream);
  };
  if (ranks == 1 || part == 0 || c.n == 0) return rows_gemm(part, 0, c.C, c.ldc);

  const Chunks chunks(part, c.chunks);
  Scratch partials;
  if (Status s = partials.get(c.workspace, c.workspace_bytes, workspace_size(c, ranks), stream); !s.ok()) return s;
  cudaStream_t comm_s = nullptr;
  if (Status s = comm_stream(&comm_s); !s.ok()) return s;
  Join join{comm_s, stream};  // C is complete on `stream` after the call
  Events ev;  // i: chunk i's partial sums made
  if (Status s = ev.make(size_t(chunks.count)); !s.ok()) return s;

  // Chunk i's partial sums: every rank's rows of it, rank by rank (size(i) x n each).
  auto chunk_rows = [&](int i, int r) { return at(partials.ptr, (int64_t(ranks) * chunks.begin(i) + r * chunks.size(i)) * c.n, ct); };
  for (int i = 0; i < chunks.count; ++i) {
    for (int r = 0; r < ranks; ++r) {
      if (Status s = rows_gemm(chunks.size(i), int64_t(r) * part + chunks.begin(i), chunk_rows(i, r), c.n); !s.ok()) {
        return s;
      }
    }
    TESSEL_TP_CUDA(cudaEventRecord(ev[size_t(i)], stream));
    TESSEL_TP_CUDA(cudaStreamWaitEvent(comm_s, ev[size_t(i)], 0));
    const size_t count = size_t(chunks.size(i) * c.n);
    if (c.ldc == c.n) {
      TESSEL_TP_NCCL(ncclReduceScatter(chunk_rows(i, 0), at(c.C, chunks.begin(i) * c.ldc, ct), count, type, ncclSum,
                                       comm, comm_s));
    } else {  // in place, then into C's rows
      TESSEL_TP_NCCL(ncclReduceScatter(chunk_rows(i, 0), chunk_rows(i, rank), count, type, ncclSum, comm, comm_s));
      TESSEL_TP_CUDA(cudaMemcpy2DAsync(at(c.C, chunks.begin(i) * c.ldc, ct), size_t(c.ldc) * size_of(ct),
                                       chunk_rows(i, rank), size_t(c.n) * size_of(ct), size_t(c.n) * size_of(ct),
                                       size_t(chunks.size(i)), cudaMemcpyDeviceToDevice, comm_s));
    }
  }
  return {};
}

}  // namespace tessel::tp
