// Ladder step 02 — global-memory coalescing.
//
// Same work per thread as step 01, but threadIdx.x now runs along the
// COLUMNS of C. The 32 threads of a warp share one row i, so (for op(B) = B)
// their loads of B(q, j..j+31) and their stores to C(i, j..j+31) fall in
// consecutive addresses and the hardware merges them into a few 128-byte
// transactions, while the load of A(i, q) is one broadcast. The arithmetic
// is unchanged; only the index mapping moved, and with it the memory traffic.
#include "device/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

constexpr int kBlock = NaiveConfig::kBlock;  // 32 x 32 threads, one C element each

template <bool TransA, bool TransB>
__global__ void coalesced_kernel(SgemmArgs p) {
  const int64_t i = int64_t(blockIdx.y) * kBlock + threadIdx.y;  // row of C
  const int64_t j = int64_t(blockIdx.x) * kBlock + threadIdx.x;  // column of C: consecutive in a warp
  if (i >= p.m || j >= p.n) return;
  float acc = 0.0f;
  for (int64_t q = 0; q < p.k; ++q) {
    acc += device::load_op<TransA>(p.A, p.lda, i, q) * device::load_op<TransB>(p.B, p.ldb, q, j);
  }
  device::store_result(p.C, p.ldc, i, j, acc, p.alpha, p.beta);
}

}  // namespace

cudaError_t launch_coalesced(const SgemmArgs& args, cudaStream_t stream) {
  return device::launch_tiled(args, kBlock, kBlock, [&](auto ta, auto tb, dim3 grid, const SgemmArgs& p) {
    return device::launch(coalesced_kernel<ta, tb>, grid, dim3(kBlock, kBlock), 0, stream, p);
  });
}

}  // namespace tessel::impl
