// Tensor-parallel GEMMs over NCCL: the GEMM of a layer whose activations or
// weights are split across GPUs, one rank (process or thread) per GPU, with
// the communication overlapped with tessel's GEMMs chunk by chunk. Built
// where NCCL is found (target tessel::tessel_tp, TESSEL_HAS_NCCL).
//
// Every rank calls with its own shards, on its own GPU (the current device)
// and stream; the call is enqueued on `stream` and returns. The communicator
// is used on an internal stream of the library's, ordered after `stream`'s
// work so far; `stream` waits for it before anything enqueued after the call.
#pragma once

#include <nccl.h>

#include <tessel/tessel.hpp>

namespace tessel::tp {

// What both patterns take besides their sizes: this rank's operands (A
// row-major with lda; B with op N stored k x n, with op T stored n x k), C,
// and how the call runs.
struct ShardedGemm {
  Precision precision{DType::kBF16, DType::kBF16, Compute::kF32};
  float alpha = 1.0f;
  const void* A = nullptr;
  int64_t lda = 0;
  const void* B = nullptr;
  int64_t ldb = 0;
  Op opB = Op::N;
  void* C = nullptr;
  int64_t ldc = 0;
  int chunks = 0;  // chunks of each rank's rows (0: the library's choice)
  // Scratch memory (tp::workspace_size), device memory on this GPU; null:
  // allocated and freed in stream order.
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// Column-parallel layer: C = alpha * all_gather_by_rows(A) * op(B) + beta * C.
// A: this rank's m_local x k rows of the whole activation; B: this rank's
// k x n weight shard; C: (ranks * m_local) x n, rank r's rows at r * m_local.
// The scratch memory holds the other ranks' rows.
struct AllGatherGemm : ShardedGemm {
  int64_t m_local = 0, n = 0, k = 0;
  float beta = 0.0f;
};

// Row-parallel layer: this rank's rows of C = alpha * reduce_scatter_by_rows(
// the sum over ranks of A_r * op(B_r)). A: m x k_local (this rank's columns of
// the whole A); B: this rank's k_local rows of the weight; C: (m / ranks) x n,
// this rank's rows (m a multiple of the ranks), overwritten (the sum arrives
// in pieces). The scratch memory holds the partial sums, which travel and
// are added in C's type.
struct GemmReduceScatter : ShardedGemm {
  int64_t m = 0, n = 0, k_local = 0;
};

Status all_gather_gemm(const AllGatherGemm& call, ncclComm_t comm, cudaStream_t stream = nullptr);
Status gemm_reduce_scatter(const GemmReduceScatter& call, ncclComm_t comm, cudaStream_t stream = nullptr);

// The NCCL element type of a tessel element type.
ncclDataType_t nccl_type(DType type);

// Scratch bytes a call needs on `ranks` ranks.
size_t workspace_size(const AllGatherGemm& call, int ranks);
size_t workspace_size(const GemmReduceScatter& call, int ranks);

}  // namespace tessel::tp
