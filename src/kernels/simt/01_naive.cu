// Ladder step 01 — naive.
//
// One thread per element of C: thread (x, y) computes the dot product of row
// x of op(A) with column y of op(B), reading every operand straight from
// global memory. As in the worklogs, threadIdx.x runs along the ROWS of C,
// so the 32 threads of a warp touch 32 different rows: each warp-wide load
// of A and store of C hits 32 separate cache lines (uncoalesced). That
// mapping is the point of this step; step 02 fixes it.
#include "device/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

constexpr int kBlock = NaiveConfig::kBlock;  // 32 x 32 threads, one C element each

template <bool TransA, bool TransB>
__global__ void naive_kernel(SgemmArgs p) {
  const int64_t i = int64_t(blockIdx.x) * kBlock + threadIdx.x;  // row of C
  const int64_t j = int64_t(blockIdx.y) * kBlock + threadIdx.y;  // column of C
  if (i >= p.m || j >= p.n) return;
  float acc = 0.0f;
  for (int64_t q = 0; q < p.k; ++q) {
    acc += device::load_op<TransA>(p.A, p.lda, i, q) * device::load_op<TransB>(p.B, p.ldb, q, j);
  }
  device::store_result(p.C, p.ldc, i, j, acc, p.alpha, p.beta);
}

}  // namespace

cudaError_t launch_naive(const SgemmArgs& args, cudaStream_t stream) {
  return device::with_ops(args.opA, args.opB, [&](auto ta, auto tb) {
    return device::split_cols(args, kBlock, [&](const SgemmArgs& p) {
      const dim3 grid(device::ceil_div(p.m, kBlock), device::ceil_div(p.n, kBlock));
      return device::launch(naive_kernel<ta, tb>, grid, dim3(kBlock, kBlock), 0, stream, p);
    });
  });
}

}  // namespace tessel::impl
